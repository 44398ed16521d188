"""The project file and its tables: the SQLite store, reads as columns and frames, counts, raters, migrations, the change log."""
