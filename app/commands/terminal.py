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
