"""People on a hub: add or remove a login role, list who is there and how far they are.

Adding a person creates a PostgreSQL login role (named from the person's name) in the
annotators' or organizers' group role, through a function the organizers' group may call,
so organizers need no right to create roles themselves. A password, when given, is turned
into a SCRAM verifier on this machine (libpq's PQencryptPasswordConn): the server, its
logs and our output never see the password itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.names import check_rater_name, nfc, rater_key
from simrate.core.data.store import HUMAN
from simrate.core.edits.roster import kind_clash
from simrate.core.project import Project
from simrate.hub.link.connection import connect, explain, hub_info, url_for
from simrate.hub.link.replica import read_link
from simrate.hub.schema import login_name

KINDS = ("annotator", "organizer")


@dataclass(frozen=True)
class Person:
    """One person of the hub, as the organizer's team panel shows them."""

    name: str
    login: str
    kind: str
    active: bool
    connected: bool  # holds a connection, or synced within RECENT_SECONDS
    rated: int
    last_seen: float | None


def hub_of(project: Project) -> tuple[str, str]:
    """(hub URL, project id) of a replica: what the functions below need."""
    return read_link(project).url, project.meta("project_uuid") or ""


def organizer_connection(url: str, uuid: str, password: str | None) -> Any:
    conn = connect(url, password)
    try:
        info = hub_info(conn, url)
        if info.project_uuid != uuid:
            raise SimrateError("the hub holds another project than this file")
        if info.kind != "organizer":
            raise SimrateError(f"role not allowed: {info.login} is an annotator; only "
                               "organizers manage people")
    except BaseException:
        conn.close()
        raise
    return conn


#: A login we create: lower-case letters, digits and underscores, from a letter (it goes
#: into URLs, password files and file names unquoted); PostgreSQL keeps names to 63 bytes.
LOGIN_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,62}")


def check_login(login: str) -> None:
    """SimrateError unless `login` is a login name we may create."""
    if not LOGIN_PATTERN.fullmatch(login):
        raise SimrateError(f"the login {cut(repr(login))} is not allowed: a login is 1 to 63 "
                           "lower-case letters, digits and underscores, starting with a "
                           "letter; choose one with --login LOGIN")
    if login.startswith("pg_"):
        raise SimrateError(f"the login {login!r} is not allowed: names starting with pg_ "
                           "are PostgreSQL's own; choose another with --login LOGIN")


def _free_login(conn: Any, name: str, login: str, chosen: bool) -> str:
    """The login to give `name`: the one they have when re-added (unless one was chosen);
    SimrateError when it is another person's."""
    existing = conn.execute("SELECT login FROM simrate.people WHERE annotator = %s",
                            (name,)).fetchone()
    if existing is not None and not chosen:
        login = existing[0]  # re-adding keeps the login the person already has
    holder = conn.execute("SELECT annotator FROM simrate.people WHERE login = %s",
                          (login,)).fetchone()
    if holder is not None and holder[0] != name:
        # two people never share a login: that would rename the first and reset her
        # password, locking her out
        raise SimrateError(f"the login {login!r} is already {holder[0]!r}'s on this hub; "
                           f"give {name!r} another with --login LOGIN")
    return login


def hub_name(conn: Any, name: str) -> str:
    """The name under which the hub holds the rater (or person) of `name`'s identity key
    (core/base/names.py), else `name` itself."""
    key = rater_key(name)
    row = conn.execute("SELECT name FROM simrate.annotators WHERE key = %s OR name = %s "
                       "ORDER BY name = %s DESC LIMIT 1", (key, name, name)).fetchone()
    if row is not None:
        return row[0]
    people = [r[0] for r in conn.execute("SELECT annotator FROM simrate.people").fetchall()]
    return next((p for p in people if rater_key(p) == key), name)


def _keep_password(conn: Any, typed: str, name: str) -> None:
    """SimrateError when `name` (the hub's spelling of `typed`) is a person on the hub now:
    adding her again with a password would change hers, which takes --reset-password."""
    row = conn.execute("SELECT login FROM simrate.people WHERE annotator = %s "
                       "AND removed_at IS NULL", (name,)).fetchone()
    if row is None:
        return
    spelled = "" if typed == name else f" ({cut(repr(typed))} is the same name)"
    raise SimrateError(f"{name!r} is already a person of this hub, login {row[0]}{spelled}; "
                       "adding her again would change her password: run `team add` with "
                       "--reset-password to do that (her replicas then need the new one), "
                       "or `team token` for a new sync link; nothing was changed")


