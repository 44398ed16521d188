"""Files written from a project: the export of every format, the agreement workbook's
sheets and the pyramid's tests."""
