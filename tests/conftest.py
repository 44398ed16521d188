"""Shared fixtures: offscreen Qt, the real-data folder, small projects."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_DATA = ROOT / "sample_data"
#: ../shared/realdata beside the checkout; SIMRATE_REALDATA names it elsewhere (a worktree
#: that is not beside shared/).
REALDATA = Path(os.environ.get("SIMRATE_REALDATA") or ROOT.parent / "shared" / "realdata")


@pytest.fixture
def sample_data() -> Path:
    """The folder of our own small sample files."""
    return SAMPLE_DATA


@pytest.fixture
def realdata() -> Path:
    """../shared/realdata; tests using it must also carry @pytest.mark.realdata."""
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not present")
    return REALDATA


#: Test folders whose tests all run a Qt window (the rest ask for qtbot or qapp by name).
QT_FOLDERS = (ROOT / "tests" / "gui",)


@pytest.fixture(autouse=True)
def no_dialog_waits_for_ever(request):
    """A modal dialog left unanswered is closed after a while and fails its test, naming
    it, instead of holding the suite until the run's own time limit."""
    path = Path(str(request.node.path))
    if not ({"qtbot", "qapp"} & set(request.fixturenames)
            or any(path.is_relative_to(folder) for folder in QT_FOLDERS)):
        yield
        return
    request.getfixturevalue("qapp")
    from tests.support.modal_guard import ModalGuard

    guard = ModalGuard()
    yield
    guard.stop()
    if guard.seen:
        pytest.fail("left waiting for an answer: " + "; ".join(guard.seen), pytrace=False)


@pytest.fixture(autouse=True)
def background_jobs_finish_within_their_test():
    """Each test's background jobs end before the next test starts.

    Jobs run on Qt's global thread pool, which has one thread per core: a job a test left
    running (an interval bootstrap scheduled by a timer, a cancelled export still winding
    down) would otherwise hold a thread and delay the jobs of the tests after it.
    """
    yield
    if "PySide6.QtCore" in sys.modules:
        from PySide6.QtCore import QThreadPool

        QThreadPool.globalInstance().waitForDone(30_000)
