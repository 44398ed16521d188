"""Roster: a project's annotators (people and machine raters), their ids and exclusions.

A sub-model of `Project` (`project.roster`): it reads and writes the annotators table on
the project's connection and tells the project's subscribers through the project's one
change path (`publish`). Ids of annotators added inside a transaction reach the cache only
after that transaction commits (`remember`), so a failed write leaves no stale id behind.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from simrate.core.data.changelog import log_change
from simrate.core.errors import SimrateError
from simrate.core.events import AnnotatorAdded, Event
from simrate.core.frames import name_problem
from simrate.core.names import nfc
from simrate.core.store import CROWD, HUMAN, MACHINE, transaction

#: How each kind of annotator is named in messages.
KIND_WORDS = {HUMAN: "a human annotator", MACHINE: "a machine rater",
              CROWD: "a crowd worker"}


def kind_clash(name: str, held: str, wanted: str) -> str:
    """Why ratings of kind `wanted` cannot go under `name`, an annotator of kind `held`."""
    what = {HUMAN: "people's ratings", MACHINE: "a machine rater's scores",
            CROWD: "crowd answers"}.get(wanted, f"{wanted} ratings")
    return (f"{name!r} is {KIND_WORDS.get(held, held)} of this project; {what} cannot go "
            "under that name")


class Roster:
    """Names, ids, exclusions and machine raters of one open project."""

    def __init__(self, conn: sqlite3.Connection, path: Path, publish: Callable[[Event], None]):
        self._conn, self.path, self._publish = conn, path, publish
        self.edit: Callable = lambda: None  # Project.edit, set by the project
        self.reload()

    def reload(self) -> None:
        """Read the ids again (after another process changed the file)."""
        self._ids: dict[str, int] = dict(self._conn.execute("SELECT name, id FROM annotators"))

    def __contains__(self, name: object) -> bool:
        return name in self._ids

    def names(self) -> list[str]:
        """Annotator names in the order they joined the project."""
        return [r[0] for r in self._conn.execute("SELECT name FROM annotators ORDER BY id")]

    def id_of(self, name: str) -> int | None:
        """The annotator's id, or None for a name the project does not know."""
        return self._ids.get(nfc(name))

    def ids(self) -> dict[str, int]:
        """{name: id} of every annotator (ids key the flag index)."""
        return dict(self._ids)

    def excluded(self) -> list[str]:
        """Annotators excluded from agreement and gold."""
        return [r[0] for r in self._conn.execute("SELECT name FROM annotators WHERE excluded=1")]

    def machines(self) -> list[str]:
        """Machine raters: they never enter gold or flags, nor the humans' agreement."""
        try:
            return [r[0] for r in self._conn.execute(
                "SELECT name FROM annotators WHERE kind = 'machine' ORDER BY id")]
        except sqlite3.OperationalError:  # a read-only file of an older schema: no machines
            return []

    def left_out(self) -> list[str]:
        """Annotators whose ratings count in neither gold, flags nor the humans' alpha."""
        return list(dict.fromkeys(self.excluded() + self.machines()))

    def counted_ids(self) -> set[int]:
        """Ids of the annotators whose ratings count."""
        left_out = set(self.left_out())
        return {aid for name, aid in self._ids.items() if name not in left_out}

    def set_excluded(self, names: Sequence[str], excluded: bool, by: str = "",
                     rule: dict | None = None, expect: bool | None = None) -> list[bool]:
        """Exclude (or count again) these annotators in one logged transaction; `rule`
        (what decided it) is logged once beside them. Returns their previous states. With
        `expect` (undo and redo), only when every one of them is still in that state
        (checked inside the transaction): SimrateError, nothing written, otherwise."""
        unknown = [a for a in names if a not in self._ids]
        if unknown:
            raise SimrateError(f"no annotator named {unknown[0]!r} in this project", self.path)
        with self.edit() as change:  # Project.edit: app/core/data/writes.py
            return change.exclude(list(names), excluded, by, rule, expect)

    def add(self, name: str, kind: str = HUMAN) -> None:
        """Add an annotator who has no ratings yet (a team hub's person, or a crowd worker
        of a web study on the hub); no-op if known."""
        name = nfc(name.strip())
        if name in self._ids:
            return
        added: dict[str, int] = {}
        with transaction(self._conn, self.path) as conn:
            self.id_for(conn, name, added, kind)
        self.remember(added)
        self._publish(AnnotatorAdded(name))

    def add_machine(self, name: str, by: str = "") -> None:
        """Register `name` as a machine rater (refused for a person's name); logged."""
        name = nfc(name.strip())
        if not name:
            raise SimrateError("a machine rater needs a name")
        problem = name_problem(name)
        if problem:
            raise SimrateError(problem.replace("annotator name", "machine rater name"))
        if name in self.machines():
            return
        if name in self._ids:
            held = self.kinds().get(name, HUMAN)
            raise SimrateError(f"{name!r} is {KIND_WORDS.get(held, held)} of this project; "
                               "give the machine rater another name", self.path)
        with transaction(self._conn, self.path) as conn:
            aid = conn.execute("INSERT INTO annotators (name, kind) VALUES (?, 'machine')",
                               (name,)).lastrowid
            log_change(conn, "machine", by or name, annotator=name, new=name)
        self.remember({name: aid})
        self._publish(AnnotatorAdded(name, machine=True))

    def kinds(self, conn: sqlite3.Connection | None = None) -> dict[str, str]:
        """{name: kind} of every annotator (human, machine or crowd), as stored now."""
        try:
            return dict((conn or self._conn).execute("SELECT name, kind FROM annotators"))
        except sqlite3.OperationalError:  # a read-only file of an older schema: all people
            return {name: HUMAN for name in self.names()}

    def id_for(self, conn: sqlite3.Connection, name: str, new: dict[str, int],
               kind: str = HUMAN) -> int:
        """The annotator's id, adding the annotator inside the caller's transaction; ids
        added go into `new`, for `remember` once the transaction has committed. A new
        annotator is of `kind` (an existing one keeps theirs: callers that write one kind
        of ratings check it first, see Project.import_ratings)."""
        name = nfc(name.strip())  # Zoë typed either way is one annotator (core/names.py)
        problem = name_problem(name)
        if problem:
            raise SimrateError(problem, self.path)
        aid = self._ids.get(name) or new.get(name)
        if aid is None:
            row = conn.execute("SELECT id FROM annotators WHERE name = ?", (name,)).fetchone()
            if row is None:
                aid = conn.execute("INSERT INTO annotators (name, kind) VALUES (?, ?)",
                                   (name, kind)).lastrowid
                log_change(conn, "annotator", annotator=name, new=name)
            else:
                aid = row[0]
            new[name] = aid
        return aid

    def remember(self, new: dict[str, int]) -> None:
        """Cache the ids of annotators added by a transaction that has committed."""
        self._ids.update(new)
