"""What of the source files a published dataset folder may carry: an allow-list.

Only the columns simrate itself knows to be safe go out by default: the item's id, its two
texts, its set (`dataset`), its genre and the score the source file carried (`reference`).
Every other column the pair files brought (their extra fields, kept in each item's
metadata) is left out unless the organizer names it with `--keep-column NAME`; and even a
named column stays out while it holds people (a column of annotators or worker ids, a
column headed with or holding a rater's name, an earlier export's `rating:<name>` columns)
without `--keep-rater-names`, or free-text notes without `--with-notes`.

Values are looked at too: in the safe text columns (`dataset`, `genre`) a value that looks
like a file path, an e-mail address or a host name is written as null, unless that column
is named with `--keep-column`. The texts and ids themselves are the data and go out as
they are. Whatever is left out is named in the card and in a warning (a column named
after a rater without its name), so nothing vanishes unexplained.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: The item columns a published folder carries by default (the card's `gold` fields).
SAFE_COLUMNS = ("item_id", "left", "right", "dataset", "genre", "reference")
#: The safe columns whose values are looked at for paths, addresses and hosts.
SCREENED_COLUMNS = ("dataset", "genre")

#: Field names (lower case, letters and digits only) that hold people or what they did.
PERSON_FIELDS = frozenset((
    "annotator", "annotators", "annotatorid", "rater", "raters", "raterid", "coder", "worker",
    "workerid", "prolificpid", "participant", "participantid", "login", "user", "userid",
    "username", "email", "by", "adjudicator", "adjudicatedby", "ratings", "collectedby"))
NOTE_FIELDS = frozenset(("note", "notes", "comment", "comments", "remark", "remarks"))

#: A path: a token starting at the root, the home folder, `./`, `../`, a drive or a share,
#: with at least one folder in it, or a file: URL.
_PATH = re.compile(r"(?:^|[\s\"'(=,;])(?:~[\w.-]*/|\.{0,2}/[^\s/\\]+/|[A-Za-z]:[\\/]|\\\\[^\s\\]+\\)"
                   r"|\bfile:/", re.I)
_EMAIL = re.compile(r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
#: A host: the whole value is an IPv4 address, `localhost`, or dotted labels ending in a
#: generic top-level domain or a two-letter country code.
_HOST = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?|localhost(?::\d+)?|"
                   r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+"
                   r"(?:com|net|org|edu|gov|mil|int|info|io|ai|dev|app|cloud|local|lan|"
                   r"internal|corp|home|[a-z]{2})\.?(?::\d+)?", re.I)


def private_kind(value: str | None) -> str | None:
    """What a value looks like that is never published by default (a path, an e-mail
    address, a host name), or None."""
    if not value:
        return None
    text = value.strip()
    if _EMAIL.search(text):
        return "e-mail address"
    if _PATH.search(text):
        return "path"
    if _HOST.fullmatch(text):
        return "host name"
    return None


def _loose(text: str) -> str:
    return re.sub(r"[^0-9a-z]", "", text.casefold())


def _names_field(key: str, people: set[str]) -> bool:
    """Whether a field's name is, or holds, a person's name or a `rating:` column."""
    folded = key.casefold()
    return folded.startswith("rating:") or any(
        person in folded for person in people if len(person) >= 3) or folded in people


def left_out_fields(texts: Mapping[str, list[str | None]], people: Iterable[str],
                    keep: Iterable[str], keep_names: bool, with_notes: bool
                    ) -> dict[str, str]:
    """{field: "shown name: why"} of the source's extra fields a published folder leaves
    out; a field whose own name holds a person's name is shown without it."""
    people = {p.casefold().strip() for p in people if p and p.strip()}
    keep = set(keep)
    out = {}
    for key, values in texts.items():
        named = _names_field(key, people) and not keep_names
        reason = _held_back(key, values, people, keep_names, with_notes)
        if key not in keep:
            hint = "with its name" if named else key
            reason = (f"not a column simrate knows to be safe (--keep-column {hint})"
                      + ("" if reason is None else f"; {reason}"))
        if reason is not None:
            out[key] = f"{'(a field named after a rater)' if named else key}: {reason}"
    return out


def _held_back(key: str, values: list[str | None], people: set[str], keep_names: bool,
               with_notes: bool) -> str | None:
    """Why a field stays out even when kept: notes, or people's names; None if neither."""
    loose = _loose(key)
    if loose in NOTE_FIELDS and not with_notes:
        return "free text (--with-notes)"
    if keep_names:
        return None
    if loose in PERSON_FIELDS or _names_field(key, people):
        return "names raters or their scores (--keep-rater-names)"
    if any(v is not None and v.casefold().strip() in people for v in values):
        return "holds raters' names (--keep-rater-names)"
    return None


def screened(values: list[str | None]) -> tuple[list[str | None], dict[str, int]]:
    """The values with those that look like a path, an address or a host as None, and how
    many of each kind were taken out."""
    kinds = [private_kind(v) for v in values]
    counts: dict[str, int] = {}
    for kind in kinds:
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    return [None if kind else v for v, kind in zip(values, kinds, strict=True)], counts
