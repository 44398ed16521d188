"""The annotator report at crowd scale: sort, filter, and the STS 2012 rule as one undo step."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtGui import QUndoStack

from simrate.core.actions import ExcludeCareless, History
from simrate.core.project import Project
from simrate.core.team.quality import set_checks
from simrate.gui.base.bridge import ProjectBridge
from simrate.gui.organizer.annotator_report import COLUMNS, AnnotatorReport
from tests.cli.helpers import simrate
from tests.core.frames import make_items, make_ratings

COLUMN = {key: i for i, (key, _title, _fmt) in enumerate(COLUMNS)}
KNOWN = {"d:1": 0.0, "d:2": 1.0, "d:3": 2.5, "d:4": 3.5, "d:5": 5.0}


def worker_score(name: str, known: float, rng) -> float:
    """Careful workers follow the known score; 'Lazy' answers 2.5 always, 'Odd' reverses it,
    'Rand' guesses."""
    if name == "Lazy":
        return 2.5
    if name == "Odd":
        return 5.0 - known
    if name == "Rand":
        return float(rng.choice([0.0, 5.0, 4.0, 0.5, 1.0]))
    return float(np.clip(known + rng.choice([-0.5, 0, 0.5]), 0, 5))


@pytest.fixture
def crowd_path(tmp_path):
    rng = np.random.default_rng(5)
    names = ["amy", "Bea", "cal", "Dee", "Lazy", "Odd", "Rand"]
    truth = {f"d:{i}": KNOWN.get(f"d:{i}", float(rng.integers(0, 21)) / 4) for i in range(1, 21)}
    rows = [(item, name, worker_score(name, known, rng))
            for item, known in truth.items() for name in names]
    path = tmp_path / "crowd.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(make_items(20), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="batch.tsv")
        set_checks(project, KNOWN)
    return path


def check_r(project: Project, name: str) -> float:
    """Pearson of a worker's scores with the known ones, straight from the ratings."""
    mine = project.ratings().query("annotator == @name").set_index("item_id")["score"]
    ids = list(KNOWN)
    x, y = mine[ids].to_numpy(float), np.array([KNOWN[i] for i in ids])
    return float(np.corrcoef(x, y)[0, 1]) if x.std() > 0 else float("nan")


@pytest.fixture
def report(qtbot, crowd_path):
    project = Project.open(crowd_path)
    bridge = ProjectBridge(project)
    stack = QUndoStack()
    widget = AnnotatorReport(project, bridge, by="org", undo_stack=stack)
    qtbot.addWidget(widget)
    widget.resize(1100, 500)
    qtbot.waitUntil(lambda: widget.model.rowCount() == 7, timeout=10000)
    yield project, widget, stack
    # pytest-qt has closed and deleted the widget (and its runner) by now: wait for the
    # worker threads themselves, which outlive it
    assert QThreadPool.globalInstance().waitForDone(30_000)
    bridge.detach()
    project.close()


def shown(widget, key: str) -> list[str]:
    proxy = widget.proxy
    return [proxy.index(r, COLUMN[key]).data() for r in range(proxy.rowCount())]


def test_sorts_by_name_and_by_any_figure(report):
    _project, widget, _stack = report
    assert shown(widget, "annotator") == ["amy", "Bea", "cal", "Dee", "Lazy", "Odd", "Rand"]
    widget.table.sortByColumn(COLUMN["check_pearson"], Qt.SortOrder.AscendingOrder)
    values = shown(widget, "check_pearson")
    numbers = [float(v) for v in values if v != "\u2013"]
    assert numbers == sorted(numbers) and values[0] == f"{check_r(_project, 'Odd'):.3f}"
    assert values[-1] == "\u2013"  # Lazy's constant answers have no r: after every number
    widget.table.sortByColumn(COLUMN["mean"], Qt.SortOrder.DescendingOrder)
    means = [float(v) for v in shown(widget, "mean")]
    assert means == sorted(means, reverse=True)


def test_filter_box_keeps_matching_names(report):
    _project, widget, _stack = report
    widget.filter_edit.setText("a")
    assert shown(widget, "annotator") == ["amy", "Bea", "cal", "Lazy", "Rand"]
    widget.filter_edit.setText("DEE")
    assert shown(widget, "annotator") == ["Dee"]


def test_exclude_careless_is_one_undo_step_with_the_clis_rule(qtbot, report, tmp_path, capsys):
    project, widget, stack = report
    copy = tmp_path / "cli.simrate"
    shutil.copy(project.path, copy)
    careless = {n for n in project.annotators()
                if not check_r(project, n) >= 0.5}  # below 0.5, or no r at all
    assert careless == {"Lazy", "Odd", "Rand"}
    widget.careless_button.click()
    assert set(project.excluded_annotators()) == careless
    assert stack.count() == 1 and "3 careless workers" in stack.undoText()
    assert "Lazy" in widget.message_label.text()
    qtbot.waitUntil(lambda: all(r["excluded"] == (r["annotator"] in careless)
                                for r in widget.model.rows), timeout=10000)
    assert simrate(capsys, "annotators", copy, "--exclude-careless").status == 0
    with Project.open(copy) as cli_project:
        assert set(cli_project.excluded_annotators()) == careless
    stack.undo()
    assert project.excluded_annotators() == []
    stack.redo()
    assert set(project.excluded_annotators()) == careless
    logged = project.changes()
    assert (logged["kind"] == "exclude_rule").sum() == 3  # do, undo, redo


def test_nobody_careless_pushes_nothing(qtbot, report):
    project, widget, stack = report
    widget.careless_button.click()
    widget.careless_button.click()  # the second time the rule finds nobody
    assert stack.count() == 1
    assert "nobody was excluded" in widget.message_label.text()


def test_exclude_careless_action_without_qt(crowd_path):
    with Project.open(crowd_path) as project:
        history = History(project)
        assert history.run(ExcludeCareless(by="org"))
        assert set(project.excluded_annotators()) == {"Lazy", "Odd", "Rand"}
        assert not history.run(ExcludeCareless(by="org"))
        assert history.undo() and project.excluded_annotators() == []
