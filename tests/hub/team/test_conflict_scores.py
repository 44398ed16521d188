"""`conflict_list` gives both values as scores, never codes (DESIGN.md, issue 42): for a
verdict this machine's newer edit won and one it lost, for ratings and for exclusions, in
the report and in `team sync --json`; the conflicts a push meets are in the change log
too. Real PostgreSQL."""

from __future__ import annotations

import json

import pytest

from simrate.hub.team.sync import sync_once
from tests.hub import test_every_kind_travels as travels

crew = travels.crew  # the fixture: Alice on two machines and two organizers
later = travels.later

#: On the STS scale (0 to 5 by 0.25) a score's code is four times it: 4.0 is code 16.
SCALE_HIGH = 5.0


def _is_score(value) -> bool:
    return value is None or (isinstance(value, float) and 0.0 <= value <= SCALE_HIGH)


@pytest.mark.parametrize("later_syncs_first", [True, False])
def test_verdict_conflicts_won_and_lost_are_listed_as_scores(hub, crew, later_syncs_first):
    org, olga = crew["org"], crew["olga"]
    org.adjudicate("d:4", 1.0, by="org")
    later()
    olga.adjudicate("d:4", 4.0, note="read again", by="olga")
    first, second = (olga, org) if later_syncs_first else (org, olga)
    reports = [sync_once(first), sync_once(second), sync_once(first)]
    listed = [c for r in reports for c in r.conflict_list]
    assert len(listed) == 1
    entry = listed[0]
    assert entry["won"] == ("hub" if later_syncs_first else "here")
    mine, theirs = (1.0, 4.0) if later_syncs_first else (4.0, 1.0)
    assert (entry["here"], entry["hub"]) == (mine, theirs)
    assert json.loads(json.dumps([r.as_dict() for r in reports]))  # JSON as it prints
    if not later_syncs_first:  # the push met it: logged here with both scores as well
        logged = olga.changes().query("kind == 'conflict'")
        assert len(logged) == 1
        assert logged.iloc[0]["old"]["value"] == 4.0
        assert logged.iloc[0]["new"]["value"] == 1.0


def test_team_sync_json_lists_a_rating_conflict_as_scores(hub, crew):
    laptop, desktop = crew["laptop"], crew["desktop"]
    laptop.rate("d:9", "Alice", 1.0)
    later()
    desktop.rate("d:9", "Alice", 4.5)
    sync_once(desktop)
    done = hub.simrate("team", "sync", laptop.path, "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["conflict_list"]
    assert [(c["kind"], c["key"], c["here"]["score"], c["hub"]["score"], c["won"])
            for c in listed] == [("rating", "d:9/Alice", 1.0, 4.5, "hub")]
    assert all(_is_score(c[side]["score"]) for c in listed for side in ("here", "hub"))


def test_a_rating_the_hub_held_as_this_machine_saw_it_is_no_conflict(hub, crew):
    laptop, desktop = crew["laptop"], crew["desktop"]
    laptop.rate("d:9", "Alice", 1.0)
    sync_once(laptop)
    sync_once(desktop)  # the desktop has seen 1.0
    later()
    desktop.rate("d:9", "Alice", 3.0)
    report = sync_once(desktop)
    assert report.conflicts == 0 and report.conflict_list == ()
