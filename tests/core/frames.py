"""Small item and rating frames, and small rated projects, for tests (no Qt here)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.project import Project


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


RATERS = ("ann", "ben", "cat")


def make_rated_project(path: Path, n_items: int = 12, seed: int = 11,
                       scale: str = "clss") -> Path:
    """A project whose raters disagree enough that several items are flagged.

    Items d:1..n in datasets alpha/beta and genres news/forum; 'cat' skips every fourth item.
    """
    rng = np.random.default_rng(seed)
    top = 16 if scale == "clss" else 20
    rows = []
    for i in range(1, n_items + 1):
        base = int(rng.integers(0, top + 1))
        for rater in RATERS:
            if rater == "cat" and i % 4 == 0:
                continue
            code = int(np.clip(base + rng.integers(-5, 6), 0, top))
            rows.append((f"d:{i}", rater, code * 0.25))
    with Project.create(path, scale=scale, title="Organizer test") as project:
        project.import_items(make_items(n_items), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="ratings.tsv")
    return path


def write_long(path: Path, rows: list[tuple]) -> str:
    """A long ratings CSV (item_id, annotator, score, note) from rows of those four."""
    path.write_text("item_id,annotator,score,note\n"
                    + "".join(f"{i},{a},{s},{n}\n" for i, a, s, n in rows), encoding="utf-8")
    return str(path)
