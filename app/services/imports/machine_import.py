"""Adding a machine rater: its scores from a system output or a ratings file, as one rater.

A model's scores are rarely on the scale's grid (3.127 on a 0.25 grid): they are rounded to
the nearest step and kept within the scale, and the count of rounded scores is reported,
because the project stores every rating as a step code. The rater is marked as a machine
before its ratings arrive, so it never enters gold, flags or the humans' agreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.data.open_files import refuse_if_open
from simrate.core.data.store import MACHINE
from simrate.core.project import Project


@dataclass(frozen=True)
class MachineImport:
    """What adding a machine rater's scores did."""

    name: str
    counts: dict[str, int]
    rounded: int


def read_machine_frame(project: Project, path: str | Path, name: str, fmt: str = "auto",
                       dataset: str | None = None) -> pd.DataFrame:
    """The machine's scores as a rating frame (annotator = name), not yet on the grid."""
    from simrate.formats.readers.detect import detect_format
    from simrate.formats.readers.machine_scores import read_machine_scores
    from simrate.formats.readers.ratings import read_ratings

    refuse_if_open(path)
    chosen = detect_format(path) if fmt == "auto" else fmt
    if chosen == "ratings":
        if dataset is not None:
            raise SimrateError("--dataset chooses the items of a system output (one score a "
                               "line); this ratings file names its items, so --dataset would "
                               "be ignored: leave it out", path)
        frame = read_ratings(path, fallback_annotator=name)
        raters = pd.unique(frame["annotator"])
        if len(raters) > 1:
            raise SimrateError(f"the file holds {len(raters)} raters; a machine rater's file "
                               "holds one", path)
        return frame.assign(annotator=name)
    items = project.items()
    if dataset is not None:
        items = items[items["dataset"] == dataset]
        if items.empty:
            raise SimrateError(f"no items of dataset {dataset!r} in the project")
    return read_machine_scores(path, items["item_id"].tolist(), name)


def on_grid(project: Project, frame: pd.DataFrame, path: str | Path | None = None
            ) -> tuple[pd.DataFrame, int]:
    """Scores rounded to the nearest step within the scale; (frame, how many changed).

    A score further outside the scale than the scale is wide (1e308 on 0-5) is refused: it
    is not a score on this scale that rounding could keep."""
    scale = project.scale
    top = int(round((scale.high - scale.low) / scale.step))
    raw = frame["score"].to_numpy(float)
    width = scale.high - scale.low
    far = (raw < scale.low - width) | (raw > scale.high + width)
    if far.any():
        row = int(np.flatnonzero(far)[0])
        line = int(frame["line"].to_numpy()[row]) if "line" in frame.columns else None
        raise SimrateError(f"score {raw[row]:g} is far outside the scale {scale.describe()} "
                           "(more than its width beyond it): give scores on the project's "
                           "scale", path, line)
    codes = np.clip(np.rint((raw - scale.low) / scale.step), 0, top)
    snapped = scale.grid_values()[codes.astype(np.int64)]  # the exact grid decimals
    changed = int((np.abs(snapped - raw) > 1e-9).sum())
    return frame.assign(score=snapped), changed


def import_machine(project: Project, path: str | Path, name: str, fmt: str = "auto",
                   dataset: str | None = None, by: str = "") -> MachineImport:
    """Register `name` as a machine rater and import its scores (all or nothing). A new
    machine rater is added by the import itself, so that undoing it takes the rater back
    too (a name another kind holds is refused, naming that kind)."""
    frame = read_machine_frame(project, path, name.strip(), fmt, dataset)
    frame, rounded = on_grid(project, frame, path)
    project.plan_ratings(frame, str(path))  # unknown items: refused before anything is written
    if name.strip() in project.roster or not len(frame):
        project.roster.add_machine(name, by=by)  # a known name: checked (and logged) here
    counts = project.import_ratings(frame, source=str(path), kind=MACHINE)
    return MachineImport(name.strip(), counts, rounded)
