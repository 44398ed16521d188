"""Annotator packages: what goes in, what must not, merging back, conflicts, bad files."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import time

import pandas as pd
import pytest

from simrate.core.base.errors import RuleError, SimrateError
from simrate.core.base.events import Reloaded
from simrate.core.base.frames import item_frame
from simrate.core.project import Project
from simrate.core.team.assignment import assign_project
from simrate.core.team.package_merge import merge_package, plan_merge
from simrate.core.team.packages import make_package, package_meta
from simrate.core.team.quality import set_checks

N_ITEMS = 40


def make_items(n: int, prefix: str = "d", reference=None) -> pd.DataFrame:
    """n items with ids prefix:1..n, metadata that must not travel, optional references."""
    return item_frame({
        "item_id": [f"{prefix}:{i}" for i in range(1, n + 1)],
        "left": [f"left {prefix} {i}" for i in range(1, n + 1)],
        "right": [f"right {prefix} {i}" for i in range(1, n + 1)],
        "dataset": [prefix] * n,
        "genre": ["news"] * n,
        "reference": reference if reference is not None else [float("nan")] * n,
        "meta": [{"votes_yes": i % 5, "label": "true"} for i in range(1, n + 1)],
        "line": list(range(1, n + 1)),
    })


@pytest.fixture
def origin(tmp_path):
    project = Project.create(tmp_path / "origin.simrate", scale="sts", title="Team study")
    project.import_items(make_items(N_ITEMS), source="items.tsv")
    yield project
    project.close()


def rate_all(path, annotator: str, score_of=lambda i, item_id: 3.0) -> None:
    """Open a package as the annotator would and rate every item."""
    with Project.open(path) as package:
        for position, item_id in enumerate(package.item_ids()):
            package.rate(item_id, annotator, score_of(position, item_id), seconds=4.0)


def table_names(path) -> set[str]:
    conn = sqlite3.connect(str(path))
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()


def tamper(path, sql: str, args=()) -> None:
    """Change a package file behind the app's back."""
    conn = sqlite3.connect(str(path))
    conn.execute(sql, args)
    conn.commit()
    conn.close()


# ----------------------------------------------------------------- making packages
def test_package_is_a_standalone_project_with_scale_items_and_no_other_ratings(origin, tmp_path):
    origin.rate("d:1", "bob", 4.0)
    origin.rate("d:2", "ann", 2.5, note="unsure")
    out = tmp_path / "ann.simrate"
    info = make_package(origin, out, "ann")
    assert info.items == N_ITEMS and info.own_ratings == 1
    assert not os.path.exists(str(out) + "-wal")  # one self-contained file
    with Project.open(out) as package:
        assert package.item_ids() == origin.item_ids()
        assert package.scale == origin.scale  # scale with its guideline texts
        assert any(point.guideline for point in package.scale.points)
        assert package.title == "Team study"
        assert package.annotators() == ["ann"]  # bob's rating stayed home
        assert package.rating("d:2", "ann") == 2.5
        assert package.rating_record("d:2", "ann")["note"] == "unsure"
        assert package.rating("d:1", "ann") is None
        meta = package_meta(package)
    assert meta["package_annotator"] == "ann"
    assert meta["package_of"] == origin.meta("project_uuid")
    logged = origin.changes()
    assert logged.iloc[-1]["kind"] == "package" and logged.iloc[-1]["annotator"] == "ann"


def test_package_reveals_no_reference_score_metadata_or_check_mark(tmp_path):
    references = [float(i % 6) for i in range(N_ITEMS)]
    with Project.create(tmp_path / "o.simrate", scale="sts") as project:
        project.import_items(make_items(N_ITEMS, reference=references), source="gold.tsv")
        set_checks(project, {"d:3": 2.0, "d:17": 5.0})
        make_package(project, tmp_path / "p.simrate", "ann")
    path = tmp_path / "p.simrate"
    with Project.open(path) as package:
        items = package.items()
        assert items["reference"].isna().all()
        assert all(meta == {} for meta in items["meta"])  # votes/labels can give a score away
        assert {"d:3", "d:17"} <= set(items["item_id"])
    assert "check_items" not in table_names(path)
    conn = sqlite3.connect(str(path))
    dumped = "\n".join(conn.iterdump())
    conn.close()
    assert "check" not in dumped.lower()
    assert "gold.tsv" not in dumped  # not even the name of the file the references came from


