"""`simrate check`: what is damaged in a project file (integrity.py), what can be opened to
find out (check_open.py), and the copy of what can be read (salvage.py)."""
