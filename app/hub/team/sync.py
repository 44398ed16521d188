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

from simrate.core.base.flagrule import FlagRule
from simrate.core.data.replica_mode import ReplicaMode
from simrate.core.project import Project
from simrate.core.team.blind import blind_replica, source_name
from simrate.core.team.teamdb import items_after, last_change_id, team_write
from simrate.hub.link import outbox as queue
from simrate.hub.link.client import service_exchange, session_for_service
from simrate.hub.link.connection import connect, hub_info
from simrate.hub.link.exchange import (
    ANNOTATOR_TABLES,
    ORGANIZER_TABLES,
    Outbox,
    Received,
    exchange,
    rule_setting,
)
from simrate.hub.link.replica import (
    acknowledged,
    ensure_tables,
    has_outbox,
    meta_int,
    read_link,
    watermarks,
)
from simrate.hub.link.replica_state import (
    CLOCK_OFFSET,
    changed_exclusions,
    changed_ratings,
    changed_verdicts,
    clock_offset,
    queued_machines,
    queued_raters,
    queued_upto,
)
from simrate.hub.schema import MAX_CLOCK_LEAD
from simrate.hub.team.later_wins import record_others

#: What a hub published before flag rules holds: the default rule.
DEFAULT_RULE_SETTING = rule_setting(FlagRule())


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
    #: Every conflict: kind, key, both values and edit times, and which one won.
    conflict_list: tuple = ()

    def as_dict(self) -> dict:
        """The JSON object of `simrate team sync --json`."""
        found = {"pushed": self.pushed, "pulled": self.pulled, "pending": self.pending,
                 "conflicts": self.conflicts, "hub": self.hub}
        if self.conflict_list:  # each: kind, key, both values and edit times, who won
            found["conflict_list"] = list(self.conflict_list)
        return found


def counted(found: list | tuple) -> list:
    """The conflicts a report counts: every one but a rating edit made here that won (it
    is listed, and logged, but `conflicts` counts rating edits that lost, as before)."""
    return [c for c in found if not (c["kind"] == "rating" and c["won"] == "here")]


def conflict_line(conflicts: int, found: list | tuple = ()) -> str:
    """The one line that tells a person their edits met other ones (`found`: the report's
    conflict list; without it, or with rating edits that lost only, the rating wording)."""
    found = counted(found)
    edits = "edit" if conflicts == 1 else "edits"
    if all(c["kind"] == "rating" and c["won"] == "hub" for c in found):
        return (f"{conflicts} rating {edits} made here lost to a later edit of the same "
                "rating made on another machine; both values are in the change log")
    lost = sum(c["won"] == "hub" for c in found)
    kinds = ", ".join(sorted({c["kind"] for c in found}))
    return (f"{conflicts} {edits} ({kinds}) met another value from another machine: the "
            f"later one won ({lost} made here lost, {conflicts - lost} made here won); "
            "both values are in the change log")


def clock_line(offset: float) -> str | None:
    """A warning when this machine's clock is off the hub's by more than a minute."""
    if abs(offset) <= MAX_CLOCK_LEAD:
        return None
    minutes = abs(offset) / 60
    amount = f"{minutes:.0f} minutes" if minutes < 120 else f"{minutes / 60:.1f} hours"
    side = "ahead of" if offset > 0 else "behind"
    return (f"this computer's clock is {amount} {side} the hub's; a rating edit counts "
            "as made when this clock says, so set the clock right")


def in_hub_time(rows: list[tuple], at: int, offset: float) -> list[tuple]:
    """The rows with the edit time at position `at` moved from this machine's clock to the
    hub's: an edit is ordered by when it was made, in the hub's time, so a clock hours or
    seconds off (and an edit made offline on it) never wins against a later edit made on
    another machine. The offset is the one measured at the last round (docs/hub.md)."""
    if not offset:
        return rows
    return [(*row[:at], float(row[at]) - offset, *row[at + 1:]) for row in rows]


def collect(project: Project, link: ReplicaMode) -> Outbox:
    """Local changes the hub has not acknowledged and does not hold yet.

    Ratings, adjudications, exclusions and machine raters come from the outbox, which
    every write fills (replica.py, replica_state.py); the threshold and new items from their
    copies of the hub's values; `since`/`upto` are change-log ids for the hub's ack.
    """
    if not has_outbox(project):
        with team_write(project) as write:
            write.step(ensure_tables)
    since = acknowledged(project)
    last = last_change_id(project)
    outbox = Outbox(since, max(since, last))
    upto = outbox.queued_upto = queued_upto(project)
    offset = clock_offset(project)
    outbox.ratings = in_hub_time(changed_ratings(
        project, upto, None if link.organizer else (link.name or "")), 6, offset)
    if not link.organizer:
        return outbox
    outbox.adjudications = in_hub_time(changed_verdicts(project, upto), 4, offset)
    outbox.annotators = in_hub_time(changed_exclusions(project, upto), 2, offset)
    outbox.machines = queued_machines(project, upto)
    outbox.raters = queued_raters(project, upto)
    copy = project.meta("hub_threshold")
    if copy is not None and copy != str(project.threshold):
        outbox.threshold = (project.threshold, outbox.upto)
    rule = rule_setting(project.flag_rule)
    if copy is not None and rule != (project.meta("hub_flag_rule") or DEFAULT_RULE_SETTING):
        outbox.flag_rule = (rule, outbox.upto)  # a hub from before rules holds the default
    outbox.items = _new_items(project)
    return outbox


