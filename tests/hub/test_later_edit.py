"""One person on two machines: the edit MADE later wins, whichever machine syncs first.

Two replicas of Alice against a real PostgreSQL hub. The losing sync says so (`conflicts`),
both values stay in the losing machine's change log and in the hub's, and the hub refuses
an older edit on every route a client has (not only simrate's own upsert).
"""

from __future__ import annotations

import json
import time

import pytest

from simrate.hub.link.connection import connect
from simrate.hub.link.exchange import exchange
from simrate.hub.link.replica import read_link, watermarks
from simrate.hub.team.sync import absorb, collect, sync_once, tables_for
from tests.hub.hubs import join_as, team


@pytest.fixture
def alice_twice(hub, tmp_path):
    """The organizer, and Alice joined on a laptop and a desktop; plus Alice's login."""
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    laptop = join_as(hub, logins["Alice"], tmp_path / "laptop.simrate")
    desktop = join_as(hub, logins["Alice"], tmp_path / "desktop.simrate")
    yield organizer, laptop, desktop, logins["Alice"]
    for project in (organizer, laptop, desktop):
        project.close()


def later() -> None:
    """Let the clock move on, so that the next edit is made strictly later."""
    time.sleep(0.02)


def hub_rating(hub, item_id: str) -> tuple:
    with hub.admin() as admin:
        return admin.execute("SELECT code, note, updated_at FROM simrate.ratings "
                             "WHERE item_id = %s AND annotator = 'Alice'", (item_id,)).fetchone()


def hub_log(hub, item_id: str) -> list[tuple]:
    """(kind, old code, new code, old note, new note) of the hub's change log for the item."""
    with hub.admin() as admin:
        return admin.execute(
            "SELECT kind, old ->> 'code', new ->> 'code', old ->> 'note', new ->> 'note' "
            "FROM simrate.changes WHERE item_id = %s ORDER BY seq", (item_id,)).fetchall()


def conflict_entries(project) -> list[tuple]:
    changes = project.changes()
    rows = changes[changes["kind"] == "conflict"]
    def value(v):
        return json.loads(v) if isinstance(v, str) else v

    return [(r.item_id, value(r.old), value(r.new)) for r in rows.itertuples()]


@pytest.mark.parametrize("newer_syncs_first", [True, False])
def test_the_edit_made_later_wins_in_both_sync_orders(hub, alice_twice, newer_syncs_first):
    organizer, laptop, desktop, _login = alice_twice
    laptop.rate("d:1", "Alice", 1.0)  # made first
    later()
    desktop.rate("d:1", "Alice", 4.0)  # made later: must win
    first, second = (desktop, laptop) if newer_syncs_first else (laptop, desktop)
    reports = [sync_once(first), sync_once(second), sync_once(first), sync_once(second)]
    sync_once(organizer)
    for project in (laptop, desktop, organizer):
        assert project.rating("d:1", "Alice") == 4.0
    assert hub_rating(hub, "d:1")[0] == 16  # code of 4.0
    kinds = [row[0] for row in hub_log(hub, "d:1")]
    codes = {code for row in hub_log(hub, "d:1") for code in row[1:3]}
    assert {"4", "16"} <= codes  # both values are on record at the hub
    if newer_syncs_first:
        # the laptop's older edit reached the hub last: refused there, reported, logged
        assert [r.conflicts for r in reports] == [0, 1, 0, 0]
        assert kinds == ["ratings", "ratings_refused"]
        [(item_id, lost, won)] = conflict_entries(laptop)
        assert item_id == "d:1" and lost["score"] == 1.0 and won["score"] == 4.0
        assert lost["at"] < won["at"]
    else:
        # the older edit was on the hub first and was replaced by the later one: no loss
        assert [r.conflicts for r in reports] == [0, 0, 0, 0]
        assert kinds == ["ratings", "ratings"]
        assert conflict_entries(laptop) == []
    assert conflict_entries(desktop) == []


