"""Small rated projects for the organizer tests (three raters, flags, datasets, genres)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.project import Project
from tests.core.frames import make_items, make_ratings

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
