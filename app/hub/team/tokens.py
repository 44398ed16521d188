"""The organizer's side of the sync service (issue 33): sync links for annotators.

`simrate team token PROJECT NAME` gives annotator NAME (a person of the hub, `team add`)
a random token; the hub keeps only its SHA-256 (`simrate.sync_tokens`,
hub/schema/service.py). The link, `BASE/team/TOKEN`, is what the person gives `simrate
team join`: their replica then syncs through `simrate serve` on the organizer's replica,
which connects as the hub's web login (made here when the replica has none, with its
password in the password file, as `crowd study` does, web_hub.py) and holds at most a few
connections, under the login's CONNECTION LIMIT. `team remove` revokes every token of
the person (and the hub refuses a removed person's tokens anyway).

The organizer may keep the service's address in her replica (meta key `hub_service`, set
by `--service URL` of `team add`, `team invite` or `team token`): from then on `team add`
of an annotator and `team invite` give the person a sync link through it.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import nfc
from simrate.core.project import Project
from simrate.hub.link.connection import HubError, explain
from simrate.hub.schema.service import SERVICE_CONNECTION_LIMIT
from simrate.hub.team.people import hub_of, organizer_connection

#: Meta key of an organizer's replica: the sync service's address as annotators reach it.
SERVICE_KEY = "hub_service"


def token_hash(token: str) -> str:
    """What the hub keeps of a token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _check_service_schema(conn: Any) -> None:
    found = conn.execute(
        "SELECT to_regprocedure('simrate.sync_issue_token(text, text)') IS NOT NULL"
    ).fetchone()[0]
    if not found:
        raise HubError("the hub was published by an older simrate and has no sync service: "
                       "publish it again (simrate team publish) to bring it up to date",
                       "newer")


def issue_token(project: Project, name: str, password: str | None = None) -> tuple[str, str]:
    """A new sync token for annotator `name` of the hub; returns (token, their login)."""
    return issue_tokens(project, [name], password)[name]


def issue_tokens(project: Project, names: list[str], password: str | None = None
                 ) -> dict[str, tuple[str, str]]:
    """A new sync token for each annotator of `names` ({name: (token, login)}), in one
    transaction. Makes the hub's web login first when this replica has none (its password
    goes to the password file), and sets its connection limit."""
    import psycopg

    from simrate.hub.team.web_hub import WEB_LOGIN_KEY, make_web_login

    if not project.mode.organizer:
        raise SimrateError("only an organizer's replica of a hub gives sync links",
                           project.path)
    url, uuid = hub_of(project)
    conn = organizer_connection(url, uuid, password)
    try:
        issued = _issue(conn, names, str(project.path))
        if not project.meta(WEB_LOGIN_KEY):
            make_web_login(project, conn)
        conn.execute("SELECT simrate.sync_service_limit(%s)", (SERVICE_CONNECTION_LIMIT,))
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    return issued


def _issue(conn: Any, names: list[str], where: str = "PROJECT"
           ) -> dict[str, tuple[str, str]]:
    """{name: (token, login)}: a new token for each annotator, in one transaction; a
    removed person is refused, naming the command that invites her again (`where`: the
    organizer's file)."""
    from simrate.hub.team.people import hub_name

    _check_service_schema(conn)
    issued = {}
    with conn.transaction():
        for name in names:
            token = secrets.token_urlsafe(32)
            person = hub_name(conn, nfc(name.strip()))
            _refuse_removed(conn, person, where)
            login = conn.execute("SELECT simrate.sync_issue_token(%s, %s)",
                                 (person, token_hash(token))).fetchone()[0]
            issued[name] = (token, login)
    return issued


def _refuse_removed(conn: Any, person: str, where: str) -> None:
    """SimrateError when `person` was removed from the hub (`team remove`): `team add`
    invites her again, under her login, and gives the new link (issue 42)."""
    import shlex

    row = conn.execute("SELECT kind FROM simrate.people WHERE annotator = %s AND removed_at "
                       "IS NOT NULL AND NOT EXISTS (SELECT 1 FROM simrate.people q WHERE "
                       "q.annotator = %s AND q.removed_at IS NULL)", (person, person)
                       ).fetchone()
    if row is not None:
        raise SimrateError(f"{person} was removed from this hub: invite them again with "
                           f"`simrate team add {shlex.quote(where)} {shlex.quote(person)} "
                           f"--role {row[0]}`, which gives a new link; their replica takes "
                           "it with `simrate team join NEW_LINK THEIR.simrate` and sends "
                           "what it held")


def issue_token_at(hub: tuple[str, str], name: str, password: str | None = None
                   ) -> tuple[str, str]:
    """issue_token from the hub's (URL, project id) alone, for a replica whose web login
    exists already (the window's team panel, off the GUI thread: the file is not read)."""
    import psycopg

    url, uuid = hub
    conn = organizer_connection(url, uuid, password)
    try:
        return _issue(conn, [name])[name]
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()


def service_address(project: Project) -> str:
    """The sync service's address kept in the organizer's replica, or ''."""
    return project.meta(SERVICE_KEY) or ""


def check_service_owner(project: Project) -> None:
    """SimrateError unless the project is an organizer's replica of a hub."""
    if not project.mode.organizer:
        raise SimrateError("only an organizer's replica of a hub has a sync service "
                           "(simrate team publish, then simrate serve on it)", project.path)


def keep_service_address(project: Project, address: str) -> None:
    """Keep the sync service's address ('' forgets it: people join directly again)."""
    from simrate.core.team.teamdb import set_hub_keys

    check_service_owner(project)
    set_hub_keys(project, {SERVICE_KEY: address.rstrip("/")})


def invite_through_service(project: Project, name: str, password: str | None = None
                           ) -> tuple[str, str]:
    """A sync token for `name`, made an annotator of the hub first when she is none yet
    (without a password: the link is her way in), or again when she was removed;
    returns (token, login). An organizer of the hub is refused: organizers connect
    directly."""
    import psycopg

    from simrate.hub.team.people import add_person, hub_name

    check_service_owner(project)
    url, uuid = hub_of(project)
    conn = organizer_connection(url, uuid, password)
    try:
        person = hub_name(conn, nfc(name.strip()))
        row = conn.execute("SELECT kind, removed_at IS NULL FROM simrate.people "
                           "WHERE annotator = %s", (person,)).fetchone()
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    if row is not None and row == ("organizer", True):
        raise SimrateError(f"{person} is an organizer of this hub: organizers connect "
                           "directly, with no sync link")
    if row is None or not row[1]:
        add_person(project, name, "annotator", None, password)
    return issue_token(project, name, password)
