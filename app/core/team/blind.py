"""What an annotator must not learn, as one rule for packages and hub replicas alike.

An annotator's copy of a project (a package, or a replica of a hub joined with an
annotator's login) holds each item's id, texts, dataset and genre, and nothing else:

- no reference score (gold keys, the known scores of check items): it would bias the
  rater and defeat the check items;
- no item metadata, which can hold votes, labels, a check mark or a file path;
- no source path: the organizer's folders stay on the organizer's machine;
- nothing that marks check items, so a check item looks like any other.

The hub enforces the same rule on the server (hub/schema/access.py: annotators' roles may read
only these columns of the items table, its GRANT rendered from the same list). The
organizer's own file and an organizer's replica keep everything.

Blindness on one machine: in a plain project file it is a matter of trust, so opening a
file in organizer mode, or switching it on or off, is written to the change log (kind
`organizer_mode`) under the person's name, and `simrate info` shows who did it. On a hub replica the
server decides: an annotator's replica has no organizer mode at all.
"""

from __future__ import annotations

import json
import time

import pandas as pd

from simrate.core.base import rules
from simrate.core.base.errors import SimrateError
from simrate.core.data.changelog import log_change
from simrate.core.data.counts import ORGANIZER_MODE, ORGANIZER_MODE_BY
from simrate.core.project import Project
from simrate.core.team.teamdb import team_write

#: Item columns an annotator's copy carries (the rest is emptied): the one list, which the
#: hub's GRANT to annotators is rendered from too (core/base/rules.py).
ANNOTATOR_ITEM_COLUMNS = rules.ANNOTATOR_ITEM_COLUMNS
#: Meta key: this annotator's replica has been emptied of what it must not hold.
BLIND_DONE = "hub_blind"


def blind_items(items: pd.DataFrame) -> pd.DataFrame:
    """An item table (as `Project.items()` gives it) made fit for an annotator: the same
    items and texts, with no reference score and no metadata; `line` keeps each item's
    place in the origin (1-based)."""
    frame = pd.DataFrame({column: items[column] for column in ANNOTATOR_ITEM_COLUMNS})
    frame["reference"] = float("nan")
    frame["meta"] = [{} for _ in range(len(items))]
    frame["line"] = items["ord"] + 1
    return frame


def source_name(path: str) -> str:
    """What the hub keeps of an item's source path: the file's name, not its folders."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


def blind_replica(project: Project) -> bool:
    """Empty an annotator's replica of reference scores and item metadata (a replica
    joined with an older simrate received them; its items' source was always "hub");
    once per file. True if it changed anything."""
    if not project.mode.annotator or project.meta(BLIND_DONE) == "1":
        return False
    with team_write(project) as write:
        changed = write.blank_references()
        write.set_hub_keys({BLIND_DONE: "1"})
    return changed > 0


# ----------------------------------------------------------------- organizer mode
def check_organizer_mode(project: Project) -> None:
    """SimrateError when this file may not be opened in organizer mode: an annotator's
    replica of a hub (the hub gives it no one else's ratings, and its person is no
    organizer)."""
    if project.mode.annotator:
        who = project.mode.name or "an annotator"
        raise SimrateError(f"organizer mode is for organizers: this is {who}'s replica of a "
                           "hub, joined with an annotator's login", project.path)


def record_organizer_mode(project: Project, who: str, on: bool) -> None:
    """Write to the project's change log that `who` switched organizer mode on (or off);
    SimrateError on an annotator's replica (check_organizer_mode). The log stays in the
    file: a hub replica does not send it."""
    check_organizer_mode(project)
    with team_write(project) as write:
        write.step(log_change, ORGANIZER_MODE, who=who, new=bool(on))
        if on:  # the tally `simrate info` shows
            tally = json.loads(write.meta(ORGANIZER_MODE_BY) or "{}")
            count = tally.get(who, [0, 0])[0]
            tally[who] = [count + 1, time.time()]
            write.set_organizer_tally(ORGANIZER_MODE_BY, tally)
