"""Project: the one facade over a `.simrate` file that the command line and the GUI both use."""

from __future__ import annotations

import itertools
import json
import sqlite3
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from app.core.agreement.live import LiveAgreement
from app.core.errors import SimrateError
from app.core.frames import ITEM_COLUMNS, RATING_COLUMNS
from app.core.review.flags import FlagIndex, threshold_codes
from app.core.review.gold import compute_gold
from app.core.scale import Scale, load_scale
from app.core.store import (
    create_store,
    dumps,
    log_change,
    open_store,
    read_meta,
    transaction,
)

ITEM_FRAME_COLUMNS = ["item_id", "ord", "left", "right", "dataset", "genre", "reference", "meta"]
RATING_FRAME_COLUMNS = [
    "item_id", "annotator", "code", "score", "note", "skipped", "seconds", "updated_at",
]


@dataclass(frozen=True)
class PlannedRating:
    """One rating of an incoming ratings table, checked and compared with the project.

    status: `added` (no score yet), `unchanged`, `note` (same score, a note the project
    lacks or holds otherwise) or `score` (the project holds another score).
    """

    item_id: str
    annotator: str
    code: int
    note: str
    line: int
    old_code: int | None
    old_note: str
    status: str


@dataclass(frozen=True)
class Change:
    """One committed change, sent to subscribers after the commit."""

    kind: str  # rating, ratings, skip, adjudication, items, annotator, settings, reload
    item_id: str | None = None
    annotator: str | None = None
    old: Any = None
    new: Any = None


