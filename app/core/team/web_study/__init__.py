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

This module holds the organizer's side (create, change or close a study, its status); the
worker's side (leasing and rating tasks) is web_tasks/, the tables and the rows read from
them web_tables.py. Every name the web page uses stays importable from here.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from simrate.core.base.errors import SimrateError
from simrate.core.base.rules import STUDY_REFUSED, study_problem
from simrate.core.data.changelog import log_change
from simrate.core.data.store import CROWD
from simrate.core.project import Project
from simrate.core.team.crowdweb import options as web_options
from simrate.core.team.crowdweb.training import Practice, check_training, practice_view
from simrate.core.team.quality import check_scores
from simrate.core.team.teamdb import has_table
from simrate.core.team.web_tables import (  # noqa: F401 (WEB_SCHEMA: named in the docs)
    STUDY_COLUMNS,
    STUDY_NAME,
    WEB_SCHEMA,
    WORKER_ID,
    Lease,
    PageOutdated,
    ScoreRefused,
    Slot,
    Study,
    WebRefusal,
    ensure_web_tables,
    fill_pool,
    row_study,
)
from simrate.core.team.web_tasks import (
    check_worker_id,
    lease,
    next_slot,
    rate_slot,
    slot_view,
    task_by_cookie,
)

__all__ = [
    "DEFAULT_LEASE_MINUTES", "DEFAULT_PER_ITEM", "STUDY_NAME", "WORKER_ID", "Lease",
    "PageOutdated", "ScoreRefused", "Slot", "Study", "WebRefusal", "check_worker_id", "crowd_workers", "get_study", "lease",
    "next_slot", "practice", "rate_slot", "refuse_annotator_replica", "refuse_hub_replica",
    "set_study",
    "slot_view", "studies", "study_status", "task_by_cookie",
]

DEFAULT_PER_ITEM = 5
DEFAULT_LEASE_MINUTES = 60.0


def _study_rows(project: Project, where: str = "", params: tuple = ()) -> list[Study]:
    """Studies read from the file; a file made before the options column reads as if each
    study had none (the column is added by the next write)."""
    columns = STUDY_COLUMNS
    if not any(r[1] == "options" for r in project.team_tables.read(
            "PRAGMA table_info(web_studies)")):
        columns = columns.replace("options", "'{}'")
    return [row_study(r) for r in project.team_tables.read(
        f"SELECT {columns} FROM web_studies {where} ORDER BY name", params)]


def studies(project: Project) -> list[Study]:
    """Every study of the project, by name."""
    if not has_table(project, "web_studies"):
        return []
    return _study_rows(project)


def get_study(project: Project, name: str) -> Study | None:
    """The study of this name, or None."""
    if not STUDY_NAME.fullmatch(name or "") or not has_table(project, "web_studies"):
        return None
    rows = _study_rows(project, "WHERE name = ?", (name,))
    return rows[0] if rows else None

#: Writes a study to the hub before the file: (project, study, new_web_password).
Publish = Callable[[Project, Study, bool], object]


def set_study(project: Project, name: str, per_task: int | None = None,
              checks: int | None = None, per_item: int | None = None,
              lease_minutes: float | None = None, completion_url: str | None = None,
              close: bool = False, by: str = "", new_web_password: bool = False,
              completion_code: str | None = None, options: dict | None = None,
              publish: Publish | None = None) -> tuple[Study, str]:
    """Create, change or close a study; returns it and what was done (created/changed/closed).

    A new study needs `per_task`. Its item pool is every item that is not a check item;
    re-running adds items imported since. `completion_code` is the code the worker is shown
    (the requester's own, as set on the platform; else one made at random); `options` the
    further settings of crowdweb/options.py (None: as they were). All in one logged transaction.
    On an organizer's replica of a hub, `publish` writes the study to the hub first (the hub
    adapter's set_study passes it: hub/team/web_hub.py); without it such a file is refused.
    """
    _check_settings(name, per_task, checks, per_item, lease_minutes)
    url = None if completion_url is None else web_options.check_url(completion_url)
    code = None if completion_code is None else web_options.check_code("--completion-code",
                                                                       completion_code)
    refuse_annotator_replica(project)
    old = get_study(project, name)
    study = _settled(project, name, old, per_task, checks, per_item, lease_minutes, url, close)
    study = replace(study, code=code or study.code,
                    options=web_options.merged(study.options, options or {}))
    if project.mode.organizer and (study.option("failed_checks") or study.option("training")):
        raise SimrateError("--failed-checks and --training are served from a plain project "
                           "file (the hub keeps no known scores of check items)")
    if not close:
        known = len(check_scores(project))
        check_training(study, known, project.scale)
    if project.mode.organizer:  # an organizer's replica: the hub first, then the file
        if publish is None:
            raise SimrateError("this file is an organizer's replica of a team hub: its web "
                               "studies are set on the hub (simrate crowd study)")
        publish(project, study, new_web_password)
    return _write_study(project, study, old, close, by)


def _check_settings(name: str, per_task: int | None, checks: int | None,
                    per_item: int | None, lease_minutes: float | None) -> None:
    """SimrateError for a bad study name, count or lease time: the rules the hub's
    `web_check_study` holds (simrate.core.base.rules), in its words."""
    given = {"name": name, "per_task": per_task, "checks": checks, "per_item": per_item,
             "lease_minutes": lease_minutes}
    problem = study_problem({k: v for k, v in given.items() if v is not None})
    if problem:
        raise SimrateError(STUDY_REFUSED + problem)


