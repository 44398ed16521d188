"""Getting a file's text in: the size and line limits, decoding, workbook cells, and the one reading pipeline."""
