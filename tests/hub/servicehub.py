"""A hub with annotators who sync through `simrate serve` (issue 33), for the tests of the
sync service and the benchmark."""

from __future__ import annotations

from pathlib import Path

from simrate.core.project import Project
from simrate.hub.link.client import make_link
from simrate.hub.team.tokens import issue_token
from tests.hub.hubs import team


def service_team(hub, folder: Path, people: dict[str, str], n_items: int = 12
                 ) -> tuple[Path, dict[str, str], dict[str, str]]:
    """Publish a project to `hub`, add `people` ({name: kind}) and give each annotator a
    sync token (the first makes the hub's web login); returns the organizer's replica,
    closed, {name: login} and {annotator name: token}."""
    organizer, logins = team(hub, folder, people, n_items)
    tokens = {name: issue_token(organizer, name)[0]
              for name, kind in people.items() if kind == "annotator"}
    path = organizer.path
    organizer.close()
    return path, logins, tokens


def link(server, token: str) -> str:
    """The sync link of a token at a running server."""
    return make_link(server.url, token)


def join_through(server, token: str, path: Path) -> Project:
    """Join through the server's sync service; the open replica."""
    from simrate.hub.team.join import join

    project, _report = join(link(server, token), path)
    return project
