"""The flag rule above the adjudication queue: the organizer switches the rule and its
threshold, the project stores and logs it, and the queue shows exactly the items it flags."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from simrate.core.base.flagrule import RULES
from simrate.core.project import Project
from simrate.gui.base.context import ApplicationContext
from simrate.gui.organizer.adjudication_queue import AdjudicationQueue
from simrate.gui.organizer.flag_rule_box import FlagRuleBox, empty_queue_text
from tests.core.frames import make_items, make_rated_project, make_ratings


def open_queue(qtbot, settings, path) -> tuple[ApplicationContext, AdjudicationQueue]:
    context = ApplicationContext(settings, organizer=True)
    context.open_project(path, "org")
    widget = AdjudicationQueue(context)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    qtbot.waitExposed(widget)
    widget.open_first_flagged()
    return context, widget


@pytest.fixture
def queue(qtbot, settings, tmp_path):
    context, widget = open_queue(qtbot, settings,
                                 make_rated_project(tmp_path / "q.simrate", n_items=30))
    yield widget
    context.close_project()


def shown_ids(queue: AdjudicationQueue) -> set[str]:
    model = queue.model
    return {model.entry(row).item_id for row in range(model.rowCount())
            if model.entry(row).kind == "flagged"}


def type_threshold(qtbot, box: FlagRuleBox, text: str) -> None:
    """Type a threshold into the spin box as a user does, then Enter."""
    box.spin.setFocus()
    box.spin.lineEdit().selectAll()
    qtbot.keyClicks(box.spin.lineEdit(), text)
    qtbot.keyClick(box.spin.lineEdit(), Qt.Key.Key_Return)


def test_the_box_shows_the_projects_rule_with_accessible_names(queue):
    box = queue.rule_box
    rule = queue.project.flag_rule
    assert rule.name == "auto"
    assert box.combo.currentText() == "auto"
    assert box.description.text() == rule.describe()
    assert box.spin.value() == pytest.approx(rule.threshold)
    assert box.combo.accessibleName() == "Flag rule"
    assert box.spin.accessibleName() == "Flag threshold"
    assert [box.combo.itemText(i) for i in range(box.combo.count())] == list(RULES)
    scale = queue.project.scale
    assert box.spin.maximum() == pytest.approx(scale.high - scale.low)
    assert box.spin.minimum() > 0


def test_switching_the_rule_and_threshold_changes_the_queue(qtbot, queue):
    project, box = queue.project, queue.rule_box
    before = project.flagged_ids()
    assert shown_ids(queue) == before and before
    box.combo.setCurrentIndex(RULES.index("uncertain"))
    assert project.flag_rule.name == "uncertain"
    assert shown_ids(queue) == project.flagged_ids()
    assert box.description.text() == project.flag_rule.describe()
    assert box.measure_label.text().startswith("SD")
    type_threshold(qtbot, box, "0.6")
    assert project.flag_rule.uncertain_threshold == pytest.approx(0.6)
    after = project.flagged_ids()
    assert shown_ids(queue) == after
    assert after != before, "the fixture must flag other items under the new rule"
    assert box.description.text() == project.flag_rule.describe()
    assert "0.6" in box.description.text()
    changes = project.changes()
    logged = changes[changes["kind"] == "flag_rule"]
    assert len(logged) == 2
    new = logged["new"].iloc[-1]
    new = json.loads(new) if isinstance(new, str) else new
    assert new["rule"] == "uncertain" and new["uncertain_threshold"] == pytest.approx(0.6)
    # the item on the right is one of the queue's, and the counts line follows
    assert queue.current_id in after | {None}
    qtbot.waitUntil(lambda: f"<b>{len(after)}</b> flagged" in queue.counts_label.text())


def test_range_rule_steps_by_the_scale_step(qtbot, queue):
    project, box = queue.project, queue.rule_box
    box.combo.setCurrentIndex(RULES.index("range"))
    assert box.measure_label.text().startswith("spread")
    assert box.spin.singleStep() == pytest.approx(project.scale.step)
    assert box.spin.value() == pytest.approx(project.flag_rule.range_threshold)
    box.spin.stepUp()  # the arrow: 1.25
    assert project.flag_rule.range_threshold == pytest.approx(1.0 + project.scale.step)
    assert shown_ids(queue) == project.flagged_ids()


def test_a_rule_set_elsewhere_is_shown(qtbot, queue):
    project, box = queue.project, queue.rule_box
    project.set_flag_rule("uncertain", 1.2)
    assert box.combo.currentText() == "uncertain"
    assert box.spin.value() == pytest.approx(1.2)
    assert shown_ids(queue) == project.flagged_ids()
    assert len(project.changes().query("kind == 'flag_rule'")) == 1


def test_a_refused_threshold_leaves_the_rule(qtbot, queue):
    project, box = queue.project, queue.rule_box
    messages = []
    queue.failed.connect(messages.append)
    box._write("uncertain", 99.0)  # beyond the scale's span: the core refuses it
    assert messages and "threshold" in messages[0]
    assert project.flag_rule.name == "auto"
    assert box.combo.currentText() == "auto"


def test_empty_queue_names_the_rule_and_fills_when_the_rule_flags(qtbot, settings, tmp_path):
    path = tmp_path / "calm.simrate"
    with Project.create(path, scale="clss") as project:
        project.import_items(make_items(4), source="items.tsv")
        project.import_ratings(make_ratings(
            [(f"d:{i}", rater, 2.0 + 0.5 * (rater == "b")) for i in range(1, 5)
             for rater in ("a", "b")]), source="r.tsv")
    context, widget = open_queue(qtbot, settings, path)
    try:
        project = widget.project
        assert widget.model.rowCount() == 0
        assert widget.right.currentWidget() is widget.placeholder
        assert project.flag_rule.describe() in widget.placeholder.text()
        assert "the threshold or more" not in widget.placeholder.text()
        assert widget.placeholder.text() == empty_queue_text(project.flag_rule, 0)
        widget.rule_box.combo.setCurrentIndex(RULES.index("range"))
        type_threshold(qtbot, widget.rule_box, "0.5")
        assert project.flagged_ids() == {f"d:{i}" for i in range(1, 5)}
        assert shown_ids(widget) == project.flagged_ids()
        assert widget.right.currentWidget() is widget.view
        tip = widget.model.index(0, 2).data(Qt.ItemDataRole.ToolTipRole)
        assert project.flag_rule.describe() in tip
    finally:
        context.close_project()
