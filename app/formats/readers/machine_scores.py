"""A machine rater's scores: a system output file, or `item_id<TAB>score` lines.

System outputs as `simrate evaluate` reads them hold one score per line (optionally a tab and
a confidence, or PIT's `label<TAB>score`), in the order of the items they were made for; they
are matched to the given item ids line by line, and the counts must agree. A file whose first
field is an item id (or whose first line is an `item_id` header) is read as keyed lines.
"""

from __future__ import annotations

from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import rating_frame
from simrate.formats.intake.pipeline import read_text
from simrate.formats.intake.textio import parse_number, without_trailing_blank_lines

PIT_LABELS = ("true", "false", "----")


def _score(fields: list[str], path: Path, line: int) -> float:
    """The score of an aligned line: first field, or the second after a PIT label."""
    first = fields[0].strip()
    text = fields[1].strip() if first.lower() in PIT_LABELS and len(fields) > 1 else first
    value = parse_number(text)
    if value is None:
        raise SimrateError(f"{text!r} is not a score (one number per line, optionally a tab "
                           "and a confidence)", path, line)
    return value


def read_machine_scores(path: str | Path, item_ids: list[str], name: str):
    """A rating frame of `name`'s scores for `item_ids` (aligned) or for the items it names."""
    path = Path(path)
    lines = without_trailing_blank_lines(read_text(path).lines())
    records = [(number, line.split("\t")) for number, line in enumerate(lines, 1)]
    if not records:
        raise SimrateError("no scores in the file", path)
    known = set(item_ids)
    head = records[0][1][0].strip()
    keyed = head.lower() in ("item_id", "id") or (head in known and parse_number(head) is None)
    if keyed:
        if head.lower() in ("item_id", "id"):
            records = records[1:]
        chosen = []
        for number, fields in records:
            if len(fields) < 2 or not fields[0].strip():
                raise SimrateError("expected item_id<TAB>score", path, number)
            chosen.append((fields[0].strip(), _score(fields[1:], path, number), number))
    else:
        if len(records) != len(item_ids):
            raise SimrateError(f"{len(records)} scores for {len(item_ids)} items: a system "
                               "output must have one line per item, in project order (or "
                               "name its items: item_id<TAB>score)", path)
        chosen = [(item, _score(fields, path, number), number)
                  for item, (number, fields) in zip(item_ids, records, strict=True)]
    for number, fields in records:
        if not fields[0].strip():
            raise SimrateError("blank line inside the file", path, number)
    return rating_frame({"item_id": [c[0] for c in chosen], "annotator": [name] * len(chosen),
                         "score": [c[1] for c in chosen], "note": [""] * len(chosen),
                         "line": [c[2] for c in chosen]})