def test_sample_is_reproducible_and_checks_come_on_top(origin, tmp_path):
    set_checks(origin, {"d:5": 1.0, "d:6": 4.0, "d:7": 3.0})
    make_package(origin, tmp_path / "a.simrate", "ann", sample=10, seed=7)
    make_package(origin, tmp_path / "b.simrate", "ann", sample=10, seed=7)
    make_package(origin, tmp_path / "c.simrate", "ann", sample=10, seed=8)
    ids = {}
    for name in "abc":
        with Project.open(tmp_path / f"{name}.simrate") as package:
            ids[name] = package.item_ids()
    assert ids["a"] == ids["b"]
    assert ids["a"] != ids["c"]
    for chosen in ids.values():
        assert len(chosen) == 13 and {"d:5", "d:6", "d:7"} <= set(chosen)
        positions = [origin.position(i) for i in chosen]
        assert positions == sorted(positions)  # project order: checks sit among the others
    info = make_package(origin, tmp_path / "d.simrate", "ann", sample=5, seed=1, checks=1)
    assert (info.items, info.checks) == (6, 1)


def test_dataset_filter_and_bad_requests(origin, tmp_path):
    origin.import_items(make_items(5, prefix="e"), source="more.tsv")
    info = make_package(origin, tmp_path / "e.simrate", "ann", dataset="e")
    assert info.items == 5
    with pytest.raises(SimrateError, match="no items in dataset"):
        make_package(origin, tmp_path / "x.simrate", "ann", dataset="nope")
    with pytest.raises(SimrateError, match="--sample must be 1 to 5"):
        make_package(origin, tmp_path / "x.simrate", "ann", dataset="e", sample=6)
    with pytest.raises(SimrateError, match="already exists"):
        make_package(origin, tmp_path / "e.simrate", "bob")
    with pytest.raises(SimrateError, match="annotator name"):
        make_package(origin, tmp_path / "x.simrate", "  ")
    with pytest.raises(SimrateError, match="does not exist") as caught:
        make_package(origin, tmp_path / "no" / "x.simrate", "ann")
    assert caught.value.path == str(tmp_path / "no" / "x.simrate")
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("origin.")) == [
        "e.simrate"]  # nothing written by the refused requests, not even a partial file


def test_a_failure_while_writing_leaves_no_file(origin, tmp_path, monkeypatch):
    import simrate.core.team.packages as packages

    def broken(*args, **kwargs):
        raise SimrateError("disk full")

    monkeypatch.setattr(packages, "_fill_package", broken)
    with pytest.raises(SimrateError, match="the disk is full"):
        make_package(origin, tmp_path / "ann.simrate", "ann")
    leftovers = [p.name for p in tmp_path.iterdir() if not p.name.startswith("origin.")]
    assert leftovers == []


def test_package_follows_the_stored_assignment(origin, tmp_path):
    set_checks(origin, {"d:1": 0.0, "d:2": 5.0})
    plan = assign_project(origin, ["ann", "bob", "cy"], per_item=2, seed=3)
    make_package(origin, tmp_path / "bob.simrate", "bob")
    with Project.open(tmp_path / "bob.simrate") as package:
        assert set(package.item_ids()) == set(plan.items["bob"]) | {"d:1", "d:2"}
    with pytest.raises(SimrateError, match="not in the project's assignment"):
        make_package(origin, tmp_path / "dan.simrate", "dan")


