"""The network half of a sync round: push an outbox to the hub, pull what is new.

It touches no local file: it takes plain data (an Outbox and watermarks) and returns plain
data (a Received), so the window can run it on a pool thread while the GUI thread owns the
project. See sync.py for the local half and the rules.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simrate.core.base.flagrule import RULES, FlagRule
from simrate.core.base.names import rater_key
from simrate.hub.link.connection import Batch, HubError, Result, explain
from simrate.hub.link.push_others import (
    PUT_RATING,
    queue_others,
    queue_undo_rating,
    read_others,
)

#: Rows fetched per query while pulling.
PAGE = 50_000

PULL_SQL = {
    "settings": "SELECT key, value, seq FROM simrate.settings",
    "items": 'SELECT id, "left", "right", dataset, genre, reference, meta, source, seq '
             "FROM simrate.items",
    # a hub made before machine raters travelled has no kind column: NULL there
    "annotators": "SELECT name, excluded, to_jsonb(a) ->> 'kind', "
                  "(to_jsonb(a) ->> 'excluded_at')::float8, seq FROM simrate.annotators a",
    "ratings": "SELECT item_id, annotator, code, note, skipped, seconds, updated_at, seq "
               "FROM simrate.ratings",
    "adjudications": "SELECT item_id, code, note, by, at, seq FROM simrate.adjudications",
}
#: An annotator's role may read no reference score, item metadata or source path (blind.py);
#: the rows keep their shape, with those left empty.
ANNOTATOR_PULL_SQL = {
    "items": 'SELECT id, "left", "right", dataset, genre, NULL::double precision, NULL::text, '
             "''::text, seq FROM simrate.items",
}
#: What an annotator's role may read; organizers pull every table.
ANNOTATOR_TABLES = ("settings", "items", "ratings")
ORGANIZER_TABLES = ("settings", "items", "annotators", "ratings", "adjudications")

#: The hub's rows, for the keys just pushed, whose value is not the one pushed.
REFUSED_RATINGS = """
SELECT r.item_id, r.annotator, r.code, r.note, r.skipped, r.seconds, r.updated_at, r.seq
FROM simrate.ratings r
JOIN unnest(%s::text[], %s::text[], %s::integer[], %s::text[], %s::boolean[])
     AS k(item_id, annotator, code, note, skipped)
  ON r.item_id = k.item_id AND r.annotator = k.annotator
WHERE (r.code, r.note, r.skipped) IS DISTINCT FROM (k.code, k.note, k.skipped)
"""
#: A rater added here (a person of an import, a machine rater, a crowd worker of a results
#: file): the hub takes the rater of its key when of the same kind, and refuses, naming
#: it, a name another kind holds there (hub/schema/raters.py): never a kind changed.
CLAIM_RATER = "SELECT simrate.claim_rater(%s, %s, %s)"
#: Whether the hub stamps without a lock and so caps pulls (hub/schema/tables.py,
#: `pull_cap`); a hub published before that stamps under one lock and needs no cap.
HAS_CAP = "SELECT to_regprocedure('simrate.pull_cap()') IS NOT NULL"
HAS_KIND = """
SELECT 1 FROM information_schema.columns
WHERE table_schema = 'simrate' AND table_name = 'annotators' AND column_name = 'kind'
  AND to_regprocedure('simrate.claim_rater(text, text, text)') IS NOT NULL
