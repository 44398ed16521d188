"""The review and bonus totals of the selected web study, in the web-studies window.

Review asks `review_study` (core/team/crowdweb/review.py), the function behind `simrate
crowd review`, for the proposed decision of every worker and shows how many fall under
each; with a rate per hour (and, if given, a top-up rate) it asks `bonus_list`
(crowdweb/pay.py), the function behind `simrate crowd bonus`, for the total to pay. The
files the platforms take are written by those commands; the window shows the figures.
Both are computed when Review is pressed, never on the panel's timer.
"""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout

from simrate.core.base.errors import SimrateError
from simrate.core.team.crowdweb.pay import bonus_list, money
from simrate.core.team.crowdweb.review import review_study
from simrate.gui.kit.fitting import WrappedLabel

#: How each decision is said in the totals line.
DECISION_WORDS = {"approve": "to approve", "return": "to ask to return",
                  "reject": "to reject", "timed_out": "timed out", "in_progress": "unfinished"}


def minutes_text(seconds: float | None) -> str:
    """`6 min 12 s`, or `none` when no submission is complete."""
    if seconds is None:
        return "none"
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60} s" if whole >= 60 else f"{whole} s"


def review_line(project, study: str, per_hour: str = "", top_up_to: str = "") -> str:
    """The study's review counts and median time, and with a rate, the bonus total;
    SimrateError for an amount that is none (the command's words)."""
    review = review_study(project, study)
    counts = review.counts()
    workers = len(review.workers)
    parts = [f"{counts[d]:,} {words}" for d, words in DECISION_WORDS.items() if counts[d]]
    text = (f"{study}: {workers:,} worker{'s' * (workers != 1)}"
            + (f" ({', '.join(parts)})" if parts else "")
            + f"; median time of a complete submission {minutes_text(review.median_seconds)}.")
    if per_hour.strip():
        top = money(top_up_to, "top-up rate") if top_up_to.strip() else None
        paid = bonus_list(review, per_hour=money(per_hour, "rate per hour"), top_up_to=top)
        n = len(paid.bonuses)
        text += (f" Bonus: {paid.total:.2f} in all to {n:,} approved worker"
                 f"{'s' * (n != 1)} (simrate crowd bonus writes the file).")
    return text


class ReviewBox(QGroupBox):
    """Rate fields, Review, and the line of totals."""

    def __init__(self, parent=None):
        super().__init__("Review and bonus", parent)
        self.rate_edit = QLineEdit(placeholderText="e.g. 9.00")
        self.rate_edit.setAccessibleName("Bonus per hour")
        self.rate_edit.setToolTip("crowd bonus --per-hour: empty, no bonus figure")
        self.top_up_edit = QLineEdit(placeholderText="optional")
        self.top_up_edit.setAccessibleName("Top up to, per hour")
        self.top_up_edit.setToolTip("crowd bonus --top-up-to: the rate the median time must "
                                    "reach")
        self.review_button = QPushButton("Review")
        self.result_label = WrappedLabel("Press Review for the proposed decisions of the "
                                         "selected study (simrate crowd review writes the "
                                         "platforms' files).")
        row = QHBoxLayout()
        row.addWidget(QLabel("Bonus per hour"))
        row.addWidget(self.rate_edit)
        row.addWidget(QLabel("Top up to"))
        row.addWidget(self.top_up_edit)
        row.addStretch(1)
        row.addWidget(self.review_button)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(self.result_label)

    def show_review(self, project, study: str | None) -> None:
        """Compute and show the totals of `study` (nothing selected: say so)."""
        if not study:
            self.result_label.setText("Select a study first.")
            return
        try:
            self.result_label.setText(review_line(project, study, self.rate_edit.text(),
                                                  self.top_up_edit.text()))
        except SimrateError as exc:
            self.result_label.setText(str(exc))
