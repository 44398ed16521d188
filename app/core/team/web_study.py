"""Web studies: crowd tasks leased to workers in a browser, rated into the project file.

A study hands out tasks of K items plus C check items (at random positions), builds each
task when a worker asks for one, and keeps everything in the project file (tables made on
first use, like the other team tables):

- `web_studies`: the settings of each study (K, C, R, lease minutes, completion URL, open);
- `web_tasks`: one row per task leased: its worker, its two secrets (the cookie that names
  it and the token every write must carry), when it was leased, expires and was finished;
- `web_slots`: which item sits in which slot of which task (the same shape as
  `crowd_tasks` of crowd.py: study, task, slot, item, is_check), when it was rated and the
  seconds it took;
- `web_fill`: per study and item, the web slots that hold it (rated or leased and live),
  so no item gets more than R web ratings; check items are exempt.

Every lease and every rating is one write transaction (BEGIN IMMEDIATE), so on SQLite no
slot is given twice and no item is overfilled, whatever number of server processes share
the file. A lease not finished within M minutes goes back to the pool: its unrated slots
stop counting (the ratings it got stay).

Workers are annotators of kind `crowd`, named by their platform id, kept apart from the
people of the project and machine raters: a worker id that names another kind of annotator
is refused, so a web page can never write into an in-house annotator's ratings. Ratings go
into the ratings table with their seconds, so `annotators --exclude-careless` and the check
item rule see web workers exactly as imported crowd workers.
"""

from __future__ import annotations

import hmac
import math
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass

from app.core.data import tables
from app.core.data.changelog import log_change
from app.core.errors import SimrateError
from app.core.events import RatingState
from app.core.frames import name_problem
from app.core.project import Project
from app.core.store import CROWD
from app.core.team.teamdb import has_table
from app.core.team.web_tables import WEB_SCHEMA, ensure_web_tables  # noqa: F401

DEFAULT_PER_ITEM = 5
DEFAULT_LEASE_MINUTES = 60.0
STUDY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
WORKER_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@:-]{0,99}")

@dataclass(frozen=True)
class Study:
    """One web study's settings."""

    name: str
    per_task: int
    checks: int
    per_item: int
    lease_minutes: float
    completion_url: str
    code: str
    secret: str
    open: bool

    def start_token(self, worker: str) -> str:
        """The token the landing page's form carries for this worker (kept in no table)."""
        return hmac.new(self.secret.encode(), f"start|{worker}".encode(), "sha256").hexdigest()


@dataclass(frozen=True)
class Slot:
    """One slot of a task as the page shows it."""

    slot: int
    item_ord: int
    left: str
    right: str


@dataclass(frozen=True)
class Lease:
    """A worker's task: its name, secrets, slots and how many are rated."""

    study: str
    task: str
    worker: str
    cookie: str
    token: str
    state: str
    size: int
    rated: int
    expires_at: float

    @property
    def done(self) -> bool:
        return self.state == "done"


