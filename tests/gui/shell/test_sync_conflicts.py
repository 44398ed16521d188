"""How the window says a sync conflict: values in the scale's numbers, lost edits first.
(The list read from a real replica's change log after a real round: tests/hub/
test_gui_conflicts.py.)"""

from __future__ import annotations

import pandas as pd

from simrate.gui.shell.sync_conflicts import conflict_rows, summary, value_text, what_text


def test_values_read_as_the_scale_writes_them():
    assert value_text("rating", {"score": 3.25, "note": "", "skipped": False}) == "3.25"
    assert value_text("rating", {"score": 4.0, "note": "unsure", "skipped": False}) == \
        "4 \u201cunsure\u201d"
    assert value_text("rating", {"score": None, "note": "", "skipped": True}) == "skipped"
    assert value_text("rating", {"score": None, "note": "", "skipped": False}) == "cleared"
    assert value_text("adjudication", 0.5) == "0.5"
    assert value_text("adjudication", None) == "withdrawn"
    assert value_text("exclusion", True) == "excluded"
    assert value_text("exclusion", False) == "counted"
    assert what_text("rating", "d:9/Alice") == "rating of d:9 by Alice"
    assert what_text("rating", "a/b/Alice") == "rating of a/b by Alice"
    assert what_text("adjudication", "d:4") == "verdict on d:4"


def test_lost_edits_come_first_newest_first():
    frame = pd.DataFrame({
        "kind": ["rating", "conflict", "conflict", "conflict"],
        "at": [1.0, 10.0, 20.0, 30.0],
        "item_id": ["x", "d:1", "d:4", None],
        "annotator": [None, "Al", None, "W1"],
        "old": [None, {"score": 1.0, "note": "", "skipped": False, "at": 9.0},
                {"kind": "adjudication", "value": 4.0}, {"kind": "exclusion", "value": True}],
        "new": [None, {"score": 4.5, "note": "", "skipped": False, "at": 9.5},
                {"kind": "adjudication", "value": 1.0, "won": "here"},
                {"kind": "exclusion", "value": False, "won": "hub"}]})
    rows = conflict_rows(frame)
    assert [(r.what, r.here, r.other, r.lost) for r in rows] == [
        ("exclusion of W1", "excluded", "counted", True),
        ("rating of d:1 by Al", "1", "4.5", True),
        ("verdict on d:4", "4", "1", False)]
    assert summary(rows).startswith("2 edits made here lost to a later edit made on another "
                                    "machine; 1 made later here won.")
    assert summary(rows[2:]).startswith("0 edits made here lost")
    assert summary([]).startswith("No sync conflicts")
