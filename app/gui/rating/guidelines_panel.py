"""GuidelinesPanel: every labelled point of the scale with its guideline text."""

from __future__ import annotations

from html import escape

from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from simrate.core.base.scale import Scale, fmt
from simrate.gui.kit.accessible import named


def guidelines_html(scale: Scale) -> str:
    """The scale's description and its points, highest first, as rich text."""
    parts = [f"<h3>{escape(scale.title or scale.name)}</h3>"]
    if scale.description:
        parts.append(f"<p>{escape(scale.description)}</p>")
    for point in sorted(scale.points, key=lambda p: -p.value):
        parts.append(f"<p><b>{fmt(point.value)} \u2013 {escape(point.label)}</b><br>"
                     f"{escape(point.guideline)}</p>")
    parts.append(f"<p><i>Any multiple of {fmt(scale.step)} between {fmt(scale.low)} and "
                 f"{fmt(scale.high)} is allowed.</i></p>")
    return "".join(parts)


class GuidelinesPanel(QWidget):
    """A read-only page of the scale's guidelines."""

    def __init__(self, scale: Scale, parent: QWidget | None = None):
        super().__init__(parent)
        self.view = named(QTextBrowser(), "Scale guidelines")
        self.view.setHtml(guidelines_html(scale))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.view)
