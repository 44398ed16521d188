"""Small projects for the export tests, with texts that break careless writers."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from simrate.core.base.frames import (
    FIGURE_COLUMNS,
    FIGURE_DECIMALS,
    GOLD_COLUMNS,
    RATING_PREFIX,
    annotator_columns,
    item_frame,
    rating_frame,
)
from simrate.core.project import Project

#: Texts that must survive an export byte for byte.
TRICKY_TEXTS = [
    '=1+2', '+44 20 7946 0000', '-3 degrees', '@handle says hi', '=HYPERLINK("http://x")',
    'she said "hi"', '"quoted at both ends"', 'a\ttab', 'two\nlines', 'lone\rcarriage',
    'emoji 😀👍🏽 here', 'שלום עולם, مرحبا بالعالم', '#N/A', '  padded  ', "it's; a, mix",
    'trailing backslash \\',
]


def make_project(path: Path, scale: str = "sts", texts: list[str] | None = None,
                 ratings: list[tuple[str, str, float]] | None = None,
                 datasets: list[str] | None = None) -> Project:
    """A project with one item per text (ids t:1..), rated by `ratings` (default: calm)."""
    texts = TRICKY_TEXTS if texts is None else texts
    n = len(texts)
    project = Project.create(path, scale=scale, title="export test")
    project.import_items(item_frame({
        "item_id": [f"t:{i}" for i in range(1, n + 1)],
        "left": texts,
        "right": [f"right of {t}" for t in reversed(texts)],
        "dataset": datasets or ["alpha" if i % 2 else "beta" for i in range(n)],
        "genre": ["news" if i % 3 else "" for i in range(n)],
        "reference": [float("nan")] * n,
        "meta": [{}] * n,
        "line": list(range(1, n + 1)),
    }), source="items.tsv")
    if ratings is None:
        ratings = [(f"t:{i}", name, float((i + shift) % 4))
                   for i in range(1, n + 1) for name, shift in (("ann", 0), ("bob", 0))]
        ratings += [(f"t:{i}", "cy", float(i % 4) + 0.5) for i in range(1, n + 1, 2)]
    if ratings:
        project.import_ratings(rating_frame({
            "item_id": [r[0] for r in ratings], "annotator": [r[1] for r in ratings],
            "score": [r[2] for r in ratings], "note": [""] * len(ratings),
            "line": list(range(2, len(ratings) + 2)),
        }), source="ratings.tsv")
    return project


def jsonl_records(gold: pd.DataFrame) -> Iterable[dict]:
    """The JSONL export's objects built the slow, obvious way, for the fast writer to match."""
    raters = annotator_columns(gold)
    for row in gold.to_dict("records"):
        record: dict[str, object] = {}
        for column in GOLD_COLUMNS + raters:
            value = row[column]
            if isinstance(value, float) and value != value:
                value = None
            elif column == "n_ratings":
                value = int(value)
            elif column in ("flagged", "adjudicated"):
                value = bool(value)
            elif column in FIGURE_COLUMNS:  # computed figures: rounded, as the writers do
                value = round(float(value), FIGURE_DECIMALS)
            elif isinstance(value, float):
                value = float(value)
            record[column] = value
        record["ratings"] = {c[len(RATING_PREFIX):]: record[c] for c in raters
                             if record[c] is not None}
        yield record
