"""The one decoder of the command line's arguments: every argument is UTF-8 text.

On POSIX, Python hands bytes that are not UTF-8 (`$'caf\\xe9'`, a file name written in
Latin-1) to `sys.argv` as lone surrogates ("surrogate escapes"). Such a string cannot be
stored in a project, written into a UTF-8 file or passed to SQLite: left alone it ends in a
UnicodeEncodeError half-way through a command, after files were made. So every argument,
options and file names alike, is checked here once, before parsing and before anything is
written, and one that is not UTF-8 is refused (exit 2) in one line that names its option
or its place and shows its bytes escaped.

File names that are not UTF-8 are refused too: SQLite, the data card and every format we
write take UTF-8 names, so such a name could not be used all the way through (rename it, or
link it under a UTF-8 name).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence

from simrate.core.base.errors import SimrateError, cut

#: Lone surrogates: what Python makes of bytes that are not UTF-8 (U+DC80-U+DCFF), and any
#: other half of a pair a caller of `main()` may pass.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _bytes_shown(text: str) -> str:
    """`text` as the bytes the user typed, escaped (`'caf\\xe9'`), cut short."""
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a high surrogate: not from bytes at all
        raw = text.encode("utf-8", "backslashreplace")
    return cut(repr(raw)[1:], 40)


def _value_options(parser: argparse.ArgumentParser | None) -> set[str]:
    """The option strings of `parser` and its subcommands' parsers that take a value."""
    found: set[str] = set()
    if parser is None:
        return found
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _value_options(sub)
        elif action.option_strings and action.nargs != 0:
            found.update(action.option_strings)
    return found


def _where(argv: Sequence[str], index: int, options: set[str]) -> str:
    """The option `argv[index]` is the value of, else its place among the arguments."""
    text = argv[index]
    if text.startswith("-") and "=" in text:
        return text.split("=", 1)[0]
    before = argv[index - 1] if index else ""
    if before in options:
        return before
    return f"argument {index + 1}"


def refuse_undecodable(argv: Sequence[str], parser: argparse.ArgumentParser | None) -> None:
    """SimrateError (exit 2, one line) for the first argument that is not UTF-8 text."""
    for index, text in enumerate(argv):
        if _SURROGATE.search(text):
            where = _where(argv, index, _value_options(parser))
            if text.startswith(f"{where}="):
                text = text[len(where) + 1:]
            raise SimrateError(f"{cut(where, 60)}: not UTF-8 text: {_bytes_shown(text)}; "
                               "give texts and file names in UTF-8")
