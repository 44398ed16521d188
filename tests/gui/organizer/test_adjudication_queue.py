"""The adjudication queue, driven by the keyboard: verdicts, flags and counts follow."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simrate.core.review.index import FLAGGED, SECOND_LOOK
from simrate.gui.base.context import ApplicationContext
from simrate.gui.organizer.adjudication_queue import AdjudicationQueue
from simrate.gui.organizer.queue_model import QueueModel
from simrate.gui.organizer.rater_marks import ItemRatingsModel, item_ratings
from tests.core.frames import make_rated_project


@pytest.fixture
def organizer_context(qtbot, settings, tmp_path):
    """An organizer's context on a rated project with several flagged items."""
    context = ApplicationContext(settings, organizer=True)
    context.open_project(make_rated_project(tmp_path / "q.simrate", n_items=20), "org")
    yield context
    context.close_project()


@pytest.fixture
def queue(qtbot, organizer_context):
    widget = AdjudicationQueue(organizer_context)
    qtbot.addWidget(widget)
    widget.resize(1200, 700)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()
    widget.open_first_flagged()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is widget.scale_widget)
    return widget


def press(qtbot, *keys):
    for key in keys:
        qtbot.keyClick(QApplication.focusWidget(), key)


def expected_order(project) -> list[str]:
    """Flagged items by spread (largest first), ties in project order, from the core."""
    return project.flagged()["item_id"].tolist()


def test_queue_lists_flagged_items_largest_spread_first(queue):
    project = queue.project
    shown = [queue.model.entry(r).item_id for r in range(queue.model.rowCount())]
    assert shown == expected_order(project)
    spreads = project.flagged()["spread"].tolist()
    assert spreads == sorted(spreads, reverse=True)
    assert queue.current_id == shown[0]


def test_three_flagged_items_adjudicated_by_keyboard(qtbot, queue):
    project = queue.project
    order = expected_order(project)
    assert len(order) >= 4
    flagged_before = len(project.flagged_ids())
    press(qtbot, Qt.Key.Key_2, Qt.Key.Key_Plus, Qt.Key.Key_Return)  # 2.25
    assert queue.current_id == order[1]
    press(qtbot, Qt.Key.Key_3, Qt.Key.Key_Return)
    press(qtbot, Qt.Key.Key_1, Qt.Key.Key_Minus, Qt.Key.Key_Minus, Qt.Key.Key_Return)  # 0.5
    verdicts = project.adjudications().set_index("item_id")["score"].to_dict()
    assert verdicts == {order[0]: 2.25, order[1]: 3.0, order[2]: 0.5}
    assert project.adjudications()["by"].tolist() == ["org"] * 3
    assert len(project.flagged_ids()) == flagged_before - 3
    assert queue.current_id == order[3]
    assert [queue.model.entry(r).item_id for r in range(queue.model.rowCount())] == order[3:]
    qtbot.waitUntil(lambda: f"<b>{flagged_before - 3}</b> flagged" in queue.counts_label.text())
    assert "3 adjudicated" in queue.counts_label.text()


def test_note_is_saved_with_the_verdict(qtbot, queue):
    first = queue.current_id
    press(qtbot, Qt.Key.Key_4)
    queue.focus_note()
    qtbot.keyClicks(queue.note_edit, "smaller text omits the date")
    press(qtbot, Qt.Key.Key_Escape, Qt.Key.Key_Return)
    record = queue.project.adjudications().set_index("item_id").loc[first]
    assert (record["score"], record["note"]) == (4.0, "smaller text omits the date")


def test_typed_verdict_is_the_value_typed(qtbot, queue):
    """`1`, `.`, `7`, `5` is 1.75; `3.3` is off the 0.25 grid and refused, not rounded."""
    order = expected_order(queue.project)
    lines = []
    queue.message.connect(lines.append)
    press(qtbot, Qt.Key.Key_1, Qt.Key.Key_Period, Qt.Key.Key_7)
    assert queue.score_label.text() == "1.7"
    press(qtbot, Qt.Key.Key_5, Qt.Key.Key_Return)
    press(qtbot, Qt.Key.Key_3, Qt.Key.Key_Period, Qt.Key.Key_3, Qt.Key.Key_Return)
    assert lines[-2].startswith("score 3.3 is not on the grid of scale")
    verdicts = queue.project.adjudications().set_index("item_id")["score"].to_dict()
    assert verdicts == {order[0]: 1.75}
    assert queue.current_id == order[1]
    press(qtbot, Qt.Key.Key_3, Qt.Key.Key_Period, Qt.Key.Key_5, Qt.Key.Key_Return)
    verdicts = queue.project.adjudications().set_index("item_id")["score"].to_dict()
    assert verdicts == {order[0]: 1.75, order[1]: 3.5}


