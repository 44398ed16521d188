"""The project file and the Project facade."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import contextmanager

import pandas as pd
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingChanged
from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.data.store import SCHEMA_VERSION
from simrate.core.project import Project


def make_items(n: int, prefix: str = "x") -> pd.DataFrame:
    """An item table of n pairs with ids prefix:1..n."""
    return item_frame({
        "item_id": [f"{prefix}:{i}" for i in range(1, n + 1)],
        "left": [f"left text {i}" for i in range(1, n + 1)],
        "right": [f"right text {i}" for i in range(1, n + 1)],
        "dataset": ["d"] * n,
        "genre": ["g"] * n,
        "reference": [float("nan")] * n,
        "meta": [{"k": i} for i in range(1, n + 1)],
        "line": list(range(1, n + 1)),
    })


def make_ratings(rows: list[tuple[str, str, float]]) -> pd.DataFrame:
    """A ratings table from (item_id, annotator, score) rows."""
    return rating_frame({
        "item_id": [r[0] for r in rows],
        "annotator": [r[1] for r in rows],
        "score": [r[2] for r in rows],
        "note": [""] * len(rows),
        "line": list(range(2, len(rows) + 2)),
    })


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.simrate", scale="sts", title="t")
    p.import_items(make_items(5), source="items.tsv")
    yield p
    p.close()


def test_create_open_roundtrip(tmp_path):
    path = tmp_path / "a.simrate"
    Project.create(path, scale="clss", title="My data").close()
    with Project.open(path) as p:
        assert p.title == "My data"
        assert (p.scale.low, p.scale.high, p.scale.step) == (0, 4, 0.25)
        assert p.n_items == 0
        mode = p.team_tables.read("PRAGMA journal_mode")[0][0]
        assert mode == "wal"


def test_create_refuses_existing_file(tmp_path):
    path = tmp_path / "a.simrate"
    path.write_text("precious")
    with pytest.raises(SimrateError, match="already exists"):
        Project.create(path)
    assert path.read_text() == "precious"


def test_items_keep_order_texts_and_meta(project):
    items = project.items()
    assert list(items["item_id"]) == [f"x:{i}" for i in range(1, 6)]
    assert items.loc[2, "meta"] == {"k": 3}
    assert project.item("x:4")["left"] == "left text 4"


def test_items_with_chosen_columns_equal_those_of_all_columns(project):
    some = project.items(["left", "dataset"])
    assert list(some.columns) == ["item_id", "left", "dataset"]
    assert some.equals(project.items()[["item_id", "left", "dataset"]])
    with pytest.raises(ValueError):
        project.items(["colour"])


def test_reimport_adds_no_duplicates(project):
    added, present = project.import_items(make_items(7), source="items.tsv")
    assert (added, present) == (2, 5)
    assert project.n_items == 7


def test_import_with_changed_text_is_refused_and_changes_nothing(project):
    frame = make_items(7)
    frame.loc[3, "left"] = "edited"
    with pytest.raises(SimrateError) as err:
        project.import_items(frame, source="new.tsv")
    assert err.value.line == 4 and "other texts" in str(err.value)
    assert project.n_items == 5


def test_rate_stores_codes_and_clears(project):
    project.rate("x:1", "ann", 3.25)
    assert project.rating("x:1", "ann") == 3.25
    ratings = project.ratings()
    assert ratings.loc[0, "code"] == 13 and ratings.loc[0, "annotator"] == "ann"
    project.rate("x:1", "ann", None)
    assert project.rating("x:1", "ann") is None
    assert len(project.ratings()) == 0


@pytest.mark.parametrize("value, words", [(3.3, "grid"), (7, "outside"), ("NaN", "not a number")])
def test_rate_refuses_bad_values(project, value, words):
    with pytest.raises(SimrateError, match=words):
        project.rate("x:1", "ann", value)
    assert len(project.ratings()) == 0


def test_rate_unknown_item(project):
    with pytest.raises(SimrateError, match="no item"):
        project.rate("nope", "ann", 2)


def test_change_log_and_notifications(project):
    seen = []
    unsubscribe = project.subscribe(seen.append)
    project.rate("x:2", "ann", 2)
    project.rate("x:2", "ann", 2.5)
    project.rate("x:2", "ann", None)
    unsubscribe()
    project.rate("x:3", "ann", 1)
    # typed events carry step codes (2.0 is code 8 on the 0-4 quarter-step scale)
    assert [type(e) for e in seen] == [RatingChanged] * 3
    assert [(e.item_id, e.annotator, e.old_code, e.new_code) for e in seen] == [
        ("x:2", "ann", None, 8), ("x:2", "ann", 8, 10), ("x:2", "ann", 10, None)]
    log = project.changes()
    ratings_log = log[log["kind"] == "rating"]
    assert list(ratings_log["new"]) == [2.0, 2.5, None, 1.0]
    assert list(ratings_log["old"]) == [None, 2.0, 2.5, None]


def test_skip_with_reason(project):
    project.skip("x:1", "ann", "cannot parse the second text")
    record = project.rating_record("x:1", "ann")
    assert record == {"score": None, "note": "cannot parse the second text", "skipped": True,
                      "seconds": None}


def test_import_ratings_all_or_nothing(project):
    bad = make_ratings([("x:1", "a", 1), ("x:2", "a", 2), ("missing", "a", 3)])
    with pytest.raises(SimrateError) as err:
        project.import_ratings(bad, source="r.csv")
    assert err.value.line == 4 and "missing" in str(err.value)
    assert len(project.ratings()) == 0 and project.annotators() == []
    off_grid = make_ratings([("x:1", "a", 1), ("x:2", "a", 3.3)])
    with pytest.raises(SimrateError, match="grid") as err:
        project.import_ratings(off_grid, source="r.csv")
    assert err.value.line == 3
    assert len(project.ratings()) == 0


def test_import_ratings_twice_changes_nothing(project):
    frame = make_ratings([("x:1", "a", 1), ("x:2", "b", 2.75)])
    assert project.import_ratings(frame, "r.csv") == {"added": 2, "changed": 0, "unchanged": 0}
    n_changes = len(project.changes())
    assert project.import_ratings(frame, "r.csv") == {"added": 0, "changed": 0, "unchanged": 2}
    assert len(project.changes()) == n_changes
    assert project.annotators() == ["a", "b"]


def test_not_a_project_png(tmp_path):
    fake = tmp_path / "picture.simrate"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(SimrateError, match="not a simrate project"):
        Project.open(fake)


def test_other_sqlite_file(tmp_path):
    other = tmp_path / "other.simrate"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(SimrateError, match="another kind"):
        Project.open(other)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "new.simrate"
    Project.create(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                 (str(SCHEMA_VERSION + 1),))
    conn.commit()
    conn.close()
    with pytest.raises(SimrateError, match="newer simrate"):
        Project.open(path)


def test_read_only_folder(tmp_path):
    from tests.support.helpers import run_with_read_only_folder

    folder = tmp_path / "ro"
    folder.mkdir()
    code = ("from simrate.core.project import Project\n"
            "from simrate.core.base.errors import SimrateError\n"
            "try:\n"
            f"    Project.create({str(folder / 'p.simrate')!r})\n"
            "except SimrateError as exc:\n"
            "    print(exc)\n")
    done = run_with_read_only_folder(folder, code)
    assert "cannot write" in done.stdout, done.stderr
    assert not (folder / "p.simrate").exists()


def test_read_only_folder_is_refused_even_for_root(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(SimrateError, match="cannot write"):
        Project.create(folder / "p.simrate")
    assert list(folder.iterdir()) == []


WRITER = """
import sys
from contextlib import contextmanager
from simrate.core.project import Project
p = Project.open(sys.argv[1])
name = sys.argv[2]
for i in range(1, 101):
    p.rate(f"x:{i}", name, (i % 17) * 0.25)
