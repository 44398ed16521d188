"""Web studies' tasks: leasing a task to a worker, reading it back and rating its slots.

Every lease and every rating is one write transaction on the project file (see web_study/
for the tables and the rules); the hub's side of the same is hub/team/web_hub.py.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
import time

from simrate.core.base.events import RatingState
from simrate.core.base.scale import Scale
from simrate.core.data import tables
from simrate.core.data.changelog import log_change
from simrate.core.project import Project
from simrate.core.team.crowdweb import training
from simrate.core.team.crowdweb.access import refuse_kept_out
from simrate.core.team.crowdweb.attention import ENDED, end_if_failed, failed_in_task
from simrate.core.team.crowdweb.flood import FIRST_RATING_MINUTES, make_room
from simrate.core.team.crowdweb.training import SCREENED, TRAINING
from simrate.core.team.crowdweb.workers import check_worker_id, crowd_aid, worker_aid
from simrate.core.team.teamdb import has_table
from simrate.core.team.web_tables import (
    SESSION_ID,
    STUDY_COLUMNS,
    STUDY_NAME,
    Lease,
    Slot,
    Study,
    ensure_web_tables,
    refusal,
    release_unrated,
    row_study,
    score_code,
    use_items,
)


# ----------------------------------------------------------------- leasing
def _drop_task(conn: sqlite3.Connection, study: str, task: str) -> None:
    """A task without a rating goes, leaving nothing behind: its slots back to the pool,
    its rows deleted (no rater was added for it and nothing was logged)."""
    release_unrated(conn, study, task)
    conn.execute("DELETE FROM web_slots WHERE study = ? AND task = ?", (study, task))
    conn.execute("DELETE FROM web_tasks WHERE study = ? AND task = ?", (study, task))


def _expire(conn: sqlite3.Connection, study: str, now: float) -> None:
    """Leases past their time go back to the pool: their unrated slots stop counting (the
    ratings they got stay; a task without any is dropped)."""
    late = conn.execute(
        "SELECT t.task, EXISTS (SELECT 1 FROM web_slots s WHERE s.study = t.study AND "
        "s.task = t.task AND s.rated_at IS NOT NULL) FROM web_tasks t WHERE t.study = ? AND "
        "t.state = 'leased' AND t.expires_at <= ?", (study, now)).fetchall()
    for task, rated in late:
        if not rated:
            _drop_task(conn, study, task)
            continue
        release_unrated(conn, study, task)
        conn.execute("UPDATE web_tasks SET state = 'expired' WHERE study = ? AND task = ?",
                     (study, task))


def _lease_row(conn: sqlite3.Connection | _Reader, study: str, where: str,
               params: tuple) -> Lease | None:
    row = conn.execute(
        "SELECT t.study, t.task, t.worker, t.cookie, t.token, t.state, t.expires_at, "
        "(SELECT COUNT(*) FROM web_slots s WHERE s.study = t.study AND s.task = t.task), "
        "(SELECT COUNT(*) FROM web_slots s WHERE s.study = t.study AND s.task = t.task "
        "AND s.rated_at IS NOT NULL), t.session FROM web_tasks t WHERE t.study = ? AND "
        + where, (study, *params)).fetchone()
    if row is None:
        return None
    s, task, worker, cookie, token, state, expires, size, rated, session = row
    return Lease(s, task, worker, cookie, token, state, int(size), int(rated), float(expires),
                 session)


def lease(project: Project, study_name: str, worker: str, session: str = "",
          cookie: str | None = None, now: float | None = None, address: str = "",
          again: bool = False) -> Lease:
    """The worker's live task in this study, or a new one: one write transaction.

    A live task is resumed only by the browser that holds its cookie (the worker id and
    session of a link are no credential). A live task of this worker that another browser
    holds is given up when it has no rating yet (a stranger with the worker's id cannot
    keep the worker out), else refused (409). A worker who finished a task of the study
    gets it back (done: the page shows the code) unless `again`. A study without items
    left for this worker refuses with 410; the flood limits of crowdweb/flood.py apply.
    """
    check_worker_id(worker)
    session = session if SESSION_ID.fullmatch(session or "") else ""
    now = time.time() if now is None else now
    with project.team_tables.transaction() as conn:
        ensure_web_tables(conn)
        study = _open_study(conn, study_name)
        refuse_kept_out(study, worker)  # the page refused already; a script is refused too
        _expire(conn, study.name, now)
        aid, worker = crowd_aid(conn, worker)  # one namespace: refused if not crowd
        live = _lease_row(conn, study.name, "t.worker = ? AND t.state = 'leased'", (worker,))
        if live is not None:
            if cookie and hmac.compare_digest(cookie, live.cookie):
                return live
            if live.rated:
                raise refusal("open_elsewhere")
            _drop_task(conn, study.name, live.task)
        ended = _lease_row(conn, study.name, "t.worker = ? AND t.state IN (?, ?) LIMIT 1",
                           (worker, ENDED, SCREENED))  # that task again, never a new one
        if ended is not None:
            return ended
        if not again:
            done = _lease_row(conn, study.name, "t.worker = ? AND t.state = 'done' "
                              "ORDER BY t.done_at DESC LIMIT 1", (worker,))
            if done is not None:
                return done
        make_room(conn, study, address, now, _drop_task)
        return _new_task(conn, study, worker, aid, session, now, address)




def _open_study(conn: sqlite3.Connection, name: str) -> Study:
    row = conn.execute(f"SELECT {STUDY_COLUMNS} FROM web_studies WHERE name = ?",
                       (name,)).fetchone() if STUDY_NAME.fullmatch(name or "") else None
    if row is None:
        raise refusal("no_study")
    study = row_study(row)
    if not study.open:
        raise refusal("closed")
    return study


def _new_task(conn: sqlite3.Connection, study: Study, worker: str, aid: int | None,
              session: str, now: float, address: str) -> Lease:
    """Build and record a task of K items and C checks for this worker."""
    # items this worker rated already, or holds in a live task of any study (one who is
    # no rater yet has rated nothing: the ratings table, without an index by rater, is
    # skipped)
    rated = "SELECT item_ord FROM ratings WHERE annotator_id = :aid UNION "
    seen = ("" if aid is None else rated) + (
            "SELECT s.item_ord FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
            "t.task = s.task WHERE t.worker = :worker AND t.state = 'leased'")
    has_checks = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'check_items'").fetchone()
    items = _pick_items(conn, study, worker, aid, seen, bool(has_checks))
    checks: list[int] = []
    practice_count = int(study.option("training", 0) or 0)  # crowdweb/training.py
    if (study.checks or practice_count) and has_checks:
        checks = _pick_checks(conn, study, worker, aid, seen, study.checks + practice_count)
    slots = [(o, TRAINING) for o in checks[:practice_count]] + \
        _place_checks(items, checks[practice_count:])
    return _record_task(conn, study, (worker, session, address), now, items, slots)


def _pick_items(conn: sqlite3.Connection, study: Study, worker: str, aid: int | None,
                seen: str, has_checks: bool) -> list[int]:
    """The K least-rated pool items this worker has not seen (WebRefusal 410 when none)."""
    not_check = "AND f.item_ord NOT IN (SELECT item_ord FROM check_items)" if has_checks else ""
    items = [r[0] for r in conn.execute(
        f"SELECT f.item_ord FROM web_fill f WHERE f.study = :study AND f.used < :cap "
        f"{not_check} AND f.item_ord NOT IN ({seen}) ORDER BY f.used, f.rank LIMIT :k",
        {"study": study.name, "cap": study.per_item, "aid": aid, "worker": worker,
         "k": study.per_task})]
    if not items:
        raise refusal("none_left")
    return items


def _pick_checks(conn: sqlite3.Connection, study: Study, worker: str, aid: int | None,
                 seen: str, count: int) -> list[int]:
    """Up to `count` check items this worker has not seen, drawn at random."""
    pool = [r[0] for r in conn.execute(
        f"SELECT item_ord FROM check_items WHERE item_ord NOT IN ({seen})",
        {"aid": aid, "worker": worker})]
    rng = secrets.SystemRandom()
    return rng.sample(pool, min(count, len(pool)))


def _place_checks(items: list[int], checks: list[int]) -> list[tuple[int, int]]:
    """(item, is_check) per slot: the items in order, each check item at a random place."""
    slots = [(o, 0) for o in items]
    rng = secrets.SystemRandom()
    for ord_ in checks:
        slots.insert(rng.randint(0, len(slots)), (ord_, 1))
    return slots


def _record_task(conn: sqlite3.Connection, study: Study, who: tuple[str, str, str],
                 now: float, items: list[int], slots: list[tuple[int, int]]) -> Lease:
    """Write the task, its slots and the pool's counts. Its lease is short until its first
    rating; nothing is logged and no rater added before that (rate_slot does both)."""
    worker, session, address = who
    number = conn.execute("SELECT COALESCE(MAX(CAST(substr(task, 2) AS INTEGER)), 0) "
                          "FROM web_tasks WHERE study = ?", (study.name,)).fetchone()[0] + 1
    task = f"w{number:06d}"
    cookie, token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    expires = now + min(study.lease_minutes, FIRST_RATING_MINUTES) * 60
    conn.execute("INSERT INTO web_tasks (study, task, worker, session, cookie, token, state, "
                 "leased_at, expires_at, address) VALUES (?,?,?,?,?,?, 'leased', ?, ?, ?)",
                 (study.name, task, worker, session, cookie, token, now, expires, address))
    conn.executemany("INSERT INTO web_slots VALUES (?,?,?,?,?, NULL, NULL)",
                     [(study.name, task, n, o, c) for n, (o, c) in enumerate(slots, 1)])
    use_items(conn, study.name, items)
    return Lease(study.name, task, worker, cookie, token, "leased", len(slots), 0, expires,
                 session)


def task_by_cookie(project: Project, study_name: str, cookie: str) -> Lease | None:
    """The task this cookie names in this study (any state), or None."""
    if not cookie or len(cookie) > 200 or not has_table(project, "web_tasks"):
        return None
    found = _lease_row(_Reader(project), study_name, "t.cookie = ?", (cookie,))
    if found is None or not hmac.compare_digest(found.cookie, cookie):
        return None
    return found


class _Reader:
    """`conn.execute(...).fetchone()` over the project's reads, for the shared row readers."""

    def __init__(self, project: Project):
        self._project = project

    def execute(self, sql: str, params: tuple = ()) -> _Reader:
        self._rows = self._project.team_tables.read(sql, params)
        return self

    def fetchone(self) -> tuple | None:
        return self._rows[0] if self._rows else None

    def fetchall(self) -> list[tuple]:
        return self._rows


