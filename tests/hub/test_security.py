"""Blind by the server's own rules: what an annotator's login can and cannot do."""

from __future__ import annotations

import psycopg
import pytest

from simrate.core.project import Project
from simrate.hub.team.sync import sync_once
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
    from simrate.hub.link.connection import HubError
    from simrate.hub.team.people import remove_person

    assert remove_person(organizer, "Alice") == logins["Alice"]
    alice.rate("d:4", "Alice", 2.0)
    with pytest.raises(HubError, match="role not allowed|not permitted to log in"):
        sync_once(alice)
    assert alice.rating("d:4", "Alice") == 2.0  # nothing lost locally


def test_sql_looking_text_goes_through_publish_sync_and_export_byte_for_byte(
        hub, tmp_path):
    from simrate.hub.team.people import add_person

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


# ----------------------------------------------------------------- what annotators must not learn
SECRET_FOLDER = "/home/lead/confidential-study"
SECRET_SOURCE = f"{SECRET_FOLDER}/pairs-with-gold.tsv"
SECRET_META = "vote-split-7-2"


@pytest.fixture
def secret_team(hub, tmp_path):
    """A project whose items carry reference scores, metadata and a source path in the
    organizer's folders, with two check items, published; Alice and Bob (annotators) and
    Olga (a second organizer) have logins and Alice has joined."""
    from simrate.core.team.quality import set_checks
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish
    from tests.core.frames import make_items

    project = Project.create(tmp_path / "organizer.simrate", scale="sts", title="secret")
    items = make_items(8)
    items["reference"] = [0.5 * i for i in range(8)]
    items["meta"] = [{"votes": SECRET_META, "file": SECRET_SOURCE} for _ in range(8)]
    project.import_items(items, source=SECRET_SOURCE)
    set_checks(project, {"d:2": 0.5, "d:5": 2.0}, by="lead")
    publish(project, hub.url())
    logins = {}
    for name, kind in (("Alice", "annotator"), ("Bob", "annotator"), ("Olga", "organizer")):
        login = f"{hub.name}_{name.lower()}"
        add_person(project, name, kind, f"pw-{login}", login=login)
        hub.remember(login, f"pw-{login}")
        logins[name] = login
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    yield project, alice, logins
    alice.close()
    project.close()


def every_value(project) -> list[object]:
    """Every value of every table of a project file, read over its own connection."""
    tables = [name for (name,) in project.team_tables.read(
        "SELECT name FROM sqlite_master WHERE type = 'table'")]
    values = []
    for table in tables:
        for row in project.team_tables.read(f'SELECT * FROM "{table}"'):
            values.extend(row)
    return values


@pytest.mark.parametrize("column", ["reference", "meta", "source", "login", "*"])
def test_an_annotator_role_reads_no_reference_metadata_source_or_login_of_items(
        hub, secret_team, column):
    _organizer, _alice, logins = secret_team
    with hub.admin() as admin:  # the hub holds them, for the organizers
        assert admin.execute("SELECT count(*) FROM simrate.items WHERE reference IS NOT NULL "
                             "AND meta LIKE %s", (f"%{SECRET_META}%",)).fetchone()[0] == 8
    with as_alice(hub, logins) as conn:
        assert len(conn.execute('SELECT id, "left", "right", dataset, genre, seq '
                                "FROM simrate.items").fetchall()) == 8
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(f"SELECT {column} FROM simrate.items")


def test_an_annotator_role_reads_no_login_of_settings(hub, secret_team):
    *_, logins = secret_team
    with as_alice(hub, logins) as conn:
        assert dict(conn.execute("SELECT key, value FROM simrate.settings").fetchall())["title"]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT login FROM simrate.settings")


def test_an_annotators_replica_holds_no_reference_check_metadata_or_path(secret_team):
    organizer, alice, _logins = secret_team
    assert alice.n_items == 8
    items = alice.items()
    assert items["reference"].isna().all()
    assert all(meta == {} for meta in items["meta"])
    assert not alice.team_tables.read(
        "SELECT name FROM sqlite_master WHERE name = 'check_items'")
    texts = [str(v) for v in every_value(alice)]
    assert not [t for t in texts if SECRET_FOLDER in t or SECRET_META in t]
    # ...while the organizer's file keeps all of it
    assert organizer.items()["reference"].notna().all()
    from simrate.core.team.quality import check_scores

    assert check_scores(organizer) == {"d:2": 0.5, "d:5": 2.0}


