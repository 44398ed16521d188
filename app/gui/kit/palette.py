"""The app's colours, in one place: states of a score, messages, and one colour per rater
(the same in every chart and table)."""

from __future__ import annotations

from PySide6.QtGui import QColor

#: A saved score (the filled marker, "Saved"), and success messages.
SAVED_COLOUR = QColor("#2e7d32")
#: A score typed but not saved yet (the ring on the scale, the number above it).
PENDING_COLOUR = QColor("#e65100")
#: Adjudicated items that a later rating disagrees with.
SECOND_LOOK_COLOUR = QColor("#6a3d9a")
#: Something worth a look before going on (unresolved items, careless raters).
WARNING_COLOUR = QColor("#9a3412")
#: Something failed or was refused.
ERROR_COLOUR = QColor("#b91c1c")

#: Okabe and Ito's colour-blind-safe qualitative palette (yellow left out: unreadable on white).
RATER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                 "#000000", "#8C6D31")


def rater_colour(index: int) -> QColor:
    """The colour of the rater at `index` (cycling after eight)."""
    return QColor(RATER_COLOURS[index % len(RATER_COLOURS)])


def correlation_colour(r: float | None) -> QColor:
    """Cell colour for a correlation: white at 0, deepening blue to 1, orange below 0."""
    if r is None or r != r:
        return QColor("#eeeeee")
    r = max(-1.0, min(1.0, r))
    target = QColor("#08519c") if r >= 0 else QColor("#b35806")
    weight = abs(r) ** 1.5  # spread the usual 0.6-0.95 range over visibly different shades
    return QColor(int(255 + (target.red() - 255) * weight),
                  int(255 + (target.green() - 255) * weight),
                  int(255 + (target.blue() - 255) * weight))


def readable_text_colour(background: QColor) -> QColor:
    """Black or white, whichever reads better on `background`."""
    luminance = 0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue()
    return QColor("#000000") if luminance > 140 else QColor("#ffffff")


def colour_style(colour: QColor, bold: bool = False) -> str:
    """A style sheet that sets a widget's text colour (and weight)."""
    return f"color: {colour.name()};" + (" font-weight: bold;" if bold else "")
