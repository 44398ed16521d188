"""The hub's doors and its one later-edit function, on a real PostgreSQL hub.

`simrate.keep_later` is the later-edit rule of ratings, verdicts and exclusions (no copy
per table is left on a hub published again); `put_rating`, `put_verdict` and
`put_exclusion` write, refuse an older edit and log it (`*_refused`) whoever calls them;
and a hub published before the doors tells a newer client, in one line, to publish again,
after which the same sync goes through.
"""

from __future__ import annotations

import pytest

from simrate.hub.link.connection import HubError
from simrate.hub.team.publish import publish
from simrate.hub.team.sync import sync_once
from tests.hub.hubs import team


@pytest.fixture
def organizer(hub, tmp_path):
    project, _logins = team(hub, tmp_path, {})
    yield project
    project.close()


def test_the_later_edit_rule_is_one_function_on_every_edited_table(hub, organizer):
    with hub.admin() as conn:
        triggers = conn.execute(
            "SELECT c.relname, t.tgname, p.proname FROM pg_trigger t "
            "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid "
            "WHERE c.relnamespace = 'simrate'::regnamespace AND t.tgname LIKE 'keep_later%' "
            "ORDER BY 1").fetchall()
        copies = conn.execute("SELECT proname FROM pg_proc WHERE pronamespace = "
                              "'simrate'::regnamespace AND proname LIKE 'keep_later_%'"
                              ).fetchall()
    # each table's update trigger and its insert trigger (called only for an edit time
    # ahead of the hub's clock) run the one function
    assert sorted(triggers) == [
        ("adjudications", "keep_later_verdict", "keep_later"),
        ("adjudications", "keep_later_verdict_ahead", "keep_later"),
        ("annotators", "keep_later_exclusion", "keep_later"),
        ("annotators", "keep_later_exclusion_ahead", "keep_later"),
        ("ratings", "keep_later_edit", "keep_later"),
        ("ratings", "keep_later_edit_ahead", "keep_later")]
    assert copies == []


def test_each_door_refuses_an_older_edit_and_logs_it(hub, organizer):
    item = organizer.items()["item_id"].iloc[0]
    with hub.admin() as conn:
        put = "SELECT simrate.put_rating(%s, 'Ann', %s, '', false, 1.0, %s)"
        conn.execute("SELECT simrate.claim_rater('Ann', 'ann', 'human')")
        assert conn.execute(put, (item, 3, 2000.0)).fetchone() == (1,)
        assert conn.execute(put, (item, 4, 1000.0)).fetchone() == (0,)  # older: refused
        assert conn.execute(put, (item, 3, 3000.0)).fetchone() == (0,)  # the same value
        verdict = "SELECT simrate.put_verdict(%s, %s, '', 'org', %s)"
        conn.execute(verdict, (item, 2, 2000.0))
        conn.execute(verdict, (item, 1, 1000.0))
        exclusion = "SELECT simrate.put_exclusion('Ann', 'ann', %s, %s)"
        conn.execute(exclusion, (True, 2000.0))
        conn.execute(exclusion, (False, 1000.0))
        held = conn.execute(
            "SELECT (SELECT code FROM simrate.ratings WHERE annotator = 'Ann'), "
            "(SELECT code FROM simrate.adjudications WHERE item_id = %s), "
            "(SELECT excluded FROM simrate.annotators WHERE name = 'Ann')", (item,)).fetchone()
        refused = conn.execute("SELECT kind, coalesce(item_id, annotator) FROM simrate.changes "
                               "WHERE kind LIKE '%%_refused' ORDER BY seq").fetchall()
    assert held == (3, 2, True)
    assert refused == [("ratings_refused", item), ("adjudications_refused", item),
                       ("exclusions_refused", "Ann")]


def test_a_hub_without_the_doors_is_told_to_publish_again(hub, organizer):
    item = organizer.items()["item_id"].iloc[0]
    with hub.admin() as conn:
        conn.execute("DROP FUNCTION simrate.put_rating(text, text, integer, text, boolean, "
                     "double precision, double precision, boolean, integer, text, boolean)")
    organizer.rate(item, "Ann", 3.0)
    with pytest.raises(HubError) as caught:
        sync_once(organizer)
    assert "publishes it again (simrate team publish)" in str(caught.value)
    assert "\n" not in str(caught.value) and "put_rating" not in str(caught.value)
    publish(organizer, hub.url())  # brought up to date: the rating goes out
    with hub.admin() as conn:
        assert conn.execute("SELECT code FROM simrate.ratings WHERE item_id = %s "
                            "AND annotator = 'Ann'", (item,)).fetchone() is not None


def test_no_setting_a_client_may_set_changes_a_stamp_or_hides_a_refused_edit(hub, organizer):
    """`simrate.rehearsal` (a setting an older client used) is a custom setting anyone may
    SET: a row written under it still takes the hub's stamp above the watermark, so every
    replica pulls it, and an older edit refused under it is still logged."""
    item = organizer.items()["item_id"].iloc[0]
    with hub.admin() as conn:
        conn.execute("SELECT simrate.claim_rater('Bo', 'bo', 'human')")
        watermark = conn.execute("SELECT coalesce(max(seq), 0) FROM simrate.ratings"
                                 ).fetchone()[0]
        conn.execute("SET simrate.rehearsal = 'on'")
        put = "SELECT simrate.put_rating(%s, 'Bo', %s, '', false, 1.0, %s)"
        conn.execute(put, (item, 3, 2000.0))
        conn.execute(put, (item, 4, 1000.0))  # older: refused, and logged
        conn.execute("RESET simrate.rehearsal")
        seq = conn.execute("SELECT seq FROM simrate.ratings WHERE annotator = 'Bo'"
                           ).fetchone()[0]
        logged = conn.execute("SELECT count(*) FROM simrate.changes WHERE kind = "
                              "'ratings_refused' AND annotator = 'Bo'").fetchone()[0]
    assert seq > watermark and logged == 1