#: Least seconds between the end of an organizer's round and a round started by the hub's
#: NOTIFY: under a stream of ratings (a crowd on the web page, hundreds of annotators) each
#: round then takes in a batch instead of one rating, and the live figure stays within a
#: second of the rating.
LIVE_GAP = 0.25

def _new_items(project: Project) -> list[tuple]:
    known = meta_int(project, "hub_item_ord")
    return [(*r[:7], source_name(r[7]), r[8])
            for r in items_after(project, known)]  # no folders (blind.py)


def absorb(project: Project, link: ReplicaMode, outbox: Outbox, received: Received) -> SyncReport:
    """Record what the hub took, apply what it sent; returns the round's report."""
    _record_push(project, outbox, received)
    blind_replica(project)  # an annotator's replica from an older simrate held references
    before = last_change_id(project)
    from simrate.hub.team.apply import apply_received  # local writes through Project

    applied, found = apply_received(project, link, received, outbox)
    found = received.conflicts + found
    after = last_change_id(project)
    with team_write(project) as write:
        values: dict[str, object] = {f"hub_wm_{t}": m for t, m in received.watermarks.items()}
        values["hub_last_sync"] = time.time()
        values[CLOCK_OFFSET] = received.clock_offset
        if before == outbox.upto:
            # Nothing was changed here during the round: what the pull wrote is no change
            # of ours, and the next collect need not read it again.
            values["hub_pushed"] = after
        write.set_hub_keys(values)
    pending = collect(project, link).size
    return SyncReport(received.pushed, applied, pending, conflicts=len(counted(found)),
                      clock_offset=received.clock_offset, conflict_list=tuple(found))


def _record_push(project: Project, outbox: Outbox, received: Received) -> None:
    """The hub now holds every outbox row (ratings it refused: its own, which the pull
    applies): as our copies of its values, and the ack; the outbox rows read are done."""
    refused = {(r[0], r[1]) for r in received.refused}
    with team_write(project) as write:
        write.step(ensure_tables)
        write.step(queue.keep_hub_ratings,
                   [r for r in outbox.ratings if (r[0], r[1]) not in refused])
        write.step(queue.drop_sent, outbox.queued_upto)
        received.conflicts = write.step(record_others, outbox, received)
        values: dict[str, object] = {"hub_pushed": max(outbox.upto, outbox.since)}
        if outbox.threshold is not None:
            values["hub_threshold"] = outbox.threshold[0]
        if outbox.flag_rule is not None:
            values["hub_flag_rule"] = outbox.flag_rule[0]
        if outbox.items:
            values["hub_item_ord"] = max(r[-1] for r in outbox.items)
        write.set_hub_keys(values)


def tables_for(link: ReplicaMode) -> tuple[str, ...]:
    """The hub tables this replica pulls."""
    return ORGANIZER_TABLES if link.organizer else ANNOTATOR_TABLES


def pending_count(project: Project) -> int:
    """Local changes not yet on the hub (0 for a project without a hub)."""
    if project.mode.plain:
        return 0
    return collect(project, project.mode).size


def sync_once(project: Project, password: str | None = None, wait: float = 0.0
              ) -> SyncReport:
    """One whole round on this thread (the command line's `team sync`), tried again with
    backoff for up to `wait` seconds while the hub is full or unreachable (a resent round
    is safe: the hub leaves out what it already took)."""
    from simrate.hub.link.backoff import patiently

    return patiently(lambda: _sync_once(project, password), wait)


def _sync_once(project: Project, password: str | None) -> SyncReport:
    link = read_link(project)
    outbox = collect(project, link)
    if link.service:  # through `simrate serve` (hub/link/client.py)
        received = service_exchange(link.service, link.token, link.replica,
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
    from simrate.hub.link.connection import HubError

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
    from simrate.hub.link.session import HubSession

    link = read_link(project)
    if link.service:
        return session_for_service(project)
    return HubSession(link.url, link.replica, link.organizer, project.meta("project_uuid") or "",
                      password)