"""
UPSERT_SETTING = """
INSERT INTO simrate.settings AS s (key, value) VALUES (%s, %s)
ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value WHERE s.value <> EXCLUDED.value
"""
INSERT_ITEM = """
INSERT INTO simrate.items (ord, id, "left", "right", dataset, genre, reference, meta, source)
VALUES ((SELECT COALESCE(max(ord), -1) + 1 FROM simrate.items), %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (id) DO NOTHING
"""
#: The publish's upload (hub/team/publish.py) of the settings and items the hub lacks
#: (items from the temporary table `upload_items` it copied them into): what the hub holds
#: stays. With the two above, the only writes of `simrate.settings` and `simrate.items`.
UPLOAD_SETTING = ("INSERT INTO simrate.settings (key, value) VALUES (%s, %s) "
                  "ON CONFLICT (key) DO NOTHING")
UPLOAD_ITEMS = """
INSERT INTO simrate.items (ord, id, "left", "right", dataset, genre, reference, meta, source)
SELECT (SELECT COALESCE(max(ord), -1) FROM simrate.items)
       + row_number() OVER (ORDER BY u.ord), u.id, u."left", u."right", u.dataset, u.genre,
       u.reference, u.meta, u.source
FROM upload_items u WHERE NOT EXISTS (SELECT 1 FROM simrate.items i WHERE i.id = u.id)
ORDER BY u.ord
"""


#: The hub's settings key of the flag rule: the rule's name and the SD threshold, as JSON
#: (the range threshold travels under its own key, `threshold`, as before there were rules).
RULE_SETTING = "flag_rule"


def rule_setting(rule: FlagRule) -> str:
    """A flag rule as the hub's setting text (one spelling for one rule, so texts compare)."""
    return json.dumps({"rule": rule.name, "uncertain_threshold": rule.uncertain_threshold},
                      sort_keys=True)


def read_rule_setting(text: str) -> tuple[str, float] | None:
    """(rule, SD threshold) from a hub's setting text; None when it is not one."""
    try:
        value = json.loads(text)
        rule, sd = value["rule"], float(value["uncertain_threshold"])
    except (TypeError, ValueError, KeyError):
        return None
    if rule not in RULES or not 0 < sd < float("inf"):
        return None
    return rule, sd


@dataclass
class Outbox:
    """Local changes the hub has not acknowledged, each with the last change-log id behind it.

    ratings: (item_id, annotator, code, note, skipped, seconds, updated_at, outbox id), the
    keys of the replica's outbox up to `queued_upto` whose value the hub's copy lacks;
    adjudications: (item_id, code, note, by, at, change_id); annotators: (name, excluded,
    change_id); threshold: (value, change_id) or None; flag_rule: (the rule's setting
    text, rule_setting(), change_id) or None; items: (item_id, left, right, dataset, genre,
    reference, meta, source, ord) of items the hub lacks.
    """

    since: int
    upto: int
    ratings: list[tuple] = field(default_factory=list)
    adjudications: list[tuple] = field(default_factory=list)
    annotators: list[tuple] = field(default_factory=list)
    threshold: tuple | None = None
    flag_rule: tuple | None = None
    items: list[tuple] = field(default_factory=list)
    queued_upto: int = 0
    #: (name, change_id) of machine raters added here.
    machines: list[tuple] = field(default_factory=list)
    #: (name, kind, outbox id) of the other raters added here (people, crowd workers).
    raters: list[tuple] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Number of pending changes."""
        return (len(self.ratings) + len(self.adjudications) + len(self.annotators)
                + (self.threshold is not None) + (self.flag_rule is not None)
                + len(self.items))


@dataclass
class Received:
    """What one exchange did: what the hub had already, what it took, what came back."""

    acked_before: int
    pushed: int
    rows: dict[str, list[tuple]]
    watermarks: dict[str, int]
    #: Pushed ratings the hub kept its own (later) value for, as it holds them (the shape
    #: of pulled ratings): edits of this machine that lost to a later edit.
    refused: list[tuple] = field(default_factory=list)
    #: Seconds this machine's clock is ahead of the hub's (negative: behind).
    clock_offset: float = 0.0
    #: The hub's adjudications and exclusions of the keys pushed, read before and after
    #: the push's writes, and its ratings of them before (push_others.py): what it kept
    #: and what it replaced.
    others: dict[str, list[tuple]] = field(default_factory=dict)
    #: Conflicts the push met (later_wins.record_others), filled when it is recorded.
    conflicts: list[dict] = field(default_factory=list)

    @property
    def pulled(self) -> int:
        """Number of rows pulled."""
        return sum(len(rows) for rows in self.rows.values())


def exchange(conn: Any, replica: str, outbox: Outbox, marks: dict[str, int],
             organizer: bool, url: str = "") -> Received:
    """Push the outbox (once: rows the hub acknowledged before are left out), then pull.

    `conn` is in autocommit mode (connect() makes it so): the push is one transaction of
    its own, begun and committed here. A round is two messages to the hub and their
    answers, whatever the outbox holds: the first begins the transaction, locks this
    replica's row and reads what the hub acknowledged; the second carries every write, the
    COMMIT, a wait for the disk, the pull and a look at the hub's clock. Nothing comes
    between the first write and the COMMIT that waits on this machine: a transaction that
    is still open holds back every replica's pull (hub/schema/tables.py, `pull_cap`), and
    a client that is slow to be scheduled (hundreds of windows on a busy machine) would
    keep it open. Sent as one message, the writes and the COMMIT are all on the server
    before it runs the first of them.
    """
    import psycopg

    try:
        try:
            acked, has_kind, capped = _begin_push(conn, replica, outbox)
            batch = Batch(conn)
            pushed = _queue_push(batch, outbox, acked, has_kind)
            pages, hub_clock = _queue_after_push(batch, replica, marks, organizer, capped)
            sent = time.time()
            results = batch.run()
            answered = time.time()
        except BaseException:
            _roll_back(conn)
            raise
        count, refused, others = pushed(results)
        rows, new_marks = _collect_pages(conn, results, pages, marks, organizer, capped)
        offset = (sent + answered) / 2 - float(results[hub_clock].rows[0][0])
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    return Received(acked, count, rows, new_marks, refused, offset, others)


def _queue_after_push(batch: Batch, replica: str, marks: dict[str, int],
                      organizer: bool, capped: bool) -> tuple[dict[str, int], int]:
    """After the push in the same message: COMMIT, the wait for the disk, a page of each
    table to pull and the hub's clock; returns ({table: its page's index}, clock's index)."""
    tables = ORGANIZER_TABLES if organizer else ANNOTATOR_TABLES
    queries = PULL_SQL if organizer else {**PULL_SQL, **ANNOTATOR_PULL_SQL}
    batch.add("COMMIT")
    # the push is on disk before the answer: this write's commit waits for the log
    # up to it, the push's commit included (which waited for nothing, see BEGIN)
    batch.add(DURABLE_SQL, (replica,))
    # each read is a snapshot of its own, so a table is read after the tables whose rows
    # refer to it: a rating committed between two reads comes with its rater and its item
    # (a rating pulled without its crowd rater would make the rater a person here)
    pages = {table: batch.add(_page_sql(queries[table], capped), (marks.get(table, 0),))
             for table in reversed(tables)}
    return pages, batch.add(CLOCK_SQL)