@pytest.mark.parametrize("note_edit_is_later", [False, True])
def test_a_note_only_edit_is_an_edit_and_loses_to_a_later_score(hub, alice_twice,
                                                               note_edit_is_later):
    _organizer, laptop, desktop, _login = alice_twice
    laptop.rate("d:2", "Alice", 2.0)
    sync_once(laptop)
    sync_once(desktop)
    assert desktop.rating("d:2", "Alice") == 2.0
    later()
    if note_edit_is_later:
        desktop.rate("d:2", "Alice", 5.0)
        later()
        laptop.rate("d:2", "Alice", 2.0, note="looked again")  # note only, made last
    else:
        laptop.rate("d:2", "Alice", 2.0, note="looked again")  # note only, made first
        later()
        desktop.rate("d:2", "Alice", 5.0)
    desktop_report = sync_once(desktop)
    laptop_report = sync_once(laptop)  # reaches the hub last
    sync_once(desktop)
    expected = (2.0, "looked again") if note_edit_is_later else (5.0, "")
    for project in (laptop, desktop):
        record = project.rating_record("d:2", "Alice")
        assert (record["score"], record["note"]) == expected
    assert desktop_report.conflicts == 0
    assert laptop_report.conflicts == (0 if note_edit_is_later else 1)


def test_a_pull_does_not_overwrite_a_later_local_edit_and_does_overwrite_an_older_one(
        hub, alice_twice):
    """The rule holds where a pulled value meets a local edit not yet pushed (an edit made
    while the round was on the network)."""
    _organizer, laptop, desktop, _login = alice_twice
    link = read_link(laptop)

    def laptop_round(between=lambda: None):
        outbox = collect(laptop, link)
        between()  # after the outbox was read, before the exchange
        conn = connect(link.url)
        try:
            received = exchange(conn, link.replica, outbox,
                                watermarks(laptop, tables_for(link)), False)
        finally:
            conn.close()
        return absorb(laptop, link, outbox, received)

    def older_here_then_later_there():
        laptop.rate("d:3", "Alice", 1.0)
        later()
        desktop.rate("d:3", "Alice", 3.0)
        sync_once(desktop)

    # an older local edit gives way to the later pulled one, and the loss is reported
    report = laptop_round(older_here_then_later_there)
    assert report.conflicts == 1 and laptop.rating("d:3", "Alice") == 3.0
    [(item_id, lost, won)] = conflict_entries(laptop)
    assert item_id == "d:3" and (lost["score"], won["score"]) == (1.0, 3.0)

    def later_here():
        desktop.rate("d:4", "Alice", 0.5)
        sync_once(desktop)
        later()
        laptop.rate("d:4", "Alice", 5.0)

    # a later local edit is kept, and wins at the next push
    report = laptop_round(later_here)
    assert report.conflicts == 0 and laptop.rating("d:4", "Alice") == 5.0
    assert report.pending == 1
    assert sync_once(laptop).pushed == 1
    sync_once(desktop)
    assert desktop.rating("d:4", "Alice") == 5.0

    # an edit the hub refuses, edited here again (later) during the round: the newest stays
    laptop.rate("d:10", "Alice", 1.0)
    later()
    desktop.rate("d:10", "Alice", 3.0)
    sync_once(desktop)
    report = laptop_round(lambda: (later(), laptop.rate("d:10", "Alice", 5.0)))
    assert laptop.rating("d:10", "Alice") == 5.0 and report.pending == 1
    sync_once(laptop)
    sync_once(desktop)
    assert desktop.rating("d:10", "Alice") == 5.0


