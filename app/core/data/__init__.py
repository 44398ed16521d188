"""The project file's tables in bulk: reads as columns and frames, imports, their undo, counts, migrations."""
