"""The web studies' tables in a project file (see web_study/ for what each holds) and the
rows read from them (a study's settings, a task, a slot); apart so that the hub's side
(hub/team/web_hub.py) writes them without importing web_study."""

from __future__ import annotations

import hmac
import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from simrate.core.base import rules
from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.project import Project
from simrate.core.team.teamdb import has_table

# the rules the hub holds too (simrate.core.base.rules, rendered into its SQL)
STUDY_NAME = re.compile(rules.STUDY_NAME)
WORKER_ID = re.compile(rules.WORKER_ID)
SESSION_ID = re.compile(rules.SESSION_ID)

WEB_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_studies (
    name TEXT PRIMARY KEY,
    per_task INTEGER NOT NULL,
    checks INTEGER NOT NULL,
    per_item INTEGER NOT NULL,
    lease_minutes REAL NOT NULL,
    completion_url TEXT NOT NULL DEFAULT '',
    code TEXT NOT NULL,
    secret TEXT NOT NULL,
    open INTEGER NOT NULL DEFAULT 1,
    created_at REAL NOT NULL,
    options TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS web_tasks (
    study TEXT NOT NULL,
    task TEXT NOT NULL,
    worker TEXT NOT NULL,
    session TEXT NOT NULL DEFAULT '',
    cookie TEXT NOT NULL UNIQUE,
    token TEXT NOT NULL,
    state TEXT NOT NULL,
    leased_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    done_at REAL,
    address TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (study, task)
);
CREATE INDEX IF NOT EXISTS web_tasks_worker ON web_tasks(worker, state);
CREATE INDEX IF NOT EXISTS web_tasks_live ON web_tasks(study, state, expires_at);
CREATE TABLE IF NOT EXISTS web_slots (
    study TEXT NOT NULL,
    task TEXT NOT NULL,
    slot INTEGER NOT NULL,
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    is_check INTEGER NOT NULL DEFAULT 0,
    rated_at REAL,
    seconds REAL,
    PRIMARY KEY (study, task, slot)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS web_slots_item ON web_slots(study, item_ord);
CREATE TABLE IF NOT EXISTS web_fill (
    study TEXT NOT NULL,
    item_ord INTEGER NOT NULL REFERENCES items(ord),
    used INTEGER NOT NULL DEFAULT 0,
    rank INTEGER NOT NULL,
    PRIMARY KEY (study, item_ord)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS web_fill_next ON web_fill(study, used, rank);
"""


#: Columns added since the tables were first made: (table, column, its definition).
ADDED_COLUMNS = (("web_studies", "options", "TEXT NOT NULL DEFAULT '{}'"),
                 ("web_tasks", "address", "TEXT NOT NULL DEFAULT ''"))


def ensure_web_tables(conn: sqlite3.Connection) -> None:
    """Create the web study tables if missing, and the columns added since (inside a write
    transaction)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'web_tasks'").fetchone() is None:
        for statement in WEB_SCHEMA.split(";"):
            if statement.strip():
                conn.execute(statement)
        return
    for table, column, definition in ADDED_COLUMNS:
        names = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        if column not in names:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")


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
    options: dict = field(default_factory=dict, compare=False)

    def option(self, key: str, default=None):
        """One of the study's further settings (OPTION_KEYS), or `default`."""
        return self.options.get(key, default)

    def code_for(self, task: str, partial: bool = False) -> str:
        """The completion code a worker sees for this task: the partial code for an
        unfinished one when the study has one; with code_per_task, the task's own code."""
        if partial and self.option("partial_code"):
            return self.option("partial_code")
        if self.option("code_per_task"):
            return task_code(self.secret, task)
        return self.code

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
    session: str = ""

    @property
    def done(self) -> bool:
        return self.state == "done"


class WebRefusal(SimrateError):
    """A request the web page refuses (a short message for the worker, an HTTP status).

    The kinds the page treats apart are subclasses, each with its status: the page tells
    them by type (app/web/security.py `status_of`), never by the words of the message."""

    status = 400

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        if status is not None:
            self.status = status


class ScoreRefused(WebRefusal):
    """The score sent is no value of the scale: the item's page is shown again, the
    mistake named on it."""

    status = 400


class PageOutdated(WebRefusal):
    """The page the request came from is behind the project: its item is not the one to
    rate now (rated already, not the person's), or its link was revoked since."""

    status = 409


def score_code(scale: Scale, score: str) -> int:
    """The score's code on `scale`, or ScoreRefused naming the scale."""
    try:
        return scale.parse(str(score)[:40])
    except SimrateError:
        raise refusal("score", f" {scale.describe()}") from None


def refusal(name: str, more: str = "") -> WebRefusal:
    """The web refusal `name` of rules.REFUSALS (the hub refuses with the same words and
    status), `more` added after its message."""
    status, message = rules.REFUSALS[name]
    return _TYPED.get(name, WebRefusal)(message + more, status)


#: The refusals the page treats apart, by their type (the rest are plain WebRefusals).
_TYPED: dict[str, type[WebRefusal]] = {"score": ScoreRefused, "rated": PageOutdated}


def task_code(secret: str, task: str) -> str:
    """The verification code of one task (--code-per-task): 10 characters, made from the
    study's secret, so `crowd status` can list them and no worker can guess another's."""
    return hmac.new(secret.encode(), f"code|{task}".encode(), "sha256").hexdigest()[:10].upper()


def read_options(text: str | None) -> dict:
    """The options column as a dict (an unreadable one as none: the defaults)."""
    try:
        found = json.loads(text or "{}")
    except ValueError:
        return {}
    return {k: v for k, v in found.items() if k in OPTION_KEYS} if isinstance(found, dict) \
        else {}


def row_study(row: tuple) -> Study:
    """A Study from a row of STUDY_COLUMNS; a "damaged project" SimrateError when a value is
    not what simrate writes (a text where a count belongs, no items per task, ...)."""
    name, k, c, r, minutes, url, code, secret, is_open, options = row
    problem = study_row_problem(row)
    if problem:
        raise SimrateError(f"damaged project: {problem}")
    return Study(name, k, c, r, float(minutes), url, code, secret, bool(is_open),
                 read_options(options))


def _count(value: object, least: int) -> bool:
    return type(value) is int and least <= value < 2**31


def study_row_problem(row: tuple) -> str | None:
    """What is wrong with a web_studies row of STUDY_COLUMNS (None: nothing)."""
    name, k, c, r, minutes, url, code, secret, is_open = row[:9]
    label = f"web study {name!r:.40}"
    if not (isinstance(name, str) and STUDY_NAME.fullmatch(name)):
        return f"{label}: its name is not one simrate makes"
    for column, value, least in (("per_task", k, 1), ("checks", c, 0), ("per_item", r, 1)):
        if not _count(value, least):
            return f"{label}: {column} is {value!r:.40}, not a whole number of {least} or more"
    if not (type(minutes) in (int, float) and 0 < minutes < 1e7):
        return f"{label}: lease_minutes is {minutes!r:.40}, not a positive number of minutes"
    if not all(isinstance(v, str) for v in (url, code, secret)) or is_open not in (0, 1):
        return f"{label}: its completion URL, code, secret or open flag is not readable"
    return None


STUDY_COLUMNS = ("name, per_task, checks, per_item, lease_minutes, completion_url, code, "
                 "secret, open, options")

#: The study's further settings, kept as JSON in `options` (hub: the same text column).
OPTION_KEYS = ("partial_code", "code_per_task", "prolific_study", "instructions", "consent",
               "frame_from", "redirect_seconds", "allow_workers", "block_workers",
               "failed_checks", "training", "pass_rule", "screen_out_code")


# ----------------------------------------------------------------- the pool (web_fill)
# The one place whose SQL writes `web_fill` (tests/test_table_owners.py).
def fill_pool(conn: sqlite3.Connection, name: str) -> int:
    """Put every item not yet in the study's pool into it, in a random order."""
    start = conn.execute("SELECT COALESCE(MAX(rank), 0) FROM web_fill WHERE study = ?",
                         (name,)).fetchone()[0]
    # a random rank per item (ties broken by ord): tasks are spread over the whole pool
    return conn.execute(
        "INSERT OR IGNORE INTO web_fill (study, item_ord, used, rank) "
        "SELECT ?, ord, 0, ? + (abs(random()) % 1000000000) FROM items", (name, start)).rowcount


def use_items(conn: sqlite3.Connection, study: str, ords: Iterable[int]) -> None:
    """These items of the pool got one more slot (a lease)."""
    conn.executemany("UPDATE web_fill SET used = used + 1 WHERE study = ? AND item_ord = ?",
                     [(study, o) for o in ords])


def release_unrated(conn: sqlite3.Connection, study: str, task: str) -> None:
    """The task's unrated slots stop counting in the pool."""
    conn.execute(
        "UPDATE web_fill SET used = used - 1 WHERE study = ? AND item_ord IN ("
        "SELECT item_ord FROM web_slots WHERE study = ? AND task = ? AND is_check = 0 "
        "AND rated_at IS NULL)", (study, study, task))


def mirror_fill(conn: sqlite3.Connection, studies: Iterable[str],
                rows: Iterable[tuple]) -> None:
    """The pools of these studies replaced by the hub's (study, item ord, used, rank)."""
    conn.executemany("DELETE FROM web_fill WHERE study = ?", [(n,) for n in studies])
    conn.executemany("INSERT INTO web_fill VALUES (?,?,?,?)", rows)


def mirror_studies(project: Project, studies: list, stale: list, pool: list, tasks: list,
                   slots: list) -> None:
    """An organizer's replica: the file's rows of these studies replaced by the hub's (its
    studies, the pools of `stale` ones, every task and slot; items by id), in one
    transaction (hub/team/web_hub.py reads them from the hub)."""
    ords = dict(project.team_tables.read("SELECT id, ord FROM items"))
    names = [(s[0],) for s in studies]
    with project.team_tables.transaction() as local:
        ensure_web_tables(local)
        for table in ("web_slots", "web_tasks"):
            local.executemany(f"DELETE FROM {table} WHERE study = ?", names)
        mirror_fill(local, stale, [(s, ords[i], u, r) for s, i, u, r in pool if i in ords])
        local.executemany(
            "INSERT INTO web_studies (name, per_task, checks, per_item, lease_minutes, "
            "completion_url, code, secret, open, created_at, options) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (name) DO "
            "UPDATE SET per_task = excluded.per_task, checks = excluded.checks, "
            "per_item = excluded.per_item, lease_minutes = excluded.lease_minutes, "
            "completion_url = excluded.completion_url, open = excluded.open, "
            "code = excluded.code, options = excluded.options",
            [(*s[:8], int(s[8]), float(s[9]), s[10]) for s in studies])
        local.executemany("INSERT INTO web_tasks (study, task, worker, session, cookie, "
                          "token, state, leased_at, expires_at, done_at, address) "
                          "VALUES (?,?,?,?,?,?,?,?,?,?,?)", tasks)
        local.executemany("INSERT INTO web_slots VALUES (?,?,?,?,?,?,?)",
                          [(s, t, n, ords[i], int(c), at, sec)
                           for s, t, n, i, c, at, sec in slots if i in ords])


def pool_sizes(project: Project) -> dict[str, int]:
    """{study: items in the file's pool}, check items left out."""
    if not has_table(project, "web_fill"):
        return {}
    checks = "WHERE item_ord NOT IN (SELECT item_ord FROM check_items)" \
        if has_table(project, "check_items") else ""
    return dict(project.team_tables.read(
        f"SELECT study, COUNT(*) FROM web_fill {checks} GROUP BY study"))