class Project:
    """A rating project stored in one SQLite file."""

    def __init__(self, path: Path, conn: sqlite3.Connection, meta: dict[str, str]):
        self.path = path
        self._conn = conn
        self._meta = meta
        self.scale = Scale.from_dict(json.loads(meta["scale"]), path)
        self.title = meta.get("title", "")
        self._subscribers: list[Callable[[Change], None]] = []
        self._state: _AgreementState | None = None
        self._data_version = self._read_data_version()
        self._load_index()

    # ----------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | Path, scale: str | Path | Scale = "clss", title: str = "") -> Project:
        """Create a new, empty project file with the given scale."""
        path = Path(path)
        scale_obj = scale if isinstance(scale, Scale) else load_scale(scale)
        meta = {
            "app": "simrate",
            "scale": json.dumps(scale_obj.to_dict(), ensure_ascii=False),
            "title": title,
            "threshold": "1.0",
            # Packages name their origin by this id (see app/core/team/packages.py).
            "project_uuid": str(uuid.uuid4()),
        }
        conn = create_store(path, meta)
        conn.close()
        return cls.open(path)

    @classmethod
    def open(cls, path: str | Path) -> Project:
        """Open an existing project file."""
        path = Path(path)
        conn, meta = open_store(path)
        if "scale" not in meta:
            conn.close()
            raise SimrateError("not a simrate project (no scale recorded)", path)
        return cls(path, conn, meta)

    def close(self) -> None:
        """Close the file; the project object is unusable afterwards."""
        self._conn.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _load_index(self) -> None:
        rows = self._conn.execute("SELECT ord, id FROM items ORDER BY ord").fetchall()
        self._item_ids: list[str] = [r[1] for r in rows]
        self._ord: dict[str, int] = {r[1]: r[0] for r in rows}
        self._id_by_ord: dict[int, str] = {r[0]: r[1] for r in rows}
        self._annotator_ids: dict[str, int] = dict(
            self._conn.execute("SELECT name, id FROM annotators")
        )

    def _ords_are_positions(self) -> bool:
        """True when ords are 0..n-1, as import makes them (not so if the file was edited by
        hand): ords rise with position, so the last one being n-1 means every one is."""
        return not self._item_ids or self._ord[self._item_ids[-1]] == len(self._item_ids) - 1

    def _ids_for_ords(self, ords: np.ndarray) -> np.ndarray:
        """Item ids for an array of ords."""
        if self._ords_are_positions():
            return np.asarray(self._item_ids, dtype=object)[ords]
        return np.array([self._id_by_ord[o] for o in ords], dtype=object)

    def _read_data_version(self) -> int:
        # SQLite changes data_version only for commits made by other connections, so our own
        # writes never need recording here (recording them would hide another writer's change).
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def refresh(self) -> bool:
        """Reload if another process changed the file since we last looked; True if it did."""
        version = self._read_data_version()
        if version == self._data_version:
            return False
        self._data_version = version
        self._meta = dict(self._conn.execute("SELECT key, value FROM meta"))  # the threshold
        self._load_index()
        self._state = None
        self._notify(Change("reload"))
        return True

    # ----------------------------------------------------------- notifications
    def subscribe(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        """Call `callback(change)` after each committed change; returns an unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _notify(self, change: Change) -> None:
        for callback in list(self._subscribers):
            callback(change)

    # ----------------------------------------------------------- file access for core modules
    def meta(self, key: str) -> str | None:
        """One value of the file's meta table as stored now, or None."""
        return read_meta(self._conn, key)

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple]:
        """The rows of one query, for core modules that keep their own tables in the file."""
        return self._conn.execute(sql, params).fetchall()

    def write_transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction for core modules that keep their own tables in the file.

        All of it is committed or none. The Project's in-memory state does not see what is
        written here, so write only what it does not keep: team tables (app/core/team/teamdb.py),
        the change log, and meta keys other than scale, title and threshold.
        """
        return transaction(self._conn, self.path)

    # ----------------------------------------------------------- settings
    @property
    def threshold(self) -> float:
        """Spread (in scale points) at which an item is flagged; 1.0 unless set."""
        return float(self._meta.get("threshold", "1.0"))

    def set_threshold(self, points: float) -> None:
        """Set the project's disagreement threshold in scale points."""
        if not points > 0:
            raise SimrateError(f"threshold must be positive, not {points}")
        with transaction(self._conn, self.path) as conn:
            conn.execute("INSERT OR REPLACE INTO meta VALUES ('threshold', ?)", (str(points),))
            log_change(conn, "threshold", old=self.threshold, new=points)
        self._meta["threshold"] = str(points)
        self._state = None
        self._notify(Change("settings"))

    # ----------------------------------------------------------- items
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self._item_ids)

    def item_ids(self) -> list[str]:
        """Item ids in project order."""
        return list(self._item_ids)

    def has_item(self, item_id: str) -> bool:
        """True if the project has this item."""
        return item_id in self._ord

    def item_ord(self, item_id: str) -> int:
        """The item's ord, its key in the file and in `flags`; SimrateError if unknown.

        Ords are 0, 1, 2, ... in import order, so an ord is the item's position unless the
        file was edited by hand; use `position()` for the position.
        """
        try:
            return self._ord[item_id]
        except KeyError:
            raise SimrateError(f"no item with id {item_id!r} in this project", self.path) from None

    def item_id_for_ord(self, ord_: int) -> str:
        """The id of the item with this ord (see `item_ord`)."""
        return self._id_by_ord[ord_]

    def items(self) -> pd.DataFrame:
        """All items in order: item_id, ord, left, right, dataset, genre, reference, meta (dict)."""
        rows = self._conn.execute(
            "SELECT id, ord, left, right, dataset, genre, reference, meta FROM items ORDER BY ord"
        ).fetchall()
        frame = pd.DataFrame.from_records(rows, columns=ITEM_FRAME_COLUMNS)
        frame["reference"] = frame["reference"].astype("float64")
        loads = json.loads
        frame["meta"] = [loads(m) if isinstance(m, str) and m else {} for m in frame["meta"]]
        return frame

    def item(self, item_id: str) -> dict:
        """One item as a dict with the keys of `items()`."""
        row = self._conn.execute(
            "SELECT id, ord, left, right, dataset, genre, reference, meta FROM items WHERE ord = ?",
            (self.item_ord(item_id),),
        ).fetchone()
        item = dict(zip(ITEM_FRAME_COLUMNS, row, strict=True))
        item["meta"] = json.loads(item["meta"]) if item["meta"] else {}
        return item

    def position(self, item_id: str) -> int:
        """0-based position of an item in project order, -1 for an unknown id."""
        if item_id not in self._ord:
            return -1
        ord_ = self._ord[item_id]
        in_step = ord_ < len(self._item_ids) and self._item_ids[ord_] == item_id
        return ord_ if in_step else self._item_ids.index(item_id)

    def import_items(self, frame: pd.DataFrame, source: str = "") -> tuple[int, int]:
        """Add items from a reader's frame, all or nothing; returns (added, already_present)."""
        missing = [c for c in ITEM_COLUMNS if c not in frame.columns]
        if missing:
            raise SimrateError(f"item table lacks columns {missing}", source or None)
        existing = self._existing_texts(frame["item_id"].tolist())
        new_rows = []
        already = 0
        next_ord = self._next_ord()
        for rec in frame.itertuples(index=False):
            old = existing.get(rec.item_id)
            if old is not None:
                if old != (rec.left, rec.right):
                    raise SimrateError(
                        f"item {rec.item_id!r} is already in the project with other texts",
                        source or None, int(rec.line),
                    )
                already += 1
                continue
            ref = None if pd.isna(rec.reference) else float(rec.reference)
            meta = dumps(rec.meta) if rec.meta else None
            new_rows.append((next_ord, rec.item_id, rec.left, rec.right, rec.dataset or "",
                             rec.genre or "", ref, meta, source))
            next_ord += 1
        if new_rows:
            with transaction(self._conn, self.path) as conn:
                conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?)", new_rows)
                log_change(conn, "import_items",
                           new={"source": source, "added": len(new_rows)})
            for row in new_rows:
                self._item_ids.append(row[1])
                self._ord[row[1]] = row[0]
                self._id_by_ord[row[0]] = row[1]
            self._notify(Change("items", new=len(new_rows)))
        return len(new_rows), already

    def _existing_texts(self, ids: list[str]) -> dict[str, tuple[str, str]]:
        present = [i for i in ids if i in self._ord]
        found: dict[str, tuple[str, str]] = {}
        for start in range(0, len(present), 900):
            chunk = present[start:start + 900]
            marks = ",".join("?" * len(chunk))
            for item_id, left, right in self._conn.execute(
                f"SELECT id, left, right FROM items WHERE id IN ({marks})", chunk
            ):
                found[item_id] = (left, right)
        return found

    def _next_ord(self) -> int:
        row = self._conn.execute("SELECT COALESCE(MAX(ord), -1) + 1 FROM items").fetchone()
        return int(row[0])

    # ----------------------------------------------------------- annotators
    def annotators(self) -> list[str]:
        """Annotator names in the order they joined the project."""
        return [r[0] for r in self._conn.execute("SELECT name FROM annotators ORDER BY id")]

    def excluded_annotators(self) -> list[str]:
        """Annotators excluded from agreement and gold."""
        return [r[0] for r in self._conn.execute("SELECT name FROM annotators WHERE excluded=1")]

    def set_excluded(self, annotator: str, excluded: bool = True, by: str = "") -> None:
        """Exclude an annotator from agreement and gold (or include them again); logged."""
        if annotator not in self._annotator_ids:
            raise SimrateError(f"no annotator named {annotator!r} in this project", self.path)
        with transaction(self._conn, self.path) as conn:
            old = conn.execute("SELECT excluded FROM annotators WHERE name = ?",
                               (annotator,)).fetchone()[0]
            conn.execute("UPDATE annotators SET excluded = ? WHERE name = ?",
                         (int(excluded), annotator))
            # who: the organizer (never the excluded annotator, log_change's default)
            log_change(conn, "exclude", by or "unknown", annotator=annotator, old=bool(old),
                       new=excluded)
        self._state = None
        self._notify(Change("annotator", None, annotator, bool(old), excluded))

    # ----------------------------------------------------------- machine raters (issue 17)
    def machine_annotators(self) -> list[str]:
        """Machine raters: they never enter gold or flags, nor the humans' agreement."""
        try:
            return [r[0] for r in self._conn.execute(
                "SELECT name FROM annotators WHERE kind = 'machine' ORDER BY id")]
        except sqlite3.OperationalError:  # a read-only file of schema 1: no machines
            return []

    def left_out_annotators(self) -> list[str]:
        """Annotators whose ratings count in neither gold, flags nor the humans' alpha."""
        return list(dict.fromkeys(self.excluded_annotators() + self.machine_annotators()))

    def add_machine(self, name: str, by: str = "") -> None:
        """Register `name` as a machine rater (refused for a person's name); logged."""
        name = name.strip()
        if not name:
            raise SimrateError("a machine rater needs a name")
        if name in self.machine_annotators():
            return
        if name in self.annotators():
            raise SimrateError(f"{name!r} is a human annotator of this project; give the "
                               "machine rater another name", self.path)
        with transaction(self._conn, self.path) as conn:
            aid = conn.execute("INSERT INTO annotators (name, kind) VALUES (?, 'machine')",
                               (name,)).lastrowid
            log_change(conn, "machine", by or name, annotator=name, new=name)
        self._annotator_ids[name] = aid
        self._state = None
        self._notify(Change("annotator", None, name, None, "machine"))

    def set_excluded_many(self, annotators: Sequence[str], excluded: bool, by: str = "",
                          rule: dict | None = None) -> None:
        """Exclude (or include) several annotators in one transaction: one undoable action.

        Each is logged like set_excluded; `rule` (what decided it) is logged once beside them
        as an `exclude_rule` entry.
        """
        unknown = [a for a in annotators if a not in self._annotator_ids]
        if unknown:
            raise SimrateError(f"no annotator named {unknown[0]!r} in this project", self.path)
        with transaction(self._conn, self.path) as conn:
            for name in annotators:
                old = conn.execute("SELECT excluded FROM annotators WHERE name = ?",
                                   (name,)).fetchone()[0]
                conn.execute("UPDATE annotators SET excluded = ? WHERE name = ?",
                             (int(excluded), name))
                log_change(conn, "exclude", by or "unknown", annotator=name, old=bool(old),
                           new=excluded)
            if rule is not None:
                log_change(conn, "exclude_rule", by or "unknown",
                           new={**rule, "annotators": list(annotators), "excluded": excluded})
        self._state = None
        self._notify(Change("annotator", None, None, None, excluded))

    def _annotator_id(self, conn: sqlite3.Connection, name: str) -> int:
        name = name.strip()
        if not name:
            raise SimrateError("an annotator needs a name")
        aid = self._annotator_ids.get(name)
        if aid is None:
            row = conn.execute("SELECT id FROM annotators WHERE name = ?", (name,)).fetchone()
            if row is None:
                aid = conn.execute("INSERT INTO annotators (name) VALUES (?)", (name,)).lastrowid
                log_change(conn, "annotator", annotator=name, new=name)
            else:
                aid = row[0]
            self._annotator_ids[name] = aid
        return aid

    # ----------------------------------------------------------- ratings
    def ratings(self) -> pd.DataFrame:
        """All ratings: item_id, annotator, code, score, note, skipped, seconds, updated_at."""
        rows = self._conn.execute(
            "SELECT item_ord, annotator_id, code, note, skipped, seconds, updated_at "
            "FROM ratings ORDER BY item_ord, annotator_id"
        ).fetchall()
        table = np.array(rows, dtype=object).reshape(len(rows), 7)  # fast column split
        ords = table[:, 0].astype(np.int64)
        aids = table[:, 1].astype(np.int64)
        code = table[:, 2].astype(np.float64)  # NULL (skipped) -> nan
        names = dict(self._conn.execute("SELECT id, name FROM annotators"))
        name_by_id = np.empty(max(names, default=0) + 1, dtype=object)
        for aid, name in names.items():
            name_by_id[aid] = name
        return pd.DataFrame({
            "item_id": self._ids_for_ords(ords),
            "annotator": name_by_id[aids],
            "code": pd.array(code, dtype="Float64").astype("Int64"),
            "score": self.scale.low + code * self.scale.step,
            "note": pd.Series(table[:, 3], dtype=object),
            "skipped": table[:, 4].astype(bool),
            "seconds": table[:, 5].astype(np.float64),
            "updated_at": table[:, 6].astype(np.float64),
        })

    def rating(self, item_id: str, annotator: str) -> float | None:
        """This annotator's score for the item, or None."""
        aid = self._annotator_ids.get(annotator)
        if aid is None:
            return None
        row = self._conn.execute(
            "SELECT code FROM ratings WHERE item_ord = ? AND annotator_id = ?",
            (self.item_ord(item_id), aid),
        ).fetchone()
        return None if row is None or row[0] is None else self.scale.from_code(row[0])

    def rating_record(self, item_id: str, annotator: str) -> dict | None:
        """This annotator's rating with note and skip state, or None."""
        aid = self._annotator_ids.get(annotator)
        if aid is None:
            return None
        row = self._conn.execute(
            "SELECT code, note, skipped, seconds FROM ratings "
            "WHERE item_ord = ? AND annotator_id = ?",
            (self.item_ord(item_id), aid),
        ).fetchone()
        if row is None:
            return None
        score = None if row[0] is None else self.scale.from_code(row[0])
        return {"score": score, "note": row[1], "skipped": bool(row[2]), "seconds": row[3]}

    def rate(self, item_id: str, annotator: str, value: float | None, note: str | None = None,
             seconds: float | None = None) -> None:
        """Save (or with value None, clear) one rating in its own transaction."""
        code = None if value is None else self.scale.to_code(value)
        self._write_rating(item_id, annotator, code, note, skipped=False, seconds=seconds)

    def skip(self, item_id: str, annotator: str, reason: str = "") -> None:
        """Mark the item as one this annotator cannot judge, with a reason."""
        self._write_rating(item_id, annotator, None, reason, skipped=True, seconds=None)

    def _write_rating(self, item_id: str, annotator: str, code: int | None, note: str | None,
                      skipped: bool, seconds: float | None) -> None:
        ord_ = self.item_ord(item_id)
        with transaction(self._conn, self.path) as conn:
            aid = self._annotator_id(conn, annotator)
            old = conn.execute(
                "SELECT code, note, skipped FROM ratings WHERE item_ord = ? AND annotator_id = ?",
                (ord_, aid),
            ).fetchone()
            old_code = None if old is None else old[0]
            keep_note = note if note is not None else (old[1] if old else "")
            if code is None and not skipped and not keep_note:
                conn.execute("DELETE FROM ratings WHERE item_ord = ? AND annotator_id = ?",
                             (ord_, aid))
            else:
                conn.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?,?,?,?,?,?,?)",
                    (ord_, aid, code, keep_note, int(skipped), seconds, time.time()),
                )
            kind = "skip" if skipped else "rating"
            log_change(conn, kind, item_id=item_id, annotator=annotator,
                       old=self._score_of(old_code), new=self._score_of(code),
                       note_old=old[1] if old else None, note_new=note)
        if self._state is not None:
            self._state.set(ord_, aid, code)
        self._notify(Change(kind, item_id, annotator, self._score_of(old_code),
                            self._score_of(code)))

    def _score_of(self, code: int | None) -> float | None:
        return None if code is None else self.scale.from_code(code)

    def plan_ratings(self, frame: pd.DataFrame, source: str = "") -> list[PlannedRating]:
        """Check a reader's ratings table against the project and classify each rating,
        writing nothing; SimrateError (with file and line) for an unknown item, a score off
        the scale or a rating given twice."""
        return self._plan_ratings(self._conn, frame, source)

    def _plan_ratings(self, conn: sqlite3.Connection, frame: pd.DataFrame,
                      source: str) -> list[PlannedRating]:
        missing = [c for c in RATING_COLUMNS if c not in frame.columns]
        if missing:
            raise SimrateError(f"ratings table lacks columns {missing}", source or None)
        rows = self._check_ratings(frame, source)
        held = self._held_ratings(conn, list(dict.fromkeys(r[1] for r in rows)))
        plan = []
        for item_id, name, code, note, line in rows:
            old = held.get((self._ord[item_id], name))
            old_code, old_note = (old if old is not None else (None, ""))
            if old is not None and old_code == code and (not note or old_note == note):
                status = "unchanged"
            elif old_code is None:
                status = "added"
            else:
                status = "note" if old_code == code else "score"
            plan.append(PlannedRating(item_id, name, code, note, line, old_code, old_note or "",
                                      status))
        return plan

    def import_ratings(self, frame: pd.DataFrame, source: str = "") -> dict[str, int]:
        """Add ratings from a reader's frame, all or nothing; returns counts added/changed/same
        (`changed`: a new score or note for a rating the project held)."""
        counts = {"added": 0, "changed": 0, "unchanged": 0}
        now = time.time()
        with transaction(self._conn, self.path) as conn:
            plan = self._plan_ratings(conn, frame, source)  # read inside the write transaction
            aids = {name: self._annotator_id(conn, name)
                    for name in dict.fromkeys(p.annotator for p in plan)}
            writes, log = [], []
            for p in plan:
                if p.status == "unchanged":
                    counts["unchanged"] += 1
                    continue
                counts["added" if p.status == "added" else "changed"] += 1
                writes.append((self._ord[p.item_id], aids[p.annotator], p.code,
                               p.note or p.old_note, 0, None, now))
                log.append((now, source, "rating", p.item_id, p.annotator,
                            dumps(self._score_of(p.old_code)), dumps(self._score_of(p.code))))
            conn.executemany("INSERT OR REPLACE INTO ratings VALUES (?,?,?,?,?,?,?)", writes)
            conn.executemany(
                "INSERT INTO changes (at, who, kind, item_id, annotator, old, new) "
                "VALUES (?,?,?,?,?,?,?)", log,
            )
        self._state = None
        if counts["added"] or counts["changed"]:
            self._notify(Change("ratings", new=counts))
        return counts

    @staticmethod
    def _held_ratings(conn: sqlite3.Connection, names: list[str]) -> dict:
        """{(item ord, annotator name): (code, note)} of these annotators' ratings."""
        if not names:
            return {}
        marks = ",".join("?" * len(names))
        return {(o, n): (c, note) for o, n, c, note in conn.execute(
            "SELECT r.item_ord, a.name, r.code, r.note FROM ratings r "
            f"JOIN annotators a ON a.id = r.annotator_id WHERE a.name IN ({marks})", names)}

    def _check_ratings(self, frame: pd.DataFrame, source: str) -> list[tuple]:
        where = source or None
        rows, seen = [], {}
        for rec in frame.itertuples(index=False):
            line = int(rec.line)
            if rec.item_id not in self._ord:
                raise SimrateError(f"no item with id {rec.item_id!r} in the project", where, line)
            try:
                code = self.scale.to_code(rec.score)
            except SimrateError as exc:
                raise SimrateError(exc.message, where, line) from None
            key = (rec.item_id, str(rec.annotator))
            if key in seen:
                raise SimrateError(
                    f"{rec.annotator!r} rates item {rec.item_id!r} again (first on line "
                    f"{seen[key]})", where, line,
                )
            seen[key] = line
            rows.append((rec.item_id, str(rec.annotator), code, rec.note or "", line))
        return rows

    # ----------------------------------------------------------- adjudication
    def adjudicate(self, item_id: str, value: float | None, note: str = "", by: str = "") -> None:
        """Set (or with value None, withdraw) the adjudicated score of an item."""
        ord_ = self.item_ord(item_id)
        code = None if value is None else self.scale.to_code(value)
        with transaction(self._conn, self.path) as conn:
            old = conn.execute("SELECT code, note FROM adjudications WHERE item_ord = ?",
                               (ord_,)).fetchone()
            if code is None:
                if old is None:
                    raise SimrateError(f"item {item_id!r} has no adjudication to withdraw")
                conn.execute("DELETE FROM adjudications WHERE item_ord = ?", (ord_,))
            else:
                conn.execute("INSERT OR REPLACE INTO adjudications VALUES (?,?,?,?,?)",
                             (ord_, code, note, by, time.time()))
            log_change(conn, "adjudication", by, item_id,
                       old=self._score_of(old[0]) if old else None, new=self._score_of(code),
                       note_old=old[1] if old else None, note_new=note)
        if self._state is not None:
            self._state.set_adjudicated(ord_, code)
        self._notify(Change("adjudication", item_id, by or None,
                            self._score_of(old[0]) if old else None, self._score_of(code)))

    def adjudications(self) -> pd.DataFrame:
        """Adjudications: item_id, code, score, note, by, at."""
        rows = self._conn.execute(
            "SELECT item_ord, code, note, by, at FROM adjudications ORDER BY item_ord"
        ).fetchall()
        frame = pd.DataFrame.from_records(rows, columns=["ord", "code", "note", "by", "at"])
        frame.insert(0, "item_id", frame.pop("ord").map(self._id_by_ord))
        frame["code"] = frame["code"].astype("int64")
        frame.insert(2, "score", self.scale.low + frame["code"] * self.scale.step)
        return frame

    def gold(self, threshold: float | None = None) -> pd.DataFrame:
        """Gold table in project order (columns: app.core.review.gold.GOLD_COLUMNS, rating:<name>)."""
        items, ratings = self.gold_inputs()
        return compute_gold(items, ratings, self.adjudications(), self.scale,
                            self.threshold if threshold is None else threshold,
                            self.left_out_annotators(), self.annotators())

    def gold_inputs(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """(items, ratings) with only what gold needs, read in bulk for large exports.

        items: item_id, dataset, genre, left, right in project order; ratings: item_id,
        annotator, score, updated_at, row (position in items) of every rating with a score.
        Text columns are plain object columns: converting 200,000 strings to pandas' string
        dtype costs seconds.
        """
        names = ["item_id", "dataset", "genre", "left", "right"]
        rows = self._conn.execute(
            "SELECT id, dataset, genre, left, right FROM items ORDER BY ord").fetchall()
        columns = list(zip(*rows, strict=True)) if rows else [()] * len(names)
        items = pd.DataFrame({n: pd.Series(c, dtype=object) for n, c in zip(names, columns, strict=True)})
        rows = self._conn.execute("SELECT item_ord, annotator_id, code, updated_at FROM ratings "
                                  "WHERE code IS NOT NULL").fetchall()
        table = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.float64,
                            count=4 * len(rows)).reshape(len(rows), 4)
        name_by_id = dict(self._conn.execute("SELECT id, name FROM annotators"))
        aids = table[:, 1].astype(np.int64)
        ords = table[:, 0].astype(np.int64)
        ids = self._ids_for_ords(ords)
        ratings = pd.DataFrame({
            "item_id": pd.Series(ids, dtype=object),
            "annotator": pd.Series([name_by_id[a] for a in aids.tolist()], dtype=object),
            "score": self.scale.low + table[:, 2] * self.scale.step,
            "updated_at": table[:, 3],
            # the item's row in `items`, sparing gold a string lookup per rating
            "row": ords if self._ords_are_positions()
            else pd.Index(items["item_id"]).get_indexer(ids),
        })
        return items, ratings

    # ----------------------------------------------------------- flags and live agreement
    @property
    def state(self) -> _AgreementState:
        """In-memory agreement state (flags, live alpha), built on first use."""
        if self._state is None:
            self._state = _AgreementState.build(self)
        return self._state

    @property
    def flags(self) -> FlagIndex:
        """The flag index: flagged, second-look and adjudicated items, keyed by `item_ord`."""
        return self.state.flags

    @property
    def live(self) -> LiveAgreement:
        """The LiveAgreement kept up to date with every rating (units=item ids, raters=names)."""
        return self.state.live

    def flagged(self) -> pd.DataFrame:
        """Flagged items, largest spread first: item_id, spread, ratings ({annotator: score})."""
        return self.state.flagged_frame()

    def flagged_ids(self) -> set[str]:
        """Ids of the flagged (unresolved) items."""
        return {self._id_by_ord[o] for o in self.flags.flagged}

    def second_look_ids(self) -> set[str]:
        """Adjudicated items whose later ratings disagree with the adjudicated score."""
        return {self._id_by_ord[o] for o in self.flags.second_look}

    # ----------------------------------------------------------- change log
    def changes(self) -> pd.DataFrame:
        """The append-only change log: id, at, who, kind, item_id, annotator, old, new."""
        rows = self._conn.execute(
            "SELECT id, at, who, kind, item_id, annotator, old, new FROM changes ORDER BY id"
        ).fetchall()
        columns = ["id", "at", "who", "kind", "item_id", "annotator", "old", "new"]
        data = {name: [r[i] for r in rows] for i, name in enumerate(columns)}
        for col in ("old", "new"):
            data[col] = [json.loads(v) if v is not None else None for v in data[col]]
        return pd.DataFrame({c: pd.Series(data[c], dtype=object) for c in columns})


