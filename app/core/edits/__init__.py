"""The one write path: `Project.edit()` (edit.py) and the only SQL that writes ratings,
adjudications and exclusions (writes.py)."""