def test_items_added_later_reach_annotators_without_reference_or_path(secret_team):
    from simrate.core.team.quality import set_checks
    from tests.core.frames import make_items

    organizer, alice, _logins = secret_team
    more = make_items(10).iloc[8:].copy()
    more["reference"] = [4.5, 5.0]
    more["meta"] = [{"votes": SECRET_META} for _ in range(2)]
    organizer.import_items(more, source=f"{SECRET_FOLDER}/more.tsv")
    set_checks(organizer, {"d:9": 4.5})
    sync_once(organizer)
    sync_once(alice)
    assert alice.has_item("d:10")
    assert alice.items()["reference"].isna().all()
    assert not [v for v in every_value(alice) if SECRET_FOLDER in str(v)
                or SECRET_META in str(v)]


def test_the_hub_keeps_no_folder_of_the_organizers_files(hub, secret_team):
    with hub.admin() as admin:
        sources = {s for (s,) in admin.execute("SELECT DISTINCT source FROM simrate.items")}
    assert sources == {"pairs-with-gold.tsv"}


def test_a_second_organizers_replica_still_has_the_reference_scores(hub, secret_team,
                                                                     tmp_path):
    _organizer, _alice, logins = secret_team
    olga = join_as(hub, logins["Olga"], tmp_path / "olga.simrate")
    try:
        assert olga.items()["reference"].tolist() == [0.5 * i for i in range(8)]
        assert olga.item("d:1")["meta"]["votes"] == SECRET_META
    finally:
        olga.close()


def test_an_annotators_replica_from_before_is_emptied_at_its_next_sync(secret_team):
    _organizer, alice, _logins = secret_team
    # what a replica joined with an older simrate holds: the hub's references and metadata
    with alice.team_tables.transaction() as conn:
        conn.execute("UPDATE items SET reference = 3.0, meta = ?", (f'{{"v": "{SECRET_META}"}}',))
        conn.execute("DELETE FROM meta WHERE key = 'hub_blind'")
    sync_once(alice)
    assert alice.items()["reference"].isna().all()
    assert not [v for v in every_value(alice) if SECRET_META in str(v)]


def test_the_people_list_shows_an_annotator_only_themselves(hub, secret_team):
    from simrate.hub.team.people import people

    organizer, _alice, logins = secret_team
    with as_alice(hub, logins) as conn:
        assert [p.login for p in people(conn)] == [logins["Alice"]]
        rows = conn.execute("SELECT login, annotator FROM simrate.people_list()").fetchall()
        assert rows == [(logins["Alice"], "Alice")]
    with hub.connect_as(logins["Olga"], f"pw-{logins['Olga']}") as conn:
        assert {p.name for p in people(conn)} == {"Alice", "Bob", "Olga"}


def notes_heard(conn, seconds: float = 1.0) -> list[tuple[str, str]]:
    return [(n.channel, n.payload) for n in conn.notifies(timeout=seconds)]


def test_an_annotator_hears_of_no_one_elses_writes(hub, secret_team, tmp_path):
    from simrate.hub.link.session import my_channels

    organizer, alice, logins = secret_team
    bob = join_as(hub, logins["Bob"], tmp_path / "bob.simrate")
    try:
        with as_alice(hub, logins) as ear, \
                hub.connect_as(logins["Olga"], f"pw-{logins['Olga']}") as boss:
            mine = my_channels(ear)
            assert mine and mine != my_channels(boss)
            for channel in ["simrate", *mine]:
                ear.execute(f'LISTEN "{channel}"')
            for channel in ["simrate", *my_channels(boss)]:
                boss.execute(f'LISTEN "{channel}"')
            bob.rate("d:1", "Bob", 3.0)
            sync_once(bob)
            organizer.adjudicate("d:1", 3.0, by="lead")
            sync_once(organizer)
            assert notes_heard(ear) == []
            heard = {payload for _channel, payload in notes_heard(boss)}
            assert {"ratings", "adjudications"} <= heard
            alice.rate("d:2", "Alice", 1.0)
            sync_once(alice)
            assert notes_heard(ear) == [(mine[0], "ratings")]
    finally:
        bob.close()


