"""The sync engine: one round pushes local changes to the hub and pulls remote ones.

A round has three steps so that the window can keep the network off the GUI thread:
`collect` (local: read the change log since the last acknowledged id and keep what
differs from the hub's copy), `exchange` (network only, exchange.py) and `absorb` (local:
record what the hub took, then apply what came back through the Project's own write
methods, so live agreement, flags and every view update as for a local change).

Exactly once: the hub keeps, per replica, the highest local change-log id it has taken,
in the same transaction as the rows. A round whose reply is lost (a crash, a dropped
connection) is resent, and the hub leaves out what it already has.

Conflicts: a rating belongs to its annotator, so the only conflict is one person rating
one item on two machines (and two organizers adjudicating one item). For ratings the edit
MADE later wins, whichever machine syncs first: every rating carries the time its edit
was made (`updated_at`), the hub refuses an update older than the value it holds (a
trigger, so no client route bypasses it; the refused value goes to the hub's change log),
and a replica gives up a pending local rating only for a pulled one made later. Each
edit of this machine that loses is counted (`conflicts`) and logged locally with both
values. A stamp more than a minute ahead of the hub's clock is replaced by the hub's time,
so a machine whose clock runs far ahead cannot make its edits win over later ones. For
adjudications the write that reaches the hub last wins; the value it replaced stays in
the hub's change log.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from simrate.core.project import Project
from simrate.core.team.blind import blind_replica, source_name
from simrate.core.team.hub.connection import connect, hub_info
from simrate.core.team.hub.exchange import (
    ANNOTATOR_TABLES,
    ORGANIZER_TABLES,
    Outbox,
    Received,
    exchange,
)
from simrate.core.team.hub.hub_schema import MAX_CLOCK_LEAD
from simrate.core.team.hub.serve_sync.client import (
    TOKEN_KEY,
    is_service_url,
    service_exchange,
    session_for_service,
)
from simrate.core.team.hub.replica import (
    Link,
    ensure_tables,
    has_outbox,
    meta_int,
    read_link,
    set_meta,
    watermarks,
)
from simrate.core.team.hub.replica_state import (
    adjudication_values,
    annotator_values,
    hub_copies,
)


@dataclass(frozen=True)
class SyncReport:
    """What one round did (the keys of `team sync --json`)."""

    pushed: int
    pulled: int
    pending: int
    hub: str = "reachable"
    #: This machine's rating edits that lost to a later edit by the same person.
    conflicts: int = 0
    #: Seconds this machine's clock is ahead of the hub's (not part of the JSON).
    clock_offset: float = 0.0

    def as_dict(self) -> dict:
        """The JSON object of `simrate team sync --json`."""
        return {"pushed": self.pushed, "pulled": self.pulled, "pending": self.pending,
                "conflicts": self.conflicts, "hub": self.hub}


def conflict_line(conflicts: int) -> str:
    """The one line that tells a person their edits lost to later ones."""
    edits = "edit" if conflicts == 1 else "edits"
    return (f"{conflicts} rating {edits} made here lost to a later edit of the same rating "
            "made on another machine; both values are in the change log")


def clock_line(offset: float) -> str | None:
    """A warning when this machine's clock is off the hub's by more than a minute."""
    if abs(offset) <= MAX_CLOCK_LEAD:
        return None
    minutes = abs(offset) / 60
    amount = f"{minutes:.0f} minutes" if minutes < 120 else f"{minutes / 60:.1f} hours"
    side = "ahead of" if offset > 0 else "behind"
    return (f"this computer's clock is {amount} {side} the hub's; a rating edit counts "
            "as made when this clock says, so set the clock right")


def collect(project: Project, link: Link) -> Outbox:
    """Local changes the hub has not acknowledged and does not hold yet.

    Ratings come from the outbox, which every write to `ratings` fills (replica.py);
    everything else from the change log since the last acknowledged id.
    """
    if not has_outbox(project):
        with project.team_tables.transaction() as conn:
            ensure_tables(conn)
    since = meta_int(project, "hub_pushed")
    rows = project.team_tables.read("SELECT id, kind, item_id, annotator FROM changes WHERE id > ? "
                        "ORDER BY id", (since,))
    outbox = Outbox(since, rows[-1][0] if rows else since)
    outbox.queued_upto = project.team_tables.read(
        "SELECT COALESCE(max(id), 0) FROM hub_outbox")[0][0]
    outbox.ratings = _changed_ratings(project, link, outbox.queued_upto)
    if not rows or not link.organizer:
        return outbox
    adjudications, annotators, threshold, items = {}, {}, None, False
    for change_id, kind, item_id, annotator in rows:
        if kind == "adjudication" and item_id is not None:
            adjudications[item_id] = change_id
        elif kind == "exclude" and annotator is not None:
            annotators[annotator] = change_id
        elif kind == "machine" and annotator is not None:
            outbox.machines.append((annotator, change_id))
        elif kind == "annotator" and annotator is not None:
            outbox.raters.append((annotator, change_id))
        elif kind == "threshold":
            threshold = change_id
        elif kind == "import_items":
            items = True
    outbox.adjudications = _changed_adjudications(project, adjudications)
    outbox.annotators = _changed_annotators(project, annotators)
    outbox.raters = _new_raters(project, outbox.raters)
    if threshold is not None and project.meta("hub_threshold") != str(project.threshold):
        outbox.threshold = (project.threshold, threshold)
    if items:
        outbox.items = _new_items(project)
    return outbox


#: Least seconds between the end of an organizer's round and a round started by the hub's
#: NOTIFY: under a stream of ratings (a crowd on the web page, hundreds of annotators) each
#: round then takes in a batch instead of one rating, and the live figure stays within a
#: second of the rating.
LIVE_GAP = 0.25

#: The queued keys whose local value differs from the hub's copy (absent on either side
#: counts as no score, no note, not skipped), with the time this machine made the change:
#: the later of the row's `updated_at` and its outbox time.
CHANGED_RATINGS = """
SELECT i.id, a.name, r.code, COALESCE(r.note, ''), COALESCE(r.skipped, 0), r.seconds,
       max(COALESCE(r.updated_at, 0), q.at), q.last
