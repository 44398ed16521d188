"""Errors that reach the user as one line, never as a traceback."""

from __future__ import annotations

import re
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


#: Secrets a message may hold: the password of a URL's user (`://u:PASSWORD@`), a
#: `password=` of a connection string or query, a sync link's token (`/team/TOKEN`).
#: Every repetition is bounded: a message quoting 100,000 characters takes linear time.
_SECRETS = (
    (re.compile(r"(?i)(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,30}://[^/?#@\s:]{0,200}:)"
                r"[^@\s]{0,500}@"), r"\1***@"),
    (re.compile(r"(?i)(password\s*=\s*)('[^']*'|\"[^\"]*\"|[^\s&;'\"]+)"), r"\1***"),
    (re.compile(r"(/team/)[A-Za-z0-9_-]{16,}"), r"\1***"),
)
#: The longest error line printed: a value quoted uncut is cut in its middle to this.
ERROR_LINE_MAX = 600


def hide_secrets(text: str) -> str:
    """`text` with every password and sync token it holds shown as `***`."""
    for pattern, replacement in _SECRETS:
        text = pattern.sub(replacement, text)
    return text


def hide_secrets_of(text: str, given: str) -> str:
    """`text`, a library's words about the URL `given`, with the password of `given`
    hidden wherever the words quote it (libpq quotes a password with a space alone)."""
    found = re.search(r"://[^/?#@:]{0,200}:([^@]{1,500})@", given[:2000])
    if found:
        text = text.replace(found.group(1), "***")
    return hide_secrets(text)


def bounded_line(text: str, limit: int = ERROR_LINE_MAX) -> str:
    """`text` (an error line) with its secrets hidden and, past `limit` characters, its
    middle left out: the start says what is wrong, the end the way out."""
    text = hide_secrets(text)
    if len(text) <= limit:
        return text
    tail = limit // 3
    return f"{text[:limit - tail - 5]} ... {text[-tail:]}"


class RuleError(SimrateError):
    """Refused by a rule (e.g. export while flagged items are unresolved): exit 3."""

    exit_code = 3
