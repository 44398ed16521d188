"""Qt helpers that know nothing of projects: accessible names, layout fitting, the palette,
file dialogs that never open the files they list, and a guard for a PySide6 refcount bug."""
