"""Web studies on a team hub: the organizer's side.

On an organizer's replica, `simrate crowd study` writes the study to the hub (through
`simrate.web_set_study`, which fills its pool from the hub's items, check items marked)
and to the file. The first study also makes the hub's web login, the one role
`simrate serve` connects as: it may only call the web functions of hub/schema/web.py (lease a
task, read its items, rate its slots), never read or write a table. Its password is made
here, at random, and written where libpq reads passwords, the password file (the file
PGPASSFILE names, else ~/.pgpass), as one line for that login; simrate keeps no password in
the project. A server on another machine needs that line in its own password file (or the
password in PGPASSWORD). Making the login again (`crowd study --new-web-password`) gives it
a new password.

`mirror_hub_studies` copies the hub's studies, tasks and slots into the file's own web
tables, so `crowd status` and the organizer's window show the hub's figures, and the task
and slot of every web rating are kept in the organizer's replica.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.crowdweb.options import options_text
from simrate.core.team.quality import check_scores
from simrate.hub.link.connection import HubError, explain, url_for
from simrate.hub.schema import web_role_names
from simrate.hub.team.people import hub_of, organizer_connection

#: Meta key of the replica: the hub login `simrate serve` connects as.
WEB_LOGIN_KEY = "hub_web_login"


def _check_web_schema(conn: Any) -> None:
    found = conn.execute(
        "SELECT to_regprocedure('simrate.web_slot(text, text, integer)') IS NOT NULL"
    ).fetchone()[0]
    if not found:
        raise HubError("the hub was published by an older simrate and has no web studies: "
                       "publish it again (simrate team publish) to bring it up to date",
                       "newer")


def set_hub_study(project: Project, study, password: str | None = None,
                  new_web_password: bool = False) -> str | None:
    """Write a study's settings (and, while open, its pool) to the hub; make the web login
    when the replica has none yet. Returns the password file written, if any."""
    import psycopg

    url, uuid = hub_of(project)
    checks = list(check_scores(project))
    conn = organizer_connection(url, uuid, password)
    written = None
    try:
        _check_web_schema(conn)
        with conn.transaction():
            conn.execute("SELECT simrate.web_set_study(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                         "%s)", (study.name, study.per_task, study.checks, study.per_item,
                                 study.lease_minutes, study.completion_url, study.open, checks,
                                 study.code, study.secret, options_text(study.options)))
        if new_web_password or not project.meta(WEB_LOGIN_KEY):
            written = make_web_login(project, conn)
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    return written


def make_web_login(project: Project, conn: Any) -> str:
    """Create the web login with a new random password, written to the password file
    FIRST: a password the hub has but no file holds would take the study page down. When
    the hub then refuses the change, the file gets its earlier text back."""
    from simrate.core.team.teamdb import set_hub_keys

    roles = dict(conn.execute("SELECT key, value FROM simrate.hub WHERE key LIKE 'role_%%'"
                              ).fetchall())
    login = web_role_names({"owner": roles["role_owner"]})["weblogin"]
    password = secrets.token_urlsafe(24)
    verifier = conn.pgconn.encrypt_password(password.encode(), login.encode(),
                                            b"scram-sha-256").decode("ascii")
    info = conn.info
    path, before = remember_password(password_hosts(info.host), str(info.port), info.dbname,
                                     login, password)
    try:
        conn.execute("SELECT simrate.web_login(%s)", (verifier,))
    except BaseException:
        _write_lines(path, before)
        raise
    set_hub_keys(project, {WEB_LOGIN_KEY: login})
    return str(path)


#: Socket folders libpq builds commonly use as their default: libpq matches a connection
#: through its default folder against a password line for `localhost`.
DEFAULT_SOCKET_FOLDERS = ("/tmp", "/var/run/postgresql", "/run/postgresql")


def password_hosts(host: str) -> list[str]:
    """The host fields of password lines libpq matches for a connection to `host`: the
    socket folder itself for a Unix socket (and `localhost` when it may be libpq's
    default folder), else the host name."""
    if not host.startswith("/"):
        return [host]
    return [host] + (["localhost"] if host.rstrip("/") in DEFAULT_SOCKET_FOLDERS else [])


def password_file() -> Path:
    """The file libpq reads passwords from."""
    return Path(os.environ.get("PGPASSFILE") or Path.home() / ".pgpass")


def _escape(field: str) -> str:
    return field.replace("\\", "\\\\").replace(":", "\\:")


def remember_password(hosts: list[str], port: str, dbname: str, login: str,
                      password: str) -> tuple[Path, list[str] | None]:
    """Put a line for this login in the password file per host field (an older line for
    the same server, database and login is replaced); the file stays readable by its
    owner only. Returns the file and its earlier lines (None: there was none). SimrateError,
    with nothing changed, when the file cannot be written."""
    path = password_file()
    keys = [":".join(_escape(f) for f in (host, port, dbname, login)) + ":" for host in hosts]
    try:
        before = path.read_text(encoding="utf-8").splitlines() if path.exists() else None
        lines = [line for line in before or [] if not line.startswith(tuple(keys))]
        _write_lines(path, lines + [key + _escape(password) for key in keys])
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or "not a text file"
        raise SimrateError(f"cannot save the new web password in the password file ({reason});"
                           " the hub's password was not changed: make the file writable or set"
                           " PGPASSFILE to a file that is", path) from None
    return path, before


def _write_lines(path: Path, lines: list[str] | None) -> None:
    """Write `lines` to the password file, owner-only (None: remove the file)."""
    if lines is None:
        path.unlink(missing_ok=True)
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in lines))
    os.chmod(path, 0o600)


def web_login(project: Project) -> str:
    """The hub login `simrate serve` uses for this organizer's replica ("" before any)."""
    return project.meta(WEB_LOGIN_KEY) or ""


