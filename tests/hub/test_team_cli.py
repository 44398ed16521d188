"""The `simrate team` commands against a real hub, run as a user runs them."""

from __future__ import annotations

import json

from tests.hub.hubs import ROOT

PAIRS = ROOT / "sample_data" / "pairs.tsv"


def one_line_error(done) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simrate: error: "), done.stderr
    assert "Traceback" not in done.stderr and "psycopg" not in done.stderr
    return lines[0]


def published(hub, tmp_path):
    project = tmp_path / "project.simrate"
    assert hub.simrate("new", project, "--scale", "sts").returncode == 0
    assert hub.simrate("import", project, PAIRS).returncode == 0
    done = hub.simrate("team", "publish", project, hub.url())
    assert done.returncode == 0, done.stderr
    return project


def add(hub, project, name, role="annotator", password="pw"):
    login = f"{hub.name}_{name.lower()}"
    done = hub.simrate("team", "add", project, name, "--role", role, "--login", login,
                       stdin=f"{password}\n")
    assert done.returncode == 0, done.stderr
    assert password not in done.stdout + done.stderr  # passwords are never printed
    hub.remember(login, password)
    return login, done.stdout


def test_new_user_run_publish_add_join_rate_sync(hub, tmp_path):
    project = published(hub, tmp_path)
    login_a, said = add(hub, project, "Ann")
    assert f"simrate team join '{hub.url(login_a)}'" in said and ".pgpass" in said
    login_b, _ = add(hub, project, "Ben")
    for login, name, score in ((login_a, "Ann", "3"), (login_b, "Ben", "1")):
        local = tmp_path / f"{login}.simrate"
        done = hub.simrate("team", "join", hub.url(login), local)
        assert done.returncode == 0, done.stderr
        assert "20 items" in done.stdout
        ids = json.loads(hub.simrate("info", local, "--json").stdout)
        assert ids["annotators"] == [name]
        from simrate.core.project import Project

        with Project.open(local) as replica:
            for item_id in replica.item_ids()[:4]:
                replica.rate(item_id, name, float(score))
        done = hub.simrate("team", "sync", local, "--json")
        assert json.loads(done.stdout) == {"pushed": 4, "pulled": 0, "pending": 0,
                                           "conflicts": 0, "hub": "reachable", "kept_out": 0}
    done = hub.simrate("team", "sync", project, "--json")
    assert json.loads(done.stdout)["pulled"] == 8
    info = json.loads(hub.simrate("info", project, "--json").stdout)
    assert info["ratings"] == 8 and sorted(info["annotators"]) == ["Ann", "Ben"]
    assert info["flagged"] == 4  # 3 against 1: two points apart
    ann = json.loads(hub.simrate("info", tmp_path / f"{login_a}.simrate", "--json").stdout)
    assert ann["annotators"] == ["Ann"] and ann["ratings"] == 4


def test_publishing_again_is_safe_and_another_project_is_refused(hub, tmp_path):
    project = published(hub, tmp_path)
    again = hub.simrate("team", "publish", project, hub.url())
    assert again.returncode == 0 and "brought up to date" in again.stdout
    with hub.admin() as admin:
        assert admin.execute("SELECT count(*) FROM simrate.items").fetchone()[0] == 20
    other = tmp_path / "other.simrate"
    hub.simrate("new", other, "--scale", "sts")
    line = one_line_error(hub.simrate("team", "publish", other, hub.url()))
    assert "another project" in line


def test_wrong_password_is_one_line_exit_2(hub, tmp_path):
    project = published(hub, tmp_path)
    login, _ = add(hub, project, "Ann", password="right")
    hub.passfile.write_text(hub.passfile.read_text().replace(":right\n", ":wrong\n"))
    line = one_line_error(hub.simrate("team", "join", hub.url(login), tmp_path / "a.simrate"))
    assert "wrong password" in line
    assert not (tmp_path / "a.simrate").exists()


def test_a_password_in_the_url_is_refused(hub, tmp_path):
    project = tmp_path / "p.simrate"
    hub.simrate("new", project, "--scale", "sts")
    url = hub.url().replace("@", ":secret@")
    line = one_line_error(hub.simrate("team", "publish", project, url))
    assert "password" in line and "secret" not in line


def test_unreachable_hub_keeps_changes_pending(hub, tmp_path):
    project = published(hub, tmp_path)
    from simrate.core.project import Project

    with Project.open(project) as opened:
        opened.rate(opened.item_ids()[0], "org", 2.0)
        port = str(hub.cluster.port)
        with opened.team_tables.transaction() as conn:  # as if the server had moved away
            conn.execute("UPDATE meta SET value = replace(value, ?, '1') WHERE key = 'hub_url'",
                         (port,))
    done = hub.simrate("team", "sync", project, "--json")
    one_line_error(done)
    assert json.loads(done.stdout) == {"pushed": 0, "pulled": 0, "pending": 1,
                                       "conflicts": 0, "hub": "unreachable",
                                       "kept_out": 0}
    assert "unreachable" in done.stderr


def test_annotator_may_not_manage_people(hub, tmp_path):
    project = published(hub, tmp_path)
    login, _ = add(hub, project, "Ann")
    local = tmp_path / "ann.simrate"
    assert hub.simrate("team", "join", hub.url(login), local).returncode == 0
    line = one_line_error(hub.simrate("team", "add", local, "Eve", "--role", "organizer"))
    assert "role not allowed" in line


def test_a_hub_from_a_newer_simrate_is_refused(hub, tmp_path):
    project = published(hub, tmp_path)
    with hub.admin() as admin:
        admin.execute("UPDATE simrate.hub SET value = '99' WHERE key = 'hub_schema'")
    line = one_line_error(hub.simrate("team", "sync", project))
    assert "newer simrate" in line
