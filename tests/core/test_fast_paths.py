"""Each optimised path (issue 18) gives exactly what the straightforward one gives, on small
data with the awkward cases in it: skips, notes, an excluded annotator, adjudications,
single ratings, ids out of step with ords. Plus undo of bulk imports and the schema upgrade."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pandas as pd
import pytest

from simrate.core.agreement.inputs import project_columns, project_inputs
from simrate.core.agreement.reports.long_report import long_agreement_report
from simrate.core.agreement.reports.report import ratings_matrix
from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.base.scale import threshold_codes
from simrate.core.data.columns import read_codes
from simrate.core.data.counts import summary
from simrate.core.data.store import MACHINE, SCHEMA_VERSION
from simrate.core.project import Project
from simrate.core.review.flags import FlagIndex


def items(ids: list[str], dataset: str = "d") -> pd.DataFrame:
    n = len(ids)
    return item_frame({"item_id": ids, "left": [f"l {i}" for i in ids],
                       "right": [f"r {i}" for i in ids], "dataset": [dataset] * n,
                       "genre": ["g"] * n, "reference": [float("nan")] * n,
                       "meta": [{} for _ in ids], "line": list(range(2, n + 2))})


def ratings(rows: list[tuple], notes: dict[int, str] | None = None) -> pd.DataFrame:
    notes = notes or {}
    return rating_frame({"item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
                         "score": [r[2] for r in rows],
                         "note": [notes.get(i, "") for i in range(len(rows))],
                         "line": list(range(2, len(rows) + 2))})


@pytest.fixture
def busy(tmp_path) -> Project:
    """A project with every kind of state the fast paths must respect."""
    rng = np.random.default_rng(7)
    p = Project.create(tmp_path / "b.simrate", scale="sts")
    ids = [f"i{k}" for k in range(60)]
    p.import_items(items(ids[:40], "first"), "a.tsv")
    p.import_items(items(ids[40:], "second"), "b.tsv")
    rows = [(i, r, float(rng.integers(0, 21)) * 0.25) for r in ("ann", "ben", "cy")
            for i in ids if rng.random() < 0.8]
    p.import_ratings(ratings(rows, {3: "a note"}), "r.csv")
    p.skip("i1", "dee", "cannot tell")
    p.rate("i2", "dee", 5.0)
    p.rate("i3", "ann", None)
    p.set_excluded("cy")
    for item in p.flagged().item_id[:3]:
        p.adjudicate(item, 2.5, by="lead")
    p.rate(p.adjudications().item_id[0], "ben", 0.0)  # a late rating: second look
    yield p
    p.close()


def test_info_counts_equal_the_loaded_project(busy):
    facts = summary(busy.path)
    table = busy.ratings()
    assert facts["items"] == busy.n_items == 60
    assert facts["ratings"] == int((~table["skipped"]).sum())
    assert facts["skipped"] == int(table["skipped"].sum()) == 1
    assert facts["flagged"] == len(busy.flagged_ids()) > 0
    assert facts["adjudicated"] == len(busy.adjudications()) == 3
    assert facts["annotators"] == busy.annotators()
    assert facts["datasets"] == {"first": 40, "second": 20}
    busy.set_threshold(0.25)  # another threshold, recounted from the file
    assert summary(busy.path)["flagged"] == len(busy.flagged_ids())


def test_info_counted_on_two_threads_equals_one_pass(busy, monkeypatch):
    from simrate.core.data import counts

    one_pass = summary(busy.path)
    monkeypatch.setattr(counts, "PARALLEL_FROM", 0)
    halves = []
    real = counts._flagged_on_own_connection
    monkeypatch.setattr(counts, "_flagged_on_own_connection",
                        lambda *args: halves.append(args[2]) or real(*args))
    assert summary(busy.path) == one_pass
    assert len(halves) == 2 and halves[0][1] == halves[1][0]  # both halves were counted
    assert list(one_pass) == ["items", "annotators", "ratings", "flagged", "adjudicated",
                              "skipped", "datasets", "organizer_mode", "scale", "title",
                              "threshold", "flag_rule", "describe"]


def test_info_counts_again_when_a_writer_commits_meanwhile(busy, monkeypatch):
    from simrate.core.data import counts

    monkeypatch.setattr(counts, "PARALLEL_FROM", 0)
    real = counts._flagged_on_own_connection
    settled = busy.flagged_ids() | set(busy.adjudications()["item_id"])
    item = next(i for i in busy.item_ids() if i not in settled and busy.item_ord(i) < 20
                and busy.rating(i, "ann") is not None)
    low = busy.rating(item, "ann")

    def count_while_another_process_rates(path, k, ords):
        counted = real(path, k, ords)
        if ords[0] == 0:  # this half is counted; now another connection flags one of its items
            with Project.open(path) as other:
                other.rate(item, "ben", 5.0 if low < 2.5 else 0.0)
        return counted

    monkeypatch.setattr(counts, "_flagged_on_own_connection", count_while_another_process_rates)
    facts = summary(busy.path)
    with Project.open(busy.path) as fresh:
        assert facts["flagged"] == len(fresh.flagged_ids())
        assert facts["ratings"] == fresh.counts()["ratings"]


def test_info_leaves_machine_raters_out_of_the_flags(busy):
    busy.roster.add_machine("bot")
    flagged = busy.flagged_ids()
    items = busy.item_ids()  # a machine far from everyone flags nothing
    busy.import_ratings(rating_frame({
        "item_id": items, "annotator": ["bot"] * len(items),
        "score": [0.0 if busy.rating(item, "ann") != 0.0 else 5.0 for item in items],
        "note": [""] * len(items), "line": list(range(1, len(items) + 1))}), kind=MACHINE)
    assert busy.flagged_ids() == flagged
    assert summary(busy.path)["flagged"] == busy.counts()["flagged"] == len(flagged)


def test_agreement_inputs_equal_the_frame_path(busy):
    long, unadjudicated, group_of = project_inputs(busy.path, "dataset")
    table = busy.ratings()
    table = table[table["score"].notna() & ~table["skipped"]]
    table = table[~table["annotator"].isin(busy.excluded_annotators())]
    counted = [a for a in busy.annotators() if a not in busy.excluded_annotators()]
    expected = ratings_matrix(table, "score", items=busy.item_ids(), raters=counted)
    assert long.raters == expected.raters and long.units == expected.items
    got = np.full(expected.values.shape, np.nan)
    got[long.rater, long.unit] = long.value
    np.testing.assert_array_equal(got, expected.values)
    settled = busy.flagged_ids() | set(busy.adjudications()["item_id"])
    assert unadjudicated == {i for i in busy.item_ids() if i not in settled}
    assert group_of == dict(zip(busy.items()["item_id"], busy.items()["dataset"], strict=True))


def test_unadjudicated_mask_gives_the_report_of_the_id_set(busy):
    long, mask, group_of = project_columns(busy.path, "dataset")
    _, unadjudicated, _ = project_inputs(busy.path, "dataset")
    assert [u for u, chosen in zip(long.units, mask.tolist(), strict=True) if chosen] == [
        u for u in long.units if u in unadjudicated]
    levels = ["interval", "ordinal", "nominal", "ratio"]
    by_mask = long_agreement_report(long, levels, group_of, mask, ci=True)
    by_ids = long_agreement_report(long, levels, group_of, unadjudicated, ci=True)
    assert by_mask.to_json() == by_ids.to_json() and by_mask.reasons == by_ids.reasons


def test_columnar_codes_equal_row_reads(busy):
    conn = sqlite3.connect(busy.path)
    rows = conn.execute("SELECT item_ord, annotator_id, COALESCE(code, -1) FROM ratings "
                        "ORDER BY item_ord, annotator_id").fetchall()
    got = read_codes(conn, busy.scale.n_codes)
    assert list(zip(got.ords.tolist(), got.aids.tolist(), got.codes.tolist(),
                    strict=True)) == rows
    conn.close()


@pytest.mark.parametrize("threads", [2, 3])
def test_columns_read_on_threads_equal_one_read(busy, monkeypatch, threads):
    from simrate.core.data import columns

    conn = sqlite3.connect(busy.path)
    one_read = read_codes(conn, busy.scale.n_codes, "annotator_id != ?", (2,))
    monkeypatch.setattr(columns, "PARALLEL_FROM", 0)
    monkeypatch.setattr(columns, "_THREADS", threads)
    chunks = []
    real = columns._read_in_parallel
    monkeypatch.setattr(columns, "_read_in_parallel",
                        lambda path, sql, parts, params: chunks.append(parts)
                        or real(path, sql, parts, params))
    on_threads = read_codes(conn, busy.scale.n_codes, "annotator_id != ?", (2,))
    conn.close()
    assert len(chunks) == 1 and len(chunks[0]) == threads  # the threads' path was taken
    for name in ("ords", "aids", "codes"):
        assert np.array_equal(getattr(on_threads, name), getattr(one_read, name))


def test_columns_read_again_when_a_writer_commits_meanwhile(busy, monkeypatch):
    """A commit between the threads' reads (here: a new annotator, which changes how the
    columns are packed, and a rating of theirs) must not reach the result half-seen."""
    from simrate.core.data import columns

    monkeypatch.setattr(columns, "PARALLEL_FROM", 0)
    monkeypatch.setattr(columns, "_THREADS", 2)
    real = columns._read_in_parallel

    def read_while_another_process_writes(path, sql, parts, params):
        texts = real(path, sql, parts, params)
        with Project.open(path) as other:
            for k in range(12):
                other.rate(f"i{k}", "zed", 4.75)
        return texts

    monkeypatch.setattr(columns, "_read_in_parallel", read_while_another_process_writes)
    conn = sqlite3.connect(busy.path)
    got = read_codes(conn, busy.scale.n_codes)
    rows = conn.execute("SELECT item_ord, annotator_id, COALESCE(code, -1) FROM ratings "
                        "ORDER BY item_ord, annotator_id").fetchall()
    conn.close()
    assert list(zip(got.ords.tolist(), got.aids.tolist(), got.codes.tolist(),
                    strict=True)) == rows


def test_columns_and_counts_read_on_the_first_connection_when_a_reader_fails(busy,
                                                                            monkeypatch):
    """A reader thread that cannot open the file (gone, locked out, out of descriptors)
    costs the speed-up only: the same results come from the caller's own connection."""
    import threading

    from simrate.core.data import columns, counts

    conn = sqlite3.connect(busy.path)
    expected_columns = read_codes(conn, busy.scale.n_codes)
    expected_facts = summary(busy.path)
    monkeypatch.setattr(columns, "PARALLEL_FROM", 0)
    monkeypatch.setattr(columns, "_THREADS", 2)
    monkeypatch.setattr(counts, "PARALLEL_FROM", 0)

    def refuse(path):
        raise sqlite3.OperationalError("unable to open database file")

    real_open = counts.open_store

    def open_only_on_the_first_thread(path):
        if threading.current_thread() is not threading.main_thread():
            raise OSError(24, "Too many open files")
        return real_open(path)

    monkeypatch.setattr(columns, "connect_for_reading", refuse)
    monkeypatch.setattr(counts, "open_store", open_only_on_the_first_thread)
    got = read_codes(conn, busy.scale.n_codes)
    conn.close()
    for name in ("ords", "aids", "codes"):
        assert np.array_equal(getattr(got, name), getattr(expected_columns, name))
    assert summary(busy.path) == expected_facts


