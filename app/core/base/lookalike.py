"""Rater names that look alike across scripts are one rater: the fold of each character.

A rater's identity key (`names.rater_key`) is built one character at a time: `fold(ch)` is
the character in NFKC and case folded (as the key always was: `ａ`, `A` -> `a`), and, for a
character outside ASCII, then mapped to what it looks like: Cyrillic `с`, `о`, `е` and the
Greek capitals `Α`, `Β`, `Ε` fold to Latin `c`, `o`, `e`, `a`, `b`, `e`, so `coe` and `сое`,
`ABE` and `ΑΒΕ` have one key. ASCII characters are never mapped (`l`, `I` and `1` stay
three letters), so the key of an ASCII name is its lower case, as before.

Where a character looks like comes from Unicode's confusables (UTS #39, confusables.txt)
as the `confusable-homoglyphs` package ships them (its confusables.json, read from the
installed package: nothing is downloaded). That file keeps each pair both ways, so the
prototype of a class is taken back from its shape: the classes are stars around their
prototype, whose degree is the highest. A character is mapped to an ASCII letter of its
own case from its class when there is one (Greek `Ι` to Latin `I`, not to the prototype
`l`), else to the class's prototype; a folded character takes the ASCII candidate of any
character that folds to it (`β` is `b`, because `Β` looks like `B`).

The hub applies the same fold from a table the publisher ships (`fold_table`,
hub/schema/raters.py), so both sides compute one key from one definition.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from functools import lru_cache
from importlib import resources

#: Bumped whenever the fold changes: stored keys are computed again (data/migrate.py).
FOLD_VERSION = "2"


def _load_pairs() -> dict[str, list[str]]:
    """{character or sequence: the characters and sequences it is confusable with}."""
    text = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(
        encoding="utf-8")
    return {key: [entry["c"] for entry in entries] for key, entries in json.loads(text).items()}


def _classes(pairs: dict[str, list[str]]) -> dict[str, list[str]]:
    """{member: the members of its class, prototype first} (union of the pairs)."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, others in pairs.items():
        for other in others:
            parent[root(key)] = root(other)
    members: dict[str, list[str]] = {}
    for x in list(parent):
        members.setdefault(root(x), []).append(x)
    classes: dict[str, list[str]] = {}
    for group in members.values():
        group.sort(key=lambda m: (-len(pairs.get(m, ())), m))  # the star's centre first
        for member in group:
            classes[member] = group
    return classes


def _looks_like(char: str, group: list[str]) -> str:
    """What `char` looks like: an ASCII letter of its case from its class, else the
    prototype."""
    if char.isupper() or char.islower():
        same = [m for m in group if m.isascii() and m.isalpha() and len(m) == 1
                and m.isupper() == char.isupper()]
        if same:
            return min(same)
    return group[0]


def _case_fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


@lru_cache(maxsize=1)
def _lookalikes() -> dict[str, str]:
    """{folded character outside ASCII: the folded text it looks like}."""
    classes = _classes(_load_pairs())
    candidates: dict[str, set[str]] = {}
    for member, group in classes.items():
        if len(member) != 1 or member.isascii():
            continue
        folded = _case_fold(member)
        if len(folded) == 1 and not folded.isascii():
            candidates.setdefault(folded, set()).add(_case_fold(_looks_like(member, group)))
    table = {}
    for folded, found in candidates.items():
        ascii_ones = [c for c in found if c.isascii()]
        best = min(ascii_ones or found, key=lambda c: (len(c), c))
        if best != folded:
            table[folded] = best
    return table


def _fold(char: str) -> str:
    if char.isascii():
        return " " if char.isspace() else char.lower()
    if char.isspace():
        return " "
    lookalikes = _lookalikes()
    return "".join(" " if c.isspace() else lookalikes.get(c, c) for c in _case_fold(char))


#: The part of a rater key that the character `ch` gives (see the module docstring); a white
#: space character gives one space.
fold = lru_cache(maxsize=8192)(_fold)


def fold_table() -> list[tuple[str, str]]:
    """(character, fold) for every character outside ASCII whose fold is not itself: the
    table the hub computes keys with (ASCII characters the hub lowers itself)."""
    lookalikes = _lookalikes()
    rows = []
    for code in range(0x80, sys.maxunicode + 1):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        if (char in lookalikes or char.isspace() or char.casefold() != char
                or unicodedata.normalize("NFKC", char) != char):
            folded = _fold(char)
            if folded != char:
                rows.append((char, folded))
    return rows