def _settled(project: Project, name: str, old: Study | None, per_task: int | None,
             checks: int | None, per_item: int | None, lease_minutes: float | None,
             url: str | None, close: bool) -> Study:
    """The study as it will be: the old one's settings where none is given (a new study
    gets the defaults, a fresh code and secret); SimrateError when it cannot be."""
    if old is None and close:
        raise SimrateError(f"no web study named {name!r} in this project", project.path)
    if old is None and per_task is None:
        raise SimrateError("a new study needs --per-task K")
    n_checks = checks if checks is not None else (old.checks if old else 0)
    known = len(check_scores(project))
    if n_checks > known:
        raise SimrateError(f"{n_checks} check items per task asked for, but the project has "
                           f"{known} (mark some: simrate checks)", project.path)
    if old is None:
        assert per_task is not None  # refused above
        return Study(name, per_task, n_checks, per_item or DEFAULT_PER_ITEM,
                     lease_minutes or DEFAULT_LEASE_MINUTES, url or "",
                     secrets.token_hex(4).upper(), secrets.token_hex(32), True)
    return Study(name, per_task or old.per_task, n_checks, per_item or old.per_item,
                 lease_minutes or old.lease_minutes,
                 old.completion_url if url is None else url, old.code, old.secret,
                 not close, old.options)


def _write_study(project: Project, study: Study, old: Study | None, close: bool,
                 by: str) -> tuple[Study, str]:
    """Store the study (and fill its pool unless it closes) in one logged transaction."""
    name = study.name
    now = time.time()
    with project.team_tables.transaction() as conn:
        ensure_web_tables(conn)
        if old is None:
            conn.execute(
                f"INSERT INTO web_studies ({STUDY_COLUMNS}, created_at) "
                "VALUES (?,?,?,?,?,?,?,?,1,?,?)",
                (name, study.per_task, study.checks, study.per_item, study.lease_minutes,
                 study.completion_url, study.code, study.secret,
                 web_options.options_text(study.options), now))
            what = "created"
        else:
            conn.execute(
                "UPDATE web_studies SET per_task = ?, checks = ?, per_item = ?, "
                "lease_minutes = ?, completion_url = ?, open = ?, code = ?, options = ? "
                "WHERE name = ?",
                (study.per_task, study.checks, study.per_item, study.lease_minutes,
                 study.completion_url, 1 if study.open else 0, study.code,
                 web_options.options_text(study.options), name))
            what = "closed" if close else "changed"
        if not close:
            fill_pool(conn, name)
        study = row_study(conn.execute(f"SELECT {STUDY_COLUMNS} FROM web_studies "
                                       "WHERE name = ?", (name,)).fetchone())
        log_change(conn, "web_study", by, new={
            "study": name, "what": what, "per_task": study.per_task, "checks": study.checks,
            "per_item": study.per_item, "lease_minutes": study.lease_minutes,
            "open": study.open, "options": sorted(study.options)})
    return study, what


def refuse_annotator_replica(project: Project) -> None:
    """SimrateError for an annotator's replica of a hub: web studies are the organizer's
    (an annotator's replica holds only that person's ratings)."""
    if project.mode.annotator:
        raise SimrateError("this file is an annotator's replica of a team hub; web studies "
                           "are run from the organizer's replica", project.path)


def refuse_hub_replica(project: Project) -> None:
    """SimrateError for a hub replica: the file backend writes plain project files only (a
    replica's leases and ratings live on the hub, see app/hub/team/web_hub.py)."""
    if not project.mode.plain:
        raise SimrateError("this file is a replica of a team hub; its web studies are served "
                           "from the hub", project.path)


def practice(project: Project, study_name: str, cookie: str, slot: int) -> Practice | None:
    """The practice pair `slot` of the task this cookie names (crowdweb/training.py; None:
    a real pair, or no such task)."""
    found = task_by_cookie(project, study_name, cookie)
    study = get_study(project, study_name) if found is not None else None
    if found is None or study is None or not study.option("training"):
        return None
    return practice_view(project, study, found.task, slot)


# ----------------------------------------------------------------- workers
def crowd_workers(project: Project) -> list[str]:
    """Names of the project's crowd (web) workers, in the order they joined."""
    return [r[0] for r in project.team_tables.read(
        "SELECT name FROM annotators WHERE kind = ? ORDER BY id", (CROWD,))]


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
        workers: dict[str, dict[str, Any]] = {
            w: {"tasks_done": int(d), "ratings": int(r)} for w, d, r in read(
            "SELECT t.worker, SUM(t.state = 'done'), (SELECT COUNT(*) FROM web_slots s JOIN "
            "web_tasks u ON u.study = s.study AND u.task = s.task WHERE u.worker = t.worker AND "
            "s.study = t.study AND s.rated_at IS NOT NULL AND s.is_check < 2) FROM web_tasks t "
            "WHERE t.study = ? GROUP BY t.worker ORDER BY t.worker", (study.name,))}
        if study.option("code_per_task"):
            for worker, task in read("SELECT worker, task FROM web_tasks WHERE study = ? AND "
                                     "state = 'done' ORDER BY task", (study.name,)):
                workers[worker].setdefault("codes", []).append(study.code_for(task))
        out[study.name] = {
            "open": study.open, "per_task": study.per_task, "checks": study.checks,
            "per_item": study.per_item, "lease_minutes": study.lease_minutes,
            "completion_url": study.completion_url, "completion_code": study.code,
            "partial_code": study.option("partial_code", ""),
            "code_per_task": bool(study.option("code_per_task")),
            "prolific_study": study.option("prolific_study", ""),
            "tasks": {"done": int(states.get("done", 0)),
                      "leased": int(states.get("leased", 0)),
                      "expired": int(states.get("expired", 0)),
                      "left": -(-max(0, room - leased_slots) // study.per_task)},
            "ratings_per_item": {str(int(n)): int(c) for n, c in sorted(per_item.items())},
            "workers": workers,
        }
    return out
