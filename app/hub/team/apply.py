"""Applying pulled hub rows to a replica through the Project's own write methods.

A pulled value is applied unless the replica holds a local value that differs from its
copy of the hub's (a pending change, which the next push sends). For ratings the edit made
later wins: a pending local rating stays only when it was made after the pulled one, and
otherwise gives way to it; that is a conflict, logged here with both values (kind
`conflict`) and counted in the round's report. A pulled rating keeps the time its edit was
made. The copies are updated either way, after the values, so a crash in between only
means the same rows are pulled and found equal next time.
"""

from __future__ import annotations

import math

import pandas as pd

from simrate.core.data.changelog import log_change
from simrate.core.data.replica_mode import ReplicaMode
from simrate.core.data.store import CROWD, HUMAN
from simrate.core.project import Project
from simrate.core.team.teamdb import set_hub_keys, team_write
from simrate.hub.link import outbox as queue
from simrate.hub.link.exchange import (
    RULE_SETTING,
    Outbox,
    Received,
    read_rule_setting,
    rule_setting,
)
from simrate.hub.link.replica import ensure_tables
from simrate.hub.link.replica_state import (
    ABSENT_RATING,
    clock_offset,
    hub_copies,
    items_on_hub_upto,
    local_ratings,
    queued_times,
    queued_upto,
)
from simrate.hub.team.kept_out import keep_out
from simrate.hub.team.later_wins import (
    HUB_WHO,
    apply_exclusions,
    apply_verdicts,
    conflict,
)


def apply_received(project: Project, link: ReplicaMode, received: Received,
                   outbox: Outbox | None = None) -> tuple[int, list[dict]]:
    """Apply every pulled table, in an order where each row finds what it refers to;
    returns how many rows changed the replica (echoes of our own pushes do not), and the
    conflicts met (later_wins.py: this machine's edits that lost, and newer ones kept).
    `outbox` is what this round pushed (the hub's answer to refused values is applied
    over those values). Scores off the scale are left out (kept_out.py)."""
    received = keep_out(project, received)
    rows = received.rows
    applied = (_apply_settings(project, rows.get("settings", []))
               + _apply_items(project, rows.get("items", []))
               + _apply_annotators(project, rows.get("annotators", [])))
    refused = {(r[0], r[1]) for r in received.refused}
    sent = {} if outbox is None else {(r[0], r[1]): (r[2], r[3], int(r[4]))
                                      for r in outbox.ratings if (r[0], r[1]) in refused}
    ratings, lost = _apply_ratings(project, _latest(received.refused,
                                                    rows.get("ratings", [])), sent)
    kept_verdicts, kept_exclusions = _kept(outbox, received)
    verdicts, found = apply_verdicts(
        project, rows.get("adjudications", []) + [(*r[:5], float("inf")) for r in
                                                  kept_verdicts.values()], set(kept_verdicts))
    exclusions, more = apply_exclusions(
        project, [(r[0], r[1], r[3]) for r in rows.get("annotators", [])]
        + [tuple(r[:3]) for r in kept_exclusions.values()],
        {r[0]: r[2] for r in (outbox.annotators if outbox else []) if r[0] in kept_exclusions})
    conflicts = [conflict("rating", f"{key[0]}/{key[1]}", _logged(project, mine, mine_at),
                          mine_at, _logged(project, theirs, at), at, won)
                 for key, mine, mine_at, theirs, at, won in lost]
    return applied + ratings + verdicts + exclusions, conflicts + found + more


def _kept(outbox: Outbox | None, received: Received) -> tuple[dict, dict]:
    """The hub's rows of the adjudications and exclusions it kept over this push's."""
    if outbox is None:
        return {}, {}
    sent_v = {r[0]: (r[1], r[2]) for r in outbox.adjudications}
    sent_e = {r[0]: r[1] for r in outbox.annotators}
    verdicts = {r[0]: r for r in received.others.get("verdicts_after", [])
                if r[0] in sent_v and (r[1], r[2]) != sent_v[r[0]]}
    exclusions = {r[0]: r for r in received.others.get("exclusions_after", [])
                  if r[0] in sent_e and bool(r[1]) != sent_e[r[0]]}
    return verdicts, exclusions


def _latest(*lists: list[tuple]) -> list[tuple]:
    """Rating rows by key, the one with the highest hub sequence number of each."""
    best: dict[tuple[str, str], tuple] = {}
    for rows in lists:
        for row in rows:
            key = (row[0], row[1])
            if key not in best or row[-1] > best[key][-1]:
                best[key] = row
    return sorted(best.values(), key=lambda r: r[-1])


def _apply_settings(project: Project, rows: list[tuple]) -> int:
    applied = 0
    for key, value, _seq in rows:
        if key == RULE_SETTING:
            applied += _apply_rule(project, value)
            continue
        if key != "threshold":
            continue  # scale and title are fixed when the project is published
        remote = float(value)
        copy = project.meta("hub_threshold")
        pending = copy is not None and copy != str(project.threshold)
        if not pending and project.threshold != remote:
            project.set_threshold(remote)
            applied += 1
        set_hub_keys(project, {"hub_threshold": str(remote)})
    return applied


