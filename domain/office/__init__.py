"""ZIP-based document containers and spreadsheet tables."""
