"""PIT 2015 data files: crowd votes (train/dev) and expert digits (test)."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.pit import read_pit

LINE = "4\tSome Topic\tfirst tweet here\tsecond tweet here\t{label}\ta/O/DT\tb/O/NN"


def test_sample_crowd_votes(sample_data):
    items = read_pit(sample_data / "tweets.data")
    assert len(items) == 12
    first = items.iloc[0]
    assert first["item_id"] == "tweets:1"
    assert first["dataset"] == "tweets"
    assert first["genre"] == "Rainy Monday"
    assert first["reference"] == 4.0
    assert first["meta"]["votes_yes"] == 4 and first["meta"]["votes_no"] == 1
    assert first["meta"]["label"] == "paraphrase"
    assert first["meta"]["topic_id"] == "3"
    assert first["meta"]["sent_1_tag"].startswith("this/O/")
    labels = [m["label"] for m in items["meta"]]
    assert labels.count("debatable") == 2


@pytest.mark.parametrize("label, reference, meaning", [
    ("(5, 0)", 5.0, "paraphrase"), ("(3, 2)", 3.0, "paraphrase"), ("(2, 3)", 2.0, "debatable"),
    ("(1, 4)", 1.0, "not"), ("(0, 5)", 0.0, "not"),
    ("5", 5.0, "paraphrase"), ("4", 4.0, "paraphrase"), ("3", 3.0, "debatable"),
    ("2", 2.0, "not"), ("0", 0.0, "not"),
])
def test_labels(tmp_path, label, reference, meaning):
    path = tmp_path / "dev.data"
    path.write_text(LINE.format(label=label) + "\n", encoding="utf-8")
    row = read_pit(path).iloc[0]
    assert row["reference"] == reference
    assert row["meta"]["label"] == meaning


def test_dataset_is_the_name_before_the_first_dot(tmp_path):
    path = tmp_path / "dev.head300.data"
    path.write_text(LINE.format(label="(1, 4)") + "\n", encoding="utf-8")
    assert read_pit(path).iloc[0]["item_id"] == "dev:1"
    assert read_pit(path, dataset="devsmall").iloc[0]["item_id"] == "devsmall:1"


@pytest.mark.parametrize("label", ["7", "(a, b)", "yes", "(0, 0)"])
def test_bad_label_names_the_line(tmp_path, label):
    path = tmp_path / "dev.data"
    path.write_text(LINE.format(label="(1, 4)") + "\n" + LINE.format(label=label) + "\n",
                    encoding="utf-8")
    with pytest.raises(SimrateError, match="label") as caught:
        read_pit(path)
    assert caught.value.line == 2


def test_too_few_columns(tmp_path):
    path = tmp_path / "test.data"
    path.write_text("4\tTopic\tonly one tweet\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="3 tab-separated fields"):
        read_pit(path)


def test_without_tag_columns(tmp_path):
    path = tmp_path / "test.data"
    path.write_text("4\tTopic\tone tweet\tanother\t3\n", encoding="utf-8")
    row = read_pit(path).iloc[0]
    assert row["meta"] == {"expert_label": 3, "label": "debatable", "topic_id": "4"}


def _raw_fields(path):
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.realdata
def test_real_dev_file(realdata):
    path = realdata / "pit2015" / "dev.head300.data"
    raw = _raw_fields(path)
    items = read_pit(path)
    assert len(items) == len(raw) == 300
    assert set(items["dataset"]) == {"dev"}
    assert list(items["genre"]) == [fields[1] for fields in raw]
    assert list(items["left"]) == [fields[2] for fields in raw]
    yes_votes = [int(fields[4].strip("()").split(",")[0]) for fields in raw]
    assert list(items["reference"]) == [float(v) for v in yes_votes]
    assert [m["votes_yes"] + m["votes_no"] for m in items["meta"]] == [5] * 300
    assert [m["sent_2_tag"] for m in items["meta"]] == [fields[6] for fields in raw]


@pytest.mark.realdata
def test_real_sample_test_file(realdata):
    path = realdata / "pit2015" / "sampletest.data"
    raw = _raw_fields(path)
    items = read_pit(path)
    assert len(items) == len(raw)
    assert list(items["reference"]) == [float(fields[4]) for fields in raw]
    assert [m["expert_label"] for m in items["meta"]] == [int(fields[4]) for fields in raw]
    assert items["item_id"].iloc[0] == "sampletest:1"
