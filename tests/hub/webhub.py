"""An organizer's hub replica with a web study, for the hub web tests and the benchmark."""

from __future__ import annotations

from pathlib import Path

from simrate.core.project import Project
from tests.web.projects import make_project


def published_study(hub, folder: Path, items: int = 40, checks: int = 3, per_task: int = 4,
                    n_checks: int = 1, per_item: int = 2, lease_minutes: float | None = None,
                    annotator: str | None = "Ann", texts: tuple[str, str] | None = None
                    ) -> tuple[Path, dict[str, str]]:
    """A project of `items` pairs and `checks` check items published to `hub`, with an
    annotator (login in the hub's password file) and an open web study `s`; returns the
    organizer's replica and {annotator name: login}."""
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish
    from simrate.hub.team.web_hub import set_study  # on a replica: the hub first

    path = make_project(folder / "organizer.simrate", items=items, checks=checks, texts=texts)
    logins = {}
    with Project.open(path) as project:
        publish(project, hub.url())
        if annotator:
            login = f"{hub.name}_ann"
            add_person(project, annotator, "annotator", f"pw-{login}", login=login)
            hub.remember(login, f"pw-{login}")
            logins[annotator] = login
        set_study(project, "s", per_task=per_task, checks=n_checks, per_item=per_item,
                      lease_minutes=lease_minutes)
    return path, logins
