"""A progress line for long commands on an interactive terminal: how many of how many, the
rate and the time left, redrawn in place on standard error at most five times a second and
wiped when the work ends. Where standard error is no terminal (a pipe, a file, a test) it
prints nothing, so logs and scripts see what they saw before.

Our own, not rich's or tqdm's: one line of text is all it draws, and simrate then needs no
further dependency (nor does the bundle carry one). It is called as the formats' and
services' `progress(done, total)` callbacks are (app/formats/output/export.py: Progress).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

#: Seconds between two redraws of the line.
EVERY = 0.2


def is_terminal(stream: TextIO) -> bool:
    """Whether `stream` is an interactive terminal (False when it cannot say)."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def duration(seconds: float) -> str:
    """`42 s`, `3 min 05 s`, `1 h 02 min`."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class TerminalProgress:
    """`export: 40,000/200,000 rows (20%), 51,200 rows/s, 3 s left`, on a terminal only."""

    def __init__(self, what: str, unit: str, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.what, self.unit = what, unit
        self.stream = sys.stderr if stream is None else stream
        self.shown = is_terminal(self.stream)
        self.clock = clock
        self.start = clock()
        self.last = -EVERY
        self.width = 0

    def line(self, done: int, total: int, elapsed: float) -> str:
        """The text of the line after `elapsed` seconds."""
        share = f" ({100 * done // total}%)" if total else ""
        text = f"{self.what}: {done:,}/{total:,} {self.unit}{share}"
        if elapsed > 0 and done > 0:
            rate = done / elapsed
            text += f", {rate:,.0f} {self.unit}/s"
            if total > done:
                text += f", {duration((total - done) / rate)} left"
        return text

    def __call__(self, done: int, total: int) -> None:
        if not self.shown:
            return
        now = self.clock()
        if now - self.last < EVERY and done < total:
            return
        self.last = now
        text = self.line(done, total, now - self.start)
        self.width = max(self.width, len(text))
        self.stream.write("\r" + text.ljust(self.width))
        self.stream.flush()

    def close(self) -> None:
        """Wipe the line (the command's own report follows on a clean line)."""
        if self.shown and self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
