"""SemEval-2014 CLSS: <level>.<split>.input.tsv (larger, smaller, id) and <level>.<split>.gs.tsv."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame
from simrate.formats.intake.pipeline import read_text
from simrate.formats.intake.textio import (
    with_encoding,
    with_reference_from,
    without_gc,
    without_trailing_blank_lines,
)
from simrate.formats.readers.sts import read_gold_key

LEVELS = ("paragraph2sentence", "sentence2phrase", "phrase2word", "word2sense")
INPUT_NAME = re.compile(r"^(?P<level>[^.]+)\.(?P<split>.+)\.input\.tsv$", re.IGNORECASE)
GOLD_NAME = re.compile(r"^(?P<level>[^.]+)\.(?P<split>.+)\.gs\.tsv$", re.IGNORECASE)
#: `Newswire-12` -> Newswire; `trial-p2s-3` -> trial (the level's short name is dropped too).
TRAILING_NUMBER = re.compile(r"-\d+$")
LEVEL_ABBREVIATION = re.compile(r"-(p2s|s2p|p2w|w2s)$", re.IGNORECASE)


def clss_level(path: Path) -> str | None:
    """`phrase2word` from `phrase2word.trial.input.tsv`; None for other names."""
    match = INPUT_NAME.match(path.name)
    return match.group("level") if match else None


def clss_gold_level(path: Path) -> str | None:
    """`phrase2word` from the gold key name `phrase2word.trial.gs.tsv`; None for other names."""
    match = GOLD_NAME.match(path.name)
    return match.group("level") if match else None


def clss_gold_path(path: Path) -> Path | None:
    """The `<level>.<split>.gs.tsv` beside an input file, when there is one."""
    match = INPUT_NAME.match(path.name)
    if match is None:
        return None
    gold = path.with_name(f"{match.group('level')}.{match.group('split')}.gs.tsv")
    return gold if gold.is_file() else None


def genre_of(item_id: str) -> str:
    """The genre an id carries: its text before the trailing `-<number>` ('' if none)."""
    if not TRAILING_NUMBER.search(item_id):
        return ""
    return LEVEL_ABBREVIATION.sub("", TRAILING_NUMBER.sub("", item_id))


def _split_record(fields: list[str]) -> tuple[str, str, str, dict]:
    """(left, right, id, meta) of a 3-column record or a 4-column word2sense record.

    word2sense: left is the word (`pot#n`), right the WordNet sense name (`basket#n#1`),
    which a person can read and look up; the sense key (`basket%1:06:00::`) is kept in meta.
    """
    if len(fields) == 3:
        return fields[0], fields[1], fields[2].strip(), {}
    word, sense_key, sense, item_id = fields
    return word, sense, item_id.strip(), {"word": word, "sense_key": sense_key, "sense": sense}


def _clss_rows(lines: list[str], level: str, path: Path) -> dict[str, list]:
    """Item columns (without reference and dataset) of the non-blank input lines."""
    rows: dict[str, list] = {c: [] for c in ("item_id", "left", "right", "genre", "meta", "line")}
    first_line: dict[str, int] = {}
    width: int | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split("\t")  # quotes are ordinary characters in CLSS files
        width = width or len(fields)
        if len(fields) not in (3, 4) or len(fields) != width:
            raise SimrateError(f"{len(fields)} tab-separated fields; expected "
                               f"{width if width in (3, 4) else '3 (or 4 for word2sense)'}",
                               path, number)
        left, right, raw_id, meta = _split_record(fields)
        for name, text in (("larger", left), ("smaller", right), ("id", raw_id)):
            if not text.strip():
                raise SimrateError(f"the {name} field is empty", path, number)
        if raw_id in first_line:
            raise SimrateError(f"duplicate id {raw_id!r} (lines {first_line[raw_id]} and "
                               f"{number})", path, number)
        first_line[raw_id] = number
        rows["item_id"].append(f"{level}:{raw_id}")
        rows["left"].append(left)
        rows["right"].append(right)
        rows["genre"].append(genre_of(raw_id))
        rows["meta"].append(meta | {"id": raw_id})
        rows["line"].append(number)
    return rows


@without_gc
def read_clss(path: str | Path, dataset: str | None = None) -> pd.DataFrame:
    """Read a CLSS input file (and its gold key, when beside it) into an item frame."""
    path = Path(path)
    level = dataset or clss_level(path) or path.name.split(".")[0]
    source = read_text(path)
    lines = without_trailing_blank_lines(source.lines())
    rows = _clss_rows(lines, level, path)
    if not rows["line"]:
        raise SimrateError("file is empty", path)
    gold_path = clss_gold_path(path)
    scores = read_gold_key(gold_path, len(lines)) if gold_path else None
    rows["reference"] = ([scores[n - 1] for n in rows["line"]] if scores is not None
                         else [float("nan")] * len(rows["line"]))
    rows["dataset"] = [level] * len(rows["line"])
    frame = with_encoding(item_frame(rows), source.encoding)
    return with_reference_from(frame, gold_path, sum(r == r for r in rows["reference"]))
