"""The `pyramid` export: rated pyramid items back in the benchmark's layout, gold beside label.

`simrate pyramid` writes `pair_id, topic, left, right, label, left_scu, right_scu`; this
export writes the same columns for the pyramid items of a project, with the human gold
after the automatic label, then how the gold was reached and, for ranking questions rated
as pairs, which question a row belongs to and the candidate's role. Items that did not come
from a pyramid are left out (and counted). Texts are the items' own, so a row reads as it
was rated; quoting follows the other exports (app/formats/output/export.py).
"""

from __future__ import annotations

from typing import IO

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError

PYRAMID_COLUMNS = ("pair_id", "topic", "left", "right", "label", "gold", "left_scu",
                   "right_scu", "n_ratings", "gold_source", "test", "question_id", "role")
_NUMBERS = ("gold",)
_INTEGERS = ("label", "n_ratings")


def pyramid_table(gold: pd.DataFrame, items: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The rows of PYRAMID_COLUMNS for the pyramid items of `gold`, and how many were left out.

    `gold` is the gold table (app/core/review/gold.py), `items` the project's items with `meta`.
    """
    meta_of = dict(zip(items["item_id"], items["meta"], strict=True))
    rows = []
    skipped = 0
    for record in gold[["item_id", "dataset", "left", "right", "gold", "source",
                        "n_ratings"]].itertuples(index=False):
        meta = meta_of.get(record.item_id) or {}
        if meta.get("source") != "pyramid":
            skipped += 1
            continue
        topic = meta.get("topic") or record.dataset or record.item_id.split(":", 1)[0]
        rows.append((meta.get("pair_id", record.item_id), topic, record.left, record.right,
                     int(meta.get("label", 0)), record.gold, meta.get("left_scu", ""),
                     meta.get("right_scu", ""), int(record.n_ratings), record.source,
                     meta.get("test", "binary"), meta.get("question_id", ""),
                     meta.get("role", "")))
    if not rows:
        raise SimrateError("the project holds no items imported from pyramid files; "
                           "the pyramid format is for those")
    return pd.DataFrame(rows, columns=list(PYRAMID_COLUMNS)), skipped


def write_pyramid_table(table: pd.DataFrame, handle: IO[str],
                        progress=None) -> None:
    """Write the table as TSV: texts quoted only where needed, gold in shortest exact form."""
    from simrate.formats.output.export import number_texts, quote_texts, row_chunks

    handle.write("\t".join(PYRAMID_COLUMNS) + "\n")
    total = len(table)
    for start, stop in row_chunks(total):
        part = table.iloc[start:stop]
        columns = []
        for name in PYRAMID_COLUMNS:
            if name in _NUMBERS:
                columns.append(number_texts(part[name].to_numpy(dtype="float64")))
            elif name in _INTEGERS:
                columns.append([str(int(v)) for v in part[name].to_numpy(dtype=np.int64)])
            else:
                columns.append(quote_texts(part[name].tolist(), "\t"))
        handle.write("".join("\t".join(row) + "\n" for row in zip(*columns, strict=True)))
        if progress:
            progress(stop, total)
