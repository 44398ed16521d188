"""Web workers as raters: a worker id is checked once, and names the crowd worker of its
identity key; a person's or machine rater's name is refused (one namespace, issue 31)."""

from __future__ import annotations

import sqlite3

from simrate.core.base.frames import name_problem
from simrate.core.base.rules import KIND_WORDS, WORKER_OF_OTHER_KIND
from simrate.core.data import raters
from simrate.core.data.changelog import log_change
from simrate.core.data.store import CROWD
from simrate.core.edits import writes
from simrate.core.team.web_tables import WORKER_ID, WebRefusal, refusal


def check_worker_id(worker: str) -> str:
    """The worker id as given, or WebRefusal when it cannot name a crowd worker."""
    if not WORKER_ID.fullmatch(worker or "") or name_problem(worker):
        raise refusal("worker_id")
    return worker


def worker_aid(conn: sqlite3.Connection, worker: str, added: dict[str, int]
               ) -> tuple[int, str]:
    """(annotator id, stored name) of this crowd worker (the rater of the id's key: `CAROL`
    is the worker `carol`), adding them with kind crowd; WebRefusal when a person or
    machine rater of the project holds that key."""
    found = raters.find(conn, worker)
    if found is not None:
        aid, name, held = found
        if held != CROWD:
            raise held_by_other_kind(held)
        return aid, name
    aid = writes.insert_rater(conn, worker, CROWD)
    log_change(conn, "annotator", annotator=worker, new={"name": worker, "kind": CROWD})
    added[worker] = aid
    return aid, worker


def held_by_other_kind(held: str) -> WebRefusal:
    """The refusal of a worker id that names a rater of another kind (one namespace)."""
    status, message = WORKER_OF_OTHER_KIND
    return WebRefusal(message.format(held=KIND_WORDS.get(held, held)), status)


def crowd_aid(conn: sqlite3.Connection, worker: str) -> tuple[int | None, str]:
    """(annotator id, stored name) of the crowd worker of the id's key (`CAROL` is the
    worker `carol`; id None: not a rater yet, the first rating adds them); WebRefusal when
    a person or machine rater of the project holds that key (one namespace)."""
    found = raters.find(conn, worker)
    if found is None:
        return None, worker
    aid, name, held = found
    if held != CROWD:
        raise held_by_other_kind(held)
    return aid, name
