"""Write the pyramid benchmark's tests as TSV files, atomically."""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from app.core.errors import SimrateError
from app.core.pyramid_pairs import BinaryPair, RankingQuestion

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
    """Write a header and rows as TSV (quoted where a field needs it) via a temporary file.

    The file appears under its name only when complete; on any failure the temporary file is
    removed and whatever was at `path` before is left untouched. Returns the number of rows.
    """
    path = Path(path)
    if not path.parent.is_dir():
        raise SimrateError("cannot write: the folder does not exist", path)
    count = 0
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            writer = csv.writer(stream, delimiter="\t", lineterminator="\n")
            writer.writerow(header)
            for row in rows:
                writer.writerow(row)
                count += 1
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise SimrateError(f"cannot write: {exc.strerror or exc}", path) from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return count
