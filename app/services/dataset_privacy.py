"""Which of the source files' extra fields a published dataset may carry.

Pair files bring extra columns into each item's metadata, and those can name people: a
column of annotators or worker ids, a simrate export read back (its `rating:<name>` columns,
its `ratings` object, its notes), a column headed with a rater's name. Unless the organizer
keeps names (`--keep-rater-names`), a field is left out when its name says it holds people
or their scores, when its name holds a rater's or adjudicator's name, or when any of its
values is such a name. Free-text notes and comments are left out unless `--with-notes`.
What is left out is named in the card and in a warning, so nothing vanishes unexplained.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: Field names (lower case, letters and digits only) that hold people or what they did.
PERSON_FIELDS = frozenset((
    "annotator", "annotators", "annotatorid", "rater", "raters", "raterid", "coder", "worker",
    "workerid", "prolificpid", "participant", "participantid", "login", "user", "userid",
    "username", "email", "by", "adjudicator", "adjudicatedby", "ratings"))
NOTE_FIELDS = frozenset(("note", "notes", "comment", "comments", "remark", "remarks"))


def _loose(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def _names_field(key: str, people: set[str]) -> bool:
    """Whether a field's name is, or holds, a person's name or a `rating:` column."""
    folded = key.casefold()
    return folded.startswith("rating:") or any(
        person in folded for person in people if len(person) >= 3) or folded in people


def left_out_fields(texts: Mapping[str, list[str | None]], people: Iterable[str],
                    keep_names: bool, with_notes: bool) -> dict[str, str]:
    """{field: "shown name: why"} of the extra fields a published folder leaves out; a field
    whose own name holds a person's name is shown without it."""
    people = {p.casefold().strip() for p in people if p and p.strip()}
    why = _reasons(texts, people, keep_names, with_notes)
    return {key: ("(a field named after a rater)" if _names_field(key, people) else key)
            + f": {reason}" for key, reason in why.items()}


def _reasons(texts: Mapping[str, list[str | None]], people: set[str], keep_names: bool,
             with_notes: bool) -> dict[str, str]:
    """{field: why it is left out}."""
    out = {}
    for key, values in texts.items():
        loose = _loose(key)
        if loose in NOTE_FIELDS and not with_notes:
            out[key] = "free text (--with-notes)"
        elif keep_names:
            continue
        elif loose in PERSON_FIELDS or _names_field(key, people):
            out[key] = "names raters or their scores (--keep-rater-names)"
        elif any(v is not None and v.casefold().strip() in people for v in values):
            out[key] = "holds raters' names (--keep-rater-names)"
    return out