def _collect_pages(conn: Any, results: list, pages: dict[str, int], marks: dict[str, int],
                   organizer: bool, capped: bool
                   ) -> tuple[dict[str, list[tuple]], dict[str, int]]:
    """Each table's pulled rows (the rest pulled page by page when a page was full) and the
    watermarks after them."""
    rows, new_marks = {}, dict(marks)
    for table, index in pages.items():
        rows[table] = results[index].rows
        new_marks[table] = int(rows[table][-1][-1]) if rows[table] else marks.get(table, 0)
    if any(len(found) == PAGE for found in rows.values()):
        # more than a page is new: the rest of every table, page by page, in the same
        # order (a table after those that refer to it)
        more, new_marks = pull(conn, tuple(pages), new_marks, organizer, capped)
        for table in pages:
            rows[table].extend(more[table])
    return rows, new_marks


#: After the push's COMMIT, in the same message: a write whose commit waits until the
#: server's log is on disk up to it, and so until the push is.
DURABLE_SQL = "SELECT 1 FROM simrate.ack_replica(%s, 0)"
#: The hub's clock, in Unix seconds.
CLOCK_SQL = "SELECT extract(epoch FROM clock_timestamp())"


def _page_sql(query: str, capped: bool = True) -> str:
    """A page of rows above a watermark; on a hub that stamps without a lock, only rows
    below its cap (no transaction still running can commit a row under it)."""
    cap = " AND seq < simrate.pull_cap()" if capped else ""
    return f"{query} WHERE seq > %s{cap} ORDER BY seq LIMIT {PAGE}"


def _roll_back(conn: Any) -> None:
    """End a push that failed half-way (its writes are undone; a connection that broke
    needs nothing: the server ends the transaction itself)."""
    try:
        if conn.info.transaction_status != 0:  # not idle
            conn.rollback()
    except Exception:  # noqa: BLE001 - the first error is the one to report
        pass


def _begin_push(conn: Any, replica: str, outbox: Outbox) -> tuple[int, bool, bool]:
    """Begin the push's transaction, lock this replica's row, read and raise the id the
    hub acknowledged (and see whether the hub knows machine raters, when some are to go,
    and whether it caps pulls): one message, before any write, so this transaction holds
    the replica's row no longer than two answers' time."""
    batch = Batch(conn)
    batch.add("BEGIN")
    # The commit does not wait for the disk here: the statement after the COMMIT waits
    # for it instead, with the flushes of other pushes made meanwhile (one flush serves
    # them all). The push is on disk before this machine hears it went through; should
    # the server stop before, the round fails here and is sent again (the hub leaves out
    # what it has).
    batch.add("SET LOCAL synchronous_commit = off")
    # the replica's row (made on its first round) locked, read and raised: the hub's one
    # write of replicas (hub/schema/tables.py); no row when another login's
    mine = batch.add("SELECT acked FROM simrate.ack_replica(%s, %s)", (replica, outbox.upto))
    kind = batch.add(HAS_KIND) if outbox.machines or outbox.raters else None
    capped = batch.add(HAS_CAP)
    results = batch.run()
    if not results[mine].rows:
        raise HubError("this file's replica id belongs to another login on the hub: "
                       "join again to make a replica of your own", "refused")
    return (int(results[mine].rows[0][0]), kind is not None and bool(results[kind].rows),
            bool(results[capped].rows[0][0]))