def test_flags_from_arrays_equal_the_flag_index(busy):
    from simrate.core.agreement.inputs import item_columns, spread_flags

    conn = sqlite3.connect(busy.path)
    scores = read_codes(conn, busy.scale.n_codes, "code IS NOT NULL AND annotator_id != 3")
    conn.close()
    k = threshold_codes(busy.threshold, busy.scale.step)
    index = FlagIndex(k)
    index.load([(o, a, c, 0.0) for o, a, c in zip(scores.ords.tolist(), scores.aids.tolist(),
                                                   scores.codes.tolist(), strict=True)], {})
    flagged = spread_flags(scores, k, busy.n_items, item_columns(scores.ords,
                                                                 np.arange(busy.n_items)))
    assert set(np.flatnonzero(flagged).tolist()) == set(index.flagged)


def straightforward_import(p: Project, frame: pd.DataFrame) -> dict[str, tuple]:
    """What importing `frame` must leave: the rule applied row by row over a dict."""
    held = {(r.item_id, r.annotator): (r.code, r.note) for r in p.ratings().itertuples()}
    for r in frame.itertuples():
        code = p.scale.to_code(r.score)
        old = held.get((r.item_id, r.annotator))
        note = r.note or (old[1] if old else "")
        held[(r.item_id, r.annotator)] = (code, note)
    return held


