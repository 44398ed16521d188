"""Joining a hub: make a local replica with the items, the scale and guidelines, and the
person's own ratings (an organizer's replica holds everything)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from simrate.core.base.scale import Scale
from simrate.core.data.replica_mode import Role, is_service_url
from simrate.core.project import Project
from simrate.hub.link.backoff import patiently
from simrate.hub.link.connection import connect, explain, hub_info, parse_url
from simrate.hub.link.exchange import exchange
from simrate.hub.link.replica import link_replica, watermarks
from simrate.hub.team.sync import SyncReport, absorb, collect, tables_for


def join(url: str, path: str | Path, password: str | None = None,
         progress: Callable[[str], None] | None = None, wait: float = 0.0
         ) -> tuple[Project, SyncReport]:
    """Create the replica at `path` and fill it from the hub; returns it open, and the
    first round's report. Nothing is left at `path` when joining fails. An existing
    replica at `path` of the same hub project and person takes the link instead, and sends
    what it held (rejoin.py). While the hub is full or unreachable it tries again with
    backoff for up to `wait` seconds."""
    from simrate.hub.team.joining import join_service

    path = Path(path)
    service = is_service_url(url)
    if not service:
        parse_url(url)
    say = progress or (lambda _text: None)
    if path.exists():  # an existing replica of the same hub and person takes the new link
        from simrate.hub.team.rejoin import rejoin

        return patiently(lambda: rejoin(url, path, password, say), wait)
    if service:  # a sync link: through `simrate serve` (hub/link/client.py)
        return patiently(lambda: join_service(url, path, say), wait)
    return patiently(lambda: _join_once(url, path, password, say), wait)


def _join_once(url: str, path: Path, password: str | None, say: Callable[[str], None]
               ) -> tuple[Project, SyncReport]:
    import psycopg

    conn = connect(url, password)
    project = None
    try:
        info = hub_info(conn, url)
        settings = dict(conn.execute("SELECT key, value FROM simrate.settings").fetchall())
        scale = Scale.from_dict(json.loads(settings["scale"]), "the hub")
        project = Project.create(path, scale=scale, title=settings.get("title", ""))
        link = link_replica(project, url, Role(info.kind), info.name, info.project_uuid)
        if info.name:
            project.roster.add(info.name)
        say("downloading items and ratings")
        outbox = collect(project, link)
        received = exchange(conn, link.replica, outbox, watermarks(project, tables_for(link)),
                            link.organizer, url)
        say("saving")
        report = absorb(project, link, outbox, received)
    except psycopg.Error as exc:
        _discard(project, path)
        raise explain(exc, url) from None
    except BaseException:
        _discard(project, path)
        raise
    finally:
        conn.close()
    return project, report


def _discard(project: Project | None, path: Path) -> None:
    if project is not None:
        project.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
