"""The item list's texts and datasets are read by a background job after the first item shows."""

from __future__ import annotations

import threading

import pytest

import simrate.gui.base.context as context_module
from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from tests.core.frames import make_items, make_ratings


@pytest.fixture
def two_projects(tmp_path):
    paths = []
    for name, n in (("a", 6), ("b", 9)):
        path = tmp_path / f"{name}.simrate"
        with Project.create(path, scale="sts") as project:
            project.import_items(make_items(n), source=f"{name}.tsv")
            project.import_ratings(make_ratings([("d:1", "ann", 2.5)]), source="r.tsv")
        paths.append(path)
    return paths


@pytest.fixture
def context(qtbot, settings):
    context = ApplicationContext(settings)
    yield context
    context.close_project()


def test_details_arrive_from_a_job_while_the_event_loop_runs(qtbot, context, two_projects,
                                                             monkeypatch):
    release, threads = threading.Event(), []
    real = context_module.read_item_details_from

    def slow_read(path):
        threads.append(threading.current_thread())
        assert release.wait(10)  # held until the GUI thread has shown it is not blocked
        return real(path)

    monkeypatch.setattr(context_module, "read_item_details_from", slow_read)
    context.open_project(two_projects[0], "ann")
    session = context.session
    assert not session.details_ready and session.current_id() is not None
    qtbot.waitUntil(lambda: bool(threads), timeout=5000)
    ticks = []
    qtbot.waitUntil(lambda: ticks.append(1) is None and len(ticks) > 20, timeout=5000)  # loop turns
    assert threads[0] is not threading.current_thread()
    assert not session.details_ready
    release.set()
    with qtbot.waitSignal(session.details_loaded, timeout=10_000):
        pass
    with Project.open(two_projects[0]) as project:
        items = project.items(["left", "right", "dataset"])
    assert session.left == items["left"].tolist() and session.right == items["right"].tolist()
    assert [session.dataset_names[c] for c in session.dataset_code] == items["dataset"].tolist()


def test_details_of_a_closed_project_never_reach_the_next_one(qtbot, context, two_projects,
                                                              monkeypatch):
    first, second = (str(p) for p in two_projects)
    release = {first: threading.Event(), second: threading.Event()}
    real = context_module.read_item_details_from
    started, done = [], []

    def held_read(path):
        started.append(str(path))
        assert release[str(path)].wait(10)
        details = real(path)
        done.append(str(path))
        return details

    monkeypatch.setattr(context_module, "read_item_details_from", held_read)
    context.open_project(two_projects[0], "ann")
    qtbot.waitUntil(lambda: started == [first], timeout=5000)
    context.open_project(two_projects[1], "ann")  # while a's details are still being read
    session = context.session
    qtbot.waitUntil(lambda: started == [first, second], timeout=5000)
    release[first].set()
    qtbot.waitUntil(lambda: done == [first], timeout=5000)
    qtbot.wait(100)  # a's result is collected and dropped
    assert not session.details_ready and session.n == 9
    release[second].set()
    qtbot.waitUntil(lambda: session.details_ready, timeout=10_000)
    assert session.n == 9 and len(session.left) == 9
    with Project.open(two_projects[1]) as project:
        assert session.left == project.items(["left"])["left"].tolist()


def test_details_are_read_on_the_gui_thread_when_the_job_cannot(qtbot, context, two_projects,
                                                                monkeypatch):
    def failing_read(path):
        raise OSError("the disk went away")

    monkeypatch.setattr(context_module, "read_item_details_from", failing_read)
    context.open_project(two_projects[0], "ann")
    session = context.session
    qtbot.waitUntil(lambda: session.details_ready, timeout=10_000)
    assert len(session.left) == 6 and session.left[0]
