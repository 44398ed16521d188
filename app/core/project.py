"""Project: the one facade over a `.simrate` file that the command line and the GUI both use.

Every write is one transaction (app/core/data/store.py); after it commits, in-memory state is
updated, the agreement model fed, and subscribers told by one typed event (events.py).
"""

from __future__ import annotations

import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pandas as pd

from simrate.core.agreement.inputs import connection_columns
from simrate.core.agreement.live import LiveAgreement
from simrate.core.agreement.model import AgreementModel
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import (
    Event,
    RatingChanged,
    RatingState,
    Reloaded,
    SettingsChanged,
    Verdict,
)
from simrate.core.base.flagrule import FlagRule
from simrate.core.base.names import check_name_length, check_rater_name
from simrate.core.base.scale import Scale, load_scale
from simrate.core.data import tables
from simrate.core.data import values as text_rules
from simrate.core.data.columns import CodeColumns, ColumnCache
from simrate.core.data.counts import count_facts
from simrate.core.data.item_index import ItemIndex
from simrate.core.data.replica_mode import ReplicaMode
from simrate.core.data.store import TableAccess, create_store, open_store, read_meta, transaction
from simrate.core.edits.edit import Edit
from simrate.core.edits.edit import edit as open_edit
from simrate.core.edits.roster import Roster
from simrate.core.edits.settings import flag_rule_values, store_flag_rule, store_threshold
from simrate.core.imports.methods import ImportMethods
from simrate.core.review.flags import FlagIndex
from simrate.core.review.gold_methods import GoldMethods


