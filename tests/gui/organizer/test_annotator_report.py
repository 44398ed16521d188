"""The annotator report table: figures from app/core/team/quality.py, exclusion toggles."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QThreadPool

from simrate.core.project import Project
from simrate.core.team.quality import set_checks
from simrate.gui.base.bridge import ProjectBridge
from simrate.gui.organizer.annotator_report import COLUMNS, AnnotatorReport, AnnotatorReportModel
from tests.core.frames import make_rated_project

COLUMN = {key: i for i, (key, _title, _fmt) in enumerate(COLUMNS)}


@pytest.fixture
def report(qtbot, tmp_path):
    project = Project.open(make_rated_project(tmp_path / "a.simrate", n_items=16))
    # ann and ben follow the known scores of four check items; 'cat' gives 2 to all of them
    known = {"d:1": 0.0, "d:2": 1.0, "d:3": 3.0, "d:5": 4.0}
    set_checks(project, known)
    for item_id, score in known.items():
        project.rate(item_id, "ann", score)
        project.rate(item_id, "ben", score)
        project.rate(item_id, "cat", 2.0)
    bridge = ProjectBridge(project)
    widget = AnnotatorReport(project, bridge, by="org")
    qtbot.addWidget(widget)
    qtbot.waitUntil(lambda: widget.model.rowCount() == 3, timeout=10000)
    yield project, widget
    # pytest-qt has closed and deleted the widget (and its runner) by now: wait for the
    # worker threads themselves, which outlive it
    assert QThreadPool.globalInstance().waitForDone(30_000)
    bridge.detach()
    project.close()


def cell(model, row: int, key: str):
    return model.index(row, COLUMN[key]).data()


def test_rows_show_each_raters_figures(report):
    project, widget = report
    model = widget.model
    names = [cell(model, r, "annotator") for r in range(3)]
    assert names == ["ann", "ben", "cat"]
    ratings = project.ratings()
    for row, name in enumerate(names):
        mine = ratings[ratings["annotator"] == name]["score"]
        assert cell(model, row, "rated") == f"{len(mine):,}"
        assert cell(model, row, "mean") == f"{mine.mean():.2f}"
    assert cell(model, 0, "check_pearson") == "1.000"
    assert "same score on every check item" in cell(model, 2, "flag_reason")
    assert "cat" in widget.status_label.text()


def test_unticking_counted_excludes_the_rater_and_ticking_includes_them(qtbot, report):
    project, widget = report
    model = widget.model
    index = model.index(2, COLUMN["excluded"])
    assert index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    before = widget.computed_at
    assert model.setData(index, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert project.excluded_annotators() == ["cat"]
    assert index.data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Unchecked
    qtbot.waitUntil(lambda: widget.computed_at > before and not widget.runner.busy,
                    timeout=10000)
    assert widget.model.rows[2]["excluded"]
    # r vs rest of ann is now against ben alone
    ratings = project.ratings()
    pair = ratings[ratings["annotator"].isin(["ann", "ben"])].pivot(
        index="item_id", columns="annotator", values="score").dropna()
    expected = pair["ann"].corr(pair["ben"])
    assert cell(widget.model, 0, "pearson_vs_rest") == f"{expected:.3f}"
    index = widget.model.index(2, COLUMN["excluded"])
    assert widget.model.setData(index, Qt.CheckState.Checked.value,
                                Qt.ItemDataRole.CheckStateRole)
    assert project.excluded_annotators() == []


def test_annotator_report_model(qtmodeltester, report):
    project, widget = report
    model = AnnotatorReportModel(project)
    model.set_rows(widget.model.rows)
    qtmodeltester.check(model)


def test_without_check_items_the_careless_rule_says_why_it_is_off(qtbot, tmp_path):
    project = Project.open(make_rated_project(tmp_path / "n.simrate"))
    bridge = ProjectBridge(project)
    widget = AnnotatorReport(project, bridge, by="org")
    qtbot.addWidget(widget)
    qtbot.waitUntil(lambda: widget.model.rowCount() == 3, timeout=10000)
    assert not widget.careless_button.isEnabled()
    assert "no check items" in widget.careless_button.toolTip()
    widget.close()
    assert QThreadPool.globalInstance().waitForDone(30_000)
    bridge.detach()
    project.close()


def test_the_columns_that_judge_a_rater_come_first():
    """r vs rest and the check-item figures right after the name: on screen in a narrow
    dock, never scrolled off to the right."""
    keys = [key for key, _title, _fmt in COLUMNS]
    assert keys[:6] == ["excluded", "annotator", "pearson_vs_rest", "check_pearson",
                        "check_mae", "checks"]


def test_the_rater_models_bias_and_reliability_are_columns_that_explain_themselves(report):
    project, widget = report
    model = widget.model
    titles = {key: model.headerData(COLUMN[key], Qt.Orientation.Horizontal)
              for key in ("bias", "reliability")}
    assert titles == {"bias": "Bias", "reliability": "Reliability"}
    bias_tip = model.headerData(COLUMN["bias"], Qt.Orientation.Horizontal,
                                Qt.ItemDataRole.ToolTipRole)
    assert "average rater" in bias_tip and "scale points" in bias_tip
    reliability_tip = model.headerData(COLUMN["reliability"], Qt.Orientation.Horizontal,
                                       Qt.ItemDataRole.ToolTipRole)
    assert "true variance" in reliability_tip
    assert not widget.table.isColumnHidden(COLUMN["bias"])
    assert not widget.table.isColumnHidden(COLUMN["reliability"])
    fitted = project.rater_model()
    for row in range(model.rowCount()):
        name = cell(model, row, "annotator")
        assert cell(model, row, "bias") == f"{fitted[name]['bias']:+.2f}"
        assert cell(model, row, "reliability") == f"{fitted[name]['reliability']:.2f}"
