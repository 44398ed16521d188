"""Blind by the server's own rules: what an annotator's login can and cannot do."""

from __future__ import annotations

import psycopg
import pytest

from app.core.team.hub.sync import sync_once
from tests.hub.hubs import INJECTION, join_as, team


@pytest.fixture
def rated(hub, tmp_path):
    """Alice and Bob (annotators) have joined and each rated three items, synced."""
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator", "Bob": "annotator"})
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    bob = join_as(hub, logins["Bob"], tmp_path / "bob.simrate")
    for item in ("d:1", "d:2", "d:3"):
        alice.rate(item, "Alice", 4.0)
        bob.rate(item, "Bob", 1.0, note="bob's own note")
    sync_once(alice)
    sync_once(bob)
    sync_once(organizer)
    yield organizer, alice, bob, logins
    for project in (organizer, alice, bob):
        project.close()


def as_alice(hub, logins):
    return hub.connect_as(logins["Alice"], f"pw-{logins['Alice']}")


def bob_rows(hub):
    with hub.admin() as admin:
        return admin.execute("SELECT item_id, code, note FROM simrate.ratings "
                             "WHERE annotator = 'Bob' ORDER BY item_id").fetchall()


def test_reading_others_ratings_returns_no_rows(hub, rated):
    *_, logins = rated
    assert len(bob_rows(hub)) == 3
    with as_alice(hub, logins) as conn:
        seen = conn.execute("SELECT annotator FROM simrate.ratings").fetchall()
        assert seen and {a for (a,) in seen} == {"Alice"}
        assert conn.execute("SELECT count(*) FROM simrate.ratings "
                            "WHERE annotator = 'Bob'").fetchone()[0] == 0


def test_updating_or_deleting_others_ratings_changes_nothing(hub, rated):
    *_, logins = rated
    before = bob_rows(hub)
    with as_alice(hub, logins) as conn:
        cur = conn.execute("UPDATE simrate.ratings SET code = 0, note = 'hacked' "
                           "WHERE annotator = 'Bob'")
        assert cur.rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM simrate.ratings WHERE annotator = 'Bob'")
    assert bob_rows(hub) == before


def test_inserting_a_rating_under_another_name_is_refused(hub, rated):
    *_, logins = rated
    with as_alice(hub, logins) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO simrate.ratings (item_id, annotator, code, updated_at) "
                         "VALUES ('d:5', 'Bob', 3, 0)")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("UPDATE simrate.ratings SET annotator = 'Bob' WHERE item_id = 'd:1'")
    with hub.admin() as admin:
        assert admin.execute("SELECT count(*) FROM simrate.ratings WHERE item_id = 'd:5'"
                             ).fetchone()[0] == 0


@pytest.mark.parametrize("statement", [
    "INSERT INTO simrate.adjudications (item_id, code, at) VALUES ('d:1', 8, 0)",
    "INSERT INTO simrate.items (ord, id, \"left\", \"right\") VALUES (99, 'new', 'a', 'b')",
    "UPDATE simrate.items SET \"left\" = 'changed'",
    "INSERT INTO simrate.annotators (name, excluded) VALUES ('Bob', true)",
    "UPDATE simrate.annotators SET excluded = true",
    "UPDATE simrate.settings SET value = '0.25' WHERE key = 'threshold'",
    "SELECT simrate.add_person('Mallory', 'mallory', 'organizer', NULL)",
])
def test_organizer_writes_are_refused(hub, rated, statement):
    *_, logins = rated
    with as_alice(hub, logins) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)


@pytest.mark.parametrize("table", ["changes", "adjudications", "annotators", "people"])
def test_change_log_adjudications_exclusions_people_are_unreadable(hub, rated, table):
    *_, logins = rated
    with as_alice(hub, logins) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(f"SELECT * FROM simrate.{table}")


def test_annotator_login_cannot_become_owner_or_organizer(hub, rated):
    *_, logins = rated
    with as_alice(hub, logins) as conn:
        owner, organizers = conn.execute(
            "SELECT (SELECT value FROM simrate.hub WHERE key = 'role_owner'), "
            "(SELECT value FROM simrate.hub WHERE key = 'role_organizers')").fetchone()
        for role in (owner, organizers):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f'SET ROLE "{role}"')
        table_owner = conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = "
                                   "'simrate' AND tablename = 'ratings'").fetchone()[0]
        assert table_owner == owner != logins["Alice"]
        bypass = conn.execute("SELECT rolsuper OR rolbypassrls FROM pg_roles "
                              "WHERE rolname = session_user").fetchone()[0]
        assert bypass is False


def test_no_client_connects_as_the_table_owner(hub, rated):
    organizer, *_ = rated
    with hub.admin() as admin:
        owner = admin.execute("SELECT value FROM simrate.hub WHERE key = 'role_owner'"
                              ).fetchone()[0]
        can_login, members = admin.execute(
            "SELECT rolcanlogin, (SELECT count(*) FROM pg_auth_members m JOIN pg_roles r "
            "ON r.oid = m.member WHERE m.roleid = o.oid AND r.rolcanlogin) "
            "FROM pg_roles o WHERE rolname = %s", (owner,)).fetchone()
    assert can_login is False and members == 0  # the publisher gave its membership back


def test_an_annotators_replica_never_receives_others_ratings(rated):
    organizer, alice, bob, _ = rated
    assert set(alice.ratings()["annotator"]) == {"Alice"}
    assert set(bob.ratings()["annotator"]) == {"Bob"}
    assert len(organizer.ratings()) == 6
    assert alice.changes()["annotator"].dropna().isin(["Alice"]).all()


def test_removed_person_can_no_longer_connect(hub, rated):
    organizer, alice, _bob, logins = rated
    from app.core.team.hub.connection import HubError
    from app.core.team.hub.people import remove_person

    assert remove_person(organizer, "Alice") == logins["Alice"]
    alice.rate("d:4", "Alice", 2.0)
    with pytest.raises(HubError, match="role not allowed|not permitted to log in"):
        sync_once(alice)
    assert alice.rating("d:4", "Alice") == 2.0  # nothing lost locally


def test_sql_looking_text_goes_through_publish_sync_and_export_byte_for_byte(
        hub, tmp_path):
    from app.core.team.hub.people import add_person

    organizer, logins = team(hub, tmp_path, {})
    add_person(organizer, INJECTION, "annotator", "pw-inj", login="injected")
    hub.remember("injected", "pw-inj")
    replica = join_as(hub, "injected", tmp_path / "inj.simrate")
    assert replica.meta("hub_name") == INJECTION
    left = organizer.item("d:1")["left"]
    assert replica.item("d:1")["left"] == left
    replica.rate("d:1", INJECTION, 2.5, note=INJECTION)
    sync_once(replica)
    sync_once(organizer)
    assert organizer.rating_record("d:1", INJECTION)["note"] == INJECTION
    out = tmp_path / "gold.tsv"
    done = hub.simrate("export", organizer.path, out, "--format", "tsv", "--allow-unresolved")
    assert done.returncode == 0, done.stderr
    text = out.read_bytes().decode("utf-8")
    assert f"rating:{INJECTION}" in text
    assert left.replace('"', '""') in text
    with hub.admin() as admin:
        assert admin.execute("SELECT to_regclass('simrate.ratings') IS NOT NULL").fetchone()[0]
    replica.close()
    organizer.close()
