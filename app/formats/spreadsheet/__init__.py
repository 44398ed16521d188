"""The XLSX gold report: its sheets, their rows, and saving the workbook."""