def test_import_equals_the_row_by_row_rule(busy):
    frame = ratings([("i5", "ann", 1.0), ("i6", "ben", 2.0), ("i7", "new", 3.0),
                     ("i1", "dee", 4.0), ("i8", "ann", 0.5)], {1: "changed note"})
    expected = straightforward_import(busy, frame)
    before = busy.ratings()
    counts = busy.import_ratings(frame, "again.csv")
    after = busy.ratings()
    assert {(r.item_id, r.annotator): (r.code, r.note) for r in after.itertuples()} == expected
    assert counts["added"] + counts["changed"] + counts["unchanged"] == len(frame)
    assert len(after) == len(before) + counts["added"] - 1  # i1/dee was a skip, now a score


def test_a_bulk_import_is_one_log_entry_and_undo_restores_exactly(busy):
    before = busy.ratings().sort_values(["item_id", "annotator"], ignore_index=True)
    log_before = len(busy.changes())
    frame = ratings([("i5", "ann", 1.0), ("i9", "eve", 2.0), ("i1", "dee", 4.0)])
    busy.import_ratings(frame, "more.csv")
    log = busy.changes()
    assert len(log) == log_before + 2  # the new annotator eve, then the import
    entry = log.iloc[-1]
    assert entry["kind"] == "import_ratings" and entry["new"]["source"] == "more.csv"
    assert entry["new"]["added"] + entry["new"]["changed"] == 3
    done = busy.undo_import()
    assert done["kind"] == "import_ratings" and done["removed"] == 3
    after = busy.ratings().sort_values(["item_id", "annotator"], ignore_index=True)
    pd.testing.assert_frame_equal(after, before)
    with pytest.raises(SimrateError, match="undone already"):
        busy.undo_import(int(entry["id"]))