FROM (SELECT item_ord, annotator_id, max(at) AS at, max(id) AS last FROM hub_outbox
      WHERE id <= ? GROUP BY item_ord, annotator_id) q
JOIN items i ON i.ord = q.item_ord
JOIN annotators a ON a.id = q.annotator_id
LEFT JOIN ratings r ON r.item_ord = q.item_ord AND r.annotator_id = q.annotator_id
LEFT JOIN hub_ratings h ON h.item_id = i.id AND h.annotator = a.name
WHERE r.code IS NOT h.code OR COALESCE(r.note, '') <> COALESCE(h.note, '')
   OR COALESCE(r.skipped, 0) <> COALESCE(h.skipped, 0)
"""


def _changed_ratings(project: Project, link: Link, upto: int) -> list[tuple]:
    """(item_id, annotator, code, note, skipped, seconds, made at, outbox id) of the queued
    ratings the hub's copy lacks; an annotator's replica sends only the person's own."""
    sql, params = CHANGED_RATINGS, (upto,)
    if not link.organizer:
        sql, params = sql + " AND a.name = ?", (upto, link.name or "")
    return [(item_id, name, code, note, bool(skipped), seconds, float(at), last)
            for item_id, name, code, note, skipped, seconds, at, last
            in project.team_tables.read(sql, params)]


def _changed_adjudications(project: Project, keys: dict[str, int]) -> list[tuple]:
    local = adjudication_values(project)
    hub = hub_copies(project, "hub_adjudications", list(keys))
    out = []
    for item_id, change_id in keys.items():
        code, note, by, at = local.get(item_id, (None, "", "", time.time()))
        if (code, note) != hub.get(item_id, (None, "")):
            out.append((item_id, code, note, by, at, change_id))
    return out


def _changed_annotators(project: Project, keys: dict[str, int]) -> list[tuple]:
    local = annotator_values(project)
    hub = hub_copies(project, "hub_annotators", list(keys))
    return [(name, bool(local[name]), change_id) for name, change_id in keys.items()
            if name in local and hub.get(name) != (int(local[name]),)]


def _new_raters(project: Project, added: list[tuple]) -> list[tuple]:
    """(name, kind, change_id) of the raters added here that the file still holds: the hub
    gets a row for each (claimed there by key and kind), so that no crowd worker or rater
    of another kind can take the name meanwhile."""
    kinds = project.roster.kinds()
    return [(name, kinds[name], change_id) for name, change_id in added if name in kinds]


def _new_items(project: Project) -> list[tuple]:
    known = meta_int(project, "hub_item_ord")
    rows = project.team_tables.read(
        "SELECT i.id, i.left, i.right, i.dataset, i.genre, i.reference, i.meta, "
        "COALESCE(s.path, ''), i.ord FROM items i LEFT JOIN sources s ON s.id = i.source_id "
        "WHERE i.ord > ? ORDER BY i.ord", (known,))
    return [(*r[:7], source_name(r[7]), r[8]) for r in rows]  # no folders (blind.py)


