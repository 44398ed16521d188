"""Errors that reach the user as one line, never as a traceback."""

from __future__ import annotations

from pathlib import Path


class SimrateError(Exception):
    """Bad input or usage: the command line exits 2 and prints `file:line: message`."""

    exit_code = 2

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = f"{self.path}:{self.line}: " if self.line is not None else f"{self.path}: "
        return where + self.message


def cut(text: str, limit: int = 40) -> str:
    """`text` shortened for a one-line message (say, a value quoted with repr)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


class RuleError(SimrateError):
    """Refused by a rule (e.g. export while flagged items are unresolved): exit 3."""

    exit_code = 3
