"""The web login's password (`crowd study --new-web-password`) is saved where `simrate
serve` finds it before the hub changes it, and under the host libpq matches: a password
file that cannot be written leaves the hub's password as it was, and a hub reached through
a Unix socket folder gets a line for that folder, not for `localhost`.

Real PostgreSQL (tests/hub/cluster.py); the socket test asks passwords on the socket of
its own database only (pg_hba.conf, reloaded).
"""

from __future__ import annotations

import os

import psycopg
import pytest

from simrate.core.project import Project
from simrate.hub.team.web_hub import WEB_LOGIN_KEY
from tests.hub.cluster import ADMIN
from tests.hub.webhub import published_study
from tests.support.helpers import one_line_error


def _password_of(passfile, login: str) -> str:
    lines = [line for line in passfile.read_text().splitlines() if f":{login}:" in line]
    assert lines, passfile.read_text()
    return lines[-1].rsplit(":", 1)[1]


@pytest.mark.parametrize("where", ["missing-folder", "a-folder", "no-home"])
def test_an_unwritable_password_file_leaves_the_hub_password_unchanged(hub, tmp_path, where):
    path, _ = published_study(hub, tmp_path, items=12, checks=2, annotator=None)
    with Project.open(path) as project:
        login = project.meta(WEB_LOGIN_KEY)
    before = _password_of(hub.passfile, login)
    # the organizer's password comes from PGPASSWORD; the web login's file cannot be written
    env = {**hub.env(), "PGPASSWORD": "org-secret"}
    if where == "no-home":
        env.pop("PGPASSFILE")
        env["HOME"] = str(tmp_path / "no-such-home")
    else:
        env["PGPASSFILE"] = str(tmp_path / "no-such-folder" / "pgpass"
                                if where == "missing-folder" else tmp_path)
    import subprocess
    import sys

    from tests.hub.hubs import ROOT

    result = subprocess.run([sys.executable, "-m", "simrate", "crowd", "study", str(path), "s",
                             "--new-web-password"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    if where == "a-folder":  # refused before anything is asked of the hub
        one_line_error(result.stderr, "PGPASSFILE", "not a file")
    else:
        one_line_error(result.stderr, "cannot save the new web password",
                       "the hub's password was not changed")
    # the login serve uses still has the password its file holds
    hub.connect_as(login, before).close()
    # and with a writable file the change is made, and saved
    assert hub.simrate("crowd", "study", path, "s", "--new-web-password").returncode == 0
    after = _password_of(hub.passfile, login)
    assert after != before
    hub.connect_as(login, after).close()
    with pytest.raises(psycopg.OperationalError):
        hub.connect_as(login, before)


@pytest.fixture
def socket_passwords(hub, pg):
    """The hub's database asks passwords on the Unix socket too (the superuser excepted)."""
    hba = pg.data / "pg_hba.conf"
    original = hba.read_text()
    hba.write_text(f"local all {ADMIN} trust\nlocal {hub.name} all scram-sha-256\n" + original)
    with psycopg.connect(pg.admin_dsn(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")
    yield pg.base
    hba.write_text(original)
    with psycopg.connect(pg.admin_dsn(), autocommit=True) as conn:
        conn.execute("SELECT pg_reload_conf()")


def test_a_hub_reached_through_a_socket_folder_gets_a_password_line_for_that_folder(
        hub, pg, tmp_path, socket_passwords):
    folder = str(socket_passwords)
    with open(hub.passfile, "a", encoding="utf-8") as fh:  # the organizer, on the socket
        fh.write(f"{folder}:{pg.port}:{hub.name}:{hub.organizer}:org-secret\n")
    url = f"postgresql://{hub.organizer}@/{hub.name}?host={folder}&port={pg.port}"
    from simrate.hub.team.publish import publish
    from simrate.hub.team.web_hub import set_study
    from tests.web.projects import make_project

    path = make_project(tmp_path / "organizer.simrate", items=12, checks=2)
    with Project.open(path) as project:
        publish(project, url)
        set_study(project, "s", per_task=3, checks=1, per_item=2)
        login = project.meta(WEB_LOGIN_KEY)
    lines = [line for line in hub.passfile.read_text().splitlines() if f":{login}:" in line]
    assert [line.split(":")[0] for line in lines] == [folder]  # not localhost
    # libpq finds it: the web login connects over the socket with nothing but the file
    env_before = os.environ.get("PGPASSWORD")
    assert env_before is None
    psycopg.connect(f"host={folder} port={pg.port} dbname={hub.name} user={login}").close()