def test_undo_keeps_later_single_edits(busy):
    earlier = busy.rating_record("i10", "ann")
    busy.import_ratings(ratings([("i10", "ann", 1.25), ("i11", "ann", 2.0)]), "x.csv")
    busy.rate("i11", "ann", 4.0)  # edited after the import: not the import's row any more
    with pytest.raises(SimrateError, match="ann's rating of 'i11' \\(now 4\\)"):
        busy.undo_import()  # refused whole by default (issue 42), nothing changed
    assert busy.rating("i10", "ann") == 1.25
    assert busy.undo_import(keep_newer=True)["kept_newer"] == 1
    assert busy.rating("i11", "ann") == 4.0
    assert busy.rating_record("i10", "ann") == earlier  # what the import replaced, or none


def test_undo_of_an_items_import(tmp_path):
    with Project.create(tmp_path / "u.simrate", scale="sts") as p:
        p.import_items(items(["a", "b"]), "one.tsv")
        p.import_items(items(["c", "d", "e"]), "two.tsv")
        assert p.undo_import()["removed"] == 3 and p.item_ids() == ["a", "b"]
        p.rate("a", "ann", 1.0)
        with pytest.raises(SimrateError, match="have ratings"):
            p.undo_import()
        assert p.item_ids() == ["a", "b"]


def test_sources_are_stored_once(tmp_path):
    with Project.create(tmp_path / "s.simrate", scale="sts") as p:
        p.import_items(items([f"x{i}" for i in range(50)]), "a/long/path/to/pairs.tsv")
        assert p.team_tables.read("SELECT path FROM sources") == [("a/long/path/to/pairs.tsv",)]
        assert p.team_tables.read("SELECT COUNT(DISTINCT source_id) FROM items") == [(1,)]


V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE items (ord INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, left TEXT NOT NULL,
    right TEXT NOT NULL, dataset TEXT NOT NULL DEFAULT '', genre TEXT NOT NULL DEFAULT '',
    reference REAL, meta TEXT, source TEXT NOT NULL DEFAULT '');
CREATE TABLE annotators (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    excluded INTEGER NOT NULL DEFAULT 0);
CREATE TABLE ratings (item_ord INTEGER NOT NULL REFERENCES items(ord),
    annotator_id INTEGER NOT NULL REFERENCES annotators(id), code INTEGER,
    note TEXT NOT NULL DEFAULT '', skipped INTEGER NOT NULL DEFAULT 0, seconds REAL,
    updated_at REAL NOT NULL, PRIMARY KEY (item_ord, annotator_id)) WITHOUT ROWID;
