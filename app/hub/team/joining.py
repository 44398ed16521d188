"""Joining a hub through its sync service: a sync link makes an annotator's replica whose
rounds go over HTTP to `simrate serve` (client.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from simrate.hub.link.client import (
    TABLES,
    check_project,
    post_round,
    service_exchange,
    split_link,
)


def join_service(link: str, path: Any, say: Any) -> tuple[Any, Any]:
    """Create the replica at `path` from the sync service of a sync link, filled by a
    first round; returns it open, and the round's report. Nothing is left at `path` when
    that fails."""
    import uuid

    from simrate.core.base.scale import Scale
    from simrate.core.data.replica_mode import Role
    from simrate.core.project import Project
    from simrate.hub.link.replica import link_replica, watermarks
    from simrate.hub.team.sync import absorb, collect

    base, token = split_link(link)
    replica = str(uuid.uuid4())
    skip = 2 ** 62  # the first call reads who the token names, and the settings only
    hello = post_round(base, token, {"replica": replica, "upto": 0, "ratings": [],
                                     "marks": {"settings": 0, "items": skip, "ratings": skip}})
    check_project(hello, "")
    settings = {row[0]: row[1] for row in hello["settings"]}
    scale = Scale.from_dict(json.loads(settings["scale"]), "the hub")
    project = Project.create(path, scale=scale, title=settings.get("title", ""))
    try:
        linked = link_replica(project, base, Role.ANNOTATOR, hello["name"],
                              hello["project_uuid"], replica=replica, token=token)
        project.roster.add(hello["name"])
        say("downloading items and ratings")
        outbox = collect(project, linked)
        received = service_exchange(base, token, replica, outbox,
                                    watermarks(project, TABLES), hello["project_uuid"])
        say("saving")
        report = absorb(project, linked, outbox, received)
    except BaseException:
        project.close()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        raise
    return project, report