def absorb(project: Project, link: Link, outbox: Outbox, received: Received) -> SyncReport:
    """Record what the hub took, apply what it sent; returns the round's report."""
    _record_push(project, outbox, received)
    blind_replica(project)  # an annotator's replica from an older simrate held references
    before = project.team_tables.read("SELECT COALESCE(max(id), 0) FROM changes")[0][0]
    from simrate.core.team.hub.apply import apply_received  # local writes through Project

    applied, conflicts = apply_received(project, link, received, outbox)
    after = project.team_tables.read("SELECT COALESCE(max(id), 0) FROM changes")[0][0]
    with project.team_tables.transaction() as conn:
        values: dict[str, object] = {f"hub_wm_{t}": m for t, m in received.watermarks.items()}
        values["hub_last_sync"] = time.time()
        if before == outbox.upto:
            # Nothing was changed here during the round: what the pull wrote is no change
            # of ours, and the next collect need not read it again.
            values["hub_pushed"] = after
        set_meta(conn, values)
    pending = collect(project, link).size
    return SyncReport(received.pushed, applied, pending, conflicts=conflicts,
                      clock_offset=received.clock_offset)


def _record_push(project: Project, outbox: Outbox, received: Received) -> None:
    """The hub now holds every outbox row (ratings it refused: its own, which the pull
    applies): as our copies of its values, and the ack; the outbox rows read are done."""
    refused = {(r[0], r[1]) for r in received.refused}
    with project.team_tables.transaction() as conn:
        ensure_tables(conn)
        conn.executemany("INSERT OR REPLACE INTO hub_ratings VALUES (?,?,?,?,?)",
                         [(r[0], r[1], r[2], r[3], int(r[4])) for r in outbox.ratings
                          if (r[0], r[1]) not in refused])
        conn.execute("DELETE FROM hub_outbox WHERE id <= ?", (outbox.queued_upto,))
        conn.executemany("INSERT OR REPLACE INTO hub_adjudications VALUES (?,?,?)",
                         [(r[0], r[1], r[2]) for r in outbox.adjudications])
        conn.executemany("INSERT OR REPLACE INTO hub_annotators VALUES (?,?)",
                         [(r[0], int(r[1])) for r in outbox.annotators])
        values: dict[str, object] = {"hub_pushed": max(outbox.upto, outbox.since)}
        if outbox.threshold is not None:
            values["hub_threshold"] = outbox.threshold[0]
        if outbox.items:
            values["hub_item_ord"] = max(r[-1] for r in outbox.items)
        set_meta(conn, values)


def tables_for(link: Link) -> tuple[str, ...]:
    """The hub tables this replica pulls."""
    return ORGANIZER_TABLES if link.organizer else ANNOTATOR_TABLES


def pending_count(project: Project) -> int:
    """Local changes not yet on the hub (0 for a project without a hub)."""
    if not project.meta("hub_url"):
        return 0
    return collect(project, read_link(project)).size


def sync_once(project: Project, password: str | None = None, wait: float = 0.0
              ) -> SyncReport:
    """One whole round on this thread (the command line's `team sync`), tried again with
    backoff for up to `wait` seconds while the hub is full or unreachable (a resent round
    is safe: the hub leaves out what it already took)."""
    from simrate.core.team.hub.backoff import patiently

    return patiently(lambda: _sync_once(project, password), wait)


def _sync_once(project: Project, password: str | None) -> SyncReport:
    link = read_link(project)
    outbox = collect(project, link)
    if is_service_url(link.url):  # through `simrate serve` (serve_sync/client.py)
        received = service_exchange(link.url, project.meta(TOKEN_KEY) or "", link.replica,
                                    outbox, watermarks(project, tables_for(link)),
                                    project.meta("project_uuid") or "")
        return absorb(project, link, outbox, received)
    conn = connect(link.url, password)
    try:
        info = hub_info(conn, link.url)
        check_same_project(project, info.project_uuid)
        received = exchange(conn, link.replica, outbox, watermarks(project, tables_for(link)),
                            link.organizer, link.url)
    finally:
        conn.close()
    return absorb(project, link, outbox, received)


def check_same_project(project: Project, hub_uuid: str) -> None:
    """HubError when the hub holds another project than this replica."""
    from simrate.core.team.hub.connection import HubError

    if project.meta("project_uuid") != hub_uuid:
        raise HubError("the hub holds another project than this file (project ids differ)",
                       "project")


def sync_round(project: Project, session) -> SyncReport:
    """One round over a HubSession's connection (collect, exchange, absorb)."""
    link = read_link(project)
    outbox = collect(project, link)
    received = session.round(outbox, watermarks(project, tables_for(link)))
    return absorb(project, link, outbox, received)


def session_for(project: Project, password: str | None = None):
    """A HubSession for this replica."""
    from simrate.core.team.hub.session import HubSession

    link = read_link(project)
    if is_service_url(link.url):
        return session_for_service(project)
    return HubSession(link.url, link.replica, link.organizer, project.meta("project_uuid") or "",
                      password)