def failed_checks(project: Project, study_name: str, cookie: str) -> int:
    """The failed attention checks of the task this cookie names (0: none, or no task)."""
    found = task_by_cookie(project, study_name, cookie)
    if found is None:
        return 0
    return failed_in_task(_Reader(project), study_name, found.task, project.scale)


def next_slot(project: Project, lease_: Lease) -> Slot | None:
    """The task's first unrated slot with its texts (None when every slot is rated)."""
    rows = project.team_tables.read(
        "SELECT s.slot, s.item_ord, i.left, i.right FROM web_slots s JOIN items i "
        "ON i.ord = s.item_ord WHERE s.study = ? AND s.task = ? AND s.rated_at IS NULL "
        "ORDER BY s.slot LIMIT 1", (lease_.study, lease_.task))
    return Slot(*rows[0]) if rows else None


# ----------------------------------------------------------------- rating
def slot_view(project: Project, lease_: Lease, slot: int) -> tuple[Slot, float | None] | None:
    """One slot of the task with its texts and the score saved for it (None: unrated);
    None when the task has no such slot."""
    rows = project.team_tables.read(
        "SELECT s.slot, s.item_ord, i.left, i.right, r.code FROM web_slots s JOIN items i "
        "ON i.ord = s.item_ord LEFT JOIN annotators a ON a.name = ? LEFT JOIN ratings r ON "
        "r.item_ord = s.item_ord AND r.annotator_id = a.id AND s.rated_at IS NOT NULL "
        "WHERE s.study = ? AND s.task = ? AND s.slot = ?",
        (lease_.worker, lease_.study, lease_.task, slot))
    if not rows:
        return None
    *fields, code = rows[0]
    return Slot(*fields), (None if code is None else project.scale.from_code(code))


