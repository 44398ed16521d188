"""JobRunner: results, errors and cancels of background jobs reach the GUI thread."""

from __future__ import annotations

import threading

import pytest

from simrate.core.base.errors import SimrateError
from simrate.gui.base.jobs import JobRunner


@pytest.fixture
def runner(qtbot):
    runner = JobRunner()
    yield runner
    runner.cancel_all()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)


def run_to_end(qtbot, runner, function, **callbacks):
    """Start a job and wait until its last callback ran; what each callback received."""
    seen: dict[str, list] = {name: [] for name in
                             ("finished", "failed", "cancelled", "progress", "note")}
    handlers = {name: (lambda *args, name=name: seen[name].append(args)) for name in seen}
    handlers.update(callbacks)
    runner.start(function, **handlers)
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    return seen


def test_result_progress_and_notes_arrive_in_order(qtbot, runner):
    def work(job):
        job.note("reading")
        job.progress(1, 2)
        job.progress(2, 2)
        return 42

    seen = run_to_end(qtbot, runner, work)
    assert seen["note"] == [("reading",)]
    assert seen["progress"] == [(1, 2), (2, 2)]
    assert seen["finished"] == [(42,)] and not seen["failed"] and not seen["cancelled"]


def test_errors_arrive_as_simrate_errors(qtbot, runner):
    def refused(job):
        raise SimrateError("bad line", "f.tsv", 3)

    def bug(job):
        return 1 / 0

    assert str(run_to_end(qtbot, runner, refused)["failed"][0][0]) == "f.tsv:3: bad line"
    error = run_to_end(qtbot, runner, bug)["failed"][0][0]
    assert isinstance(error, SimrateError) and "ZeroDivisionError" in str(error)


def test_a_cancelled_job_stops_at_its_next_check(qtbot, runner):
    started, release = threading.Event(), threading.Event()
    results, cancels = [], []

    def work(job):
        started.set()
        release.wait(10)
        job.check()
        return "not reached"

    job = runner.start(work, finished=results.append, cancelled=lambda: cancels.append(1))
    started.wait(10)
    assert job.cancel()
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    assert cancels == [1] and results == []


def test_cancel_after_commit_is_refused_and_the_result_delivered(qtbot, runner):
    committed, release = threading.Event(), threading.Event()
    results = []

    def work(job):
        job.commit()
        committed.set()
        release.wait(10)
        job.check()  # does not stop: the cancel was refused
        return "written"

    job = runner.start(work, finished=results.append)
    committed.wait(10)
    assert job.cancel() is False
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    assert results == ["written"]


def test_a_result_that_came_despite_a_late_cancel_is_delivered(qtbot, runner):
    done, release = threading.Event(), threading.Event()
    results, cancels = [], []

    def work(job):
        done.set()
        release.wait(10)
        return "file replaced"  # past its last check: the work is done

    job = runner.start(work, finished=results.append, cancelled=lambda: cancels.append(1))
    done.wait(10)
    job.cancel()
    release.set()
    qtbot.waitUntil(lambda: not runner.busy, timeout=10000)
    assert results == ["file replaced"] and cancels == []


def test_a_discarded_job_reaches_nobody(qtbot, runner):
    started, release = threading.Event(), threading.Event()
    seen, idle = [], []
    runner.idle.connect(lambda: idle.append(1))

    def work(job):
        started.set()
        release.wait(10)
        return "too late"  # past its last check: it finishes despite the cancel

    job = runner.start(work, finished=seen.append, failed=seen.append,
                       cancelled=lambda: seen.append("cancelled"))
    started.wait(10)
    runner.discard(job)
    assert job.cancelled and not runner.busy and idle == [1]
    release.set()
    qtbot.wait(100)
    runner.collect()
    assert seen == []
