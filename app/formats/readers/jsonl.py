"""JSON Lines pair files (one object per line), including simrate's own JSONL gold exports.

Keys are matched like the generic pair reader's column names: an id (`item_id`, `id`,
`pair_id`), two texts (`left`/`right`, `sentence1`/`sentence2`, ...), optional `dataset`
and `genre`, and a reference score (`gold`, `reference`, `score`, `similarity`). Every
other key is kept in the item's meta with its JSON value, so a simrate export read back
keeps its statistics and `ratings` object.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.frames import item_frame
from simrate.formats.intake.pipeline import read_text
from simrate.formats.intake.textio import normalise_name, parse_number
from simrate.formats.readers.pairs import (
    ID_NAMES,
    REFERENCE_NAMES,
    reference_problem,
    text_name_pair,
)

JSONL_SUFFIXES = (".jsonl", ".ndjson")


def is_jsonl(path: str | Path) -> bool:
    """True for a file named like JSON Lines."""
    return Path(path).suffix.lower() in JSONL_SUFFIXES


def _roles(keys: list[str], path: Path, line: int) -> dict[str, str | None]:
    """Which key plays which part, by loose name."""
    loose = {normalise_name(k): k for k in keys}
    texts = text_name_pair(loose)
    if texts is None:
        raise SimrateError("cannot tell which keys hold the two texts; name them left and "
                           f"right (the keys are: {', '.join(keys)})", path, line)
    return {
        "id": next((loose[n] for n in ID_NAMES if n in loose), None),
        "left": loose[texts[0]], "right": loose[texts[1]],
        "dataset": loose.get("dataset"), "genre": loose.get("genre"),
        "reference": next((loose[n] for n in REFERENCE_NAMES if n in loose), None),
    }


def _text(record: dict, key: str | None, path: Path, line: int, what: str) -> str:
    """A string value (numbers are written as text); SimrateError for lists and objects."""
    if key is None or record.get(key) is None:
        return ""
    value = record[key]
    if isinstance(value, (dict, list)):
        raise SimrateError(f"{what} ({key!r}) must be text, not a JSON {type(value).__name__}",
                           path, line)
    return value if isinstance(value, str) else json.dumps(value)


def _reference(record: dict, key: str | None, path: Path, line: int) -> float | None:
    """The reference score as a float, NaN when absent or null; None when not a number
    (kept in meta). A number that is not finite (NaN, Infinity, 1e400) is refused."""
    value = None if key is None else record.get(key)
    if value is None or value == "":
        return float("nan")
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits
            number = math.inf
        if not math.isfinite(number):
            raise SimrateError(f"the reference score ({key!r}) is not a finite number (NaN, "
                               "Infinity or beyond 1.8e308); leave it out or write null for "
                               "none", path, line)
        return number
    if not isinstance(value, str):
        return None
    problem = reference_problem(value)
    if problem:
        raise SimrateError(f"the reference score ({key!r}) {cut(value)!r} {problem}; leave it "
                           "out or write null for none", path, line)
    return parse_number(value)


#: A lone UTF-16 surrogate written as an escape (\\ud800): valid JSON, but not text.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def load_json_line(text: str, path: Path, line: int) -> object:
    """The JSON value of one line; SimrateError with the line for anything json cannot
    turn into text and numbers: bad syntax, nesting deeper than Python's recursion, an
    integer of more than 4,300 digits, an escaped lone surrogate (no character at all)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SimrateError(f"not valid JSON ({exc.msg}, column {exc.colno})",
                           path, line) from None
    except RecursionError:
        raise SimrateError("JSON nested too deeply (arrays or objects inside one another "
                           "thousands of times)", path, line) from None
    except ValueError:  # Python reads integers of at most 4,300 digits
        raise SimrateError("a number of more than 4,300 digits: too long to read",
                           path, line) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(exc.object[exc.start])
            raise SimrateError(f"a lone surrogate \\u{code:04x} in a string: an escape that "
                               "names no character (half of a pair)", path, line) from None
    return value


def _objects(path: Path) -> list[tuple[int, dict]]:
    """(line, object) for each non-blank line."""
    found = []
    for number, text in enumerate(read_text(path).lines(), start=1):
        if not text.strip():
            continue
        value = load_json_line(text, path, number)
        if not isinstance(value, dict):
            raise SimrateError("each line must hold one JSON object", path, number)
        found.append((number, value))
    if not found:
        raise SimrateError("file is empty", path)
    return found


def read_jsonl_pairs(path: str | Path, dataset: str | None = None) -> pd.DataFrame:
    """Read a JSON Lines pair file (e.g. a simrate JSONL export) into an item frame."""
    path = Path(path)
    objects = _objects(path)
    keys = list(dict.fromkeys(k for _, record in objects for k in record))  # first seen first
    roles = _roles(keys, path, objects[0][0])
    used = {k for k in roles.values() if k is not None}
    rows: dict[str, list] = {c: [] for c in ("item_id", "left", "right", "dataset", "genre",
                                             "reference", "meta", "line")}
    first_line: dict[str, int] = {}
    for number, record in objects:
        left = _text(record, roles["left"], path, number, "the left text")
        right = _text(record, roles["right"], path, number, "the right text")
        for key, text in ((roles["left"], left), (roles["right"], right)):
            if not text.strip():
                raise SimrateError(f"empty or missing text {key!r}", path, number)
        item_id = _text(record, roles["id"], path, number, "the id").strip() or \
            f"{path.stem}:{number}"
        if item_id in first_line:
            raise SimrateError(f"duplicate item id {item_id!r} (lines {first_line[item_id]} "
                               f"and {number})", path, number)
        first_line[item_id] = number
        reference = _reference(record, roles["reference"], path, number)
        meta = {k: v for k, v in record.items() if k not in used}
        if reference is None:
            meta[roles["reference"]] = record[roles["reference"]]
            reference = float("nan")
        rows["item_id"].append(item_id)
        rows["left"].append(left)
        rows["right"].append(right)
        rows["dataset"].append(dataset or _text(record, roles["dataset"], path, number,
                                                "the dataset").strip() or path.stem)
        rows["genre"].append(_text(record, roles["genre"], path, number, "the genre").strip())
        rows["reference"].append(reference)
        rows["meta"].append(meta)
        rows["line"].append(number)
    return item_frame(rows)
