"""Rules for the names simrate keeps: annotator names, item ids, datasets, file names.

- Names, ids and datasets are compared in Unicode's composed form (NFC): `Zoë` typed with a
  combining diaeresis (NFD, as macOS file names and some keyboards give it) is the same
  annotator as `Zoë` with the single character.
- They may not hold characters that cannot be seen: control characters (line feed, tab,
  U+2028), zero-width characters (U+200B, U+200C, U+200D, U+2060, U+FEFF) and the bidi
  controls (U+202A-U+202E, U+2066-U+2069). Two names that differ only by such a character
  would look the same everywhere we show them, and a line break breaks every one-line
  listing.
- Rater names (people, crowd workers, machine raters, organizers) follow stricter rules,
  `rater_name_problem`: at most `MAX_RATER_CHARS` characters, no character that cannot be
  seen (the controls above, line and paragraph separators, every default-ignorable code
  point such as U+3164 HANGUL FILLER or U+034F, the blank U+2800, private-use and
  unassigned code points) and no word that mixes scripts (a Cyrillic `а` inside `ana`).
  `rater_key` (NFKC, case folded, white space runs as one space, letters of other scripts
  as the Latin ones they look like: lookalike.py) is the identity: two names with one key
  are one rater, so `ANA`, `ａｎａ` and an NFD `Zoë` find `ana` and `Zoë`, and Cyrillic
  `сое` finds Latin `coe`.
- A file name (one component of a path) holds at most 255 bytes, the limit of Linux,
  macOS and Windows file systems; our temporary names beside it are kept under that too.
"""

from __future__ import annotations

import os
import unicodedata
from functools import lru_cache
from pathlib import Path

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.lookalike import fold
from simrate.core.base.rules import (
    MAX_RATER_CHARS,
    PLAIN_KEY_NAME,
    RATER_HIDDEN,
    RATER_TOO_LONG,
    matches,
)

#: The longest file name (bytes of one path component) file systems accept.
NAME_MAX = 255


def nfc(text: str) -> str:
    """`text` in Unicode's composed form (ASCII text is returned as it is, at no cost)."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def nfc_columns(frame, columns: tuple[str, ...]):
    """`frame` with these text columns in NFC (the same frame when they are all ASCII)."""
    changed = {}
    for column in columns:
        if column not in frame.columns:
            continue
        values = frame[column].tolist()
        if all(not isinstance(v, str) or v.isascii() for v in values):
            continue
        changed[column] = [nfc(v) if isinstance(v, str) else v for v in values]
    if not changed:
        return frame
    frame = frame.copy()
    for column, values in changed.items():
        frame[column] = values
    return frame


def hidden_character(text: str) -> str | None:
    """The first character of `text` that cannot be seen (see the module docstring)."""
    if text.isascii():
        return next((ch for ch in text if ch < " " or ch == "\x7f"), None)
    return next((ch for ch in text if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")),
                None)


def describe(char: str) -> str:
    """`U+200B (ZERO WIDTH SPACE)` for messages."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")


def text_problem(text: str, what: str) -> str | None:
    """Why `text` cannot be a `what` (an item id, a dataset name), else None."""
    if not text.strip():
        return f"the {what} is empty or only white space"
    char = hidden_character(text)
    if char is not None:
        return (f"{what} {cut(repr(text))} holds {describe(char)}, a control or invisible "
                "character; remove it")
    return None


def dataset_problem(name: str) -> str | None:
    """Why `name` cannot be a dataset name, else None: it becomes the prefix of item ids
    (`<dataset>:<id>`) and may become part of a file name, so it is visible text without
    white space at either end and without a slash."""
    problem = text_problem(name, "dataset name")
    if problem:
        return problem
    if name != name.strip():
        return f"dataset name {cut(repr(name))} begins or ends with white space"
    if "/" in name or "\\" in name:
        return f"dataset name {cut(repr(name))} holds a slash; datasets are names, not paths"
    return None


def check_dataset(name: str | None, option: str = "--dataset") -> str | None:
    """`name` in NFC, or SimrateError saying why it cannot be a dataset (None stays None)."""
    if name is None:
        return None
    problem = dataset_problem(name)
    if problem:
        raise SimrateError(f"{option}: {problem}")
    return nfc(name)


def fit_name(name: str, tail: str, limit: int = NAME_MAX) -> str:
    """`.<name><tail>`, `name` cut (at a character boundary) so that the whole holds at most
    `limit` bytes: temporary names beside a long target stay valid names."""
    room = limit - 1 - len(tail.encode("utf-8", "surrogateescape"))
    raw = name.encode("utf-8", "surrogateescape")
    if len(raw) > room:
        name = raw[:max(room, 1)].decode("utf-8", "ignore") or "x"
    return f".{name}{tail}"


