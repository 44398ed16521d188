"""What the command line prints, made safe for any terminal: one line per error, and text
the terminal's encoding cannot show escaped rather than a crash half-way through a line."""

from __future__ import annotations

import re
import sys


def escape_what_cannot_be_shown() -> None:
    """Text the terminal's encoding cannot show is printed escaped (\\u00e9 under LC_ALL=C or
    PYTHONIOENCODING=ascii), never a UnicodeEncodeError half-way through a line."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (OSError, ValueError):  # a closed or detached stream: leave it
                pass


#: Characters that would break an error line in two or forge one (C0/C1 controls, DEL,
#: the Unicode line and paragraph separators), shown escaped instead.
_BREAKERS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` as a single line: characters that would break or forge lines are escaped."""
    return _BREAKERS.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


#: Notes of the running command (a detected format, a sheet chosen), shown once it succeeds:
#: a refused command prints its one error line and nothing else on stderr.
_NOTES: list[str] = []


def note(text: str) -> None:
    """Keep a note for stderr, printed when the command succeeds (see `flush_notes`)."""
    _NOTES.append(text)


def flush_notes(succeeded: bool) -> None:
    """Print the notes kept (when the command succeeded), then forget them."""
    if succeeded:
        for text in _NOTES:
            print(text, file=sys.stderr)
    _NOTES.clear()