def test_the_hub_refuses_an_older_edit_on_any_route(hub, alice_twice):
    """Alice's own login, with psql-like access, cannot put an older edit over a later
    one; the attempt is logged with both values."""
    _organizer, laptop, _desktop, login = alice_twice
    laptop.rate("d:5", "Alice", 4.0)
    sync_once(laptop)
    code, _note, stamp = hub_rating(hub, "d:5")
    conn = hub.connect_as(login, f"pw-{login}")
    try:
        changed = conn.execute("UPDATE simrate.ratings SET code = 0, updated_at = %s "
                               "WHERE item_id = 'd:5'", (stamp - 10,)).rowcount
        assert changed == 0
        conn.execute("UPDATE simrate.ratings SET code = 4, updated_at = %s WHERE item_id = "
                     "'d:5'", (stamp + 1,))
    finally:
        conn.close()
    assert hub_rating(hub, "d:5")[0] == 4
    log = hub_log(hub, "d:5")
    assert log[1] == ("ratings_refused", "16", "0", "", "")
    assert log[2][:3] == ("ratings", "16", "4")


def test_a_clock_far_ahead_cannot_make_an_edit_win_for_ever(hub, alice_twice):
    """A stamp more than a minute ahead of the hub's clock is replaced by the hub's time:
    the other machine's next edit still wins."""
    _organizer, laptop, desktop, _login = alice_twice
    year = 365 * 24 * 3600.0
    laptop.rate("d:6", "Alice", 1.0)
    with laptop.team_tables.transaction() as conn:  # the laptop's clock is a year ahead
        conn.execute("UPDATE ratings SET updated_at = updated_at + ?", (year,))
    sync_once(laptop)
    assert hub_rating(hub, "d:6")[2] < time.time() + 120
    later()
    desktop.rate("d:6", "Alice", 3.0)
    sync_once(desktop)
    report = sync_once(laptop)
    assert hub_rating(hub, "d:6")[0] == 12
    assert laptop.rating("d:6", "Alice") == 3.0 and report.conflicts == 0


def test_team_sync_reports_conflicts_in_json_and_text(hub, alice_twice, tmp_path):
    organizer, laptop, desktop, _login = alice_twice
    for item_id in ("d:7", "d:8"):
        laptop.rate(item_id, "Alice", 1.0)
    later()
    desktop.rate("d:7", "Alice", 2.0)
    desktop.rate("d:8", "Alice", 2.0)
    for project in (organizer, laptop, desktop):
        project.close()
    done = hub.simrate("team", "sync", tmp_path / "desktop.simrate", "--json")
    assert json.loads(done.stdout) == {"pushed": 2, "pulled": 0, "pending": 0,
                                       "conflicts": 0, "hub": "reachable", "kept_out": 0}
    done = hub.simrate("team", "sync", tmp_path / "laptop.simrate")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 2 and "pushed 0, pulled 2, pending 0" in lines[0]
    assert "2 rating edits made here lost to a later edit" in lines[1]
    laptop_path = tmp_path / "laptop.simrate"
    from simrate.core.project import Project

    with Project.open(laptop_path) as again:
        again.rate("d:9", "Alice", 1.0)
    desktop_path = tmp_path / "desktop.simrate"
    with Project.open(desktop_path) as again:
        later()
        again.rate("d:9", "Alice", 5.0)
    assert hub.simrate("team", "sync", desktop_path).returncode == 0
    done = hub.simrate("team", "sync", laptop_path, "--json")
    found = json.loads(done.stdout)
    listed = found.pop("conflict_list")  # the documented keys, and the list beside them
    assert found == {"pushed": 0, "pulled": 1, "pending": 0, "conflicts": 1,
                     "hub": "reachable", "kept_out": 0}
    assert [(c["kind"], c["key"], c["here"]["score"], c["hub"]["score"], c["won"])
            for c in listed] == [("rating", "d:9/Alice", 1.0, 5.0, "hub")]


