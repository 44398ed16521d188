"""The sync engine: sequential edits, exactly-once delivery, the event path."""

from __future__ import annotations

import pytest

from simrate.core.agreement import alpha
from simrate.core.base.events import RatingChanged
from simrate.core.base.flagrule import FlagRule
from simrate.hub.link.connection import connect
from simrate.hub.link.exchange import exchange
from simrate.hub.link.replica import read_link, watermarks
from simrate.hub.team.sync import collect, sync_once, tables_for
from tests.hub.hubs import join_as, team


@pytest.fixture
def two_machines(hub, tmp_path):
    """The organizer, and Alice joined on two machines."""
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    first = join_as(hub, logins["Alice"], tmp_path / "laptop.simrate")
    second = join_as(hub, logins["Alice"], tmp_path / "desktop.simrate")
    yield organizer, first, second
    for project in (organizer, first, second):
        project.close()


def hub_log(hub, item_id: str, kind: str = "ratings") -> list[tuple]:
    with hub.admin() as admin:
        return admin.execute("SELECT old ->> 'code', new ->> 'code' FROM simrate.changes "
                             "WHERE item_id = %s AND kind = %s ORDER BY seq",
                             (item_id, kind)).fetchall()


def test_a_later_edit_replaces_an_earlier_one_everywhere(hub, two_machines):
    """Sequential edits on two machines (the older one synced first): the later one wins,
    and the value it replaced stays in the hub's change log. The opposite order, and the
    conflicts it reports, are in test_later_edit.py."""
    organizer, laptop, desktop = two_machines
    laptop.rate("d:1", "Alice", 1.0)
    desktop.rate("d:1", "Alice", 4.0)  # rated on the other machine before it pulled
    sync_once(laptop)
    sync_once(desktop)
    sync_once(laptop)
    sync_once(organizer)
    assert laptop.rating("d:1", "Alice") == desktop.rating("d:1", "Alice") == 4.0
    assert organizer.rating("d:1", "Alice") == 4.0
    # the overwritten value stays in the hub's change log (codes: 1.0 -> 4, 4.0 -> 16)
    assert hub_log(hub, "d:1") == [(None, "4"), ("4", "16")]


def test_a_pending_local_change_is_not_overwritten_by_a_pull(hub, two_machines):
    _organizer, laptop, desktop = two_machines
    desktop.rate("d:2", "Alice", 3.0)
    sync_once(desktop)
    laptop.rate("d:2", "Alice", 0.5)  # not pushed yet when the laptop's round starts
    report = sync_once(laptop)
    assert report.pushed == 1 and laptop.rating("d:2", "Alice") == 0.5
    sync_once(desktop)
    assert desktop.rating("d:2", "Alice") == 0.5


def test_a_cleared_rating_reaches_every_replica(hub, two_machines):
    organizer, laptop, desktop = two_machines
    laptop.rate("d:3", "Alice", 2.0)
    sync_once(laptop)
    sync_once(desktop)
    sync_once(organizer)
    assert organizer.rating("d:3", "Alice") == desktop.rating("d:3", "Alice") == 2.0
    desktop.rate("d:3", "Alice", None)
    sync_once(desktop)
    sync_once(organizer)
    sync_once(laptop)
    assert organizer.rating_record("d:3", "Alice") is None
    assert laptop.rating_record("d:3", "Alice") is None


