"""Roster: a project's annotators (people and machine raters), their ids and exclusions.

A sub-model of `Project` (`project.roster`): it reads and writes the annotators table on
the project's connection and tells the project's subscribers through the project's one
change path (`publish`). Ids of annotators added inside a transaction reach the cache only
after that transaction commits (`remember`), so a failed write leaves no stale id behind.

One rater identity (core/base/names.py, core/data/raters.py): a name given in any spelling
with the key of a known rater (`ANA` for `ana`, an NFD `Zoë`) is that rater, under the
name stored first; people, crowd workers and machine raters share one namespace, and a
write of one kind under a name another kind holds is refused with one line naming it.
A cached id is checked against its row inside the write's transaction: ids are never
reused, so a rater removed by another process's undo is found again by name, never
confused with a later one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import AnnotatorAdded, Event
from simrate.core.base.frames import name_problem
from simrate.core.base.names import check_rater_name, nfc, rater_key
from simrate.core.base.rules import KIND_CLASH, KIND_RATINGS, KIND_WORDS
from simrate.core.data import raters
from simrate.core.data.changelog import log_change
from simrate.core.data.store import HUMAN, MACHINE, transaction
from simrate.core.edits import writes


def kind_clash(name: str, held: str, wanted: str) -> str:
    """Why ratings of kind `wanted` cannot go under `name`, an annotator of kind `held`
    (the hub says the same: rules.py)."""
    return KIND_CLASH.format(name=repr(name), held=KIND_WORDS.get(held, held),
                             wanted=KIND_RATINGS.get(wanted, f"{wanted} ratings"))


class Roster:
    """Names, ids, exclusions and machine raters of one open project."""

    def __init__(self, conn: sqlite3.Connection, path: Path, publish: Callable[[Event], None]):
        self._conn, self.path, self._publish = conn, path, publish
        self.edit: Callable = lambda: None  # Project.edit, set by the project
        self.reload()

    def reload(self) -> None:
        """Read the ids again (after another process changed the file)."""
        rows = self._conn.execute("SELECT name, id FROM annotators ORDER BY id").fetchall()
        self._ids: dict[str, int] = dict(rows)
        self._keys: dict[str, str] = {}
        for name, _aid in rows:
            self._keys.setdefault(rater_key(name), name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.name_of(name) in self._ids

    def name_of(self, name: str) -> str:
        """The stored name of the rater `name` names (its NFC form, else the rater with its
        key: `ANA` finds `ana`); `name` in NFC, stripped, for a rater not known here."""
        name = nfc(name.strip())
        if name in self._ids:
            return name
        return self._keys.get(rater_key(name), name)

    def names(self) -> list[str]:
        """Annotator names in the order they joined the project."""
        return [r[0] for r in self._conn.execute("SELECT name FROM annotators ORDER BY id")]

    def id_of(self, name: str) -> int | None:
        """The annotator's id, or None for a name the project does not know."""
        return self._ids.get(self.name_of(name))

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
        names = [self.name_of(a) for a in names]
        by = check_rater_name(by, "name of who excludes") if by else ""
        unknown = [a for a in names if a not in self._ids]
        if unknown:
            raise SimrateError(f"no annotator named {unknown[0]!r} in this project", self.path)
        with self.edit() as change:  # Project.edit: app/core/edits/writes.py
            return change.exclude(list(names), excluded, by, rule, expect)

    def add(self, name: str, kind: str = HUMAN) -> str:
        """Add an annotator who has no ratings yet (a team hub's person, or a crowd worker
        of a web study on the hub); no-op if known as `kind` under this name's key,
        SimrateError (one line naming the other kind) if known as another kind. Returns
        the stored name."""
        added: dict[str, int] = {}
        with transaction(self._conn, self.path) as conn:
            _aid, stored = self.resolve(conn, name, added, kind, strict=True)
        if added:
            self.remember(added)
            self._publish(AnnotatorAdded(stored))
        return stored

    def add_machine(self, name: str, by: str = "") -> str:
        """Register `name` as a machine rater (refused for a person's or crowd worker's
        name, in any spelling with its key); logged. Returns the stored name."""
        added: dict[str, int] = {}
        with transaction(self._conn, self.path) as conn:
            _aid, stored = self.resolve(conn, name, added, MACHINE, strict=True,
                                        what="machine rater name")
            if added:
                log_change(conn, "machine", by or stored, annotator=stored, new=stored)
        if added:
            self.remember(added)
            self._publish(AnnotatorAdded(stored, machine=True))
        return stored

    def kinds(self, conn: sqlite3.Connection | None = None) -> dict[str, str]:
        """{name: kind} of every annotator (human, machine or crowd), as stored now."""
        try:
            return dict((conn or self._conn).execute("SELECT name, kind FROM annotators"))
        except sqlite3.OperationalError:  # a read-only file of an older schema: all people
            return {name: HUMAN for name in self.names()}

    def id_for(self, conn: sqlite3.Connection, name: str, new: dict[str, int],
               kind: str = HUMAN, strict: bool = False) -> int:
        """The annotator's id, adding the annotator inside the caller's transaction (see
        `resolve`)."""
        return self.resolve(conn, name, new, kind, strict)[0]

    def resolve(self, conn: sqlite3.Connection, name: str, new: dict[str, int],
                kind: str = HUMAN, strict: bool = False, what: str = "annotator name"
                ) -> tuple[int, str]:
        """(id, stored name) of the rater `name` names, adding one of `kind` inside the
        caller's transaction when no rater has its key; ids added go into `new`, for
        `remember` once the transaction has committed. With `strict`, a rater of another
        kind under that key is refused (SimrateError naming the kind); else an existing
        rater keeps theirs (callers that write one kind check it first, see
        Project.import_ratings). A cached id is used only while its row still holds the
        name (another process may have undone the import that added it)."""
        text = nfc(name.strip()) if isinstance(name, str) else name
        problem = name_problem(text) if isinstance(text, str) else "an annotator needs a name"
        if problem:
            raise SimrateError(problem.replace("annotator name", what), self.path)
        stored = self.name_of(text)
        if not strict and stored in new:  # checked once in this transaction (bulk rows)
            return new[stored], stored
        aid = new.get(stored) or self._ids.get(stored)
        row = None if aid is None else conn.execute(
            "SELECT name, kind FROM annotators WHERE id = ?", (aid,)).fetchone()
        if aid is None or row is None or row[0] != stored:
            self._ids.pop(stored, None)  # gone (an undone import): never someone else's id
            self._keys.pop(rater_key(stored), None)
            found = raters.find(conn, text)
        else:
            found = (aid, stored, row[1])
        if found is not None:
            aid, stored, held = found
            if strict and held != kind:
                raise SimrateError(kind_clash(stored, held, kind), self.path)
        else:
            stored = text
            aid = writes.insert_rater(conn, stored, kind)
            log_change(conn, "annotator", annotator=stored, new=stored)
        if stored not in self._ids:  # added, or added by another process: for `remember`
            new[stored] = aid
        return aid, stored

    def one_spelling(self, conn: sqlite3.Connection, frame, source: str = ""):
        """`frame` (a ratings table, names in NFC) with each annotator name as the project
        stores the rater of its key (`ANA` -> `ana`); SimrateError with the line when the
        table writes one rater two ways. Names that are not allowed stay as they are (the
        planner refuses them with their line)."""
        names = [n for n in frame["annotator"].unique() if isinstance(n, str)]
        stored = dict(conn.execute("SELECT name, id FROM annotators ORDER BY id"))
        keys = {rater_key(n): n for n in reversed(list(stored))}  # the first of a key
        seen: dict[str, str] = {}
        rename = {}
        for name in names:
            text = name.strip()
            key = rater_key(text)
            if key in seen and seen[key] != text:
                line = int(frame["line"][frame["annotator"] == name].iloc[0])
                raise SimrateError(f"{text!r} and {seen[key]!r} are one rater (names equal "
                                   "but for case, width or form); write one of them",
                                   source or None, line)
            seen[key] = text
            if text not in stored and key in keys:
                rename[name] = keys[key]
        if not rename:
            return frame
        frame = frame.copy()
        frame["annotator"] = frame["annotator"].map(lambda n: rename.get(n, n))
        return frame

    def remember(self, new: dict[str, int]) -> None:
        """Cache the ids of annotators added by a transaction that has committed."""
        self._ids.update(new)
        for name in new:
            self._keys.setdefault(rater_key(name), name)
