"""Reading gold keys, system outputs, PIT label and data files, and our exports as gold."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import DEBATABLE, FALSE, TRUE
from simrate.formats.readers.scores import (
    dataset_name,
    is_export,
    read_gold,
    read_pit_gold,
    read_score_key,
)
from simrate.formats.readers.system_scores import read_pair, read_system


def write(folder: Path, name: str, text: str | bytes) -> Path:
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


def error_of(call, *args) -> SimrateError:
    with pytest.raises(SimrateError) as info:
        call(*args)
    return info.value


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("name, task, expected", [
    ("STS.gs.MSRvid.txt", "sts", "MSRvid"),
    ("STS.gs.surprise.OnWN.txt", "sts", "surprise.OnWN"),
    ("paragraph2sentence.test.gs.tsv", "clss", "paragraph2sentence"),
    ("word2sense.trial.gs.tsv", "clss", "word2sense"),
    ("test.label", "pit", "test"),
    ("mine.txt", "sts", "mine"),
])
def test_dataset_names(name, task, expected):
    assert dataset_name(Path("/x") / name, task) == expected


# ---------------------------------------------------------------- STS / CLSS keys


def test_score_key_reads_mixed_number_styles_crlf_bom_and_confidence(tmp_path):
    path = write(tmp_path, "k.txt", b"\xef\xbb\xbf0\r\n0.375\r\n3.125\t87\r\n4.000\r\n")
    key = read_score_key(path, "clss")
    assert key.scores.tolist() == [0.0, 0.375, 3.125, 4.0]
    assert key.lines.tolist() == [1, 2, 3, 4]


def test_blank_lines_after_the_last_score_are_ignored(tmp_path):
    key = read_score_key(write(tmp_path, "k.txt", "1\n2\n\n\n"), "sts")
    assert key.scores.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("text, line, message", [
    ("1\n\n2\n", 2, "blank line"),
    ("1\n  \t\n2\n", 2, "blank line"),
    ("1\nNaN\n", 2, "not a finite number"),
    ("1\n2\ninf\n", 3, "not a finite number"),
    ("abc\n", 1, "not a number"),
    ("1\n2,5\n", 2, "not a number"),
    ("1\n1_000\n", 2, "not a number"),
    ("1\n2\t\n", 2, "empty confidence"),
    ("1\t2\t3\n", 1, "3 tab-separated fields"),
])
def test_bad_score_lines_name_the_line(tmp_path, text, line, message):
    path = write(tmp_path, "k.txt", text)
    for read in (lambda: read_score_key(path, "sts"),
                 lambda: read_system(path, "sts", read_score_key(write(
                     tmp_path, "g.txt", "1\n" * 5), "sts"))):
        err = error_of(read)
        assert err.line == line and message in err.message and err.path == str(path)


def test_gold_out_of_the_task_range_is_refused_with_a_hint(tmp_path):
    path = write(tmp_path, "k.txt", "1\n4.6\n")
    err = error_of(read_score_key, path, "clss")
    assert err.line == 2 and "outside the CLSS range 0-4" in err.message
    assert "--task sts" in err.message
    assert error_of(read_score_key, write(tmp_path, "s.txt", "5.5\n"), "sts").line == 1
    assert error_of(read_score_key, write(tmp_path, "n.txt", "-1\n"), "sts").line == 1


@pytest.mark.parametrize("text, hint", [
    ("true\t0.8000\n", "PIT label line"),
    ("----\t0.6000\n", "PIT label line"),
    ("1\t2\tA\tB\t4\tx\ty\n", "PIT data line"),
    ("A man is here.\tA man is there.\n", "text, not a score"),
])
def test_other_task_lines_in_an_sts_file_are_refused(tmp_path, text, hint):
    err = error_of(read_score_key, write(tmp_path, "k.txt", "3\n" + text), "sts")
    assert err.line == 2 and hint in err.message


def test_official_names_of_another_task_are_refused(tmp_path):
    sts = write(tmp_path, "STS.gs.MSRvid.txt", "1\n")
    clss = write(tmp_path, "phrase2word.test.gs.tsv", "1\n")
    assert "--task sts" in error_of(read_gold, sts, "clss").message
    assert "--task clss" in error_of(read_gold, clss, "sts").message
    assert "--task sts" in error_of(read_gold, sts, "pit").message


def test_missing_and_empty_files(tmp_path):
    assert "no such file" in error_of(read_gold, tmp_path / "nope.txt", "sts").message
    assert "empty" in error_of(read_gold, write(tmp_path, "e.txt", ""), "sts").message


# ---------------------------------------------------------------- line alignment


def test_system_shorter_or_longer_than_gold(tmp_path):
    gold = read_score_key(write(tmp_path, "g.txt", "1\n2\n3\n"), "sts")
    short = error_of(read_system, write(tmp_path, "s.txt", "1\n2\n"), "sts", gold)
    assert short.line == 3 and "no score for gold line 3" in short.message
    assert "2 lines" in short.message and "3 items" in short.message
    long = error_of(read_system, write(tmp_path, "l.txt", "1\n2\n3\n4\n"), "sts", gold)
    assert long.line == 4 and "beyond the last gold item" in long.message


# ---------------------------------------------------------------- PIT


def test_pit_label_file(tmp_path):
    gold = read_pit_gold(write(tmp_path, "test.label", "----\t0.6000\nfalse\t0.4000\n"
                                                       "true\t1.0000\n"))
    assert gold.kind == "pit-label"
    assert gold.labels.tolist() == [DEBATABLE, FALSE, TRUE]
    assert gold.scores.tolist() == [0.6, 0.4, 1.0]


def pit_data_line(label: str) -> str:
    return f"1\tTopic\tsent one\tsent two\t{label}\tsent/O/NN\ttwo/O/NN\n"


def test_pit_expert_digits_map_to_labels_and_fifths(tmp_path):
    text = "".join(pit_data_line(str(d)) for d in range(6))
    gold = read_pit_gold(write(tmp_path, "test.data", text))
    assert gold.kind == "pit-expert"
    assert gold.labels.tolist() == [FALSE, FALSE, FALSE, DEBATABLE, TRUE, TRUE]
    assert gold.scores == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])


def test_pit_votes_map_to_labels_and_fifths(tmp_path):
    votes = ["(0, 5)", "(1, 4)", "(2, 3)", "(3, 2)", "(4, 1)", "(5, 0)"]
    gold = read_pit_gold(write(tmp_path, "dev.data", "".join(map(pit_data_line, votes))))
    assert gold.kind == "pit-votes"
    assert gold.labels.tolist() == [FALSE, FALSE, DEBATABLE, TRUE, TRUE, TRUE]
    assert gold.scores == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])


@pytest.mark.parametrize("text, line, message", [
    ("yes\t0.5\n", 1, "must be true, false or ----"),
    ("true\t1.5\n", 1, "outside 0-1"),
    ("true\t0.8\n" + pit_data_line("4"), 2, "in a pit-label file"),
    (pit_data_line("7"), 1, "neither an expert score"),
    (pit_data_line("(0, 0)"), 1, "neither an expert score"),
    (pit_data_line("(x, 2)"), 1, "neither an expert score"),
    (pit_data_line("\u00b2"), 1, "neither an expert score"),  # a digit int() refuses
    ("1\tT\ta\tb\tx/O\ty/O\n", 1, "without the Label column"),
    ("3.4\n", 1, "use --task sts or --task clss"),
])
def test_bad_pit_gold(tmp_path, text, line, message):
    err = error_of(read_pit_gold, write(tmp_path, "g.label", text))
    assert err.line == line and message in err.message


@pytest.mark.parametrize("text, message", [
    ("----\t0.6000\n", "must be true or false"),
    ("yes\t0.6000\n", "must be true or false"),
    ("1\t0.6000\n", "must be true or false"),
    ("true\t1.2000\n", "outside 0-1"),
    ("true\n", "expected true|false<TAB>score"),
    ("0.6\n", "use --task sts or --task clss"),
    (pit_data_line("4"), "not a system output"),
])
def test_bad_pit_output_lines(tmp_path, text, message):
    gold = read_pit_gold(write(tmp_path, "g.label", "true\t0.8\n"))
    err = error_of(read_system, write(tmp_path, "s.output", text), "pit", gold)
    assert err.line == 1 and message in err.message


def test_pit_output_is_read_with_labels(tmp_path):
    gold = read_pit_gold(write(tmp_path, "g.label", "true\t0.8\nfalse\t0.2\n"))
    system = read_system(write(tmp_path, "s.output", "true\t0.7312\nFalse\t0.0000\n"),
                         "pit", gold)
    assert system.labels.tolist() == [TRUE, FALSE]
    assert system.scores.tolist() == [0.7312, 0.0]


# ---------------------------------------------------------------- our exports

EXPORT_TSV = (
    "item_id\tdataset\tgenre\tleft\tright\tgold\tsource\tn_ratings\n"
    "MSRvid:1\tMSRvid\t\tA man.\tA man!\t4.5\tmean\t2\n"
    'MSRvid:2\tMSRvid\t\t"A ""quoted""\ttab"\tB\t1.25\tadjudicated\t2\n'
    "OnWN:1\tOnWN\t\tx\ty\t0\tmean\t2\n"
    "OnWN:2\tOnWN\t\tx\ty\t\tmean\t0\n"
    "OnWN:3\tOnWN\t\tx\ty\t5\tmean\t2\n"
)


def test_tsv_export_is_recognised_and_read(tmp_path):
    path = write(tmp_path, "gold.tsv", EXPORT_TSV)
    assert is_export(path)
    gold = read_gold(path, "sts")
    assert gold.item_ids == ("MSRvid:1", "MSRvid:2", "OnWN:1", "OnWN:2", "OnWN:3")
    assert gold.datasets == ("MSRvid", "MSRvid", "OnWN", "OnWN", "OnWN")
    assert gold.scores[:3].tolist() == [4.5, 1.25, 0.0] and np.isnan(gold.scores[3])


def test_keyed_system_matches_an_export_by_item_id(tmp_path):
    gold = write(tmp_path, "gold.tsv", EXPORT_TSV)
    system = write(tmp_path, "run.txt", "OnWN:3\t4\nMSRvid:2\t1\nMSRvid:1\t3.5\nOnWN:1\t0.5\n")
    inputs = {one.name: one for one in read_pair("sts", gold, system)}
    assert inputs["MSRvid"].system.tolist() == [3.5, 1.0]
    assert inputs["OnWN"].gold.tolist() == [0.0, 5.0]
    assert inputs["OnWN"].system.tolist() == [0.5, 4.0]
    assert inputs["OnWN"].excluded == 1  # OnWN:2 has no gold and needs no score


def test_keyed_system_with_header_and_numeric_ids(tmp_path):
    gold = write(tmp_path, "gold.csv", "item_id,dataset,gold\n1,d,1\n2,d,3\n")
    system = write(tmp_path, "run.txt", "item_id\tscore\n2\t0.9\n1\t0.1\n")
    (one,) = read_pair("sts", gold, system)
    assert one.system.tolist() == [0.1, 0.9]


def test_system_aligned_by_line_with_an_export(tmp_path):
    gold = write(tmp_path, "gold.tsv", EXPORT_TSV)
    system = write(tmp_path, "run.txt", "3.5\n1\n0.5\n2\n4\n")
    inputs = {one.name: one for one in read_pair("sts", gold, system)}
    assert inputs["OnWN"].system.tolist() == [0.5, 4.0]


@pytest.mark.parametrize("text, line, message", [
    ("MSRvid:1\t1\nnope\t2\n", 2, "not in the gold file"),
    ("MSRvid:1\t1\nMSRvid:1\t2\n", 2, "again (first on line 1)"),
    ("MSRvid:1\tabc\n", 1, "not a number"),
])
def test_bad_keyed_system_lines(tmp_path, text, line, message):
    gold = read_gold(write(tmp_path, "gold.tsv", EXPORT_TSV), "sts")
    err = error_of(read_system, write(tmp_path, "run.txt", text), "sts", gold)
    assert err.line == line and message in err.message


def test_keyed_system_missing_an_item(tmp_path):
    gold = read_gold(write(tmp_path, "gold.tsv", EXPORT_TSV), "sts")
    err = error_of(read_system, write(tmp_path, "run.txt", "MSRvid:1\t1\n"), "sts", gold)
    assert "no score for 3 gold item(s), first 'MSRvid:2'" in err.message


def test_jsonl_export_and_pit_labels_from_rounded_gold(tmp_path):
    rows = [{"item_id": f"t:{i}", "dataset": "t", "gold": g, "ratings": {"a": g}}
            for i, g in enumerate([5, 4.25, 3.5, 3.25, 2.5, 0], start=1)]
    path = write(tmp_path, "gold.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    gold = read_gold(path, "pit")
    # nearest point, halves up: 5, 4, 4, 3, 3, 0
    assert gold.labels.tolist() == [TRUE, TRUE, TRUE, DEBATABLE, DEBATABLE, FALSE]
    assert gold.scores == pytest.approx([1.0, 0.85, 0.7, 0.65, 0.5, 0.0])


def test_pit_keyed_system_against_an_export(tmp_path):
    gold = write(tmp_path, "gold.jsonl", '{"item_id": "a", "gold": 4}\n'
                                         '{"item_id": "b", "gold": 1}\n')
    system = write(tmp_path, "run.output", "b\tfalse\t0.1000\na\ttrue\t0.9000\n")
    (one,) = read_pair("pit", gold, system)
    assert one.name == "gold"  # no dataset column: the file stem
    assert one.system_labels.tolist() == [TRUE, FALSE]
    assert one.system.tolist() == [0.9, 0.1] and one.gold.tolist() == [0.8, 0.2]


@pytest.mark.parametrize("name, text, line, message", [
    ("g.jsonl", '{"item_id": "a", "gold": 1}\n[1]\n', 2, "not a JSON object"),
    ("g.jsonl", '{"item_id": "a", "gold": 1}\n{"item_id": "a", "gold": 2}\n', 2, "again"),
    ("g.jsonl", '{"item_id": "a", "gold": "x"}\n', 1, "not a number"),
    ("g.jsonl", '{"item_id": "a", "gold": 9}\n', 1, "outside the STS range"),
    ("g.tsv", "item_id\tgold\na\t1\n\tb\n", 3, "without an item_id"),
    ("g.tsv", "item_id\tgold\na\t1\tx\n", 2, "3 fields"),
])
def test_bad_exports(tmp_path, name, text, line, message):
    err = error_of(read_gold, write(tmp_path, name, text), "sts")
    assert err.line == line and message in err.message


def test_xlsx_export_gold_sheet(tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "gold"
    sheet.append(["item_id", "dataset", "gold"])
    sheet.append(["p2s:1", "paragraph2sentence", 3.5])
    sheet.append(["p2s:2", "paragraph2sentence", 0.25])
    book.create_sheet("ratings")
    book.save(tmp_path / "gold.xlsx")
    gold = read_gold(tmp_path / "gold.xlsx", "clss")
    assert gold.item_ids == ("p2s:1", "p2s:2") and gold.scores.tolist() == [3.5, 0.25]
    assert gold.lines.tolist() == [2, 3]


def test_xlsx_export_is_not_read_as_text_lines(tmp_path):
    """A workbook's bytes may hold an empty "line"; that is no blank line in the export."""
    import zipfile

    from openpyxl import Workbook

    book = Workbook()
    book.active.title = "gold"
    book.active.append(["item_id", "gold", "left"])
    book.active.append(["a:1", 2.5, "two\n\nparagraphs"])
    book.save(tmp_path / "packed.xlsx")
    with zipfile.ZipFile(tmp_path / "packed.xlsx") as packed, zipfile.ZipFile(
            tmp_path / "gold.xlsx", "w", zipfile.ZIP_STORED) as stored:
        for entry in packed.infolist():
            stored.writestr(entry.filename, packed.read(entry))
    assert b"\n\n" in (tmp_path / "gold.xlsx").read_bytes()
    gold = read_gold(tmp_path / "gold.xlsx", "sts")
    assert gold.item_ids == ("a:1",) and gold.scores.tolist() == [2.5]