def test_the_window_says_when_an_edit_made_here_lost(qtbot, hub, tmp_path):
    """Alice rated on the laptop, then later on the desktop, which synced first; when the
    laptop's window opens and syncs, the status bar says the laptop's edit lost."""
    from simrate.core.project import Project
    from tests.hub.test_gui_hub import open_window, status_text

    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    organizer.close()
    for machine in ("laptop", "desktop"):
        join_as(hub, logins["Alice"], tmp_path / f"{machine}.simrate").close()
    with Project.open(tmp_path / "laptop.simrate") as laptop:
        laptop.rate("d:1", "Alice", 1.0)
    later()
    with Project.open(tmp_path / "desktop.simrate") as desktop:
        desktop.rate("d:1", "Alice", 4.0)
        sync_once(desktop)
    window = open_window(qtbot, tmp_path, tmp_path / "laptop.simrate", "Alice")
    qtbot.waitUntil(lambda: "connected \u00b7 0 pending" in status_text(window), timeout=10000)
    qtbot.waitUntil(lambda: "lost to a later edit" in window.statusBar().currentMessage(),
                    timeout=5000)
    assert window.statusBar().currentMessage().startswith("1 rating edit made here lost")
    assert window.hub_link.sync.conflicts == 1
    assert window.context.project.rating("d:1", "Alice") == 4.0
    window.close()


def test_a_clock_far_off_the_hubs_is_reported(hub, alice_twice, monkeypatch):
    """Each round measures this machine's clock against the hub's; `team sync` warns when
    they differ by more than a minute (edits are ordered by the time they were made)."""
    import types

    from simrate.hub.link import exchange as exchange_module
    from simrate.hub.team.sync import clock_line

    _organizer, laptop, _desktop, _login = alice_twice
    assert abs(sync_once(laptop).clock_offset) < 60
    assert clock_line(sync_once(laptop).clock_offset) is None
    ahead = types.SimpleNamespace(time=lambda: time.time() + 3 * 3600)
    monkeypatch.setattr(exchange_module, "time", ahead)  # this machine's clock, 3 h ahead
    offset = sync_once(laptop).clock_offset
    assert 3 * 3600 - 60 < offset < 3 * 3600 + 60
    assert clock_line(offset).startswith("this computer's clock is 3.0 hours ahead of")
    assert clock_line(-600).startswith("this computer's clock is 10 minutes behind")


def test_an_edit_made_after_seeing_a_value_wins_even_with_this_clock_behind(hub, alice_twice):
    """The desktop's clock runs 30 s ahead (less than the hub's limit): the laptop pulls
    its rating, and the edit Alice then makes on the laptop is still the later one."""
    _organizer, laptop, desktop, _login = alice_twice
    desktop.rate("d:11", "Alice", 1.0)
    with desktop.team_tables.transaction() as conn:  # as the desktop's clock stamped it
        conn.execute("UPDATE ratings SET updated_at = updated_at + 30")
    sync_once(desktop)
    sync_once(laptop)
    assert laptop.rating("d:11", "Alice") == 1.0
    laptop.rate("d:11", "Alice", 4.5)  # seen, then changed: made after the desktop's edit
    assert sync_once(laptop).conflicts == 0
    sync_once(desktop)
    assert desktop.rating("d:11", "Alice") == 4.5 and hub_rating(hub, "d:11")[0] == 18


def test_clearing_a_rating_is_an_edit_too(hub, alice_twice):
    """A cleared rating carries the time it was cleared: an older clear loses to a later
    score, and a later clear wins over an older score, in either sync order."""
    _organizer, laptop, desktop, _login = alice_twice
    for item_id in ("d:1", "d:2"):
        laptop.rate(item_id, "Alice", 2.0)
    sync_once(laptop)
    sync_once(desktop)
    laptop.rate("d:1", "Alice", None)  # cleared first ...
    later()
    desktop.rate("d:1", "Alice", 3.0)  # ... scored later
    desktop.rate("d:2", "Alice", 4.0)  # scored first ...
    later()
    laptop.rate("d:2", "Alice", None)  # ... cleared later
    sync_once(desktop)
    report = sync_once(laptop)
    sync_once(desktop)
    assert report.conflicts == 1
    for project in (laptop, desktop):
        assert project.rating("d:1", "Alice") == 3.0
        assert project.rating_record("d:2", "Alice") is None
    assert hub_rating(hub, "d:1")[0] == 12 and hub_rating(hub, "d:2")[0] is None


