"""Hub: one test database on the throwaway cluster, its organizer and a password file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.hub.cluster import Cluster

ROOT = Path(__file__).resolve().parents[2]


class Hub:
    """A database `name` owned by the login `<name>_org` (CREATEROLE), and a pgpass file."""

    def __init__(self, cluster: Cluster, name: str, folder: Path):
        self.cluster = cluster
        self.name = name
        self.folder = folder
        self.organizer = f"{name}_org"
        self.passfile = folder / "pgpass"
        self.passfile.write_text("")
        os.chmod(self.passfile, 0o600)
        cluster.sql(f"CREATE ROLE {self.organizer} LOGIN CREATEROLE PASSWORD 'org-secret'")
        cluster.sql(f"CREATE DATABASE {name} OWNER {self.organizer}")
        self.remember(self.organizer, "org-secret")

    def url(self, login: str | None = None) -> str:
        """The hub's URL for a login (the organizer by default), without a password."""
        return self.cluster.url(login or self.organizer, self.name)

    def remember(self, login: str, password: str) -> None:
        """Put a login's password in the password file, as a user would."""
        with open(self.passfile, "a", encoding="utf-8") as fh:
            fh.write(f"127.0.0.1:{self.cluster.port}:{self.name}:{login}:{password}\n")

    def admin(self):
        """A superuser connection to the hub database (autocommit)."""
        import psycopg

        return psycopg.connect(self.cluster.admin_dsn(self.name), autocommit=True)

    def connect_as(self, login: str, password: str):
        """A connection as `login` over TCP (autocommit)."""
        import psycopg

        return psycopg.connect(self.url(login), password=password, autocommit=True)

    def env(self) -> dict[str, str]:
        """Environment for a simrate subprocess using this hub's password file."""
        # commands try a full or unreachable hub once: the tests of backoff set their wait
        env = dict(os.environ, PGPASSFILE=str(self.passfile), QT_QPA_PLATFORM="offscreen",
                   SIMRATE_HUB_WAIT="0")
        env.pop("PGPASSWORD", None)
        return env

    def simrate(self, *args: object, stdin: str = "", timeout: float = 300
                ) -> subprocess.CompletedProcess:
        """Run `python -m simrate ARGS` in a subprocess with this hub's password file."""
        return subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], cwd=ROOT,
                              env=self.env(), input=stdin, capture_output=True, text=True,
                              timeout=timeout)

    def drop(self) -> None:
        """Drop the database and the roles made for it."""
        import psycopg

        if not self.cluster.running():
            return
        with psycopg.connect(self.cluster.admin_dsn(), autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = %s AND pid <> pg_backend_pid()", (self.name,))
            conn.execute(f"DROP DATABASE IF EXISTS {self.name}")


INJECTION = "x'); DROP TABLE ratings; --"


def make_project(path: Path, n_items: int = 12, scale: str = "sts"):
    """An open project with n items (ids d:1..n) on the STS scale; item d:1's left text
    and the note of one rating are SQL-looking text that must travel byte for byte."""
    from simrate.core.project import Project
    from tests.core.frames import make_items

    project = Project.create(path, scale=scale, title="hub test")
    items = make_items(n_items)
    items.loc[0, "left"] = INJECTION + " \u00e9\u00e8 \"quoted\"\ttab"
    project.import_items(items, source="test")
    return project


def team(hub: Hub, folder: Path, people: dict[str, str], n_items: int = 12):
    """Publish a project to `hub` and add `people` ({name: kind}); returns the organizer's
    open project and {name: login}. Each person's password is in the hub's password file."""
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish

    project = make_project(folder / "organizer.simrate", n_items)
    publish(project, hub.url())
    logins = {}
    for name, kind in people.items():
        login = f"{hub.name}_{len(logins)}"
        add_person(project, name, kind, f"pw-{login}", login=login)
        hub.remember(login, f"pw-{login}")
        logins[name] = login
    return project, logins


def join_as(hub: Hub, login: str, path: Path):
    """Join the hub as `login` (password from the password file); the open replica."""
    from simrate.hub.team.join import join

    project, _report = join(hub.url(login), path)
    return project