class Project(ImportMethods, GoldMethods):
    """A rating project stored in one SQLite file."""

    def __init__(self, path: Path, conn: sqlite3.Connection, meta: dict[str, str]):
        self.path = path
        self._conn = conn
        self._meta = meta
        self.scale = Scale.from_dict(json.loads(meta["scale"]), path)
        self.title = text_rules.escaped(meta.get("title", ""))  # never a raw escape
        self._mode = ReplicaMode.from_meta(meta)
        self._subscribers: list[Callable[[Event], None]] = []
        self._data_version = self._read_data_version()
        self.last_import = 0  # change-log id of this object's last bulk import
        self.column_cache = ColumnCache()  # see scope_columns
        self.roster = Roster(conn, path, self._publish)
        self.roster.edit = self.edit  # exclusions go through the one write path
        self.team_tables = TableAccess(conn, path)  # the team modules' own tables
        self._load_index()
        self.agreement = AgreementModel(self)

    # ----------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | Path, scale: str | Path | Scale = "clss", title: str = "") -> Project:
        """Create a new, empty project file with the given scale."""
        if str(path).endswith(("/", os.sep)):
            raise SimrateError("ends with a slash; give a file name without it", path)
        path = Path(path)
        check_name_length(path, spare=len("-journal"))  # SQLite's files beside it
        scale_obj = scale if isinstance(scale, Scale) else load_scale(scale)
        meta = {
            "app": "simrate", "scale": json.dumps(scale_obj.to_dict(), ensure_ascii=False),
            "title": text_rules.stored_text(title, "the title"), "threshold": "1.0",
            # Packages name their origin by this id (see app/core/team/packages.py).
            "project_uuid": str(uuid.uuid4()),
        }
        create_store(path, meta).close()
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
        self._index = ItemIndex.read(self._conn, self.path)
        self.roster.reload()

    def _read_data_version(self) -> int:  # moved by other connections' commits only
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def refresh(self) -> bool:
        """Reload if another process changed the file since we last looked; True if it did."""
        version = self._read_data_version()
        if version == self._data_version:
            return False
        self._data_version = version
        self._meta = dict(self._conn.execute("SELECT key, value FROM meta"))  # the threshold
        self._mode = ReplicaMode.from_meta(self._meta)  # another program may have linked it
        self._load_index()
        self._publish(Reloaded())
        return True

    # ----------------------------------------------------------- notifications
    def subscribe(self, callback: Callable[[Event], None]) -> Callable[[], None]:
        """Call `callback(event)` after each committed change; returns an unsubscribe function."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback) if callback in self._subscribers else None

    def _publish(self, event: Event) -> None:
        """The one way out of a write: the agreement model first, then every subscriber."""
        self.agreement.apply(event)
        for callback in list(self._subscribers):
            callback(event)

    # ----------------------------------------------------------- file access for core modules
    def meta(self, key: str) -> str | None:
        """One value of the file's meta table as stored now, or None."""
        return read_meta(self._conn, key)

    @property
    def mode(self) -> ReplicaMode:
        """Plain file, organizer's or annotator's hub replica (data/replica_mode.py); read
        at open, again only when the link changes (`relink`, or `refresh`)."""
        return self._mode

    @contextmanager
    def relink(self, mode: ReplicaMode) -> Iterator[sqlite3.Connection]:
        """The one write of the mode: a transaction recording `mode`, yielding its conn to
        the hub adapter; the mode read back in it is ours only once it commits."""
        with transaction(self._conn, self.path) as conn:
            mode.write(conn)
            yield conn
            written = ReplicaMode.read(conn)
        self._mode = written

    def counts(self) -> dict:
        """The figures of `simrate info`, from SQL aggregates (app/core/data/counts.py)."""
        return count_facts(self._conn, self.scale, self.flag_rule)

    # ----------------------------------------------------------- settings
    @property
    def threshold(self) -> float:
        """Spread (in scale points) at which an item is flagged; 1.0 unless set."""
        return float(self._meta.get("threshold", "1.0"))

    def set_threshold(self, points: float) -> None:
        """Set the range rule's threshold in scale points (the rule itself is unchanged)."""
        points = self.scale.check_threshold(points)
        store_threshold(self._conn, self.path, self.threshold, points)
        self._meta["threshold"] = str(points)
        self._publish(SettingsChanged(points, self.flag_rule.name))

    @property
    def flag_rule(self) -> FlagRule:
        """The project's flag rule (app/core/base/flagrule.py): `auto` unless set."""
        return FlagRule.from_meta(self._meta)

    def set_flag_rule(self, rule: str, threshold: float | None = None,
                      uncertain_threshold: float | None = None) -> FlagRule:
        """Set the flag rule (auto, range, uncertain) and, with `threshold`, that rule's
        threshold (range: the spread; uncertain, auto: the SD); one logged change, or
        nothing when nothing changes (app/core/edits/settings.py)."""
        old = self.flag_rule
        values, new = flag_rule_values(self._meta, self.scale, rule, threshold,
                                       uncertain_threshold)
        if new != old or "flag_rule" not in self._meta:
            store_flag_rule(self._conn, self.path, values, old, new)
            self._meta.update(values)
            self._publish(SettingsChanged(new.range_threshold, new.name))
        return new

    # ----------------------------------------------------------- items
    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self._index)

    def item_ids(self) -> list[str]:
        """Item ids in project order."""
        return list(self._index.ids)

    def has_item(self, item_id: str) -> bool:
        """True if the project has this item."""
        return item_id in self._index

    def item_ord(self, item_id: str) -> int:
        """The item's ord: its key in the file and in `flags`; SimrateError if unknown."""
        return self._index.ord_of(item_id)

    def item_id_for_ord(self, ord_: int) -> str:
        """The id of the item with this ord (see `item_ord`)."""
        return self._index.id_by_ord[ord_]

    def position(self, item_id: str) -> int:
        """0-based position of an item in project order, -1 for an unknown id."""
        return self._index.position(item_id)

    def items(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """Items in order: id, ord, left, right, dataset, genre, reference, meta; or id+columns."""
        return tables.read_items(self._conn, columns)

    def item(self, item_id: str) -> dict:
        """One item as a dict with the keys of `items()`."""
        return tables.read_item(self._conn, self.item_ord(item_id))

    # ----------------------------------------------------------- annotators (see roster.py)
    def annotators(self) -> list[str]:
        """Annotator names in the order they joined the project."""
        return self.roster.names()

    def excluded_annotators(self) -> list[str]:
        """Annotators excluded from agreement and gold."""
        return self.roster.excluded()

    def set_excluded(self, annotator: str, excluded: bool = True, by: str = "",
                     expect: bool | None = None) -> bool:
        """Exclude an annotator from agreement and gold (or not); logged; the previous state.
        With `expect`, only over that stored state (see set_rating_state)."""
        return self.roster.set_excluded([annotator], excluded, by, expect=expect)[0]

    # ----------------------------------------------------------- ratings
    def ratings(self) -> pd.DataFrame:
        """All ratings: item_id, annotator, code, score, note, skipped, seconds, updated_at."""
        return tables.read_ratings(self._conn, self._index, self.scale)

    def annotator_columns(self, annotator: str) -> tuple:
        """(positions, codes or -1, skipped, seconds) of one annotator's ratings, as arrays."""
        return tables.read_annotator_columns(self._conn, self._index, self.scale.n_codes,
                                             self.roster.id_of(annotator))

    def rating_state(self, item_id: str, annotator: str) -> RatingState:
        """This annotator's stored state for the item (empty when none)."""
        return tables.read_rating_state(self._conn, self.item_ord(item_id),
                                        self.roster.id_of(annotator))

    def rating(self, item_id: str, annotator: str) -> float | None:
        """This annotator's score for the item, or None."""
        return self._score_of(self.rating_state(item_id, annotator).code)

    def rating_record(self, item_id: str, annotator: str) -> dict | None:
        """This annotator's rating as {score, note, skipped, seconds}, or None."""
        state = self.rating_state(item_id, annotator)
        return None if state.empty and state.seconds is None else {
            "score": self._score_of(state.code), "note": state.note,
            "skipped": state.skipped, "seconds": state.seconds}

    def rate(self, item_id: str, annotator: str, value: float | None, note: str | None = None,
             seconds: float | None = None) -> RatingState:
        """Save (value None: clear) one rating; note None keeps the note; the old state."""
        code = None if value is None else self.scale.to_code(value)
        return self._write_rating(item_id, annotator, code, note, False, seconds)

    def skip(self, item_id: str, annotator: str, reason: str = "") -> RatingState:
        """Mark the item as one this annotator cannot judge, with a reason."""
        return self._write_rating(item_id, annotator, None, reason, True, None)

    def set_rating_state(self, item_id: str, annotator: str, state: RatingState,
                         expect: RatingState | None = None) -> RatingState:
        """Write exactly this state (undo and redo use it); returns the state it replaced.
        With `expect`, only over that stored state (checked inside the write transaction):
        SimrateError, nothing written, when another window or program changed it since."""
        return self._write_rating(item_id, annotator, state.code, state.note, state.skipped,
                                  state.seconds, expect)

    def _write_rating(self, item_id: str, annotator: str, code: int | None, note: str | None,
                      skipped: bool, seconds: float | None,
                      expect: RatingState | None = None) -> RatingState:
        with self.edit() as change:  # a person's: never another kind's
            old, _new = change.rate(item_id, annotator,
                                    RatingState(code, note, skipped, seconds), expect,
                                    strict=True)
        return old

    def _rating_event(self, item_id: str, annotator: str, old: RatingState,
                      new: RatingState) -> RatingChanged:
        name = annotator.strip()
        return RatingChanged(item_id, name, old, new, name not in self.agreement.excluded)

    def apply_ratings(self, rows: Sequence[tuple], bulk: int = 2000) -> None:
        """Save a hub's (item_id, annotator, code, note, skipped, seconds[, made at]) rows
        in one transaction, published as `rate` would (over `bulk` rows: as one bulk
        event); a row's edit time, when given, is kept."""
        with self.edit(bulk=bulk) as change:
            for item_id, annotator, code, note, skipped, seconds, *at in rows:
                change.rate(item_id, annotator, RatingState(code, note, bool(skipped), seconds),
                            at=at[0] if at else None)

    def edit(self, foreign_keys: bool = True, undo: bool = False,
             bulk: int = 2000) -> AbstractContextManager[Edit]:
        """The one write transaction of ratings, adjudications and exclusions: a context
        manager yielding an `Edit` (app/core/edits/edit.py) whose `rate`, `verdict` and `exclude`
        write through app/core/edits/writes.py; its events are published after the commit.
        `undo`: every write in it is an undo (the hub takes it only over what it held)."""
        return open_edit(self, self._conn, foreign_keys, undo, bulk)

    def _score_of(self, code: int | None) -> float | None:
        return None if code is None else self.scale.from_code(code)

    # ----------------------------------------------------------- adjudication
    def adjudicate(self, item_id: str, value: float | None, note: str = "", by: str = "") -> Verdict:
        """Set (value None: withdraw) an item's adjudicated score; the verdict it replaced."""
        code = None if value is None else self.scale.to_code(value)
        if code is None and self.verdict(item_id).code is None:
            raise SimrateError(f"item {item_id!r} has no adjudication to withdraw")
        return self.set_verdict(item_id, Verdict(code, note), by)

    def verdict(self, item_id: str) -> Verdict:
        """The item's stored verdict (code None when there is none)."""
        return tables.read_verdict(self._conn, self.item_ord(item_id))

    def set_verdict(self, item_id: str, verdict: Verdict, by: str = "",
                    expect: Verdict | None = None) -> Verdict:
        """Write exactly this verdict (code None withdraws); returns the one it replaced.
        With `expect`, only over that stored verdict (see set_rating_state)."""
        by = check_rater_name(by, "name of who adjudicates") if by else ""
        with self.edit() as change:
            return change.verdict(item_id, verdict, by, expect)

    def adjudications(self) -> pd.DataFrame:
        """Adjudications: item_id, code, score, note, by, at."""
        return tables.read_adjudications(self._conn, self._index, self.scale)

    def flag_inputs(self) -> tuple:
        """(scores by item ord, {ord: adjudicated code}, scores saved after adjudication)."""
        rows, aids, codes, _datasets, _genres = self.scope_columns()
        adjudicated, late = tables.read_adjudication_inputs(self._conn)
        return CodeColumns(self._index.ords_at(rows), aids, codes), adjudicated, late

    def scope_columns(self) -> tuple:
        """Every score as arrays (item position, annotator id, code), then each item's dataset
        and genre; one read while the file is unchanged (columns.py: ColumnCache)."""
        return self.column_cache.get(self._conn, lambda: tables.read_scope_columns(
            self._conn, self._index, self.scale.n_codes))

    def snapshot(self):
        """A context in which every read sees the file in one state (tables.read_snapshot):
        an export's files and figures then agree while others keep rating."""
        return tables.read_snapshot(self._conn)

    def agreement_columns(self, by: str | None = None, with_machines: bool = False) -> tuple:
        """(long-form ratings, unadjudicated mask, {item: group} or None): the inputs of
        `simrate agreement`, read on this project's connection (agreement/inputs.py)."""
        return connection_columns(self._conn, self.scale, self.flag_rule, by, with_machines)

    # ----------------------------------------------------------- flags and live agreement
    @property
    def flags(self) -> FlagIndex:
        """The flag index: flagged, second-look and adjudicated items, keyed by `item_ord`."""
        return self.agreement.flags

    @property
    def live(self) -> LiveAgreement:
        """The LiveAgreement kept up to date with every rating (units=item ids, raters=names)."""
        return self.agreement.live

    def flagged(self) -> pd.DataFrame:
        """Flagged items, largest spread first: item_id, spread, ratings ({annotator: score})."""
        return self.agreement.flagged_frame()

    def flagged_ids(self) -> set[str]:
        """Ids of the flagged (unresolved) items."""
        return {self._index.id_by_ord[o] for o in self.flags.flagged}

    def second_look_ids(self) -> set[str]:
        """Adjudicated items whose later ratings disagree with the adjudicated score."""
        return {self._index.id_by_ord[o] for o in self.flags.second_look}

    def changes(self) -> pd.DataFrame:
        """The append-only change log: id, at, who, kind, item_id, annotator, old, new."""
        return tables.read_changes(self._conn)