def rate_slot(project: Project, study_name: str, cookie: str, token: str, slot: int,
              score: str, now: float | None = None) -> tuple[Lease, list[tuple]]:
    """Save one web rating, or correct one: the task named by `cookie` must carry `token`
    and be live (leased, or done, within its lease time); the score must be on the grid.
    A slot rated already takes the new score (the later edit wins) until the lease ends.
    The task's first rating adds the worker as a crowd rater, logs the lease and gives the
    task its full lease time. One write transaction. Returns the task as it stands after
    it and the rows written ((item_id, worker, old, new) for events)."""
    now = time.time() if now is None else now
    code = _parse_score(project, score)
    written: list[tuple] = []
    with project.edit() as change:  # a slot and its rating in one (app/core/edits/edit.py)
        conn = change.conn
        ensure_web_tables(conn)
        found, study = _task_to_write(conn, study_name, cookie, token)
        if found.state not in ("leased", "done") or found.expires_at <= now:
            raise refusal("time_out")
        ord_, item_id, rated_at = _slot_of(conn, study_name, found.task, slot)
        if study.option("training") and training.is_training(conn, study_name, found.task, slot):
            return _practice(conn, study, found, (slot, code), now, project.scale), written
        aid, worker = worker_aid(conn, found.worker, change.added)
        if rated_at is None:
            _refuse_rated_elsewhere(conn, ord_, aid)
            seconds = _seconds_taken(conn, study_name, found.task, now)
            wanted = RatingState(code, "", False, seconds)
        else:  # a correction: the later edit wins; the same score again changes nothing
            stored = tables.read_rating_state(conn, ord_, aid)
            if stored.code == code:
                return found, written
            wanted = RatingState(code, None, False, stored.seconds)
        old, new = change.rate(item_id, worker, wanted, ord_=ord_, aid=aid)
        if rated_at is None:
            if not found.rated:
                _first_rating(conn, study, found)
            _mark_rated(conn, study_name, found.task, slot, now, wanted.seconds)
            end_if_failed(conn, study, found.task, project.scale, release_unrated)
        written.append((item_id, worker, old, new))
        # read back as updated (always there: this transaction read it and deleted nothing)
        after = _lease_row(conn, study_name, "t.task = ?", (found.task,)) or found
    return after, written