def check_name_length(path: str | Path, spare: int = 0) -> None:
    """SimrateError when the last component of `path` is longer than file names can be
    (`spare` bytes kept for a suffix such as SQLite's `-wal`)."""
    path = Path(path)
    size = len(os.fsencode(path.name))
    limit = NAME_MAX - spare
    if size > limit:
        extra = f" ({spare} kept for SQLite's -journal file beside it)" if spare else ""
        raise SimrateError(f"the file name is {size} bytes long; file names hold at most "
                           f"{limit} bytes{extra}; choose a shorter name", path)


# MAX_RATER_CHARS, the longest rater name, is a rule shared with the hub (rules.py).

#: Default-ignorable code points (Unicode's DerivedCoreProperties) and blanks that print as
#: nothing: a name holding one looks like a name without it.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
#: Scripts that share words: Japanese writes Han, hiragana and katakana together, Korean
#: Hangul and Han.
_SCRIPT_FAMILY = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK",
                  "KATAKANA-HIRAGANA": "CJK"}
#: First words of letter names that name no script (they fit any word).
_NO_SCRIPT = {"MODIFIER", "FEMININE", "MASCULINE", "IDEOGRAPHIC"}


def _invisible(char: str) -> bool:
    code = ord(char)
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return True
    return any(low <= code <= high for low, high in _INVISIBLE_RANGES)


def _script(char: str) -> str | None:
    """The script of a letter (from its Unicode name), None for other characters."""
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    if words and words[0] in ("FULLWIDTH", "HALFWIDTH"):
        words = words[1:]
    if not words or words[0] in _NO_SCRIPT:
        return None
    return _SCRIPT_FAMILY.get(words[0], words[0])


def mixed_script_word(name: str) -> str | None:
    """The first word of `name` whose letters come from two scripts (`аna`), else None."""
    for word in name.split():
        scripts = {s for s in map(_script, unicodedata.normalize("NFKC", word)) if s}
        if len(scripts) > 1:
            return word
    return None


@lru_cache(maxsize=4096)  # bulk writes name the same raters row after row
def rater_name_problem(name: str, what: str = "rater name") -> str | None:
    """Why `name` cannot be the name of a rater (a person, crowd worker or machine rater),
    else None. `name` is taken as given: callers strip and NFC it (`check_rater_name`)."""
    if not name.strip():
        return f"the {what} is empty or only white space; a rater needs a name"
    text = nfc(name.strip())
    if len(text) > MAX_RATER_CHARS:
        return RATER_TOO_LONG.format(what=what, limit=MAX_RATER_CHARS, given=len(text))
    char = hidden_character(text) if text.isascii() else next(
        (ch for ch in text if _invisible(ch)), None)
    if char is not None:
        return RATER_HIDDEN.format(what=what, char=describe(char))
    word = None if text.isascii() else mixed_script_word(text)  # ASCII letters: Latin
    if word is not None:
        return (f"{what} {cut(repr(text))} mixes scripts within the word {cut(repr(word))} "
                "(say, a Cyrillic letter among Latin ones); write each word in one script")
    return None


def check_rater_name(name: str, what: str = "rater name") -> str:
    """`name` stripped and in NFC, or SimrateError (one line) saying why it cannot name a
    rater."""
    problem = rater_name_problem(name, what)
    if problem:
        raise SimrateError(problem)
    return nfc(name.strip())


def rater_key(name: str) -> str:
    """The identity of a rater name: NFKC, case folded, white space runs as one space, and
    each character outside ASCII as the one it looks like (lookalike.py: Cyrillic `сое`
    is `coe`, Greek `ΑΒΕ` is `abe`). Two names with one key are one rater (`Ana`, `ANA`,
    `ａｎａ`; `Zoë` either way). The hub computes the same (hub/schema/raters.py), from
    the same rules.PLAIN_KEY_NAME; tests/hub/test_lookalike_keys.py runs the cases on both."""
    if matches(PLAIN_KEY_NAME, name):
        return " ".join(name.lower().split())
    folded = "".join(map(fold, unicodedata.normalize("NFC", name)))
    return " ".join(unicodedata.normalize("NFC", folded).split())


#: What the agreement's subset of items neither flagged nor adjudicated is called where a
#: person reads it (`agreement`'s output and --help, the dashboard, the XLSX report). Its
#: JSON key stays `alpha_unadjudicated` (DESIGN.md); "unadjudicated" read as "every item not
#: yet adjudicated" and made a figure inflated by construction look like the headline.
UNDISPUTED_NAME = "undisputed"
#: Leaving the disputed items out lowers the observed disagreement, but also the spread of
#: scores alpha weighs it against (at the ordinal level the ranks of what is left, at the
#: nominal level the mix of categories), so the figure is usually higher, not always
#: (tests/cli/test_one_overlap.py holds a set where the ordinal figure drops).
UNDISPUTED_NOTE = ("undisputed items = items never flagged nor adjudicated: their ratings "
                   "agreed within the flagging threshold; leaving the others out also narrows "
                   "the spread alpha compares with, so alpha over them is usually higher but "
                   "can be lower (at any level); it is no measure of the whole set: report "
                   "alpha over all items")
