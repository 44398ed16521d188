"""Gold exports in TSV, CSV, JSONL, STS and PIT form; refusals; atomic replacement."""

from __future__ import annotations

import csv
import json
import statistics

import pytest

from simrate.core.base.errors import RuleError, SimrateError
from simrate.formats.output import export as export_module
from simrate.formats.output.export import pit_label
from simrate.formats.output.writers import choose_format
from simrate.services.exports.export import export_project
from tests.support.export_fixtures import jsonl_records, make_project

HEADER = ["item_id", "dataset", "genre", "left", "right", "gold", "source", "n_ratings",
          "mean", "sd", "min", "max", "flagged", "adjudicated", "note"]


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path / "p.simrate")
    yield p
    p.close()


def read_rows(path, delimiter):
    """Rows as dicts, read with the standard csv module (an independent reader)."""
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter=delimiter))


@pytest.mark.parametrize("fmt, delimiter", [("tsv", "\t"), ("csv", ",")])
def test_table_columns_and_values(project, tmp_path, fmt, delimiter):
    project.adjudicate("t:2", 3.25, note="checked, ok", by="lead")
    out = tmp_path / f"gold.{fmt}"
    report = export_project(project, out)
    assert (report.format, report.format_from_extension) == (fmt, True)
    with open(out, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle, delimiter=delimiter))
    assert header == HEADER + ["rating:ann", "rating:bob", "rating:cy"]
    rows = {r["item_id"]: r for r in read_rows(out, delimiter)}
    assert len(rows) == project.n_items
    one = rows["t:1"]  # ann 1, bob 1, cy 1.5
    # a computed figure is written rounded to FIGURE_DECIMALS, in its shortest form
    assert one["gold"] == one["mean"] == "1.1667"
    assert float(one["gold"]) == round(statistics.fmean([1.0, 1.0, 1.5]), 4)
    sd = project.gold().set_index("item_id").at["t:1", "sd"]
    assert one["sd"] == repr(round(float(sd), 4))
    assert (one["source"], one["n_ratings"], one["min"], one["max"]) == ("mean", "3", "1.0",
                                                                         "1.5")
    assert (one["flagged"], one["adjudicated"], one["note"]) == ("false", "false", "")
    assert (one["rating:ann"], one["rating:cy"]) == ("1.0", "1.5")
    two = rows["t:2"]
    assert (two["gold"], two["source"], two["adjudicated"], two["note"]) == (
        "3.25", "adjudicated", "true", "checked, ok")
    assert two["rating:cy"] == ""  # cy did not rate even items


def test_single_rating_has_zero_sd_and_source_single(tmp_path):
    with make_project(tmp_path / "p.simrate", texts=["a", "b"],
                      ratings=[("t:1", "ann", 2.0), ("t:2", "ann", 1.0),
                               ("t:2", "bob", 1.5)]) as project:
        export_project(project, tmp_path / "g.tsv")
    rows = read_rows(tmp_path / "g.tsv", "\t")
    # sd is the population SD: one rating has no spread around itself
    assert (rows[0]["source"], float(rows[0]["sd"]), rows[0]["n_ratings"]) == ("single", 0, "1")
    assert float(rows[1]["sd"]) == 0.25  # 1 and 1.5: each 0.25 from the mean
    assert rows[1]["source"] == "mean"


def test_texts_are_written_exactly(project, tmp_path):
    export_project(project, tmp_path / "g.csv")
    export_project(project, tmp_path / "g.tsv")
    items = project.items()
    for name, delimiter in (("g.csv", ","), ("g.tsv", "\t")):
        rows = read_rows(tmp_path / name, delimiter)
        assert [r["left"] for r in rows] == items["left"].tolist()
        assert [r["right"] for r in rows] == items["right"].tolist()
    # nothing is quoted that does not need it: a leading '=' stays bare, no "'" is added
    assert "\nt:1\tbeta\t\t=1+2\t" in (tmp_path / "g.tsv").read_text(encoding="utf-8")
    assert not (tmp_path / "g.tsv").read_bytes().startswith(b"\xef\xbb\xbf")


def test_jsonl_objects(project, tmp_path):
    out = tmp_path / "gold.jsonl"
    export_project(project, out)
    raw = out.read_bytes()
    assert "😀".encode() in raw  # UTF-8, not \\u escapes
    records = [json.loads(line) for line in raw.decode("utf-8").splitlines()]
    assert len(records) == project.n_items
    first, second = records[0], records[1]
    assert list(first)[:15] == HEADER
    assert first["ratings"] == {"ann": 1.0, "bob": 1.0, "cy": 1.5}
    assert second["ratings"] == {"ann": 2.0, "bob": 2.0}
    assert second["rating:cy"] is None and second["sd"] == 0.0
    assert first["flagged"] is False and first["n_ratings"] == 3
    assert [r["left"] for r in records] == project.items()["left"].tolist()