def _refuse_local_kind(project: Project, name: str) -> None:
    """SimrateError when the replica holds `name` as a rater of another kind, not pushed to
    the hub yet."""
    local = project.roster.name_of(name)
    held = project.roster.kinds().get(local, HUMAN)
    if held != HUMAN:
        raise SimrateError(kind_clash(local, held, HUMAN), project.path)


def add_person(project: Project | tuple[str, str], name: str, kind: str,
               new_password: str | None, password: str | None = None,
               login: str | None = None, reset: bool = False) -> tuple[str, str]:
    """Create (or re-enable) a person's login on the hub; returns (login, join URL).

    `project`: the organizer's replica, or its (hub URL, project id) from `hub_of`. A
    `new_password` for a person the hub holds already (under any spelling of her name) is
    refused unless `reset`: her password never changes unasked.
    """
    import psycopg

    url, uuid = hub_of(project) if isinstance(project, Project) else project
    typed = name = check_rater_name(name, "person's name")
    if isinstance(project, Project):
        _refuse_local_kind(project, name)
    if kind not in KINDS:
        raise SimrateError(f"a role is annotator or organizer, not {kind!r}")
    chosen = login is not None
    login = login if login is not None else login_name(name)
    check_login(login)  # before anything reaches the hub: a refused add changes nothing
    conn = organizer_connection(url, uuid, password)
    try:
        name = hub_name(conn, name)  # `ANA` is the hub's `ana`, an NFD `Zoë` its `Zoë`
        if new_password and not reset:
            _keep_password(conn, typed, name)
        login = _free_login(conn, name, login, chosen)
        verifier = None
        if new_password:
            verifier = conn.pgconn.encrypt_password(new_password.encode("utf-8"),
                                                    login.encode("utf-8"),
                                                    b"scram-sha-256").decode("ascii")
        conn.execute("SELECT simrate.add_person(%s, %s, %s, %s, %s)",
                     (name, login, kind, verifier, rater_key(name)))
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    if isinstance(project, Project):  # the organizer's replica knows her at once
        project.roster.add(name)
    return login, url_for(url, login)


def remove_person(project: Project | tuple[str, str], name: str,
                  password: str | None = None) -> str:
    """Revoke a person's access (their ratings stay); returns their login."""
    import psycopg

    url, uuid = hub_of(project) if isinstance(project, Project) else project
    conn = organizer_connection(url, uuid, password)
    try:
        with conn.transaction():  # the login and every sync link (service.py) at once
            login = conn.execute("SELECT simrate.remove_person(%s)",
                                 (hub_name(conn, nfc(name.strip())),)).fetchone()[0]
            if conn.execute("SELECT to_regprocedure('simrate.sync_revoke(text)') IS NOT NULL"
                            ).fetchone()[0]:  # a hub with the sync service (hub/team/tokens.py, hub/link/client.py)
                conn.execute("SELECT simrate.sync_revoke(%s)", (login,))
        return login
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()


#: Seconds since a replica's last round within which its person counts as connected: an
#: annotator's window holds no connection between rounds, and has one at least every 30 s.
RECENT_SECONDS = 75

# simrate.people_list() gives an organizer everyone and an annotator only themselves
# (hub/schema/tables.py): the list of logins is no annotator's business.
PEOPLE_SQL = f"""
SELECT p.annotator, p.login, p.kind, p.removed_at IS NULL,
       EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.usename = p.login
               AND a.datname = current_database())
       OR EXISTS (SELECT 1 FROM simrate.replicas s WHERE s.login = p.login
                  AND s.last_seen > now() - interval '{RECENT_SECONDS} seconds'),
       (SELECT count(*) FROM simrate.ratings r WHERE r.annotator = p.annotator
        AND (r.code IS NOT NULL OR r.skipped)),
       (SELECT extract(epoch FROM max(last_seen)) FROM simrate.replicas s
        WHERE s.login = p.login)
FROM simrate.people_list() p ORDER BY p.kind DESC, p.annotator
"""


def people(conn: Any) -> list[Person]:
    """Everyone on the hub with connection state and progress (an organizer's view; an
    annotator's login sees only its own row)."""
    return [Person(r[0], r[1], r[2], bool(r[3]), bool(r[4]), int(r[5]),
                   None if r[6] is None else float(r[6]))
            for r in conn.execute(PEOPLE_SQL).fetchall()]


def list_people(project: Project | tuple[str, str], password: str | None = None
                ) -> list[Person]:
    """The hub's people, read over a connection of its own."""
    import psycopg

    url, uuid = hub_of(project) if isinstance(project, Project) else project
    conn = organizer_connection(url, uuid, password)
    try:
        return people(conn)
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