p.close()
"""


def test_two_processes_write_at_once(tmp_path):
    path = tmp_path / "shared.simrate"
    with Project.create(path, scale="sts") as p:
        p.import_items(make_items(100), source="i.tsv")
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name])
             for name in ("ann1", "ann2")]
    assert [proc.wait(timeout=120) for proc in procs] == [0, 0]
    with Project.open(path) as p:
        ratings = p.ratings()
        assert len(ratings) == 200
        assert sorted(p.annotators()) == ["ann1", "ann2"]
        one = ratings[ratings["annotator"] == "ann1"].set_index("item_id")["score"]
        assert one["x:16"] == 4.0 and one["x:17"] == 0.0 and one["x:5"] == 1.25
        assert len(p.changes().query("kind == 'rating'")) == 200
        assert p.team_tables.read("PRAGMA integrity_check") == [("ok",)]


def test_refresh_sees_other_writers(tmp_path):
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as p:
        p.import_items(make_items(3), source="i.tsv")
    first, second = Project.open(path), Project.open(path)
    assert first.refresh() is False
    second.rate("x:1", "b", 4)
    assert first.refresh() is True
    assert first.rating("x:1", "b") == 4.0
    first.close()
    second.close()


def test_refresh_sees_another_writers_threshold(tmp_path):
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as p:
        p.import_items(make_items(2), source="i.tsv")
        p.rate("x:1", "a", 1)
        p.rate("x:1", "b", 2.5)  # a spread of 1.5 points
    with Project.open(path) as first, Project.open(path) as second:
        assert first.flagged_ids() == {"x:1"}
        second.set_threshold(2.0)
        assert first.refresh() is True
        assert first.threshold == 2.0 and first.flagged_ids() == set()


@pytest.mark.parametrize("own_write", ["rate", "adjudicate", "import_items", "import_ratings",
                                       "set_excluded"])
def test_own_write_does_not_hide_another_writers_change(tmp_path, own_write):
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as p:
        p.import_items(make_items(3), source="i.tsv")
        p.rate("x:3", "a", 1)
    first, second = Project.open(path), Project.open(path)
    assert first.flagged_ids() == set()
    second.rate("x:1", "b", 0)
    second.rate("x:1", "c", 5)  # flags x:1, which `first` has not seen yet
    writes = {
        "rate": lambda: first.rate("x:2", "a", 3),
        "adjudicate": lambda: first.adjudicate("x:2", 3),
        "import_items": lambda: first.import_items(make_items(1, prefix="y")),
        "import_ratings": lambda: first.import_ratings(make_ratings([("x:2", "a", 3)])),
        "set_excluded": lambda: first.set_excluded("a", True),
    }
    writes[own_write]()
    assert first.refresh() is True
    assert first.flagged_ids() == {"x:1"}
    first.close()
    second.close()


def test_exclusion_is_logged_and_reversible(project):
    project.rate("x:1", "a", 1)
    project.set_excluded("a", True, by="boss")
    assert project.excluded_annotators() == ["a"]
    project.set_excluded("a", False, by="boss")
    assert project.excluded_annotators() == []
    log = project.changes().query("kind == 'exclude'")
    assert list(zip(log["old"], log["new"], log["who"], strict=True)) == [
        (False, True, "boss"), (True, False, "boss")]
    with pytest.raises(SimrateError, match="no annotator"):
        project.set_excluded("ghost")


def test_ords_positions_and_flags_of_a_hand_edited_file(tmp_path):
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as p:
        p.import_items(make_items(3), source="i.tsv")
        p.rate("x:3", "a", 0)
        p.rate("x:3", "b", 5)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = OFF")
    with conn:  # ords 0,1,2 -> 7,5,3: the order of the items is reversed
        conn.execute("UPDATE items SET ord = 7 - 2 * ord")
        conn.execute("UPDATE ratings SET item_ord = 7 - 2 * item_ord")
    conn.close()
    with Project.open(path) as p:
        assert p.item_ids() == ["x:3", "x:2", "x:1"]
        assert [p.position(i) for i in ("x:3", "x:2", "x:1", "nope")] == [0, 1, 2, -1]
        assert [p.item_ord(i) for i in ("x:3", "x:2", "x:1")] == [3, 5, 7]
        assert [p.item_id_for_ord(o) for o in (3, 5, 7)] == ["x:3", "x:2", "x:1"]
        assert dict(p.flags.flagged) == {p.item_ord("x:3"): 20}  # 0 and 5: 20 steps of 0.25
        assert p.flagged_ids() == {"x:3"}
        assert p.ratings()[["item_id", "annotator", "score"]].values.tolist() == [
            ["x:3", "a", 0.0], ["x:3", "b", 5.0]]
        with pytest.raises(SimrateError, match="no item with id 'nope'"):
            p.item_ord("nope")


def test_meta_read_and_write_transaction_for_core_modules(tmp_path):
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="sts") as p, Project.open(path) as other:
        assert p.meta("threshold") == "1.0" and p.meta("nothing") is None
        with other.team_tables.transaction() as conn:
            conn.execute("INSERT INTO meta VALUES ('note', 'from elsewhere')")
        assert p.meta("note") == "from elsewhere"  # read from the file, not cached at open
        with pytest.raises(RuntimeError), p.team_tables.transaction() as conn:
            conn.execute("INSERT INTO meta VALUES ('half', 'done')")
            raise RuntimeError("stop")
        assert p.team_tables.read("SELECT value FROM meta WHERE key = ?", ("half",)) == []  # rolled back


def test_plan_ratings_classifies_without_writing(project):
    project.rate("x:1", "a", 1)
    project.rate("x:2", "a", 2, note="kept")
    frame = make_ratings([("x:1", "a", 1), ("x:2", "a", 2), ("x:3", "a", 3), ("x:1", "b", 4)])
    frame.loc[1, "note"] = "new note"
    frame = pd.concat([frame, make_ratings([("x:2", "b", 0.5)])], ignore_index=True)
    frame.loc[4, "line"] = 6
    project.rate("x:2", "b", 1.5)
    before = len(project.changes())
    statuses = {(p.item_id, p.annotator): p.status for p in project.plan_ratings(frame, "r")}
    assert statuses == {("x:1", "a"): "unchanged", ("x:2", "a"): "note", ("x:3", "a"): "added",
                        ("x:1", "b"): "added", ("x:2", "b"): "score"}
    assert len(project.changes()) == before and project.rating("x:3", "a") is None
    assert project.import_ratings(frame, "r") == {"added": 2, "changed": 2, "unchanged": 1}
    assert project.rating("x:2", "b") == 0.5


def test_a_failed_commit_leaves_the_last_import_as_it_was(project, monkeypatch):
    """`last_import` (what an undoable import step undoes) never names a rolled-back entry."""
    project.import_ratings(make_ratings([("x:1", "ann", 1.0)]), "a.csv")
    before, ids = project.last_import, project.roster.ids()

    @contextmanager
    def commit_fails(conn, path, **_options):  # the body runs, then COMMIT fails (full disk)
        conn.execute("BEGIN IMMEDIATE")
        yield conn
        conn.execute("ROLLBACK")
        raise SimrateError("cannot save to the project: the disk is full", path)

    monkeypatch.setattr("simrate.core.imports.methods.transaction", commit_fails)
    monkeypatch.setattr("simrate.core.edits.edit.transaction", commit_fails)
    for write in (lambda: project.import_ratings(make_ratings([("x:2", "bob", 2.0)]), "b.csv"),
                  lambda: project.import_items(make_items(2, "new"), "new.tsv")):
        with pytest.raises(SimrateError, match="disk is full"):
            write()
        assert project.last_import == before and project.roster.ids() == ids
    monkeypatch.undo()
    assert project.undo_import(project.last_import)["source"] == "a.csv"
