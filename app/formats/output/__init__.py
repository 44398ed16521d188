"""Writing files: atomic output, export leftovers, and the gold table's text formats."""
