"""All Qt code: the windows, panels and models of the simrate desktop app."""

from __future__ import annotations

from simrate.gui.kit.refcount_guard import guard_singletons

# Before any widget exists: some PySide6 builds lose references to None/True on Python
# < 3.12 and would abort the app after a few thousand calls (see refcount_guard).
guard_singletons()