def test_the_window_warns_when_this_clock_is_far_off_the_hubs(qtbot, hub, tmp_path,
                                                              monkeypatch):
    import types

    from simrate.hub.link import exchange as exchange_module
    from tests.hub.test_gui_hub import open_window, status_text

    organizer, logins = team(hub, tmp_path, {"Alice": "annotator"})
    organizer.close()
    join_as(hub, logins["Alice"], tmp_path / "laptop.simrate").close()
    behind = types.SimpleNamespace(time=lambda: time.time() - 3 * 3600)
    monkeypatch.setattr(exchange_module, "time", behind)  # this machine's clock, 3 h behind
    window = open_window(qtbot, tmp_path, tmp_path / "laptop.simrate", "Alice")
    qtbot.waitUntil(lambda: "connected" in status_text(window), timeout=10000)
    tip = window.hub_link.status.toolTip()
    assert "this computer's clock is 3.0 hours behind the hub's" in tip
    window.close()


def _clock(monkeypatch, seconds: float) -> None:
    """This machine's clock `seconds` off the hub's, as each round measures it."""
    import types

    from simrate.hub.link import exchange as exchange_module

    monkeypatch.setattr(exchange_module, "time",
                        types.SimpleNamespace(time=lambda: time.time() + seconds))


def _stamped_by(project, seconds: float, item_id: str) -> None:
    """The rating just made on `item_id`, stamped as a clock `seconds` off would have."""
    with project.team_tables.transaction() as conn:
        conn.execute("UPDATE ratings SET updated_at = updated_at + ? WHERE item_ord = "
                     "(SELECT ord FROM items WHERE id = ?)", (seconds, item_id))
        conn.execute("UPDATE hub_outbox SET at = (SELECT r.updated_at FROM ratings r JOIN "
                     "items i ON i.ord = r.item_ord WHERE i.id = ?) WHERE item_id = ?",
                     (item_id, item_id))


@pytest.mark.parametrize("skew", [3 * 3600.0, 50.0, -3 * 3600.0],
                         ids=["3 h ahead", "50 s ahead", "3 h behind"])
def test_a_clock_off_the_hubs_never_orders_the_edits(hub, alice_twice, monkeypatch, skew):
    """The laptop's clock is off the hub's; it rates offline, then comes back. Its edits
    are ordered by when they were made in the hub's time (each round measures the offset):
    an edit it made before the desktop's loses, and is reported, whichever way the clock
    is off; an edit it made after the desktop's wins."""
    from simrate.hub.link.replica_state import clock_offset

    _organizer, laptop, desktop, _login = alice_twice
    with monkeypatch.context() as patch:
        _clock(patch, skew)
        sync_once(laptop)  # online once: the round measures the laptop's clock
    assert abs(clock_offset(laptop) - skew) < 5
    laptop.rate("d:1", "Alice", 1.0)  # offline, made first
    _stamped_by(laptop, skew, "d:1")
    time.sleep(0.3)
    desktop.rate("d:1", "Alice", 4.0)  # made later, on an honest clock
    desktop.rate("d:2", "Alice", 1.0)  # made first
    sync_once(desktop)
    time.sleep(0.3)
    laptop.rate("d:2", "Alice", 4.5)  # made later, on the laptop
    _stamped_by(laptop, skew, "d:2")
    with monkeypatch.context() as patch:
        _clock(patch, skew)
        report = sync_once(laptop)
    sync_once(desktop)
    assert hub_rating(hub, "d:1")[0] == 16 and hub_rating(hub, "d:2")[0] == 18
    for project in (laptop, desktop):
        assert project.rating("d:1", "Alice") == 4.0 and project.rating("d:2", "Alice") == 4.5
    assert report.conflicts == 1  # the laptop is told its d:1 lost, in scores
    [lost] = report.conflict_list
    assert (lost["key"], lost["here"]["score"], lost["hub"]["score"], lost["won"]) == \
        ("d:1/Alice", 1.0, 4.0, "hub")
