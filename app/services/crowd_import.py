"""Importing crowd results (Turk/Turkle batch results) into a project, all or nothing.

Answers are matched to items through the `Input.id*` columns. When the file names a batch
and task that `simrate crowd export` recorded, every slot must hold the item recorded there
(results of another batch or a hand-edited file are refused with the line). Items the
project lacks are added from the file's own texts first, so a results file of tasks built
elsewhere also imports. Work time is kept per rating, in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from app.core.data.ratings_import import check_values
from app.core.errors import SimrateError
from app.core.frames import RATING_COLUMNS, item_frame
from app.core.project import Project
from app.core.team.crowd import recorded_slots


@dataclass(frozen=True)
class CrowdImport:
    """What a crowd results import did."""

    items_added: int
    ratings: dict[str, int]
    workers: int
    warnings: list[str]


def _check_recorded(project: Project, frame: pd.DataFrame, source: str) -> None:
    """Every answer of a recorded task names the item recorded in its slot."""
    recorded = recorded_slots(project)
    if not recorded:
        return
    keys = zip(frame["batch"], frame["task"], frame["slot"], strict=True)
    expected = [recorded.get((b, t, int(s))) for b, t, s in keys]
    for row, (want, got) in enumerate(zip(expected, frame["item_id"], strict=True)):
        if want is not None and want != got:
            raise SimrateError(f"task {frame['task'].iat[row]!r} of batch "
                               f"{frame['batch'].iat[row]!r} held item {want!r} in slot "
                               f"{frame['slot'].iat[row]}, not {got!r}", source,
                               int(frame["line"].iat[row]))


def _new_items(project: Project, frame: pd.DataFrame) -> pd.DataFrame:
    """Items the results name that the project lacks, with the texts the file carries."""
    unknown = ~np.fromiter((project.has_item(i) for i in frame["item_id"]), bool, len(frame))
    first = frame[unknown].drop_duplicates("item_id")
    return item_frame({
        "item_id": first["item_id"].tolist(), "left": first["left"].tolist(),
        "right": first["right"].tolist(), "dataset": [""] * len(first),
        "genre": [""] * len(first), "reference": [np.nan] * len(first),
        "meta": [{} for _ in range(len(first))], "line": first["line"].tolist()})


def _missing_texts(items: pd.DataFrame, source: str) -> None:
    lacking = items[(items["left"] == "") | (items["right"] == "")]
    if len(lacking):
        row = lacking.iloc[0]
        raise SimrateError(f"item {row['item_id']!r} is not in the project and the file "
                           "does not carry its texts (Input.leftN, Input.rightN)", source,
                           int(row["line"]))


def import_crowd_results(project: Project, frame: pd.DataFrame, source: str) -> CrowdImport:
    """Add the items and ratings of a read_turk frame; work time saved with each rating."""
    _check_recorded(project, frame, source)
    items = _new_items(project, frame)
    _missing_texts(items, source)
    # every rating checked before anything is written, items included: all or nothing
    check_values(frame[list(RATING_COLUMNS)], project.scale, source)
    # items, ratings and work time go in as one import (one transaction, one undo)
    counts = project.import_ratings(frame[[*RATING_COLUMNS, "seconds"]], source=source,
                                    items=items if len(items) else None)
    return CrowdImport(len(items), counts, int(frame["annotator"].nunique()),
                       list(frame.attrs.get("warnings", [])))