class WebRefusal(SimrateError):
    """A request the web page refuses (a short message for the worker, an HTTP status)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def _row_study(row: tuple) -> Study:
    name, k, c, r, minutes, url, code, secret, is_open = row
    return Study(name, int(k), int(c), int(r), float(minutes), url, code, secret, bool(is_open))


_STUDY_COLUMNS = ("name, per_task, checks, per_item, lease_minutes, completion_url, code, "
                  "secret, open")


def studies(project: Project) -> list[Study]:
    """Every study of the project, by name."""
    if not has_table(project, "web_studies"):
        return []
    return [_row_study(r) for r in project.team_tables.read(
        f"SELECT {_STUDY_COLUMNS} FROM web_studies ORDER BY name")]


def get_study(project: Project, name: str) -> Study | None:
    """The study of this name, or None."""
    if not STUDY_NAME.fullmatch(name or "") or not has_table(project, "web_studies"):
        return None
    rows = project.team_tables.read(f"SELECT {_STUDY_COLUMNS} FROM web_studies WHERE name = ?",
                                    (name,))
    return _row_study(rows[0]) if rows else None


def _check_url(url: str) -> str:
    url = url.strip()
    if url and not re.fullmatch(r"https?://[^\s<>\"'`]{1,2000}", url):
        raise SimrateError(f"--completion-url must be an http:// or https:// address, "
                           f"not {url[:60]!r}")
    return url


def set_study(project: Project, name: str, per_task: int | None = None,
              checks: int | None = None, per_item: int | None = None,
              lease_minutes: float | None = None, completion_url: str | None = None,
              close: bool = False, by: str = "", new_web_password: bool = False
              ) -> tuple[Study, str]:
    """Create, change or close a study; returns it and what was done (created/changed/closed).

    A new study needs `per_task`. Its item pool is every item that is not a check item;
    re-running adds items imported since. All in one logged transaction.
    """
    if not STUDY_NAME.fullmatch(name):
        raise SimrateError(f"study name {name[:40]!r} may hold only letters, digits, '.', "
                           "'_' and '-' (at most 64, starting with a letter or digit)")
    for flag, value, least in (("--per-task", per_task, 1), ("--checks", checks, 0),
                               ("--per-item", per_item, 1)):
        if value is not None and value < least:
            raise SimrateError(f"{flag} must be {least} or more, not {value}")
    if lease_minutes is not None and not (0 < lease_minutes < 1e6 and math.isfinite(lease_minutes)):
        raise SimrateError(f"--lease-minutes must be a positive number, not {lease_minutes:g}")
    url = None if completion_url is None else _check_url(completion_url)
    refuse_annotator_replica(project)
    old = get_study(project, name)
    if old is None and close:
        raise SimrateError(f"no web study named {name!r} in this project", project.path)
    if old is None and per_task is None:
        raise SimrateError("a new study needs --per-task K")
    n_checks = checks if checks is not None else (old.checks if old else 0)
    known = len(project.team_tables.read("SELECT 1 FROM check_items")) \
        if has_table(project, "check_items") else 0
    if n_checks > known:
        raise SimrateError(f"{n_checks} check items per task asked for, but the project has "
                           f"{known} (mark some: simrate checks)", project.path)
    if old is None:
        study = Study(name, per_task, n_checks, per_item or DEFAULT_PER_ITEM,
                      lease_minutes or DEFAULT_LEASE_MINUTES, url or "",
                      secrets.token_hex(4).upper(), secrets.token_hex(32), True)
    else:
        study = Study(name, per_task or old.per_task, n_checks, per_item or old.per_item,
                      lease_minutes or old.lease_minutes,
                      old.completion_url if url is None else url, old.code, old.secret,
                      not close)
    if project.meta("hub_url"):  # an organizer's replica: the hub first, then the file
        from app.core.team.hub.web_hub import set_hub_study

        set_hub_study(project, study, new_web_password=new_web_password)
    now = time.time()
    with project.team_tables.transaction() as conn:
        ensure_web_tables(conn)
        if old is None:
            conn.execute(
                "INSERT INTO web_studies VALUES (?,?,?,?,?,?,?,?,1,?)",
                (name, study.per_task, study.checks, study.per_item, study.lease_minutes,
                 study.completion_url, study.code, study.secret, now))
            what = "created"
        else:
            conn.execute(
                "UPDATE web_studies SET per_task = ?, checks = ?, per_item = ?, "
                "lease_minutes = ?, completion_url = ?, open = ? WHERE name = ?",
                (study.per_task, study.checks, study.per_item, study.lease_minutes,
                 study.completion_url, 1 if study.open else 0, name))
            what = "closed" if close else "changed"
        if not close:
            _fill_pool(conn, name)
        study = _row_study(conn.execute(f"SELECT {_STUDY_COLUMNS} FROM web_studies "
                                        "WHERE name = ?", (name,)).fetchone())
        log_change(conn, "web_study", by, new={
            "study": name, "what": what, "per_task": study.per_task, "checks": study.checks,
            "per_item": study.per_item, "lease_minutes": study.lease_minutes,
            "open": study.open})
    return study, what


def refuse_annotator_replica(project: Project) -> None:
    """SimrateError for an annotator's replica of a hub: web studies are the organizer's
    (an annotator's replica holds only that person's ratings)."""
    if project.meta("hub_url") and project.meta("hub_kind") != "organizer":
        raise SimrateError("this file is an annotator's replica of a team hub; web studies "
                           "are run from the organizer's replica", project.path)


def refuse_hub_replica(project: Project) -> None:
    """SimrateError for a hub replica: the file backend writes plain project files only (a
    replica's leases and ratings live on the hub, see app/core/team/hub/web_hub.py)."""
    if project.meta("hub_url"):
        raise SimrateError("this file is a replica of a team hub; its web studies are served "
                           "from the hub", project.path)


def _fill_pool(conn: sqlite3.Connection, name: str) -> int:
    """Put every item not yet in the study's pool into it, in a random order."""
    start = conn.execute("SELECT COALESCE(MAX(rank), 0) FROM web_fill WHERE study = ?",
                         (name,)).fetchone()[0]
    # a random rank per item (ties broken by ord): tasks are spread over the whole pool
    return conn.execute(
        "INSERT OR IGNORE INTO web_fill (study, item_ord, used, rank) "
        "SELECT ?, ord, 0, ? + (abs(random()) % 1000000000) FROM items", (name, start)).rowcount


# ----------------------------------------------------------------- workers
def check_worker_id(worker: str) -> str:
    """The worker id as given, or WebRefusal when it cannot name a crowd worker."""
    if not WORKER_ID.fullmatch(worker or "") or name_problem(worker):
        raise WebRefusal("the link lacks a valid worker id (PROLIFIC_PID or worker)", 400)
    return worker


def _worker_aid(conn: sqlite3.Connection, worker: str, added: dict[str, int]) -> int:
    """The annotator id of this crowd worker, adding them with kind crowd; WebRefusal when
    the id is the name of a person or machine rater of the project."""
    row = conn.execute("SELECT id, kind FROM annotators WHERE name = ?", (worker,)).fetchone()
    if row is not None:
        if row[1] != CROWD:
            raise WebRefusal("this worker id cannot be used for this study", 403)
        return int(row[0])
    aid = conn.execute("INSERT INTO annotators (name, kind) VALUES (?, ?)",
                       (worker, CROWD)).lastrowid
    log_change(conn, "annotator", annotator=worker, new={"name": worker, "kind": CROWD})
    added[worker] = aid
    return aid


def crowd_workers(project: Project) -> list[str]:
    """Names of the project's crowd (web) workers, in the order they joined."""
    return [r[0] for r in project.team_tables.read(
        "SELECT name FROM annotators WHERE kind = ? ORDER BY id", (CROWD,))]


# ----------------------------------------------------------------- leasing
def _expire(conn: sqlite3.Connection, study: str, now: float) -> None:
    """Leases past their time go back to the pool: their unrated slots stop counting."""
    late = conn.execute("SELECT task FROM web_tasks WHERE study = ? AND state = 'leased' "
                        "AND expires_at <= ?", (study, now)).fetchall()
    for (task,) in late:
        conn.execute(
            "UPDATE web_fill SET used = used - 1 WHERE study = ? AND item_ord IN ("
            "SELECT item_ord FROM web_slots WHERE study = ? AND task = ? AND is_check = 0 "
            "AND rated_at IS NULL)", (study, study, task))
        conn.execute("UPDATE web_tasks SET state = 'expired' WHERE study = ? AND task = ?",
                     (study, task))


def _lease_row(conn: sqlite3.Connection, study: str, where: str, params: tuple) -> Lease | None:
    row = conn.execute(
        "SELECT t.study, t.task, t.worker, t.cookie, t.token, t.state, t.expires_at, "
        "(SELECT COUNT(*) FROM web_slots s WHERE s.study = t.study AND s.task = t.task), "
        "(SELECT COUNT(*) FROM web_slots s WHERE s.study = t.study AND s.task = t.task "
        "AND s.rated_at IS NOT NULL) FROM web_tasks t WHERE t.study = ? AND " + where,
        (study, *params)).fetchone()
    if row is None:
        return None
    s, task, worker, cookie, token, state, expires, size, rated = row
    return Lease(s, task, worker, cookie, token, state, int(size), int(rated), float(expires))


def lease(project: Project, study_name: str, worker: str, session: str = "",
          cookie: str | None = None, now: float | None = None) -> Lease:
    """The worker's live task in this study, or a new one: one write transaction.

    A live task is resumed only by the browser that holds its cookie, or by a request
    with the platform session id it was leased under; else WebRefusal (409). A study
    without items left for this worker refuses with 410.
    """
    check_worker_id(worker)
    session = session if re.fullmatch(r"[A-Za-z0-9_.:-]{0,100}", session or "") else ""
    now = time.time() if now is None else now
    added: dict[str, int] = {}
    with project.team_tables.transaction() as conn:
        ensure_web_tables(conn)
        study = _open_study(conn, study_name)
        _expire(conn, study.name, now)
        live = _lease_row(conn, study.name, "t.worker = ? AND t.state = 'leased'", (worker,))
        if live is not None:
            if (cookie and hmac.compare_digest(cookie, live.cookie)) or \
                    (session and _session_of(conn, live) == session):
                return live
            raise WebRefusal("this worker already has a task open in another browser; "
                             "go back to it, or wait until it times out", 409)
        aid = _worker_aid(conn, worker, added)
        lease_ = _new_task(conn, study, worker, aid, session, now, fresh=bool(added))
    if added:
        project.roster.remember(added)
    return lease_


def _session_of(conn: sqlite3.Connection, lease_: Lease) -> str:
    return conn.execute("SELECT session FROM web_tasks WHERE study = ? AND task = ?",
                        (lease_.study, lease_.task)).fetchone()[0]


def _open_study(conn: sqlite3.Connection, name: str) -> Study:
    row = conn.execute(f"SELECT {_STUDY_COLUMNS} FROM web_studies WHERE name = ?",
                       (name,)).fetchone() if STUDY_NAME.fullmatch(name or "") else None
    if row is None:
        raise WebRefusal("no such study", 404)
    study = _row_study(row)
    if not study.open:
        raise WebRefusal("this study is closed", 410)
    return study


def _new_task(conn: sqlite3.Connection, study: Study, worker: str, aid: int, session: str,
              now: float, fresh: bool = False) -> Lease:
    """Build and record a task of K items and C checks for this worker."""
    # items this worker rated already, or holds in a live task of any study (a worker added
    # just now has rated nothing: the ratings table, without an index by rater, is skipped)
    seen = ("" if fresh else "SELECT item_ord FROM ratings WHERE annotator_id = :aid UNION ") + (
            "SELECT s.item_ord FROM web_slots s JOIN web_tasks t ON t.study = s.study AND "
            "t.task = s.task WHERE t.worker = :worker AND t.state = 'leased'")
    has_checks = conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'check_items'").fetchone()
    not_check = "AND f.item_ord NOT IN (SELECT item_ord FROM check_items)" if has_checks else ""
    items = [r[0] for r in conn.execute(
        f"SELECT f.item_ord FROM web_fill f WHERE f.study = :study AND f.used < :cap "
        f"{not_check} AND f.item_ord NOT IN ({seen}) ORDER BY f.used, f.rank LIMIT :k",
        {"study": study.name, "cap": study.per_item, "aid": aid, "worker": worker,
         "k": study.per_task})]
    if not items:
        raise WebRefusal("there is no task left in this study for you; thank you", 410)
    checks: list[int] = []
    if study.checks and has_checks:
        pool = [r[0] for r in conn.execute(
            f"SELECT item_ord FROM check_items WHERE item_ord NOT IN ({seen})",
            {"aid": aid, "worker": worker})]
        rng = secrets.SystemRandom()
        checks = rng.sample(pool, min(study.checks, len(pool)))
    slots = [(o, 0) for o in items]
    rng = secrets.SystemRandom()
    for ord_ in checks:
        slots.insert(rng.randint(0, len(slots)), (ord_, 1))
    number = conn.execute("SELECT COUNT(*) FROM web_tasks WHERE study = ?",
                          (study.name,)).fetchone()[0] + 1
    task = f"w{number:06d}"
    cookie, token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    expires = now + study.lease_minutes * 60
    conn.execute("INSERT INTO web_tasks VALUES (?,?,?,?,?,?, 'leased', ?, ?, NULL)",
                 (study.name, task, worker, session, cookie, token, now, expires))
    conn.executemany("INSERT INTO web_slots VALUES (?,?,?,?,?, NULL, NULL)",
                     [(study.name, task, n, o, c) for n, (o, c) in enumerate(slots, 1)])
    conn.executemany("UPDATE web_fill SET used = used + 1 WHERE study = ? AND item_ord = ?",
                     [(study.name, o) for o in items])
    log_change(conn, "web_lease", worker, annotator=worker,
               new={"study": study.name, "task": task, "slots": len(slots)})
    return Lease(study.name, task, worker, cookie, token, "leased", len(slots), 0, expires)


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


def next_slot(project: Project, lease_: Lease) -> Slot | None:
    """The task's first unrated slot with its texts (None when every slot is rated)."""
    rows = project.team_tables.read(
        "SELECT s.slot, s.item_ord, i.left, i.right FROM web_slots s JOIN items i "
        "ON i.ord = s.item_ord WHERE s.study = ? AND s.task = ? AND s.rated_at IS NULL "
        "ORDER BY s.slot LIMIT 1", (lease_.study, lease_.task))
    return Slot(*rows[0]) if rows else None


def rate_slot(project: Project, study_name: str, cookie: str, token: str, slot: int,
              score: str, now: float | None = None) -> tuple[Lease, list[tuple]]:
    """Save one web rating: the task named by `cookie` must carry `token`, be live and hold
    `slot` unrated; the score must be on the grid. One write transaction. Returns the task
    as it stands after it and the rows written ((item_id, worker, old, new) for events)."""
    now = time.time() if now is None else now
    try:
        code = project.scale.parse(str(score)[:40])
    except SimrateError:
        raise WebRefusal(f"the score must be a value of the scale "
                         f"{project.scale.describe()}", 400) from None
    written: list[tuple] = []
    with project.team_tables.transaction() as conn:
        ensure_web_tables(conn)
        found = _lease_row(conn, study_name, "t.cookie = ?", (cookie or "",))
        if found is None or not hmac.compare_digest(found.cookie, cookie or "") or \
                not hmac.compare_digest(found.token, token or ""):
            raise WebRefusal("this page has expired; open your study link again", 403)
        _open_study(conn, study_name)
        if found.state == "done":
            return found, written
        if found.state != "leased" or found.expires_at <= now:
            raise WebRefusal("the time for this task ran out; open your study link again "
                             "for a new one", 409)
        row = conn.execute("SELECT s.item_ord, s.rated_at, i.id FROM web_slots s JOIN items i "
                           "ON i.ord = s.item_ord WHERE s.study = ? AND s.task = ? AND "
                           "s.slot = ?", (study_name, found.task, slot)).fetchone()
        if row is None:
            raise WebRefusal("no such item in this task", 400)
        ord_, rated_at, item_id = row
        if rated_at is not None:  # a second Enter or a resent form: nothing doubled
            return found, written
        aid_row = conn.execute("SELECT id, kind FROM annotators WHERE name = ?",
                               (found.worker,)).fetchone()
        if aid_row is None or aid_row[1] != CROWD:
            raise WebRefusal("this worker id cannot be used for this study", 403)
        aid = int(aid_row[0])
        if conn.execute("SELECT 1 FROM ratings WHERE item_ord = ? AND annotator_id = ?",
                        (ord_, aid)).fetchone():
            raise WebRefusal("this item was rated already", 409)
        last = conn.execute("SELECT MAX(rated_at) FROM web_slots WHERE study = ? AND task = ?",
                            (study_name, found.task)).fetchone()[0]
        started = conn.execute("SELECT leased_at FROM web_tasks WHERE study = ? AND task = ?",
                               (study_name, found.task)).fetchone()[0]
        seconds = round(max(0.0, now - max(started, last or started)), 3)
        old, new = tables.write_rating(conn, project.scale, ord_, aid, item_id, found.worker,
                                       RatingState(code, "", False, seconds))
        conn.execute("UPDATE web_slots SET rated_at = ?, seconds = ? WHERE study = ? AND "
                     "task = ? AND slot = ?", (now, seconds, study_name, found.task, slot))
        left = conn.execute("SELECT COUNT(*) FROM web_slots WHERE study = ? AND task = ? AND "
                            "rated_at IS NULL", (study_name, found.task)).fetchone()[0]
        if not left:
            conn.execute("UPDATE web_tasks SET state = 'done', done_at = ? WHERE study = ? "
                         "AND task = ?", (now, study_name, found.task))
        written.append((item_id, found.worker, old, new))
        after = _lease_row(conn, study_name, "t.task = ?", (found.task,))
    project.team_ratings_written(written)
    return after, written


# ----------------------------------------------------------------- status
def _ratings_per_item(project: Project, study: str) -> dict[int, int]:
    """{web ratings: items with that many} over the study's pool (check items left out);
    read from the rated slots, so its time grows with the ratings, not with the pool."""
    read = project.team_tables.read
    checks = "AND item_ord NOT IN (SELECT item_ord FROM check_items)" \
        if has_table(project, "check_items") else ""
    counts = [n for (n,) in read(
        f"SELECT COUNT(*) FROM web_slots WHERE study = ? AND rated_at IS NOT NULL {checks} "
        "GROUP BY item_ord", (study,))]
    pool = read(f"SELECT COUNT(*) FROM web_fill WHERE study = ? {checks}", (study,))[0][0]
    out: dict[int, int] = {}
    for n in counts:
        out[int(n)] = out.get(int(n), 0) + 1
    if pool - len(counts) > 0:
        out[0] = pool - len(counts)
    return dict(sorted(out.items()))


def study_status(project: Project, now: float | None = None) -> dict:
    """Every study: settings, tasks done/leased/expired/left, ratings per item, workers."""
    now = time.time() if now is None else now
    out: dict[str, dict] = {}
    for study in studies(project):
        read = project.team_tables.read
        states = dict(read("SELECT CASE WHEN state = 'leased' AND expires_at <= ? THEN "
                           "'expired' ELSE state END, COUNT(*) FROM web_tasks WHERE study = ? "
                           "GROUP BY 1", (now, study.name)))
        per_item = _ratings_per_item(project, study.name)
        room = sum(max(0, study.per_item - int(n)) * int(count) for n, count in per_item.items())
        leased_slots = read("SELECT COUNT(*) FROM web_slots s JOIN web_tasks t ON "
                            "t.study = s.study AND t.task = s.task WHERE s.study = ? AND "
                            "s.is_check = 0 AND s.rated_at IS NULL AND t.state = 'leased' "
                            "AND t.expires_at > ?", (study.name, now))[0][0]
        workers = {w: {"tasks_done": int(d), "ratings": int(r)} for w, d, r in read(
            "SELECT t.worker, SUM(t.state = 'done'), (SELECT COUNT(*) FROM web_slots s JOIN "
            "web_tasks u ON u.study = s.study AND u.task = s.task WHERE u.worker = t.worker "
            "AND s.study = t.study AND s.rated_at IS NOT NULL) FROM web_tasks t "
            "WHERE t.study = ? GROUP BY t.worker ORDER BY t.worker", (study.name,))}
        out[study.name] = {
            "open": study.open, "per_task": study.per_task, "checks": study.checks,
            "per_item": study.per_item, "lease_minutes": study.lease_minutes,
            "completion_url": study.completion_url, "completion_code": study.code,
            "tasks": {"done": int(states.get("done", 0)),
                      "leased": int(states.get("leased", 0)),
                      "expired": int(states.get("expired", 0)),
                      "left": -(-max(0, room - leased_slots) // study.per_task)},
            "ratings_per_item": {str(int(n)): int(c) for n, c in sorted(per_item.items())},
            "workers": workers,
        }
    return out
