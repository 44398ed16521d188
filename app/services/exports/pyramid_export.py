"""Write the pyramid benchmark's tests as TSV files, atomically."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from simrate.core.pyramid.pairs import BinaryPair, RankingQuestion
from simrate.formats.output.atomic import atomic_open

BINARY_COLUMNS = ("pair_id", "topic", "left", "right", "label", "left_scu", "right_scu")
RANKING_COLUMNS = ("question_id", "topic", "scu", "question", "answer",
                   "distractor_1", "distractor_2", "distractor_3")


def binary_rows(pairs: Iterable[BinaryPair]) -> Iterable[tuple]:
    """One row of BINARY_COLUMNS per pair."""
    for p in pairs:
        yield (p.pair_id, p.topic, p.left.text, p.right.text, p.label, p.left.scu, p.right.scu)


def ranking_rows(questions: Iterable[RankingQuestion]) -> Iterable[tuple]:
    """One row of RANKING_COLUMNS per question."""
    for q in questions:
        yield (q.question_id, q.topic, q.question.scu, q.question.text, q.answer.text,
               *(d.text for d in q.distractors))


def write_tsv_atomically(path: str | Path, header: Sequence[str], rows: Iterable[tuple]) -> int:
    """Write a header and rows as TSV (quoted where a field needs it); returns the row count.

    Through app/formats/output/atomic.py: the file appears under its name only when complete, and a
    failure leaves whatever was at `path` before untouched.
    """
    count = 0
    with atomic_open(path) as stream:
        writer = csv.writer(stream, delimiter="\t", lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            writer.writerow(row)
            count += 1
    return count
