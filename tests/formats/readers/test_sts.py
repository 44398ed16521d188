"""STS 2012 input files and gold keys."""

from __future__ import annotations

import math

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.sts import read_sts


def write_sts(folder, dataset, inputs, gold=None):
    """Write STS.input.<dataset>.txt (and STS.gs.<dataset>.txt when gold is given)."""
    path = folder / f"STS.input.{dataset}.txt"
    path.write_text("".join(line + "\n" for line in inputs), encoding="utf-8")
    if gold is not None:
        (folder / f"STS.gs.{dataset}.txt").write_text("".join(g + "\n" for g in gold),
                                                       encoding="utf-8")
    return path


def test_sample_with_gold(sample_data):
    items = read_sts(sample_data / "STS.input.demo.txt")
    assert len(items) == 12
    assert list(items["item_id"][:2]) == ["demo:1", "demo:2"]
    assert set(items["dataset"]) == {"demo"}
    assert items.iloc[0]["reference"] == 4.8
    assert items.iloc[10]["reference"] == 5.0
    # quotes are ordinary characters
    assert items.iloc[4]["left"] == 'The sign says "No parking after 6 pm".'


def test_dataset_with_a_dot_and_no_gold(tmp_path):
    path = write_sts(tmp_path, "surprise.OnWN", ["a\tb", "c\td"])
    items = read_sts(path)
    assert list(items["item_id"]) == ["surprise.OnWN:1", "surprise.OnWN:2"]
    assert items["reference"].isna().all()


def test_unbalanced_quotes_do_not_merge_lines(tmp_path):
    path = write_sts(tmp_path, "quotes", ['He said "stop\tShe said go', 'x"\ty'])
    items = read_sts(path)
    assert list(items["left"]) == ['He said "stop', 'x"']


def test_gold_key_of_another_length_is_an_error(tmp_path):
    path = write_sts(tmp_path, "short", ["a\tb", "c\td", "e\tf"], gold=["1.0", "2.0"])
    with pytest.raises(SimrateError, match="gold key has 2 lines but its input has 3") as caught:
        read_sts(path)
    assert caught.value.path.endswith("STS.gs.short.txt")


def test_longer_gold_key_is_an_error(tmp_path):
    path = write_sts(tmp_path, "long", ["a\tb"], gold=["1.0", "2.0"])
    with pytest.raises(SimrateError, match="STS.gs.long.txt"):
        read_sts(path)


def test_blank_gold_line_means_no_reference(tmp_path):
    path = write_sts(tmp_path, "gaps", ["a\tb", "c\td", "e\tf"], gold=["1.5", "", "4"])
    items = read_sts(path)
    assert items.iloc[0]["reference"] == 1.5
    assert math.isnan(items.iloc[1]["reference"])
    assert items.iloc[2]["reference"] == 4.0


def test_text_in_gold_key_names_its_line(tmp_path):
    path = write_sts(tmp_path, "bad", ["a\tb", "c\td"], gold=["1", "NaN"])
    with pytest.raises(SimrateError, match="'NaN' is not a score") as caught:
        read_sts(path)
    assert caught.value.line == 2


@pytest.mark.parametrize("line, message", [("only one sentence", "found 1"),
                                           ("a\tb\tc", "found 3"), ("a\t ", "second sentence")])
def test_malformed_lines(tmp_path, line, message):
    path = write_sts(tmp_path, "broken", ["fine\tline", line])
    with pytest.raises(SimrateError, match=message) as caught:
        read_sts(path)
    assert caught.value.line == 2


@pytest.mark.realdata
def test_real_sts_files(realdata):
    inputs = sorted((realdata / "sts2012").glob("STS.input.*.txt"))
    assert inputs
    for path in inputs:
        dataset = path.name[len("STS.input."):-len(".txt")]
        raw_lines = path.read_text(encoding="utf-8").splitlines()
        gold_lines = (path.parent / f"STS.gs.{dataset}.txt").read_text().splitlines()
        items = read_sts(path)
        assert len(items) == len(raw_lines)
        assert items.iloc[-1]["item_id"] == f"{dataset}:{len(raw_lines)}"
        assert list(items["left"]) == [line.split("\t")[0] for line in raw_lines]
        assert list(items["right"]) == [line.split("\t")[1] for line in raw_lines]
        assert list(items["reference"]) == [float(g) for g in gold_lines]
        assert items["reference"].between(0, 5).all()


def test_cp1252_input_is_flagged(tmp_path):
    path = tmp_path / "STS.input.legacy.txt"
    path.write_bytes(b"caf\xe9 open\tthe caf\xe9 is open\r\n")
    items = read_sts(path)
    assert items.iloc[0]["left"] == "caf\u00e9 open"
    assert items.attrs["encoding"] == "cp1252"
    assert read_sts(write_sts(tmp_path, "plain", ["a\tb"])).attrs["encoding"] == "utf-8"
