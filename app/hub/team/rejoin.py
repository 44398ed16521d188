"""A new link taken into an existing replica (issue 42): remove and re-invite keeps the work.

A person the organizer removed (`team remove`) and added again (`team add`) gets a new
link: a sync link through `simrate serve`, or the hub's URL for a direct login. Her old
replica may hold ratings the hub never got. `simrate team join NEW_LINK EXISTING.simrate`
takes the new link into that file instead of refusing it, when the file is a replica of
the same hub project, of the same person in the same role: the file keeps its outbox and
its copies of the hub's values, so the round made at once sends everything it held
pending. Anything else at the path is refused as before (a plain project, another
project's replica, another person's), nothing changed.

The file keeps its replica id, so that the hub leaves out what it took already, unless
the hub holds that id for another login (the person came back under another login): then
it gets a new id, and the outbox still sends whatever differs from the hub's copy.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import rater_key
from simrate.core.data.replica_mode import Role, is_service_url
from simrate.core.project import Project
from simrate.hub.link.connection import HubError, connect, explain, hub_info, parse_url
from simrate.hub.link.replica import link_replica
from simrate.hub.team.sync import SyncReport, sync_once

#: The mark of a first call that reads who the token names and nothing else (joining.py).
_SKIP = 2 ** 62


def rejoin(url: str, path: Path, password: str | None, say: Callable[[str], None]
           ) -> tuple[Project, SyncReport]:
    """Take the link `url` into the existing replica at `path` and sync it once; returns it
    open, and the round's report. SimrateError, the file unchanged, unless it is a replica
    of this hub's project, of the link's person and role."""
    project = Project.open(path)
    try:
        if project.mode.plain:
            raise SimrateError("already exists and is no replica of a hub; choose another "
                               "name for the new replica", path)
        if is_service_url(url):
            _relink_service(project, url)
        else:
            _relink_direct(project, url, password)
        say("sending what this file held, and pulling what is new")
        report = sync_once(project, password)
    except BaseException:
        project.close()
        raise
    return project, report


def check_same(project: Project, project_uuid: str, name: str | None, role: Role) -> None:
    """SimrateError unless the replica is of this hub's project, person and role."""
    mode, path = project.mode, project.path
    if project.meta("project_uuid") != project_uuid:
        raise SimrateError("already exists and is a replica of another project than this "
                           "link's hub; choose another name for the new replica", path)
    if mode.role != role:
        raise SimrateError(f"already exists and is an {mode.role.value}'s replica, and this "
                           f"link is an {role.value}'s; choose another name for the new "
                           "replica", path)
    if rater_key(mode.name or "") != rater_key(name or ""):
        raise SimrateError(f"already exists and is {mode.name or 'another person'}'s "
                           f"replica, and this link is {name or 'another person'}'s; choose "
                           "another name for the new replica", path)


def _relink_service(project: Project, link: str) -> None:
    from simrate.hub.link.client import check_project, split_link

    base, token = split_link(link)
    replica = project.mode.replica
    try:
        hello = _hello(base, token, replica)
    except HubError as exc:
        if exc.kind != "refused":
            raise
        replica = str(uuid.uuid4())  # the hub holds the old id for another login
        hello = _hello(base, token, replica)
    check_project(hello, "")
    check_same(project, hello["project_uuid"], hello["name"], Role.ANNOTATOR)
    link_replica(project, base, Role.ANNOTATOR, hello["name"], hello["project_uuid"],
                 replica=replica, token=token)


def _hello(base: str, token: str, replica: str) -> dict:
    """The service's answer to a round that sends nothing and pulls nothing: who the token
    names, and the hub's project id."""
    from simrate.hub.link.client import post_round

    return post_round(base, token, {"replica": replica, "upto": 0, "ratings": [],
                                    "marks": {"settings": _SKIP, "items": _SKIP,
                                              "ratings": _SKIP}})


def _relink_direct(project: Project, url: str, password: str | None) -> None:
    import psycopg

    parse_url(url)
    conn = connect(url, password)
    try:
        info = hub_info(conn, url)
        check_same(project, info.project_uuid, info.name, Role(info.kind))
        held = conn.execute("SELECT login FROM simrate.replicas WHERE replica = %s",
                            (project.mode.replica,)).fetchone()
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    mine = held is not None and held[0] == info.login
    link_replica(project, url, Role(info.kind), info.name, info.project_uuid,
                 replica=project.mode.replica if mine else str(uuid.uuid4()))
