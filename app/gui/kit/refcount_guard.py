"""A guard against a reference-counting defect of some PySide6 builds on Python < 3.12.

PySide6 6.12.0, run on Python 3.10 or 3.11, gives up one reference to `None` on every call
of a Qt method that returns nothing (`setText`, `start`, `beginInsertRows`...) and one to
`True` on every `Signal.emit()`, without having taken them. Since Python 3.12 these
objects are immortal and the mistake is harmless; before 3.12 their counts fall with
every keystroke, and after some thousands of calls the interpreter aborts with
"Fatal Python error: none_dealloc" (or "bool_dealloc"). For an app used all day that is a
certain crash.

`guard_singletons()` measures the defect once; only when it shows does it raise the counts
of None, True and False by 2**40, which no session can use up: the effect Python 3.12
gives them natively. It touches nothing else, and the right cure remains a PySide6 build
without the defect.

Why keep it now that pyproject.toml excludes PySide6-Essentials 6.12.0: the exclusion names
the one build we measured. Whether later 6.12 releases still have the defect is unknown,
and a PySide6 that pip's constraint did not choose (a distribution or conda package, an
install with --no-deps) is not excluded at all. On a sound build the guard costs eight Qt
calls at import and changes nothing; tests/gui/kit/test_refcount_guard.py runs the app's kind
of load on whatever build is installed.
"""

from __future__ import annotations

import ctypes
import sys

#: Added to the reference counts: a trillion calls before any risk.
HEADROOM = 1 << 40
_applied = False


def _refcount_cell(obj: object) -> ctypes.c_ssize_t | None:
    """The object's ob_refcnt field, when it is where a release build keeps it."""
    cell = ctypes.c_ssize_t.from_address(id(obj))
    # sys.getrefcount counts its own argument: one more than the field. A few temporary
    # references may come and go in between; a wrong offset would be off by far more.
    return cell if abs(cell.value - (sys.getrefcount(obj) - 1)) <= 4 else None


def defect_present() -> bool:
    """True when Qt calls and signal emits lose references to None or True here."""
    from PySide6.QtCore import QObject, Signal

    class _Probe(QObject):
        pinged = Signal()

    probe = _Probe()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(8):
        probe.setObjectName("probe")
        probe.pinged.emit()
    lost_none = none_before - sys.getrefcount(None)
    lost_true = true_before - sys.getrefcount(True)
    return lost_none >= 8 or lost_true >= 8


def guard_singletons() -> bool:
    """Protect None, True and False if (and only if) the defect is present; True if done."""
    global _applied
    if _applied:
        return True
    if sys.version_info >= (3, 12) or not defect_present():
        return False
    found = [_refcount_cell(obj) for obj in (None, True, False)]
    cells = [cell for cell in found if cell is not None]
    if len(cells) < len(found):
        return False  # an unusual build: better not to write anything
    for cell in cells:
        cell.value += HEADROOM
    _applied = True
    return True
