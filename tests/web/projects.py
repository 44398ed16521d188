"""Small real project files for the web study tests."""

from __future__ import annotations

from pathlib import Path

from simrate.core.base.frames import item_frame
from simrate.core.project import Project
from simrate.core.team.quality import set_checks


def make_project(path: Path, items: int = 20, checks: int = 3,
                 texts: tuple[str, str] | None = None) -> Path:
    """A project of `items` pairs (ids i01..) and `checks` check items (c1..) of known score,
    with one in-house annotator `alice` who rated the first item."""
    ids = [f"i{n:03d}" for n in range(1, items + 1)] + [f"c{n}" for n in range(1, checks + 1)]
    left = [texts[0] if texts else f"left text {i}" for i in ids]
    right = [texts[1] if texts else f"right text {i}" for i in ids]
    frame = item_frame({"item_id": ids, "left": left, "right": right,
                        "dataset": [""] * len(ids), "genre": [""] * len(ids),
                        "reference": [float("nan")] * len(ids), "meta": [{} for _ in ids],
                        "line": list(range(1, len(ids) + 1))})
    with Project.create(path, "clss") as project:
        project.import_items(frame, source="test")
        set_checks(project, {f"c{n}": float(n % 5) for n in range(1, checks + 1)}, by="t")
        project.rate(ids[0], "alice", 2.0)
    return path