def _apply_rule(project: Project, value: str) -> int:
    """The hub's flag rule, unless this replica changed its own since its last push (the
    push then sends it, and the later setting holds on the hub)."""
    remote = read_rule_setting(value)
    copy = project.meta("hub_flag_rule")
    pending = copy is not None and copy != rule_setting(project.flag_rule)
    applied = 0
    if remote is not None and not pending and rule_setting(project.flag_rule) != value:
        project.set_flag_rule(remote[0], uncertain_threshold=remote[1])
        applied = 1
    set_hub_keys(project, {"hub_flag_rule": value})
    return applied


def _apply_items(project: Project, rows: list[tuple]) -> int:
    new = [r for r in rows if not project.has_item(r[0])]
    if new:
        frame = pd.DataFrame({
            "item_id": [r[0] for r in new], "left": [r[1] for r in new],
            "right": [r[2] for r in new], "dataset": [r[3] for r in new],
            "genre": [r[4] for r in new],
            "reference": pd.Series([math.nan if r[5] is None else r[5] for r in new],
                                   dtype="float64"),
            "meta": [_meta(r[6]) for r in new], "line": list(range(1, len(new) + 1)),
        })
        project.import_items(frame, source="hub")
    if rows:
        with team_write(project) as write:
            write.set_hub_keys({"hub_item_ord": write.step(items_on_hub_upto,
                                                           {r[0] for r in rows})})
    return len(new)


def _meta(text: str | None) -> dict:
    import json

    return json.loads(text) if text else {}


def _apply_annotators(project: Project, rows: list[tuple]) -> int:
    """Add the hub's annotators this replica lacks (their exclusions: later_wins.py); one
    namespace: a name this file holds as another kind is refused (one line)."""
    for name, _excluded, kind, _at, _seq in rows:
        if kind == "machine":
            project.roster.add_machine(name, by=HUB_WHO)
        else:
            project.roster.add(name, CROWD if kind == CROWD else HUMAN)
    if rows:  # the hub has them: nothing to send back
        with team_write(project) as write:
            write.step(queue.drop_known_raters, [r[0] for r in rows])
    return 0


def _apply_ratings(project: Project, rows: list[tuple],
                   refused: dict[tuple[str, str], tuple]) -> tuple[int, list]:
    """Apply pulled ratings by the later-edit rule; `refused` holds the values of pushed
    edits the hub refused (it holds a later one), which give way to the hub's whatever this
    machine's clock says (unless edited again since). Returns (rows written, the edits
    of this machine that met a pulled one: key, both values and times, who won)."""
    rows = [r for r in rows if project.has_item(r[0])]
    if not rows:
        return 0, []
    local = local_ratings(project, keys := [(r[0], r[1]) for r in rows])
    copies = hub_copies(project, "hub_ratings", keys)
    made = queued_times(project, "rating", keys)
    offset = clock_offset(project)  # this machine's times, in the hub's (sync.in_hub_time)
    writes, lost = [], []
    for item_id, annotator, code, note, skipped, seconds, at, _seq in rows:
        key = (item_id, annotator)
        row = local.get(key)
        mine = ABSENT_RATING if row is None else (row[0], row[1], int(row[2]))
        theirs = (code, note, int(skipped))
        if mine == theirs:
            continue
        copy = copies.get(key, ABSENT_RATING)
        if mine != (copy[0], copy[1], int(copy[2])):  # changed here, not on the hub yet
            mine_at = max(0.0 if row is None else float(row[4]), made.get(key, 0.0)) - offset
            if refused.get(key) != mine and mine_at > float(at):
                continue  # ours was made later: it goes out next and wins
            lost.append((key, mine, mine_at, theirs, float(at), "hub"))
        writes.append((item_id, annotator, code, note, bool(skipped), seconds, float(at)))
    queued_before = queued_upto(project)
    project.apply_ratings(writes)
    _record_pulled(project, rows, queued_before, lost)
    return len(writes), lost


def _record_pulled(project: Project, rows: list[tuple], queued_before: int,
                   lost: list[tuple]) -> None:
    """The copies of the pulled ratings, the outbox rows the pull's own writes left gone,
    and a `conflict` entry per edit of this machine that met a pulled one (`won` on the
    hub's side when this machine's won)."""
    with team_write(project) as write:
        write.step(ensure_tables)
        write.step(queue.keep_hub_ratings, rows)
        # what the pull wrote equals the hub's copy: nothing to send, so no need to look
        # at it again (a key queued since, by anyone, with another value stays queued);
        # the raters it added are the hub's already
        write.step(queue.drop_pulled_ratings, queued_before)
        write.step(queue.drop_known_raters, {r[1] for r in rows}, after=queued_before)
        for (item_id, annotator), mine, mine_at, theirs, at, won in lost:
            hub = _logged(project, theirs, at)
            write.step(log_change, "conflict", who=annotator, item_id=item_id,
                       annotator=annotator, old=_logged(project, mine, mine_at),
                       new=hub if won == "hub" else {**hub, "won": won})


def _logged(project: Project, value: tuple, at: float) -> dict:
    """A rating value as a conflict entry records it: score, note, skipped, made at."""
    code, note, skipped = value
    return {"score": None if code is None else project.scale.from_code(code), "note": note,
            "skipped": bool(skipped), "at": at}
