"""The item list, the progress panel and the view settings, inside the main window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from simrate.gui.base.settings import TEXT_SIZE
from simrate.gui.rating.item_model import COL_ID
from simrate.gui.rating.progress_panel import duration


def test_double_click_in_the_list_shows_the_item_and_returns_the_keyboard(qtbot, window):
    table = window.item_list.table
    index = table.model().index(6, COL_ID)
    rect = table.visualRect(index)
    # A real double-click is a click and then a double-click event (QTest sends only the
    # second half with mouseDClick).
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.context.session.current_id() == "d:7"
    assert QApplication.focusWidget() is window.rating_panel.scale_widget
    assert window.rating_panel.left_pane.text().startswith("left text number 7")


def test_the_list_follows_the_rating_view(qtbot, window):
    window.context.session.go_to(4)
    selected = window.item_list.table.selectionModel().selectedRows()
    assert [i.row() for i in selected] == [4]


def test_filter_box_and_count(qtbot, window):
    window.context.project.rate("d:2", "alice", 1.0)
    panel = window.item_list
    panel.set_filter("rated")
    assert panel.model.rowCount() == 1
    assert panel.count_label.text() == "1 of 10 items shown"
    panel.set_filter("unrated")
    assert panel.count_label.text() == "9 of 10 items shown"


def test_progress_counts_only_my_ratings(qtbot, window):
    project = window.context.project
    panel = window.progress_panel
    project.rate("d:1", "alice", 2.0, seconds=4.0)
    project.rate("d:2", "alice", 3.0, seconds=6.0)
    project.skip("d:3", "alice", "unreadable")
    qtbot.waitUntil(lambda: "2</b> of 10" in panel.summary_label.text())
    qtbot.waitUntil(lambda: panel.model.rowCount() == 2)  # datasets come with the details
    assert "1 skipped" in panel.summary_label.text()
    assert panel.bar.value() == 3 and panel.bar.maximum() == 10
    assert "5.0 s (median)" in panel.pace_label.text()  # median of 4 and 6
    # bob's four ratings (fixture) count for nothing here.
    rows = {panel.model.data(panel.model.index(r, 0)): panel.model.data(panel.model.index(r, 1))
            for r in range(panel.model.rowCount())}
    assert rows == {"alpha": "1", "beta": "1"}


def test_time_per_item_is_recorded_when_saving(qtbot, window):
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_2)
    qtbot.wait(30)
    qtbot.keyClick(window.rating_panel.scale_widget, Qt.Key.Key_Return)
    seconds = window.context.project.rating_record("d:1", "alice")["seconds"]
    assert 0.02 <= seconds < 30
    assert window.context.session.session_count == 1


def test_text_size_changes_and_is_remembered(qtbot, window, settings):
    before = window.rating_panel.left_pane.view.font().pointSize()
    window.actions_by_name["larger"].trigger()
    window.actions_by_name["larger"].trigger()
    assert window.rating_panel.left_pane.view.font().pointSize() == before + 2
    assert settings.get(TEXT_SIZE) == before + 2
    window.actions_by_name["smaller"].trigger()
    assert settings.get(TEXT_SIZE) == before + 1


def test_f1_brings_the_guidelines_forward(qtbot, window):
    window.actions_by_name["guidelines"].trigger()
    dock = next(d for d in window.project_docks if d.objectName() == "dock_guidelines")
    assert dock.isVisible()
    assert "Very similar" in dock.widget().view.toPlainText()


def test_closing_remembers_the_window(qtbot, window, settings):
    from simrate.gui.base.settings import WINDOW_GEOMETRY

    window.close()
    assert not settings.get(WINDOW_GEOMETRY).isEmpty()


def test_durations_read_naturally():
    assert duration(42) == "42 s"
    assert duration(600) == "10 min"
    assert duration(3 * 3600 + 20 * 60) == "3 h 20 min"


@pytest.mark.parametrize("scale_name", ["clss", "sts"])
@pytest.mark.parametrize("width", [360, 420, 480, 520, 700, 1100])
def test_scale_labels_never_overlap_and_their_words_fit(qtbot, scale_name, width):
    """At any width a label box ends before the next begins, each word of each label fits
    its box in the font used, every label wrapped in its box shows whole (480: "Share some
    details" takes three lines at full size) and every box lies inside the widget."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QFontMetricsF

    from simrate.core.base.scale import load_scale
    from simrate.gui.widgets.scale_widget import ScaleWidget

    widget = ScaleWidget(load_scale(scale_name))
    qtbot.addWidget(widget)
    widget.resize(width, widget.sizeHint().height())
    widget.show()
    qtbot.waitExposed(widget)
    font, boxes = widget.label_layout()
    in_order = sorted(boxes, key=lambda b: b.left())  # points may be listed high to low
    for box, after in zip(in_order, in_order[1:], strict=False):
        assert box.right() <= after.left()
    metrics = QFontMetricsF(font)
    for point, box in zip(widget.scale.points, boxes, strict=True):
        for word in point.label.split():
            assert metrics.horizontalAdvance(word) <= box.width() or font.pointSizeF() <= 6
        assert box.left() >= 0 and box.right() <= widget.width()
        wrapped = metrics.boundingRect(QRectF(0, 0, box.width(), 1e6),
                                       Qt.TextFlag.TextWordWrap, point.label)
        assert wrapped.height() <= box.height() or font.pointSizeF() <= 6  # no line cut off
    widget.grab()  # paints with that layout
