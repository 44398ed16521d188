"""Small item and rating frames for tests that build projects (no Qt here)."""

from __future__ import annotations

import pandas as pd

from app.formats.base import item_frame, rating_frame


def make_items(n: int, datasets: tuple[str, ...] = ("alpha", "beta")) -> pd.DataFrame:
    """n pairs with ids d:1..n, alternating datasets, searchable words in the texts."""
    return item_frame({
        "item_id": [f"d:{i}" for i in range(1, n + 1)],
        "left": [f"left text number {i} about {'cats' if i % 3 == 0 else 'dogs'}"
                 for i in range(1, n + 1)],
        "right": [f"right text number {i}" for i in range(1, n + 1)],
        "dataset": [datasets[i % len(datasets)] for i in range(n)],
        "genre": ["news" if i % 2 else "forum" for i in range(n)],
        "reference": [float("nan")] * n,
        "meta": [{}] * n,
        "line": list(range(1, n + 1)),
    })


def make_ratings(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A ratings table from (item_id, annotator, score) rows."""
    return rating_frame({
        "item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
        "score": [r[2] for r in rows], "note": [""] * len(rows),
        "line": list(range(2, len(rows) + 2)),
    })