def web_url(project: Project) -> str:
    """The hub URL `simrate serve` connects with (the web login; no password in it)."""
    if not project.mode.organizer:
        raise SimrateError("this file is an annotator's replica of a team hub; simrate serve "
                           "runs on the organizer's replica", project.path)
    login = web_login(project)
    if not login:
        raise SimrateError("this replica has no web login on the hub yet: create a study "
                           "(simrate crowd study) or a sync link (simrate team token) first",
                           project.path)
    return url_for(project.mode.url, login)


def _local_pool_sizes(project: Project) -> dict[str, int]:
    """{study: items in the file's copy of its pool}, check items left out (as the hub's)."""
    from simrate.core.team.web_tables import pool_sizes

    return pool_sizes(project)


def mirror_hub_studies(project: Project, password: str | None = None) -> int:
    """Copy the hub's studies, pools, tasks and slots into the file's web tables (the rows
    of those studies are replaced); returns the number of studies."""
    import psycopg

    url, uuid = hub_of(project)
    conn = organizer_connection(url, uuid, password)
    try:
        _check_web_schema(conn)
        with conn.transaction():
            rows = _read_hub_studies(project, conn)
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    _write_mirror(project, *rows)
    return len(rows[0])


def _read_hub_studies(project: Project, conn: Any) -> tuple[list, list, list, list, list]:
    """(studies, stale pools' names, their pool rows, tasks, slots) as the hub holds them."""
    studies = conn.execute(
        "SELECT name, per_task, checks, per_item, lease_minutes, completion_url, code, "
        "secret, open, extract(epoch FROM created_at), options FROM simrate.web_studies"
    ).fetchall()
    # a pool is copied again only when its size changed (its counts of use are
    # not what the file's status reads: that counts the slots)
    sizes = dict(conn.execute("SELECT study, count(*) FROM simrate.web_pool "
                              "WHERE NOT is_check GROUP BY study").fetchall())
    local = _local_pool_sizes(project)
    stale = [name for name, size in sizes.items() if local.get(name) != size]
    pool = conn.execute("SELECT study, item_id, used, rank FROM simrate.web_pool "
                        "WHERE NOT is_check AND study = ANY (%s)", (stale,)
                        ).fetchall() if stale else []
    tasks = conn.execute(
        "SELECT study, task, worker, session, cookie, token, state, leased_at, "
        "expires_at, done_at, address FROM simrate.web_tasks").fetchall()
    slots = conn.execute("SELECT study, task, slot, item_id, is_check, rated_at, "
                         "seconds FROM simrate.web_slots").fetchall()
    return studies, stale, pool, tasks, slots


def _write_mirror(project: Project, studies: list, stale: list, pool: list, tasks: list,
                  slots: list) -> None:
    """Replace the file's rows of these studies with the hub's, in one transaction."""
    from simrate.core.team.web_tables import mirror_studies

    mirror_studies(project, studies, stale, pool, tasks, slots)


def set_study(project: Project, name: str, *args: Any, **kwargs: Any) -> tuple[Any, str]:
    """core/team/web_study.set_study for any project file: on an organizer's replica the study
    is written to the hub first, then to the file; on a plain file to the file alone."""
    from simrate.core.team import web_study

    def publish(project: Project, study: Any, new_web_password: bool) -> None:
        set_hub_study(project, study, new_web_password=new_web_password)

    return web_study.set_study(project, name, *args, **{**kwargs, "publish": publish})