CREATE TABLE adjudications (item_ord INTEGER PRIMARY KEY REFERENCES items(ord),
    code INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '', by TEXT NOT NULL DEFAULT '',
    at REAL NOT NULL);
CREATE TABLE changes (id INTEGER PRIMARY KEY, at REAL NOT NULL, who TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL, item_id TEXT, annotator TEXT, old TEXT, new TEXT);
"""


def write_v1(path) -> None:
    """A project file as simrate wrote it before schema 2, built here by hand."""
    from simrate.core.base.scale import load_scale

    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA)
    conn.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("schema_version", "1"), ("app", "simrate"), ("title", "old"), ("threshold", "1.0"),
        ("scale", json.dumps(load_scale("sts").to_dict()))])
    conn.executemany("INSERT INTO items VALUES (?,?,?,?,?,?,?,?,?)", [
        (0, "a", "left a", "right a", "d", "g", None, '{"k":1}', "old.tsv"),
        (1, "b", "left b", "right b", "d", "g", 2.5, None, "old.tsv"),
        (2, "c", "left c", "right c", "e", "g", None, None, "")])
    conn.executemany("INSERT INTO annotators (name) VALUES (?)", [("ann",), ("ben",)])
    conn.executemany("INSERT INTO ratings VALUES (?,?,?,?,?,?,?)", [
        (0, 1, 4, "", 0, None, 1.0), (0, 2, 12, "hm", 0, 3.5, 2.0), (1, 1, None, "why", 1,
                                                                     None, 3.0)])
    conn.execute("INSERT INTO adjudications VALUES (0, 8, 'x', 'lead', 4.0)")
    conn.execute("INSERT INTO changes (at, kind) VALUES (1.0, 'rating')")
    conn.commit()
    conn.close()


def test_a_version_1_file_is_upgraded_on_open_and_keeps_everything(tmp_path):
    path = tmp_path / "old.simrate"
    write_v1(path)
    with Project.open(path) as p:
        assert p.meta("schema_version") == str(SCHEMA_VERSION)
        assert p.item_ids() == ["a", "b", "c"]
        assert p.item("a")["meta"] == {"k": 1} and p.item("b")["reference"] == 2.5
        assert p.rating("a", "ben") == 3.0 and p.rating_record("a", "ben")["note"] == "hm"
        assert p.rating_record("b", "ann")["skipped"]
        assert p.verdict("a").code == 8
        assert p.team_tables.read("SELECT path FROM sources") == [("old.tsv",)]
        assert p.team_tables.read("SELECT source_id FROM items ORDER BY ord") == [(1,), (1,), (None,)]
        assert len(p.changes()) == 1
        p.rate("c", "ann", 1.0)  # writes work on the upgraded file
        counts = p.import_ratings(ratings([("c", "ben", 2.0)]), "new.csv")
        assert counts["added"] == 1 and p.undo_import()["removed"] == 1
    assert summary(path)["ratings"] == 3  # a, a, c scored; b skipped


def test_import_as_an_undoable_action(busy):
    from simrate.core.actions import History, ImportRatings

    before = busy.ratings()
    history = History(busy)
    assert history.run(ImportRatings(ratings([("i12", "fay", 3.0)]), "f.csv"))
    assert busy.rating("i12", "fay") == 3.0
    history.undo()
    pd.testing.assert_frame_equal(busy.ratings(), before)
    history.redo()
    assert busy.rating("i12", "fay") == 3.0
    assert not history.run(ImportRatings(ratings([("i12", "fay", 3.0)]), "f.csv"))


def test_cli_undo_of_the_last_import(busy, tmp_path):
    import subprocess
    import sys

    csv = tmp_path / "r.csv"
    csv.write_text("item_id,annotator,score\ni13,gus,2\ni14,gus,3\n", encoding="utf-8")
    path = str(busy.path)
    busy.close()
    run = [sys.executable, "-m", "simrate", "import", path]
    assert subprocess.run([*run, str(csv)], capture_output=True).returncode == 0
    done = subprocess.run([*run, "--undo"], capture_output=True, text=True)
    assert done.returncode == 0 and "2 ratings removed" in done.stdout
    wrong = subprocess.run([*run, "--undo", "1"], capture_output=True, text=True)
    assert wrong.returncode == 2 and wrong.stderr.startswith("simrate: error: ")
    assert "Traceback" not in wrong.stderr
    with Project.open(path) as p:
        assert p.rating("i13", "gus") is None