def test_project_without_uuid_gets_one_on_first_package(origin, tmp_path):
    with origin.team_tables.transaction() as conn:  # an older file
        conn.execute("DELETE FROM meta WHERE key = 'project_uuid'")
    make_package(origin, tmp_path / "a.simrate", "ann")
    make_package(origin, tmp_path / "b.simrate", "bob")
    uuid = origin.meta("project_uuid")
    for name in "ab":
        with Project.open(tmp_path / f"{name}.simrate") as package:
            assert package_meta(package)["package_of"] == uuid
    rate_all(tmp_path / "a.simrate", "ann")
    assert merge_package(origin, tmp_path / "a.simrate").added == N_ITEMS


# ----------------------------------------------------------------- merging back
def test_merge_brings_ratings_notes_skips_and_seconds_back(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    with Project.open(out) as package:
        package.rate("d:1", "ann", 4.25, note="close call", seconds=12.5)
        package.rate("d:2", "ann", 0.0, seconds=3.0)
        package.skip("d:3", "ann", reason="cannot read it")
    report = merge_package(origin, out)
    # a skip is no rating: counted apart, as `simrate annotators` counts it
    assert (report.added, report.skips, report.changed, report.unchanged) == (2, 1, 0, 0)
    assert report.unrated == N_ITEMS - 3
    assert origin.rating_record("d:1", "ann") == {
        "score": 4.25, "note": "close call", "skipped": False, "seconds": 12.5}
    assert origin.rating("d:2", "ann") == 0.0
    assert origin.rating_record("d:3", "ann")["skipped"] is True
    assert origin.rating_record("d:3", "ann")["note"] == "cannot read it"
    logged = origin.changes()
    merged = logged[logged["who"] == "package ann.simrate"]
    assert set(merged["kind"]) == {"rating", "skip", "merge_package"}
    # the person joined the project through the one route that adds annotators
    assert list(logged.loc[logged["kind"] == "annotator", "annotator"]) == ["ann"]
    by_item = merged.set_index("item_id")
    # logged as the package's own rate() and skip() logged them: notes beside the scores
    assert by_item.loc["d:1", "new"] == {"score": 4.25, "note": "close call"}
    assert by_item.loc["d:2", "new"] == 0.0
    assert by_item.loc["d:3", "new"] == {"score": None, "note": "cannot read it"}
    with Project.open(out) as package:
        there = package.changes().set_index("item_id")
        assert [there.loc[i, "new"] for i in ("d:1", "d:2", "d:3")] == [
            by_item.loc[i, "new"] for i in ("d:1", "d:2", "d:3")]
    assert "2 ratings added, 1 skip added, 0 changed" in report.summary()


def test_merging_the_same_package_twice_changes_nothing(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann", lambda position, _id: (position % 21) * 0.25)
    merge_package(origin, out)
    ratings_before = origin.ratings()
    changes_before = len(origin.changes())
    report = merge_package(origin, out)
    assert (report.added, report.changed, report.unchanged) == (0, 0, N_ITEMS)
    pd.testing.assert_frame_equal(origin.ratings(), ratings_before)
    assert len(origin.changes()) == changes_before


def test_conflicting_rating_refuses_everything_unless_resolved(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann")  # 3.0 everywhere
    origin.rate("d:4", "ann", 1.5)  # the same person rated it otherwise here meanwhile
    origin.rate("d:9", "ann", 3.0)  # the same value: no conflict
    with pytest.raises(RuleError, match=r"1 conflicts .*'d:4'.*project 1.5, package 3"):
        merge_package(origin, out)
    assert origin.rating("d:1", "ann") is None  # all or nothing
    kept = merge_package(origin, out, resolve="keep")
    assert (kept.added, kept.unchanged, len(kept.conflicts)) == (N_ITEMS - 2, 1, 1)
    assert origin.rating("d:4", "ann") == 1.5
    assert origin.rating("d:1", "ann") == 3.0
    taken = merge_package(origin, out, resolve="theirs")
    assert (taken.added, len(taken.conflicts)) == (0, 1)
    assert origin.rating("d:4", "ann") == 3.0
    last = origin.changes()
    last = last[(last["item_id"] == "d:4") & (last["kind"] == "rating")].iloc[-1]
    assert (last["old"], last["new"]) == (1.5, 3.0)  # the replaced value is kept in the log


def test_differing_notes_on_the_same_score_conflict_but_a_new_note_does_not(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    with Project.open(out) as package:
        package.rate("d:1", "ann", 2.0, note="typo in left")
        package.rate("d:2", "ann", 2.0, note="fine")
    origin.rate("d:1", "ann", 2.0)
    origin.rate("d:2", "ann", 2.0, note="other words")
    report = plan_merge(origin, out)
    assert report.changed == 1  # d:1 gains the note
    assert [c.item_id for c in report.conflicts] == ["d:2"]
    assert origin.rating_record("d:1", "ann")["note"] == ""  # plan_merge wrote nothing


def test_changed_texts_are_a_conflict(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann")
    tamper(out, "UPDATE items SET left = 'edited text' WHERE id = 'd:2'")
    with pytest.raises(RuleError, match="'d:2': texts differ"):
        merge_package(origin, out)
    merge_package(origin, out, resolve="keep")
    assert origin.rating("d:2", "ann") is None and origin.rating("d:3", "ann") == 3.0
    merge_package(origin, out, resolve="theirs")
    assert origin.rating("d:2", "ann") == 3.0
    assert origin.item("d:2")["left"] == "left d 2"  # the project's texts never change


def test_two_packages_for_one_name_from_one_project_are_one_annotator(origin, tmp_path):
    first, second = tmp_path / "ann1.simrate", tmp_path / "ann2.simrate"
    make_package(origin, first, "ann", dataset="d", sample=20, seed=1)
    make_package(origin, second, "ann", dataset="d", sample=20, seed=2)
    rate_all(first, "ann", lambda _p, item_id: int(item_id.split(":")[1]) % 6)
    rate_all(second, "ann", lambda _p, item_id: int(item_id.split(":")[1]) % 6)
    with Project.open(first) as a, Project.open(second) as b:
        together = set(a.item_ids()) | set(b.item_ids())
        both = set(a.item_ids()) & set(b.item_ids())
    merge_package(origin, second)
    report = merge_package(origin, first)
    assert report.unchanged == len(both)  # the overlap agrees, so it is counted once
    assert origin.annotators() == ["ann"]
    assert len(origin.ratings()) == len(together)


def test_the_same_item_rated_differently_in_two_packages_conflicts(origin, tmp_path):
    first, second = tmp_path / "ann1.simrate", tmp_path / "ann2.simrate"
    make_package(origin, first, "ann")
    make_package(origin, second, "ann")
    rate_all(first, "ann", lambda *_: 2.0)
    rate_all(second, "ann", lambda *_: 2.0)
    with Project.open(second) as package:
        package.rate("d:7", "ann", 5.0)
    merge_package(origin, first)
    with pytest.raises(RuleError, match="'d:7'"):
        merge_package(origin, second)


# ----------------------------------------------------------------- bad packages
def test_package_from_another_project_is_refused(origin, tmp_path):
    with Project.create(tmp_path / "other.simrate", scale="sts") as other:
        other.import_items(make_items(N_ITEMS), source="items.tsv")  # even with the same items
        make_package(other, tmp_path / "foreign.simrate", "ann")
    rate_all(tmp_path / "foreign.simrate", "ann")
    with pytest.raises(SimrateError, match="another project") as caught:
        merge_package(origin, tmp_path / "foreign.simrate")
    assert not isinstance(caught.value, RuleError)
    assert caught.value.path == str(tmp_path / "foreign.simrate")
    assert origin.ratings().empty


def test_package_from_a_newer_version_is_refused(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    tamper(out, "UPDATE meta SET value = '2' WHERE key = 'package_format'")
    with pytest.raises(SimrateError, match="newer simrate"):
        merge_package(origin, out)
    tamper(out, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(SimrateError, match="newer simrate"):
        merge_package(origin, out)


@pytest.mark.parametrize("keep", [0.0, 0.3, 0.5, 0.9, "page", "byte"])
def test_truncated_package_is_refused_without_a_change(origin, tmp_path, keep):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann")
    data = out.read_bytes()
    assert len(data) > 8 * 4096  # several pages, so cuts land in different structures
    cuts = {"page": len(data) - 4096, "byte": len(data) - 1}
    cut = cuts[keep] if keep in cuts else int(len(data) * keep)
    out.write_bytes(data[:cut])
    with pytest.raises(SimrateError) as caught:
        merge_package(origin, out)
    assert caught.value.path == str(out)
    assert origin.ratings().empty


def test_a_plain_project_is_not_a_package(origin, tmp_path):
    Project.create(tmp_path / "plain.simrate", scale="sts").close()
    with pytest.raises(SimrateError, match="not an annotator package"):
        merge_package(origin, tmp_path / "plain.simrate")
    with pytest.raises(SimrateError, match="not an annotator package"):
        merge_package(origin, origin.path)


def test_ratings_under_another_name_are_not_merged_silently(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    with Project.open(out) as package:
        package.rate("d:1", "ann", 3.0)
        package.rate("d:2", "annie", 3.0)
    with pytest.raises(SimrateError, match="also holds ratings by 'annie'"):
        merge_package(origin, out)


def test_other_scale_is_refused(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    scale = json.loads(origin.meta("scale")) | {"high": 4}
    tamper(out, "UPDATE meta SET value = ? WHERE key = 'scale'", (json.dumps(scale),))
    with pytest.raises(SimrateError, match="scale differs"):
        merge_package(origin, out)


# ----------------------------------------------------------------- merging while the GUI is open
def test_an_open_project_sees_the_merge_after_refresh(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann", lambda position, _id: float(position % 6))
    gui = Project.open(origin.path)  # the organizer's window on the same file
    seen = []
    gui.subscribe(seen.append)
    gui.rate("d:1", "bob", 5.0)
    before = gui.live.alpha("interval")  # the window has built its live state
    assert before is None  # one rater so far
    merge_package(origin, out)  # the command line's connection
    assert gui.refresh() is True
    assert isinstance(seen[-1], Reloaded)
    assert gui.rating("d:3", "ann") == 2.0
    assert set(gui.annotators()) == {"bob", "ann"}
    gui.rate("d:2", "bob", 0.0)  # the window keeps working after the reload
    assert len(origin.ratings()) == N_ITEMS + 2
    gui.close()


def test_merge_waits_for_a_writer_holding_the_lock(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann")
    other = sqlite3.connect(str(origin.path), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO meta VALUES ('held', 'yes')")
    release = threading.Timer(0.5, lambda: other.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    report = merge_package(origin, out)
    release.join()
    other.close()
    assert time.monotonic() - started >= 0.4  # it waited rather than failing
    assert report.added == N_ITEMS
    assert len(origin.ratings()) == N_ITEMS


def test_merged_ratings_feed_live_agreement(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    scores = {item_id: float(i % 6) for i, item_id in enumerate(origin.item_ids())}
    rate_all(out, "ann", lambda _p, item_id: scores[item_id])
    for item_id, score in scores.items():
        origin.rate(item_id, "bob", score)
    assert origin.live.alpha("interval") is None  # bob alone: nothing pairable yet
    merge_package(origin, out)
    alpha = origin.live.alpha("interval")
    assert alpha is not None and math.isclose(alpha, 1.0)


def test_a_rating_off_the_scale_is_refused(origin, tmp_path):
    out = tmp_path / "ann.simrate"
    make_package(origin, out, "ann")
    rate_all(out, "ann")
    tamper(out, "UPDATE ratings SET code = 99 WHERE item_ord = 4")  # sts tops out at code 20
    with pytest.raises(SimrateError, match="'d:5' is off the scale"):
        merge_package(origin, out)
    tamper(out, "UPDATE meta SET value = 'two' WHERE key = 'package_format'")
    with pytest.raises(SimrateError, match="unreadable package format"):
        merge_package(origin, out)