def test_adjudications_exclusions_and_threshold_travel_between_organizers(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Olga": "organizer", "Alice": "annotator"})
    olga = join_as(hub, logins["Olga"], tmp_path / "olga.simrate")
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    alice.rate("d:4", "Alice", 5.0)
    sync_once(alice)
    organizer.adjudicate("d:4", 2.0, note="first look", by="org")
    olga.adjudicate("d:4", 3.0, note="second look", by="Olga")
    sync_once(organizer)
    sync_once(olga)  # reaches the hub last: wins
    sync_once(organizer)
    for project in (organizer, olga):
        adjudications = project.adjudications().set_index("item_id")
        assert adjudications.loc["d:4", "score"] == 3.0
        assert adjudications.loc["d:4", "note"] == "second look"
    assert hub_log(hub, "d:4", "adjudications") == [(None, "8"), ("8", "12")]
    olga.set_excluded("Alice", True, by="Olga")
    olga.set_threshold(2.0)
    sync_once(olga)
    sync_once(organizer)
    assert organizer.excluded_annotators() == ["Alice"]
    assert organizer.threshold == 2.0
    assert "d:4" not in alice.adjudications()["item_id"].tolist()  # annotators never see them
    for project in (organizer, olga, alice):
        project.close()


def test_the_flag_rule_travels_between_organizers_and_to_annotators(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Olga": "organizer", "Alice": "annotator"})
    olga = join_as(hub, logins["Olga"], tmp_path / "olga.simrate")
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    assert olga.flag_rule == organizer.flag_rule == FlagRule()  # published with the file's
    olga.set_flag_rule("uncertain", 0.6)
    sync_once(olga)
    for project in (organizer, alice):
        sync_once(project)
        assert project.flag_rule == FlagRule("uncertain", 1.0, 0.6)
    assert list(organizer.changes()["kind"]).count("flag_rule") == 1  # applied, logged once
    # both change it before their next sync: the one that reaches the hub last holds
    organizer.set_flag_rule("range", 1.5)
    olga.set_flag_rule("auto", 0.9)
    sync_once(organizer)
    sync_once(olga)
    sync_once(organizer)
    assert organizer.flag_rule == olga.flag_rule == FlagRule("auto", 1.5, 0.9)
    sync_once(olga)  # nothing left to send: the rule is not pushed round after round
    assert collect(olga, read_link(olga)).flag_rule is None
    for project in (organizer, olga, alice):
        project.close()


def test_a_lost_reply_is_resent_and_taken_once(hub, two_machines):
    _organizer, laptop, _desktop = two_machines
    laptop.rate("d:5", "Alice", 1.0)
    laptop.rate("d:6", "Alice", 2.0)
    link = read_link(laptop)
    outbox = collect(laptop, link)
    conn = connect(link.url)
    received = exchange(conn, link.replica, outbox, watermarks(laptop, tables_for(link)),
                        False)
    conn.close()
    assert received.pushed == 2
    # the reply never reached the file (the process died here); the user rates on
    laptop.rate("d:7", "Alice", 3.0)
    report = sync_once(laptop)
    assert report.pushed == 1 and report.pending == 0
    for item_id in ("d:5", "d:6", "d:7"):
        assert len(hub_log(hub, item_id)) == 1


def test_pulled_ratings_take_the_projects_event_path(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator", "Bob": "annotator"})
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    bob = join_as(hub, logins["Bob"], tmp_path / "bob.simrate")
    live_before = organizer.live.alpha()  # the live engine exists before the pull
    assert live_before is None
    seen = []
    organizer.subscribe(seen.append)
    for i in range(1, 9):
        alice.rate(f"d:{i}", "Alice", float(i % 6))
        bob.rate(f"d:{i}", "Bob", float((i + 1) % 6))
    sync_once(alice)
    sync_once(bob)
    sync_once(organizer)
    assert sum(isinstance(e, RatingChanged) for e in seen) == 16
    table = organizer.ratings().pivot(index="annotator", columns="item_id", values="score")
    assert organizer.live.alpha() == pytest.approx(alpha(table.to_numpy(dtype=float)))
    spread = table.max() - table.min()
    assert organizer.flagged_ids() == set(spread[spread >= organizer.threshold].index)
    for project in (organizer, alice, bob):
        project.close()


def test_items_added_after_publishing_reach_the_replicas(hub, two_machines):
    """The organizer imports more items from a file; every replica gets them with their
    texts and can rate them (the hub reads each item's source from the sources table)."""
    from tests.core.frames import make_items

    organizer, laptop, _desktop = two_machines
    more = make_items(15).iloc[12:].reset_index(drop=True)  # d:13 .. d:15
    added, _ = organizer.import_items(more, source="second batch.tsv")
    assert added == 3
    sync_once(organizer)
    sync_once(laptop)
    assert laptop.has_item("d:14")
    assert laptop.item("d:14")["left"] == organizer.item("d:14")["left"]
    laptop.rate("d:14", "Alice", 2.5)
    sync_once(laptop)
    sync_once(organizer)
    assert organizer.rating("d:14", "Alice") == 2.5