def test_annotators_hear_of_new_items_on_the_plain_channel(hub, secret_team):
    from tests.core.frames import make_items

    organizer, _alice, logins = secret_team
    with as_alice(hub, logins) as ear:
        ear.execute("LISTEN simrate")
        organizer.import_items(make_items(9).iloc[8:].copy(), source="more.tsv")
        sync_once(organizer)
        assert ("simrate", "items") in notes_heard(ear)


STATISTICS = [
    "SELECT n_tup_ins FROM pg_stat_user_tables",
    "SELECT n_tup_upd FROM pg_stat_all_tables",
    "SELECT heap_blks_hit FROM pg_statio_user_tables",
    "SELECT xact_commit FROM pg_stat_database",
    "SELECT usename FROM pg_stat_activity",
    "SELECT pg_stat_get_tuples_inserted('simrate.ratings'::regclass)",
    "SELECT * FROM pg_stat_get_activity(NULL)",
    "SELECT rolname FROM pg_roles",
    "SELECT member FROM pg_auth_members",
    "SELECT pid FROM pg_locks",
    "SELECT pg_relation_size('simrate.ratings')",
    "SELECT pg_try_advisory_lock(7305820)",
    "SELECT txid_current()",
    "SELECT pg_current_snapshot()",
    "SELECT age(xmin) FROM simrate.ratings",
]


def test_without_a_superuser_the_statistics_stay_open_and_publish_says_so(hub, secret_team,
                                                                          tmp_path):
    """The finding as it stands on a hub a CREATEROLE login published: the write counts of
    everyone are there to read (what a superuser then closes, below)."""
    organizer, _alice, logins = secret_team
    with as_alice(hub, logins) as conn:
        assert conn.execute("SELECT n_tup_ins FROM pg_stat_user_tables "
                            "WHERE relname = 'ratings'").fetchone() is not None
    done = hub.simrate("team", "publish", organizer.path, hub.url())
    assert done.returncode == 0, done.stderr
    assert "simrate team harden" in done.stdout


def test_harden_closes_statistics_roles_and_locks_to_annotators(hub, secret_team, tmp_path):
    from simrate.hub.team.people import list_people

    organizer, alice, logins = secret_team
    done = hub.simrate("team", "harden", hub.url())  # the publisher is no superuser
    assert done.returncode == 2 and "superuser" in done.stderr
    assert done.stderr.count("\n") == 1
    done = hub.simrate("team", "harden", hub.cluster.admin_dsn(hub.name))
    assert done.returncode == 0, done.stderr
    with as_alice(hub, logins) as conn:
        for statement in STATISTICS:
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    # everything still works: the sequence lock, the people list and who is connected
    alice.rate("d:3", "Alice", 2.0)
    assert sync_once(alice).pushed == 1
    sync_once(organizer)
    assert organizer.rating("d:3", "Alice") == 2.0
    with hub.connect_as(logins["Olga"], f"pw-{logins['Olga']}") as conn:
        assert conn.execute("SELECT count(*) FROM pg_stat_user_tables").fetchone()[0] > 0
    done = hub.simrate("team", "publish", organizer.path, hub.url())  # no superuser: it stays
    assert done.returncode == 0, done.stderr
    assert "simrate team harden" not in done.stdout
    with as_alice(hub, logins):
        found = {p.name: p for p in list_people(organizer)}
    assert found["Alice"].connected and found["Alice"].rated == 1


@pytest.mark.parametrize("statement", [
    "SELECT key FROM simrate.secret",
    "SELECT simrate.channel_for('*organizers')",
])
def test_an_annotator_cannot_work_out_anyone_elses_channel(hub, secret_team, statement):
    *_, logins = secret_team
    with as_alice(hub, logins) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)


def test_a_superuser_publishing_closes_the_statistics_at_once(hub, tmp_path):
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish
    from tests.hub.hubs import make_project

    project = make_project(tmp_path / "super.simrate")
    try:
        report = publish(project, hub.cluster.admin_dsn(hub.name))
        assert report.hardened
        add_person(project, "Alice", "annotator", "pw-alice-s", login=f"{hub.name}_as")
    finally:
        project.close()
    with hub.connect_as(f"{hub.name}_as", "pw-alice-s") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT n_tup_ins FROM pg_stat_user_tables")