def test_fast_jsonl_lines_equal_json_dumps_of_the_records(project, tmp_path):
    project.adjudicate("t:4", 0.5, note='{"odd": "note"}', by="lead")
    with make_project(tmp_path / "q.simrate", texts=["a", "b"],
                      ratings=[("t:1", "we{ird} \"name\"", 1.0)]) as other:
        for source in (project, other):
            gold = source.gold()
            expected = [json.dumps(r, ensure_ascii=False) for r in jsonl_records(gold)]
            out = tmp_path / "g.jsonl"
            export_project(source, out, allow_unresolved=True)
            assert out.read_text(encoding="utf-8").split("\n")[:-1] == expected


def test_sts_file_in_project_order_three_decimals(tmp_path):
    ratings = [("t:1", "a", 4.25), ("t:1", "b", 4.5), ("t:1", "c", 4.5),
               ("t:2", "a", 0.0), ("t:3", "a", 5.0), ("t:3", "b", 4.75)]
    with make_project(tmp_path / "p.simrate", texts=["x", "y", "z", "w"],
                      ratings=ratings) as project:
        export_project(project, tmp_path / "STS.gs.test.txt", allow_unresolved=True)
    lines = (tmp_path / "STS.gs.test.txt").read_text().split("\n")
    expected = [f"{statistics.fmean([4.25, 4.5, 4.5]):.3f}", "0.000", "4.875", "", ""]
    assert lines == expected  # t:4 has no gold: an empty line, as later STS keys do
    assert lines[0] == "4.417"


@pytest.mark.parametrize("gold, label", [
    (0.0, "false"), (2.0, "false"), (2.25, "false"), (2.5, "----"), (3.0, "----"),
    (3.25, "----"), (3.5, "true"), (4.0, "true"), (5.0, "true"), (1.75, "false"),
])
def test_pit_label_rule(gold, label):
    assert pit_label(gold) == label


def test_pit_lines(tmp_path):
    ratings = [("t:1", "a", 5.0), ("t:2", "a", 3.0), ("t:3", "a", 1.0), ("t:3", "b", 1.5),
               ("t:4", "a", 3.5), ("t:4", "b", 4.0)]
    with make_project(tmp_path / "p.simrate", texts=["p", "q", "r", "s"],
                      ratings=ratings) as project:
        export_project(project, tmp_path / "out.label")
    assert (tmp_path / "out.label").read_text() == (
        "true\t1.0000\n----\t0.6000\nfalse\t0.2500\ntrue\t0.7500\n")


def test_pit_needs_a_zero_to_five_scale(tmp_path):
    with make_project(tmp_path / "p.simrate", scale="clss") as project:
        with pytest.raises(SimrateError, match="0-5 scale"):
            export_project(project, tmp_path / "out.label", fmt="pit")
    assert not (tmp_path / "out.label").exists()


def test_refused_while_flagged_or_unrated(tmp_path):
    ratings = [("t:1", "a", 0.0), ("t:1", "b", 2.0), ("t:2", "a", 1.0), ("t:3", "a", 1.0),
               ("t:3", "b", 4.0)]
    with make_project(tmp_path / "p.simrate", texts=["p", "q", "r", "s", "u"],
                      ratings=ratings) as project:
        out = tmp_path / "gold.tsv"
        out.write_text("previous good export\n")
        with pytest.raises(RuleError) as refused:
            export_project(project, out)
        assert refused.value.exit_code == 3
        assert "2 flagged items not adjudicated" in str(refused.value)
        assert "2 items with no rating" in str(refused.value)
        assert out.read_text() == "previous good export\n"
        project.adjudicate("t:1", 1.0, by="lead")
        with pytest.raises(RuleError, match="1 flagged item not adjudicated and 2 items"):
            export_project(project, out)
        report = export_project(project, out, allow_unresolved=True)
        assert (report.flagged, report.unrated) == (1, 2)
        assert report.sources == {"adjudicated": 1, "single": 1, "mean": 1, "none": 2}


def test_output_equal_to_project_file_is_refused(project, tmp_path):
    before = project.path.read_bytes()
    for fmt in (None, "tsv"):
        with pytest.raises(SimrateError, match="project file itself"):
            export_project(project, project.path, fmt=fmt)
    with pytest.raises(SimrateError, match="project file itself"):
        export_project(project, tmp_path / "." / "p.simrate", fmt="tsv")
    assert project.path.read_bytes() == before
    assert project.n_items == len(project.items())


