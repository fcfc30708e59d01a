"""Tools for LLM agents: JSON Schema definitions and their dispatch on `sheaf.Knowledge`."""
