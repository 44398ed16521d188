"""Checks a returned package must pass before its ratings are merged.

A package is a file that went out of our hands, so nothing in it is trusted: it must be one
this project issued (the change log records each package made, with its id and annotator),
still name the annotator it was issued to, and every value must have the type and range the
app itself writes.
"""

from __future__ import annotations

import json
import math
import sqlite3

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.frames import MAX_TEXT_CHARS, name_problem
from simrate.core.team.package_file import PackageContents

#: The longest time on one item a package may report: 10 million seconds (about 116 days).
MAX_SECONDS = 10_000_000


def issued_packages(conn: sqlite3.Connection) -> dict[str, tuple[str, int]]:
    """{package id: (annotator, items)} of every package this project made."""
    issued = {}
    for annotator, new in conn.execute(
            "SELECT annotator, new FROM changes WHERE kind = 'package'"):
        try:
            record = json.loads(new)
            issued[str(record["package"])] = (annotator, int(record["items"]))
        except (TypeError, ValueError, KeyError):
            continue  # a damaged log row issues nothing
    return issued


def check_issued(conn: sqlite3.Connection, package: PackageContents) -> str:
    """The package's annotator, once it is known to be a package this project issued to them."""
    path, meta = package.path, package.meta
    package_id = meta.get("project_uuid", "")
    issued = issued_packages(conn).get(package_id)
    if issued is None:
        raise SimrateError(f"package {cut(repr(package_id))} is not one this project issued "
                           "(no record of it); only packages made here can be merged", path)
    annotator, items = issued
    if meta["package_annotator"] != annotator:
        raise SimrateError(f"package was issued to {annotator!r} but names "
                           f"{cut(repr(meta['package_annotator']))}; a renamed package is refused",
                           path)
    if len(package.texts) > items:
        raise SimrateError(f"package holds {len(package.texts)} items but was issued with "
                           f"{items}", path)
    return annotator


def check_values(package: PackageContents, max_code: int) -> None:
    """Refuse a package holding any rating value the app would never write."""
    for item_id, name, code, note, skipped, seconds in package.ratings:
        problem = _value_problem(code, note, skipped, seconds, max_code)
        if problem is None and isinstance(name, str):
            problem = name_problem(name)
            problem = problem and f"is by an annotator the project cannot take: {problem}"
        if problem is not None:
            raise SimrateError(f"package rating of item {cut(repr(item_id))} {problem}",
                               package.path)


def _value_problem(code: object, note: object, skipped: object, seconds: object,
                   max_code: int) -> str | None:
    """What is wrong with one rating's stored values, or None."""
    if code is not None and not (type(code) is int and 0 <= code <= max_code):
        return f"is off the scale (code {cut(repr(code))})"
    if skipped not in (0, 1) or type(skipped) is not int:
        return f"has skipped = {cut(repr(skipped))}, not 0 or 1"
    if not isinstance(note, str):
        return "has a note that is not text"
    if len(note) > MAX_TEXT_CHARS:
        return f"has a note of {len(note):,} characters (at most {MAX_TEXT_CHARS:,})"
    if seconds is not None:
        if (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                or not math.isfinite(seconds)):  # SQLite gives int, float, str, bytes
            return f"has seconds = {cut(repr(seconds))}, not a finite number"
        if not 0 <= seconds <= MAX_SECONDS:
            return f"has seconds = {cut(repr(seconds))}, not between 0 and {MAX_SECONDS:,}"
    return None