def test_enter_without_a_score_saves_nothing(qtbot, queue):
    first = queue.current_id
    with qtbot.waitSignal(queue.message):
        press(qtbot, Qt.Key.Key_Return)
    assert queue.project.adjudications().empty
    assert queue.current_id == first


def test_left_and_right_move_along_the_queue_without_saving(qtbot, queue):
    order = expected_order(queue.project)
    press(qtbot, Qt.Key.Key_3, Qt.Key.Key_Right)
    assert queue.current_id == order[1]
    press(qtbot, Qt.Key.Key_Left)
    assert queue.current_id == order[0]
    assert queue.project.adjudications().empty
    assert queue.pending_code is None


def test_undo_puts_the_item_back_in_the_queue(qtbot, queue):
    first = queue.current_id
    press(qtbot, Qt.Key.Key_2, Qt.Key.Key_Return)
    assert first not in queue.project.flagged_ids()
    queue.context.undo_stack.undo()
    assert first in queue.project.flagged_ids()
    assert queue.model.row_of(first) == 0
    queue.context.undo_stack.redo()
    assert queue.project.adjudications()["item_id"].tolist() == [first]


def test_every_raters_score_is_marked_with_their_note(qtbot, queue):
    project = queue.project
    first = queue.current_id
    project.rate(first, "ann", project.rating(first, "ann"), note="the phrase is idiomatic")
    marks = {m.annotator: m for m in queue.scale_widget.marks}
    for name in ("ann", "ben"):
        assert marks[name].code == project.scale.to_code(project.rating(first, name))
    notes = {queue.ratings_model.index(r, 0).data(): queue.ratings_model.index(r, 2).data()
             for r in range(queue.ratings_model.rowCount())}
    assert notes["ann"] == "the phrase is idiomatic"


def test_second_look_items_are_shown_marked(qtbot, queue):
    project = queue.project
    first = queue.current_id
    press(qtbot, Qt.Key.Key_0, Qt.Key.Key_Return)
    project.rate(first, "dan", 4.0)  # a later rating far from the verdict
    assert first in project.second_look_ids()
    row = queue.model.row_of(first)
    assert row >= 0 and queue.model.entry(row).kind == SECOND_LOOK
    assert queue.model.index(row, 2).data() == "second look"
    queue.show_item(first)
    assert "second look" in queue.status_label.text()
    press(qtbot, Qt.Key.Key_3, Qt.Key.Key_Return)  # a new verdict settles it
    assert first not in project.second_look_ids()
    assert queue.model.row_of(first) == -1


def test_the_last_verdict_empties_the_queue(qtbot, queue):
    for _ in range(queue.model.rowCount()):
        press(qtbot, Qt.Key.Key_2, Qt.Key.Key_Return)
    assert queue.project.flagged_ids() == set()
    assert queue.current_id is None
    assert queue.right.currentWidget() is queue.placeholder


def test_queue_model(qtmodeltester, organizer_context):
    project = organizer_context.project
    model = QueueModel(project)
    qtmodeltester.check(model)
    first = model.entry(0).item_id
    project.adjudicate(first, 1.0)
    model.refresh_item(first)
    qtmodeltester.check(model)
    assert model.row_of(first) == -1
    assert model.first_row_of_kind(FLAGGED) == 0


def test_item_ratings_model(qtmodeltester, organizer_context):
    project = organizer_context.project
    model = ItemRatingsModel(project.scale)
    model.set_rows(item_ratings(project, "d:1"))
    qtmodeltester.check(model)
    assert model.rowCount() == 3
