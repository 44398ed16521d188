"""Importing crowd results (Turk/Turkle batch results) into a project, all or nothing.

Answers are matched to items through the `Input.id*` columns. When the file names a batch
and task that `simrate crowd export` recorded, every slot must hold the item recorded there
(results of another batch or a hand-edited file are refused with the line). Items the
project lacks are added from the file's own texts first, so a results file of tasks built
elsewhere also imports; an answer that shows other texts than the project's item of its id
is refused with its line. Work time is kept per rating, in seconds.

Workers are annotators of their own kind (`crowd`): a WorkerId equal to the name of a
person of the project or of a machine rater is refused with its line, never written into
that annotator's ratings (and a person's ratings never go under a crowd worker's name).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import RATING_COLUMNS, item_frame
from simrate.core.data.store import CROWD
from simrate.core.edits.roster import kind_clash
from simrate.core.imports.ratings_import import check_values
from simrate.core.project import Project
from simrate.core.team.crowd import recorded_slots


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
                               int(frame["line"].to_numpy()[row]))


def _check_texts(project: Project, frame: pd.DataFrame, source: str) -> None:
    """Every answer about an item the project holds carries that item's texts (when the
    file carries texts at all): an answer about other texts is not a rating of this item.
    Answers about an item the project lacks all carry the texts of its first answer."""
    carried = ((frame["left"].astype(str) != "") | (frame["right"].astype(str) != "")).to_numpy()
    rows = np.flatnonzero(carried)
    if not rows.size:
        return
    ids = frame["item_id"].iloc[rows]
    # the project's texts, or for an item it lacks, the texts of the item's first answer
    first = frame.iloc[rows].drop_duplicates("item_id").set_index("item_id")[["left", "right"]]
    held = project.items(["left", "right"]).set_index("item_id")
    held = pd.concat([held, first[~first.index.isin(held.index)]])
    want_left = held["left"].reindex(ids).to_numpy(object)
    want_right = held["right"].reindex(ids).to_numpy(object)
    left = frame["left"].iloc[rows].to_numpy(object)
    right = frame["right"].iloc[rows].to_numpy(object)
    differ = np.flatnonzero((left != want_left) | (right != want_right))
    if differ.size:
        row = int(rows[differ[0]])
        side = "left" if left[differ[0]] != want_left[differ[0]] else "right"
        item = str(frame["item_id"].iat[row])
        held_by = ("the project's item of that id" if project.has_item(item)
                   else "the first answer about that item in the file")
        raise SimrateError(f"the answer about item {item!r} (slot {frame['slot'].iat[row]}) "
                           f"shows a {side} text that differs from {held_by}; nothing was "
                           "imported", source, int(frame["line"].to_numpy()[row]))


def _check_workers(project: Project, frame: pd.DataFrame, source: str) -> None:
    """No WorkerId is the name of a person of the project or of a machine rater (checked
    before the file's new items go in; import_ratings checks again in its transaction)."""
    kinds = project.roster.kinds()
    names = frame["annotator"].astype(str).map(project.roster.name_of)  # `ANA` is `ana`
    clash = names.map(lambda name: kinds.get(name, CROWD) != CROWD).to_numpy(bool)
    if clash.any():
        row = int(np.flatnonzero(clash)[0])
        name = str(names.iat[row])
        raise SimrateError("WorkerId " + kind_clash(name, kinds[name], CROWD), source,
                           int(frame["line"].to_numpy()[row]))


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
    _check_texts(project, frame, source)
    _check_workers(project, frame, source)
    items = _new_items(project, frame)
    _missing_texts(items, source)
    # every rating checked before anything is written, items included: all or nothing
    check_values(frame[list(RATING_COLUMNS)], project.scale, source)
    # items, ratings and work time go in as one import (one transaction, one undo)
    counts = project.import_ratings(frame[[*RATING_COLUMNS, "seconds"]], source=source, kind=CROWD,
                                    items=items if len(items) else None)
    return CrowdImport(len(items), counts, int(frame["annotator"].nunique()),
                       list(frame.attrs.get("warnings", [])))