def _queue_push(batch: Batch, outbox: Outbox, acked: int, has_kind: bool
                ) -> Callable[[list[Result]], tuple[int, list[tuple], dict]]:
    """Add the push's writes to the batch; returns what reads, from the batch's results,
    how many rows changed the hub and the hub's rows for the ratings it kept another value
    for (its trigger refuses an edit older than the one it holds).

    Ratings are sent whatever the acknowledged id says: they are keyed by value and by the
    time each edit was made, so a second delivery changes nothing on the hub (an equal
    value is left alone, an older edit is refused there)."""
    fresh = outbox.upto > acked  # else a round whose reply was lost delivered all of it
    for row in outbox.items:  # first: ratings refer to them
        batch.add(INSERT_ITEM, row[:8])
    ratings = outbox.ratings
    upserts = [queue_undo_rating(batch, r) if len(r) > 8 and r[8] else
               batch.add(PUT_RATING, r[:7]) for r in ratings]
    refused = batch.add(REFUSED_RATINGS, _refused_params(ratings)) if ratings else None
    reads = queue_others(batch, outbox.adjudications, outbox.annotators)
    others = _queue_writes(batch, outbox, fresh, has_kind)

    def result(results: list[Result]) -> tuple[int, list[tuple], dict]:
        changed = sum(results[i].rows[0][0] for i in upserts)  # rows each door changed
        kept = results[refused].rows if refused is not None else []
        sent = len(outbox.adjudications) + len(outbox.annotators)
        return (changed + (len(outbox.items) if fresh else 0) + others + sent, kept,
                read_others(results, reads))

    return result


def _refused_params(ratings: list[tuple]) -> tuple:
    return ([r[0] for r in ratings], [r[1] for r in ratings], [r[2] for r in ratings],
            [r[3] for r in ratings], [bool(r[4]) for r in ratings])


def _queue_writes(batch: Batch, outbox: Outbox, fresh: bool, has_kind: bool) -> int:
    """Add the raters (from the outbox: sent again after a lost reply, which changes
    nothing on the hub; each claimed by its key and kind, hub/schema/raters.py) and, unless
    the hub took this round already, the threshold (adjudications and exclusions:
    push_others.py); returns how many settings."""
    if has_kind:  # else: publish again to upgrade
        for name, _last in outbox.machines:
            batch.add(CLAIM_RATER, (name, rater_key(name), "machine"))
        for name, kind, _last in outbox.raters:
            batch.add(CLAIM_RATER, (name, rater_key(name), kind))
    threshold = outbox.threshold if fresh else None
    if threshold is not None:
        batch.add(UPSERT_SETTING, ("threshold", str(threshold[0])))
    rule = outbox.flag_rule if fresh else None
    if rule is not None:
        batch.add(UPSERT_SETTING, (RULE_SETTING, rule[0]))
    return (threshold is not None) + (rule is not None)


def pull(conn: Any, tables: tuple[str, ...], marks: dict[str, int], organizer: bool = True,
         capped: bool = True) -> tuple[dict[str, list[tuple]], dict[str, int]]:
    """Rows with a sequence number above each table's watermark (and below the hub's cap,
    see _page_sql), in sequence order."""
    queries = PULL_SQL if organizer else {**PULL_SQL, **ANNOTATOR_PULL_SQL}
    rows: dict[str, list[tuple]] = {}
    new_marks = dict(marks)
    for table in tables:
        found: list[tuple] = []
        mark = marks.get(table, 0)
        while True:
            page = conn.execute(_page_sql(queries[table], capped), (mark,)).fetchall()
            found.extend(page)
            if page:
                mark = int(page[-1][-1])
            if len(page) < PAGE:
                break
        rows[table] = found
        new_marks[table] = mark
    return rows, new_marks
