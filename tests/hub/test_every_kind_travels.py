"""Every kind of change travels, and the later edit wins for every kind (issue 31).

On a real PostgreSQL hub: adjudications and exclusions written by another program while a
sync applies its pull reach the hub at the next round and are counted as pending until
then (case 5); undoing an import that added its rater pushes its clears (case 6); two
organizers adjudicating one item: the verdict made later wins whoever syncs last, and the
sync that meets the other verdict lists it (`conflict_list`); an older exclusion is
refused; an offline undo never erases a newer value made on another machine (case 8).
"""

from __future__ import annotations

import time

import pytest

from simrate.core.base.events import RatingChanged, RatingState
from simrate.core.project import Project
from simrate.hub.team.sync import pending_count, sync_once
from tests.core.frames import make_items, make_ratings
from tests.hub.hubs import join_as, team


def later() -> None:
    time.sleep(0.02)


@pytest.fixture
def crew(hub, tmp_path):
    """The publishing organizer, a second organizer (Olga) and Alice on two machines."""
    org, logins = team(hub, tmp_path, {"Olga": "organizer", "Alice": "annotator"})
    olga = join_as(hub, logins["Olga"], tmp_path / "olga.simrate")
    laptop = join_as(hub, logins["Alice"], tmp_path / "laptop.simrate")
    desktop = join_as(hub, logins["Alice"], tmp_path / "desktop.simrate")
    org.rate("d:12", "Bea", 1.0)  # a rater both organizers know
    for project in (org, olga):
        sync_once(project)
    yield {"org": org, "olga": olga, "laptop": laptop, "desktop": desktop}
    for project in (org, olga, laptop, desktop):
        project.close()


def hub_one(hub, sql: str, params: tuple = ()) -> tuple | None:
    with hub.admin() as admin:
        return admin.execute(sql, params).fetchone()


def renamed_items(prefix: str, n: int):
    items = make_items(n)
    items["item_id"] = [f"{prefix}:{i}" for i in range(1, n + 1)]
    return items


def test_changes_written_while_a_pull_is_applied_reach_the_hub(hub, crew):
    org, olga, laptop = crew["org"], crew["olga"], crew["laptop"]
    laptop.rate("d:1", "Alice", 2.0)
    sync_once(laptop)  # the organizer's next pull brings this rating
    olga.import_items(renamed_items("o", 2), "olga.tsv")
    sync_once(olga)  # and these items
    other = Project.open(org.path)  # another program on the organizer's file
    wrote = []

    def meanwhile(event):
        if not wrote:  # the first change the pull applies
            wrote.append(True)
            other.refresh()
            other.import_items(renamed_items("x", 2), "x.tsv")
        if isinstance(event, RatingChanged) and len(wrote) == 1:
            wrote.append(True)
            other.adjudicate("d:2", 3.0, by="org")
            other.adjudicate("d:3", 1.0, by="org")
            other.set_excluded("Bea", True, by="org")

    org.subscribe(meanwhile)
    report = sync_once(org)
    assert len(wrote) == 2 and report.pending == 5  # written after the collect: pending
    assert pending_count(other) == 5
    report = sync_once(org)
    assert (report.pending, report.pushed) == (0, 5)
    assert hub_one(hub, "SELECT count(*) FROM simrate.items WHERE id IN ('x:1', 'x:2')") == (2,)
    assert hub_one(hub, "SELECT code FROM simrate.adjudications WHERE item_id = 'd:2'") == (12,)
    assert hub_one(hub, "SELECT code FROM simrate.adjudications WHERE item_id = 'd:3'") == (4,)
    assert hub_one(hub, "SELECT excluded FROM simrate.annotators WHERE name = 'Bea'") == (True,)
    other.close()


def test_undoing_an_import_that_added_its_rater_pushes_its_clears(hub, crew):
    org = crew["org"]
    org.import_ratings(make_ratings([(f"d:{i}", "Zed", 2.0) for i in range(1, 6)]), "zed.csv")
    sync_once(org)
    assert hub_one(hub, "SELECT count(code) FROM simrate.ratings WHERE annotator = 'Zed'") == (5,)
    undone = org.undo_import()
    assert undone["annotators_removed"] == 1 and "Zed" not in org.annotators()
    assert pending_count(org) == 5
    assert sync_once(org).pending == 0
    assert hub_one(hub, "SELECT count(code) FROM simrate.ratings WHERE annotator = 'Zed'") == (0,)
    sync_once(crew["olga"])
    assert crew["olga"].ratings().query("annotator == 'Zed'").empty


@pytest.mark.parametrize("later_syncs_first", [True, False])
def test_two_organizers_the_later_verdict_wins_and_is_listed(hub, crew, later_syncs_first):
    org, olga = crew["org"], crew["olga"]
    org.adjudicate("d:4", 1.0, by="org")
    later()
    olga.adjudicate("d:4", 4.0, note="read again", by="olga")
    first, second = (olga, org) if later_syncs_first else (org, olga)
    reports = [sync_once(first), sync_once(second), sync_once(first)]
    assert hub_one(hub, "SELECT code, note, by FROM simrate.adjudications "
                        "WHERE item_id = 'd:4'") == (16, "read again", "olga")
    for project in (org, olga):
        assert project.verdict("d:4").code == 16
    listed = [c for r in reports for c in r.conflict_list]
    assert sum(r.conflicts for r in reports) == len(listed) == 1
    assert (listed[0]["kind"], listed[0]["key"]) == ("adjudication", "d:4")
    loser = org.changes()
    if later_syncs_first:  # the organizer's own older verdict lost: logged with both
        assert listed[0]["won"] == "hub" and "conflict" in set(loser["kind"])
    else:  # Olga's newer verdict replaced one she had never seen
        assert listed[0]["won"] == "here"