# ---------------------------------------------------------------- real files


@pytest.mark.realdata
def test_real_clss_trial_keys(realdata):
    for path in sorted((realdata / "clss2014" / "trial").glob("*.gs.tsv")):
        key = read_gold(path, "clss")
        raw = [float(x) for x in path.read_text().split()]
        assert key.scores.tolist() == raw and len(key) in (34, 36, 38, 48)
        assert dataset_name(path, "clss") == path.name.split(".")[0]


@pytest.mark.realdata
def test_real_sts_gold(realdata):
    key = read_gold(realdata / "sts2012" / "STS.gs.MSRvid.txt", "sts")
    assert len(key) == 750 and key.scores.min() >= 0 and key.scores.max() <= 5
    err = error_of(read_gold, realdata / "sts2012" / "STS.input.MSRvid.txt", "sts")
    assert err.line == 1 and "text, not a score" in err.message


@pytest.mark.realdata
def test_real_pit_sample_test_and_dev_files(realdata):
    sample = read_gold(realdata / "pit2015" / "sampletest.data", "pit")
    # expert digits 1 4 1 1 5 2 4 2 2 5
    assert sample.kind == "pit-expert"
    assert sample.scores == pytest.approx([0.2, 0.8, 0.2, 0.2, 1.0, 0.4, 0.8, 0.4, 0.4, 1.0])
    assert sample.labels.tolist() == [FALSE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE, FALSE,
                                      FALSE, TRUE]
    dev = read_gold(realdata / "pit2015" / "dev.head300.data", "pit")
    assert dev.kind == "pit-votes" and len(dev) == 300
    # vote counts in these 300 lines: (3,2) 38, (4,1) 37, (5,0) 34; (2,3) 46
    assert int(np.sum(dev.labels == TRUE)) == 38 + 37 + 34
    assert int(np.sum(dev.labels == DEBATABLE)) == 46
    assert int(np.sum(dev.labels == FALSE)) == 64 + 81


