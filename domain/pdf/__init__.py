"""PDF page geometry to document blocks: structure, running lines, tables, formulas, text
repairs."""