def test_missing_or_unwritable_folder(project, tmp_path, monkeypatch):
    with pytest.raises(SimrateError, match="does not exist"):
        export_project(project, tmp_path / "nowhere" / "gold.tsv")
    with pytest.raises(SimrateError, match="is a folder"):
        export_project(project, tmp_path, fmt="tsv")
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.setattr(export_module.os, "access", lambda path, mode: False)
    with pytest.raises(SimrateError, match="cannot write"):
        export_project(project, locked / "gold.tsv")
    assert list(locked.iterdir()) == []


def test_format_from_extension_or_option():
    assert choose_format("a/gold.tsv", None) == ("tsv", True)
    assert choose_format("gold.CSV", None) == ("csv", True)
    assert choose_format("STS.gs.MSRvid.txt", None) == ("sts", True)
    assert choose_format("test.label", None) == ("pit", True)
    assert choose_format("gold.data", "jsonl") == ("jsonl", False)
    with pytest.raises(SimrateError, match="give --format"):
        choose_format("gold.data", None)


@pytest.mark.parametrize("fmt", ["tsv", "jsonl"])
def test_interrupted_export_keeps_the_previous_file(project, tmp_path, monkeypatch, fmt):
    from simrate.formats.output import writers

    out = tmp_path / f"gold.{fmt}"
    export_project(project, out)
    good = out.read_bytes()
    project.adjudicate("t:1", 4.0, by="lead")  # the next export would differ
    real = writers.WRITERS[fmt]

    def crash_halfway(gold, handle, scale, progress):
        real.stream(gold.iloc[: len(gold) // 2], handle, scale, progress)
        handle.flush()
        raise OSError(28, "No space left on device")

    monkeypatch.setitem(writers.WRITERS, fmt, writers.Writer(real.endings, crash_halfway))
    with pytest.raises(SimrateError, match="the disk is full"):
        export_project(project, out)
    assert out.read_bytes() == good
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_interrupt_by_keyboard_leaves_no_temp_file(project, tmp_path, monkeypatch):
    from simrate.formats.output import writers

    def interrupted(gold, handle, scale, progress):
        handle.write("half")
        raise KeyboardInterrupt

    monkeypatch.setitem(writers.WRITERS, "csv", writers.Writer((".csv",), interrupted))
    with pytest.raises(KeyboardInterrupt):
        export_project(project, tmp_path / "gold.csv")
    assert not (tmp_path / "gold.csv").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_excluded_annotator_is_left_out(tmp_path):
    ratings = [("t:1", "ann", 1.0), ("t:1", "spam", 4.0), ("t:2", "ann", 2.0)]
    with make_project(tmp_path / "p.simrate", texts=["a", "b"], ratings=ratings) as project:
        with pytest.raises(RuleError):
            export_project(project, tmp_path / "g.tsv")
        project.set_excluded("spam")
        export_project(project, tmp_path / "g.tsv")
    text = (tmp_path / "g.tsv").read_text()
    assert "rating:spam" not in text
    rows = read_rows(tmp_path / "g.tsv", "\t")
    assert (rows[0]["gold"], rows[0]["source"]) == ("1.0", "single")


class Cancelled(Exception):
    """Raised by a progress callback to abandon an export (the GUI's cancel button)."""


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "xlsx"])
def test_progress_is_reported_and_can_cancel(project, tmp_path, monkeypatch, fmt):
    monkeypatch.setattr(export_module, "CHUNK_ROWS", 5)
    seen = []
    export_project(project, tmp_path / f"g.{fmt}", progress=lambda done, total: seen.append(
        (done, total)))
    assert seen and seen == sorted(seen) and seen[-1][0] == seen[-1][1]

    def cancel(done, total):
        raise Cancelled

    out = tmp_path / f"h.{fmt}"
    with pytest.raises(Cancelled):
        export_project(project, out, progress=cancel)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]


def test_a_format_registered_once_is_chosen_by_its_ending_and_written(tmp_path, monkeypatch):
    # writers.WRITERS is the one place a format lives: the ending chooses it, export writes it
    import pandas as pd

    from simrate.core.base.scale import load_scale
    from simrate.formats.output import writers
    from simrate.services.exports.export import write_gold

    def ids(gold, out, scale, progress):
        out.write("".join(f"{item}\n" for item in gold["item_id"]))

    monkeypatch.setitem(writers.WRITERS, "ids", writers.Writer((".ids",), ids))
    monkeypatch.setitem(writers.EXTENSIONS, ".ids", "ids")
    out = tmp_path / "gold.ids"
    fmt, from_ending = writers.choose_format(out, None)
    assert (fmt, from_ending) == ("ids", True)
    assert write_gold(pd.DataFrame({"item_id": ["a", "b"]}), out, fmt,
                      load_scale("sts")) == []
    assert out.read_text() == "a\nb\n"
    with pytest.raises(SimrateError, match="unknown export format 'nope'"):
        writers.choose_format(out, "nope")