def test_item_id_lines_against_a_line_aligned_gold_are_explained(tmp_path):
    gold = read_score_key(write(tmp_path, "g.txt", "1\n2\n"), "sts")
    err = error_of(read_system, write(tmp_path, "s.txt", "a:1\t1\na:2\t2\n"), "sts", gold)
    assert err.line == 1 and "matched only against one of our exports" in err.message


def test_export_dataset_without_any_gold_is_undefined_not_a_crash(tmp_path):
    import warnings

    from simrate.services.imports.evaluation import evaluate_files

    gold = write(tmp_path, "gold.tsv",
                 "item_id\tdataset\tgold\na\tX\t\nb\tX\t\nc\tY\t1\nd\tY\t3\ne\tY\t2\n")
    system = write(tmp_path, "run.txt", "1\n2\n3\n4\n5\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        report = evaluate_files("sts", [(gold, system)])
    x = {r.name: r for r in report.datasets}["X"]
    assert x.n == 0 and x.counts == {"excluded": 2}
    pearson = x.measures["pearson"]
    assert pearson.value is None and "needs at least 3" in pearson.reason
    assert report.totals["mean"].value is None and report.totals["all"].value == 0.5


def test_the_gold_ranges_are_the_built_in_scales():
    # one place for a scale's bounds: the scale files, read through core/base/scale.py
    from simrate.core.base.scale import load_scale
    from simrate.formats.readers.scores import gold_range

    for task, scale in (("clss", "clss"), ("sts", "sts"), ("pit", "sts")):
        loaded = load_scale(scale)
        assert gold_range(task) == (loaded.low, loaded.high)
    source = (Path(__file__).resolve().parents[3] / "app" / "formats" / "readers"
              / "scores.py").read_text(encoding="utf-8")
    assert "4.0)" not in source and "5.0)" not in source  # no bounds written out again
