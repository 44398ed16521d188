"""`simrate team add`: two people never share a login, and a refused add changes nothing."""

from __future__ import annotations

import pytest

from tests.hub.test_team_cli import one_line_error, published


def people(hub) -> list[tuple[str, str]]:
    with hub.admin() as admin:
        return admin.execute("SELECT login, annotator FROM simrate.people ORDER BY login"
                             ).fetchall()


def role_exists(hub, login: str) -> bool:
    with hub.admin() as admin:
        return admin.execute("SELECT count(*) FROM pg_roles WHERE rolname = %s",
                             (login,)).fetchone()[0] == 1


def test_a_second_person_never_takes_the_first_ones_login(hub, tmp_path):
    project = published(hub, tmp_path)
    first, second = f"Zoé {hub.name}", f"Zoë {hub.name}"
    login = f"zo_{hub.name}"  # both names make this login
    done = hub.simrate("team", "add", project, first, "--role", "annotator", stdin="her-pw\n")
    assert done.returncode == 0, done.stderr
    assert f"(login {login})" in done.stdout
    hub.remember(login, "her-pw")
    line = one_line_error(hub.simrate("team", "add", project, second, "--role", "annotator",
                                      stdin="other-pw\n"))
    assert f"'{login}'" in line and repr(first) in line and "--login" in line
    assert people(hub) == [(login, first)]  # not renamed
    with hub.connect_as(login, "her-pw") as conn:  # her password still works
        assert conn.execute("SELECT 1").fetchone() == (1,)
    # the hub's own function refuses it too, for a client that does not ask first
    import psycopg

    with hub.connect_as(hub.organizer, "org-secret") as conn, \
            pytest.raises(psycopg.Error, match="another person"):
        conn.execute("SELECT simrate.add_person(%s, %s, 'annotator', NULL)", (second, login))
    assert people(hub) == [(login, first)]
    # with a login of her own, the second person is added beside the first
    own = f"zoe2_{hub.name}"
    done = hub.simrate("team", "add", project, second, "--role", "annotator", "--login", own,
                       stdin="other-pw\n")
    assert done.returncode == 0, done.stderr
    assert people(hub) == [(login, first), (own, second)]
    # adding the first person again with a password, in any spelling of her name, is
    # refused unless the reset is asked for; then it keeps her login
    for spelling in (first, first.upper()):
        line = one_line_error(hub.simrate("team", "add", project, spelling, "--role",
                                          "annotator", stdin="new-pw\n"))
        assert repr(first) in line and login in line and "--reset-password" in line, line
    with hub.connect_as(login, "her-pw") as conn:  # unchanged
        assert conn.execute("SELECT 1").fetchone() == (1,)
    again = hub.simrate("team", "add", project, first.upper(), "--role", "annotator",
                        "--reset-password", stdin="new-pw\n")
    assert again.returncode == 0 and f"(login {login})" in again.stdout, again.stderr


@pytest.mark.parametrize("login", ["with spaces", "Capital", "pg_signal_x",
                                   "x" * 64])
def test_a_refused_login_creates_nothing(hub, tmp_path, login):
    project = published(hub, tmp_path)
    before = people(hub)
    line = one_line_error(hub.simrate("team", "add", project, "Ann", "--role", "annotator",
                                      "--login", login, stdin="pw\n"))
    assert "login" in line and "not allowed" in line
    assert people(hub) == before
    assert not role_exists(hub, login)
