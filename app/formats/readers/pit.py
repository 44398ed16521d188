"""SemEval-2015 PIT (Twitter paraphrase): Topic_Id, Topic_Name, Sent_1, Sent_2, Label, tags."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame
from simrate.formats.intake.pipeline import read_text
from simrate.formats.intake.textio import with_encoding, without_gc

COLUMNS = ("topic_id", "topic_name", "sent_1", "sent_2", "label", "sent_1_tag", "sent_2_tag")
MIN_FIELDS = 4  # a file without labels still has the topic and the two sentences
CROWD_VOTES = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*\)$", re.ASCII)  # \d: 0-9 only
EXPERT_DIGIT = re.compile(r"^\d$", re.ASCII)
#: The word of each reading in the task's label files and system outputs.
LABEL_FILE_WORDS = {"paraphrase": "true", "debatable": "----", "not": "false"}


def pit_dataset_name(path: Path) -> str:
    """The file name before its first dot: `dev` for dev.data and for dev.head300.data."""
    return path.name.split(".")[0] or path.stem


def label_of_votes(yes: int, no: int) -> str:
    """The task's reading of crowd votes: of five, 3-5 yes paraphrase, 2 debatable, 0-1 not.

    PIT had five votes per pair; other counts are read as the same share of five votes.
    """
    yes_of_five = round(5 * yes / (yes + no))
    return "paraphrase" if yes_of_five >= 3 else "debatable" if yes_of_five == 2 else "not"


def label_of_digit(digit: int) -> str:
    """The task's reading of an expert score: 4-5 paraphrase, 3 debatable, 0-2 not."""
    return "paraphrase" if digit >= 4 else "debatable" if digit == 3 else "not"


def label_of_score(score: float) -> str:
    """A 0-5 gold score read like an expert digit once rounded to the nearest point, halves up."""
    return label_of_digit(math.floor(score + 0.5))


def parse_label(text: str, path: Path, line: int) -> tuple[float, dict]:
    """(reference on the 0-5 scale, meta) of a crowd vote `(p, n)` or an expert digit.

    Crowd votes become the share of yes votes scaled to 0-5, which is p itself when
    five workers voted (the PIT norm): (3, 2) -> 3.0, like an expert 3 on the same scale.
    """
    text = text.strip()
    if not text:
        return float("nan"), {}
    votes = CROWD_VOTES.match(text)
    if votes:
        yes, no = int(votes.group(1)), int(votes.group(2))
        if yes + no == 0:
            raise SimrateError(f"label {text!r} counts no votes", path, line)
        meta = {"votes_yes": yes, "votes_no": no, "label": label_of_votes(yes, no)}
        return 5 * yes / (yes + no), meta
    if EXPERT_DIGIT.match(text) and int(text) <= 5:
        digit = int(text)
        return float(digit), {"expert_label": digit, "label": label_of_digit(digit)}
    raise SimrateError(f"label {text!r} is neither a crowd vote like (3, 2) nor a digit 0-5",
                       path, line)


@without_gc
def read_pit(path: str | Path, dataset: str | None = None) -> pd.DataFrame:
    """Read a PIT 2015 data file into an item frame (genre = topic name)."""
    path = Path(path)
    dataset = dataset or pit_dataset_name(path)
    rows: dict[str, list] = {c: [] for c in ("item_id", "left", "right", "genre", "reference",
                                             "meta", "line")}
    source = read_text(path)
    for number, line in enumerate(source.lines(), start=1):
        if not line.strip():
            continue
        fields = line.split("\t")  # tweets keep their quotes: split on the tab only
        if not MIN_FIELDS <= len(fields) <= len(COLUMNS):
            raise SimrateError(f"{len(fields)} tab-separated fields; expected {len(COLUMNS)} "
                               "(Topic_Id, Topic_Name, Sent_1, Sent_2, Label, Sent_1_tag, "
                               "Sent_2_tag)", path, number)
        record = dict(zip(COLUMNS, fields, strict=False))  # the tag columns may be absent
        for name in ("sent_1", "sent_2"):
            if not record[name].strip():
                raise SimrateError(f"{name.capitalize()} is empty", path, number)
        reference, meta = parse_label(record.get("label", ""), path, number)
        meta["topic_id"] = record["topic_id"].strip()
        for tag in ("sent_1_tag", "sent_2_tag"):
            if tag in record:
                meta[tag] = record[tag]
        rows["item_id"].append(f"{dataset}:{number}")
        rows["left"].append(record["sent_1"])
        rows["right"].append(record["sent_2"])
        rows["genre"].append(record["topic_name"].strip())
        rows["reference"].append(reference)
        rows["meta"].append(meta)
        rows["line"].append(number)
    if not rows["line"]:
        raise SimrateError("file is empty", path)
    rows["dataset"] = [dataset] * len(rows["line"])
    return with_encoding(item_frame(rows), source.encoding)