def test_an_older_exclusion_is_refused_by_the_hub(hub, crew):
    org, olga = crew["org"], crew["olga"]
    org.set_excluded("Bea", True, by="org")  # made first, synced last
    later()
    olga.set_excluded("Bea", True, by="olga")
    sync_once(olga)
    later()
    olga.set_excluded("Bea", False, by="olga")
    sync_once(olga)
    report = sync_once(org)
    assert hub_one(hub, "SELECT excluded FROM simrate.annotators WHERE name = 'Bea'") == (False,)
    assert org.excluded_annotators() == [] and report.conflicts == 1
    lost = report.conflict_list[0]
    assert (lost["kind"], lost["key"], lost["here"], lost["hub"], lost["won"]) == (
        "exclusion", "Bea", True, False, "hub")
    assert 0 < lost["here_at"] < lost["hub_at"]  # both edit times, the hub's the later
    assert hub_one(hub, "SELECT count(*) FROM simrate.changes "
                        "WHERE kind = 'exclusions_refused'") == (1,)


def test_an_offline_undo_never_erases_a_newer_value_from_the_other_machine(hub, crew):
    laptop, desktop = crew["laptop"], crew["desktop"]
    laptop.rate("d:5", "Alice", 1.0)
    laptop.rate("d:6", "Alice", 1.0)
    sync_once(laptop)
    sync_once(desktop)
    later()
    desktop.rate("d:5", "Alice", 3.0)  # newer, on the other machine
    sync_once(desktop)
    # the laptop, offline, undoes both of its ratings (the window's undo: over what it left)
    for item_id in ("d:5", "d:6"):
        laptop.set_rating_state(item_id, "Alice", RatingState(),
                                expect=laptop.rating_state(item_id, "Alice"))
    report = sync_once(laptop)
    assert hub_one(hub, "SELECT code FROM simrate.ratings WHERE item_id = 'd:5' "
                        "AND annotator = 'Alice'") == (12,)  # the newer value stays
    assert laptop.rating("d:5", "Alice") == 3.0  # and comes back; the undo is reported
    assert report.conflicts == 1 and report.conflict_list[0]["key"] == "d:5/Alice"
    assert hub_one(hub, "SELECT code FROM simrate.ratings WHERE item_id = 'd:6' "
                        "AND annotator = 'Alice'") == (None,)  # nothing newer: undone


def test_an_offline_import_undo_keeps_the_newer_value_from_the_other_machine(hub, crew):
    laptop, desktop = crew["laptop"], crew["desktop"]
    laptop.import_ratings(make_ratings([("d:7", "Alice", 1.0), ("d:8", "Alice", 1.0)]), "a.csv")
    sync_once(laptop)
    sync_once(desktop)
    later()
    desktop.rate("d:7", "Alice", 4.0)
    sync_once(desktop)
    laptop.undo_import()
    report = sync_once(laptop)
    assert laptop.rating("d:7", "Alice") == 4.0 and laptop.rating("d:8", "Alice") is None
    assert report.conflicts == 1
    assert hub_one(hub, "SELECT code FROM simrate.ratings WHERE item_id = 'd:7' "
                        "AND annotator = 'Alice'") == (16,)


def test_a_no_op_leaves_nothing_to_push(hub, crew):
    org = crew["org"]
    org.rate("d:9", "Olga", 2.0)
    org.adjudicate("d:9", 2.0, by="org")
    org.set_excluded("Olga", True, by="org")
    sync_once(org)
    before = len(org.changes())
    org.rate("d:9", "Olga", 2.0)
    org.adjudicate("d:9", 2.0, by="org")
    org.set_excluded("Olga", True, by="org")
    assert len(org.changes()) == before and pending_count(org) == 0


def test_raters_an_import_adds_reach_the_hub_with_their_kind(hub, crew):
    """A person or crowd worker imported into the organizer's replica after publishing is
    known to the hub, as that kind, after the next sync (so that no other kind can take
    the name there)."""
    from simrate.core.data.store import CROWD

    org = crew["org"]
    org.import_ratings(make_ratings([("d:1", "carol", 2.0)]), "crowd.csv", kind=CROWD)
    org.import_ratings(make_ratings([("d:2", "dan", 1.0)]), "dan.csv")
    sync_once(org)
    for name, kind in (("carol", "crowd"), ("dan", "human")):
        assert hub_one(hub, "SELECT kind FROM simrate.annotators WHERE name = %s",
                       (name,)) == (kind,)
    assert org.team_tables.read("SELECT count(*) FROM hub_outbox")[0][0] == 0


def test_a_verdict_changed_during_the_round_is_no_conflict_and_goes_next(hub, crew):
    """The pull brings back this round's own verdict while a newer one was written here
    meanwhile: nothing from another machine, so no conflict; the newer one goes next."""
    from simrate.hub.link.connection import connect
    from simrate.hub.link.exchange import exchange
    from simrate.hub.link.replica import read_link, watermarks
    from simrate.hub.team.sync import absorb, collect, tables_for

    org = crew["org"]
    link = read_link(org)
    org.adjudicate("d:5", 1.0, by="org")
    outbox = collect(org, link)
    later()
    org.adjudicate("d:5", 2.0, by="org")  # while the round is on the network
    conn = connect(link.url)
    try:
        received = exchange(conn, link.replica, outbox, watermarks(org, tables_for(link)),
                            True)
    finally:
        conn.close()
    report = absorb(org, link, outbox, received)
    assert (report.conflicts, report.pending) == (0, 1) and org.verdict("d:5").code == 8
    assert sync_once(org).pending == 0
    assert hub_one(hub, "SELECT code FROM simrate.adjudications WHERE item_id = 'd:5'") == (8,)
