"""The scale tells a screen reader the score it shows and that score's label."""

from __future__ import annotations

from PySide6.QtGui import QAccessible

from simrate.core.base.scale import load_scale
from simrate.gui.organizer.rater_marks import RaterMarksScale
from simrate.gui.widgets.scale_widget import ScaleWidget


def spoken(widget) -> str:
    return QAccessible.queryAccessibleInterface(widget).text(QAccessible.Text.Name)


def test_the_scale_names_its_value_and_label(qtbot):
    scale = load_scale("sts")
    widget = ScaleWidget(scale)
    qtbot.addWidget(widget)
    assert spoken(widget) == "Rating scale: no score yet"
    widget.set_codes(None, scale.to_code(4.0))
    assert spoken(widget) == "Rating scale: 4, Mostly equivalent, not saved yet"
    widget.set_codes(scale.to_code(4.0), None)
    assert spoken(widget) == "Rating scale: 4, Mostly equivalent, saved"
    widget.set_codes(scale.to_code(4.0), scale.to_code(3.5))
    assert spoken(widget) == ("Rating scale: 3.5, between 3 Roughly equivalent and "
                              "4 Mostly equivalent, not saved yet")
    description = QAccessible.queryAccessibleInterface(widget).text(
        QAccessible.Text.Description)
    assert description.startswith("0 to 5 in steps of 0.25")


def test_the_adjudication_scale_says_what_it_is(qtbot):
    scale = load_scale("clss")
    widget = RaterMarksScale(scale)
    qtbot.addWidget(widget)
    widget.set_codes(scale.to_code(2.0), None)
    assert spoken(widget).startswith("Adjudicated score: 2, ")
    assert spoken(widget).endswith(", saved")