def _practice(conn: sqlite3.Connection, study: Study, found: Lease, answer: tuple[int, int],
              now: float, scale: Scale) -> Lease:
    """A practice answer (crowdweb/training.py): kept apart from the ratings; the last one
    screens the worker out when the study's rule fails (the task's pairs back to the pool)."""
    slot, code = answer
    if training.answer(conn, study, found.task, slot, code, now):
        if not found.rated:
            _first_rating(conn, study, found)
        if training.screened(conn, study, found.task, scale):
            release_unrated(conn, study.name, found.task)
            conn.execute("UPDATE web_tasks SET state = ?, done_at = ? WHERE study = ? AND "
                         "task = ? AND state = 'leased'", (SCREENED, now, study.name,
                                                           found.task))
    return _lease_row(conn, study.name, "t.task = ?", (found.task,)) or found


def _first_rating(conn: sqlite3.Connection, study: Study, found: Lease) -> None:
    """The task's first rating: its lease runs its full length from its start, and is
    logged (a task never rated leaves no trace)."""
    conn.execute("UPDATE web_tasks SET expires_at = leased_at + ? WHERE study = ? AND "
                 "task = ?", (study.lease_minutes * 60, study.name, found.task))
    log_change(conn, "web_lease", found.worker, annotator=found.worker,
               new={"study": study.name, "task": found.task, "slots": found.size})


def _parse_score(project: Project, score: str) -> int:
    """The score's code on the project's scale, or ScoreRefused (400)."""
    return score_code(project.scale, score)


def _task_to_write(conn: sqlite3.Connection, study_name: str, cookie: str,
                   token: str) -> tuple[Lease, Study]:
    """The task `cookie` names if `token` is its own and its study is open; else WebRefusal."""
    found = _lease_row(conn, study_name, "t.cookie = ?", (cookie or "",))
    if found is None or not hmac.compare_digest(found.cookie, cookie or "") or \
            not hmac.compare_digest(found.token, token or ""):
        raise refusal("expired_page")
    return found, _open_study(conn, study_name)


def _slot_of(conn: sqlite3.Connection, study_name: str, task: str,
             slot: int) -> tuple[int, str, float | None]:
    """(item ord, item id, when rated or None) of the slot; WebRefusal if there is none."""
    row = conn.execute("SELECT s.item_ord, i.id, s.rated_at FROM web_slots s JOIN items i "
                       "ON i.ord = s.item_ord WHERE s.study = ? AND s.task = ? AND "
                       "s.slot = ?", (study_name, task, slot)).fetchone()
    if row is None:
        raise refusal("no_slot")
    return row[0], row[1], row[2]


def _refuse_rated_elsewhere(conn: sqlite3.Connection, ord_: int, aid: int) -> None:
    """WebRefusal when the worker rated this item already (in another task or study)."""
    if conn.execute("SELECT 1 FROM ratings WHERE item_ord = ? AND annotator_id = ?",
                    (ord_, aid)).fetchone():
        raise refusal("rated")


def _seconds_taken(conn: sqlite3.Connection, study_name: str, task: str, now: float) -> float:
    """Seconds since the task's last rating (or its lease, for the first one)."""
    last = conn.execute("SELECT MAX(rated_at) FROM web_slots WHERE study = ? AND task = ?",
                        (study_name, task)).fetchone()[0]
    started = conn.execute("SELECT leased_at FROM web_tasks WHERE study = ? AND task = ?",
                           (study_name, task)).fetchone()[0]
    return round(max(0.0, now - max(started, last or started)), 3)


def _mark_rated(conn: sqlite3.Connection, study_name: str, task: str, slot: int, now: float,
                seconds: float | None) -> None:
    """Mark the slot rated, and the task done when it was its last unrated slot."""
    conn.execute("UPDATE web_slots SET rated_at = ?, seconds = ? WHERE study = ? AND "
                 "task = ? AND slot = ?", (now, seconds, study_name, task, slot))
    left = conn.execute("SELECT COUNT(*) FROM web_slots WHERE study = ? AND task = ? AND "
                        "rated_at IS NULL", (study_name, task)).fetchone()[0]
    if not left:
        conn.execute("UPDATE web_tasks SET state = 'done', done_at = ? WHERE study = ? "
                     "AND task = ?", (now, study_name, task))
