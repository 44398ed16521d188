"""The app survives a day's worth of Qt calls even on a PySide6 build that loses
references to None and True (PySide6 6.12 on Python < 3.12)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def test_many_emits_and_void_calls_do_not_abort_the_interpreter():
    script = textwrap.dedent("""
        import simrate.gui  # installs the guard when the defect is present
        from PySide6.QtCore import QObject, Signal

        class Busy(QObject):
            ping = Signal(int)

        busy = Busy()
        busy.ping.connect(lambda n: None)
        for n in range(50_000):   # far more than the few thousand that abort without it
            busy.ping.emit(n)
            busy.setObjectName("x")
        print("survived")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, env={"QT_QPA_PLATFORM": "offscreen", **_env()})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "survived" in done.stdout


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "QT_QPA_PLATFORM"}


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="immortal singletons: never acts")
def test_the_guard_can_find_the_counts_it_would_raise_on_this_interpreter():
    from simrate.gui.kit.refcount_guard import _refcount_cell

    # Were the reference-count field not where the guard looks, it would silently do nothing.
    assert all(_refcount_cell(obj) is not None for obj in (None, True, False))
