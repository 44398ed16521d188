"""GoldPanel: how reliable the gold is, beside alpha on the dashboard.

Alpha is the reliability of one rating; the gold is the mean of k ratings, and Spearman-Brown
(app/core/review/reliability.py) turns interval alpha into the reliability of that mean, and
says how many raters per item a reliability of 0.8 or 0.9 needs. k is the mean number of
counted ratings per rated item. Both come from the live agreement, which the core keeps
current on every rating, so each refresh is O(1): interval alpha from running sums, k from two
counts. The interval is alpha's 95% bootstrap interval (computed in the background by the
AgreementWatcher) mapped through the same formula, shown when the dashboard shows interval
alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QLabel, QWidget

from simrate.core.review.reliability import gold_reliability, raters_needed, reliability_ci
from simrate.gui.agreement import agreement_watch as watch

#: The reliabilities the panel gives the number of raters for.
TARGETS = (0.8, 0.9)
#: The level whose alpha Spearman-Brown reads (the variance share of one rating).
LEVEL = "interval"
ABOUT = ("The reliability of the gold (the mean of each item's ratings): the expected "
         "correlation between this gold and the gold of another panel of as many raters. "
         "Spearman-Brown from interval \u03b1: k\u03b1 / (1 + (k \u2212 1)\u03b1), k being the "
         "mean number of counted ratings per rated item; its 95% CI is \u03b1's bootstrap "
         "interval through the same formula.")
NEEDED_ABOUT = ("Ratings per item the gold needs for a reliability of 0.8 and of 0.9, at "
                "the current interval \u03b1 (Spearman-Brown); 'never' when \u03b1 is at or "
                "below 0.")


@dataclass(frozen=True)
class GoldFigures:
    """What the panel shows: reliability, its interval, k, raters needed per target."""

    value: float | None
    ci: tuple[float, float] | None
    raters_per_item: float | None
    needed: dict[float, int | None]
    alpha: float | None


def gold_figures(alpha: float | None, ratings: int, rated_items: int,
                 alpha_ci: tuple[float, float] | None = None) -> GoldFigures:
    """The panel's figures from interval alpha, the counted ratings and the rated items."""
    k = ratings / rated_items if rated_items else None
    value = gold_reliability(alpha, k) if k else None
    ci = reliability_ci(alpha_ci, k) if k and value is not None else None
    return GoldFigures(value, ci, k, {t: raters_needed(alpha, t) for t in TARGETS}, alpha)


def format_reliability(value: float | None) -> str:
    """`0.853`, or an en dash when undefined."""
    return "\u2013" if value is None else f"{value:.3f}"


def format_k(k: float | None) -> str:
    """Raters per item as few digits as it takes: `3`, `4.5`, `3.27`."""
    return "\u2013" if k is None else f"{k:.2f}".rstrip("0").rstrip(".")


def format_needed(figures: GoldFigures) -> str:
    """`4 / 8`: raters per item for each target ('never' when alpha is at or below 0)."""
    if figures.alpha is None:
        return "\u2013"
    return " / ".join("never" if n is None else f"{n:,}" for n in figures.needed.values())


class GoldPanel(QWidget):
    """Gold reliability with its interval and k; the raters needed for 0.8 / 0.9."""

    def __init__(self, watcher: watch.AgreementWatcher, parent: QWidget | None = None):
        super().__init__(parent)
        self.watcher = watcher
        self.figures: GoldFigures | None = None
        self._build()
        watcher.updated.connect(self.refresh)
        watcher.intervals_updated.connect(self.refresh)
        self.refresh()

    def _build(self) -> None:
        big = QFont(self.font())
        big.setPointSizeF(big.pointSizeF() * 1.3)
        big.setBold(True)
        self.caption, self.needed_caption = QLabel(), QLabel()
        self.value_label, self.needed_label = QLabel(), QLabel()
        self.value_label.setObjectName("goldReliability")
        self.needed_label.setObjectName("ratersNeeded")
        self.interval_label, self.per_item_label = QLabel(), QLabel("per item")
        targets = " / ".join(f"{t:g}" for t in TARGETS)
        self.needed_caption.setText(f"Raters needed for {targets}")
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 4, 0, 0)
        grid.setHorizontalSpacing(18)
        grid.setVerticalSpacing(0)
        bottom = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom
        for column, (caption, value, beside, tip) in enumerate((
                (self.caption, self.value_label, self.interval_label, ABOUT),
                (self.needed_caption, self.needed_label, self.per_item_label, NEEDED_ABOUT))):
            caption.setWordWrap(True)
            caption.setAlignment(bottom)
            value.setFont(big)
            line = QHBoxLayout()  # the figure, and beside it what qualifies it
            line.setSpacing(8)
            line.addWidget(value, 0, bottom)
            line.addWidget(beside, 1, bottom)
            for label in (caption, value, beside):
                label.setToolTip(tip)
            grid.addWidget(caption, 0, column)
            grid.addLayout(line, 1, column)
            grid.setColumnStretch(column, 1)

    def refresh(self) -> None:
        """Show the figures of the project as it is now (O(1))."""
        live = self.watcher.project.live
        ci = self.watcher.interval(watch.OVERALL_ALL) if self.watcher.level == LEVEL else None
        figures = self.figures = gold_figures(live.alpha(LEVEL), live.n_ratings, live.n_units,
                                              ci)
        self.caption.setText(f"Gold reliability (mean of {format_k(figures.raters_per_item)} "
                             "ratings per item)")
        self.value_label.setText(format_reliability(figures.value))
        self.needed_label.setText(format_needed(figures))
        if figures.ci is not None:
            low, high = figures.ci
            self.interval_label.setText(f"95% CI {low:.3f}\u2013{high:.3f}")
        elif self.watcher.level != LEVEL:
            self.interval_label.setText("CI at the interval level")
        else:
            self.interval_label.setText("CI undefined" if self.watcher.has_intervals
                                        else "CI computing\u2026")
