"""A progress bar that says how far long work is: `12,000 of 200,000 rows (6%)`, with the
rate and the time left once there is enough to judge them by.

Work that reports (done, total) through its job (gui/base/jobs.py: `job.progress`) shows
here; until the first report the bar is busy (no fraction is known yet).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtWidgets import QProgressBar, QWidget

#: Seconds of work before a rate and a time left are shown (earlier ones mislead).
SETTLE_SECONDS = 1.0


def left_text(seconds: float) -> str:
    """`about 40 s left`, `about 3 min left`."""
    if seconds < 60:
        return f"about {max(1, round(seconds))} s left"
    return f"about {round(seconds / 60)} min left"


def count_text(done: int, total: int, noun: str, elapsed: float) -> str:
    """The bar's text for `done` of `total` after `elapsed` seconds of work."""
    share = 100 * done // total if total else 0
    text = f"{done:,} of {total:,} {noun} ({share}%)"
    if elapsed >= SETTLE_SECONDS and 0 < done < total:
        rate = done / elapsed
        text += f" \u00b7 {rate:,.0f} {noun}/s \u00b7 {left_text((total - done) / rate)}"
    return text


class CountedProgress(QProgressBar):
    """Busy until the first count; then determinate, with the count as its text."""

    def __init__(self, noun: str = "rows", parent: QWidget | None = None,
                 clock: Callable[[], float] = time.monotonic):
        super().__init__(parent)
        self.noun = noun
        self.clock = clock
        self.started = clock()
        self.setTextVisible(True)
        self.setAccessibleName("Progress")
        self.start()

    def start(self) -> None:
        """Busy again (new work begins): no count yet."""
        self.started = self.clock()
        self.setRange(0, 0)
        self.setFormat("")

    def show_count(self, done: int, total: int) -> None:
        """`done` of `total` (the job's report)."""
        self.setRange(0, max(total, 1))
        self.setFormat(count_text(done, total, self.noun, self.clock() - self.started))
        self.setValue(min(done, max(total, 1)))