class _AgreementState:
    """Flags and live agreement over the current ratings, updated one rating at a time.

    Flags are built at once; the LiveAgreement only when first asked for, so that commands
    and windows that never show agreement do not pay for it.
    """

    def __init__(self, project: Project, flags: FlagIndex, names: dict[int, str],
                 excluded: set[str]):
        self.project = project
        self.flags = flags
        self.names = names
        self.excluded = excluded
        self._live: LiveAgreement | None = None

    @classmethod
    def build(cls, project: Project) -> _AgreementState:
        scale = project.scale
        threshold_in_codes = threshold_codes(project.threshold, scale.step)
        excluded = set(project.left_out_annotators())  # excluded people and machine raters
        names = {aid: n for n, aid in project._annotator_ids.items()}
        rows = project._conn.execute(
            "SELECT item_ord, annotator_id, code, updated_at FROM ratings WHERE code IS NOT NULL"
        ).fetchall()
        adjudicated = {o: (c, at) for o, c, at in
                       project._conn.execute("SELECT item_ord, code, at FROM adjudications")}
        rows = [r for r in rows if names.get(r[1]) not in excluded]
        flags = FlagIndex(threshold_in_codes)
        flags.load(rows, adjudicated)
        return cls(project, flags, names, excluded)

    @property
    def live(self) -> LiveAgreement:
        """The LiveAgreement over the current ratings, built on first use."""
        if self._live is None:
            scale = self.project.scale
            live = LiveAgreement(low=scale.low, step=scale.step)
            ids, names = self.project._id_by_ord, self.names
            units, raters, codes = [], [], []
            for ord_, unit in self.flags.units():  # the flags hold every current code
                for aid, code in unit.items():
                    units.append(ids[ord_])
                    raters.append(names[aid])
                    codes.append(code)
            live.load(units, raters, np.array(codes, dtype=np.int64))
            self._live = live
        return self._live

    def set(self, ord_: int, aid: int, code: int | None) -> None:
        name = self.names.get(aid) or self._refresh_name(aid)
        if name in self.excluded:
            return
        self.flags.set(ord_, aid, code)
        if self._live is not None:
            self._live.set_rating(self.project._id_by_ord[ord_], name, code)

    def _refresh_name(self, aid: int) -> str:
        self.names = {a: n for n, a in self.project._annotator_ids.items()}
        return self.names[aid]

    def set_adjudicated(self, ord_: int, code: int | None) -> None:
        self.flags.set_adjudicated(ord_, code)

    def flagged_frame(self) -> pd.DataFrame:
        scale = self.project.scale
        rows = []
        for ord_, spread in self.flags.ordered():
            ratings = {self.names[a]: scale.from_code(c)
                       for a, c in self.flags.unit(ord_).items()}
            rows.append((self.project._id_by_ord[ord_], spread * scale.step, ratings))
        return pd.DataFrame(rows, columns=["item_id", "spread", "ratings"])
