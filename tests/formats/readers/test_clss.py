"""CLSS 2014 input files and gold keys."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.clss import LEVELS, genre_of, read_clss


def test_sample_with_gold(sample_data):
    items = read_clss(sample_data / "paragraph2sentence.sample.input.tsv")
    assert len(items) == 10
    first = items.iloc[0]
    assert first["item_id"] == "paragraph2sentence:Newswire-1"
    assert first["dataset"] == "paragraph2sentence"
    assert first["genre"] == "Newswire"
    assert first["right"] == "A new recycling centre has opened north of the river."
    assert first["reference"] == 3.25
    assert items.iloc[-1]["reference"] == 3.625
    assert set(items["genre"]) == {"Newswire", "Reviews", "Instructions", "Travel", "Stories"}


@pytest.mark.parametrize("item_id, genre", [
    ("Newswire-12", "Newswire"), ("trial-p2s-3", "trial"), ("Slang-3", "Slang"),
    ("Idiomatic-206", "Idiomatic"), ("trial-w2s-48", "trial"), ("odd", ""),
])
def test_genre_from_id(item_id, genre):
    assert genre_of(item_id) == genre


def test_word2sense_columns(tmp_path):
    path = tmp_path / "word2sense.demo.input.tsv"
    path.write_text("kettle#n\tpot%1:06:00::\tpot#n#1\tHome-1\n", encoding="utf-8")
    row = read_clss(path).iloc[0]
    assert (row["left"], row["right"]) == ("kettle#n", "pot#n#1")
    assert row["meta"]["sense_key"] == "pot%1:06:00::"
    assert row["item_id"] == "word2sense:Home-1"


def test_mixed_column_counts_name_the_line(tmp_path):
    path = tmp_path / "phrase2word.demo.input.tsv"
    path.write_text("a b\tc\tX-1\nd e\tf\tg\tX-2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="4 tab-separated fields") as caught:
        read_clss(path)
    assert caught.value.line == 2


def test_duplicate_ids(tmp_path):
    path = tmp_path / "phrase2word.demo.input.tsv"
    path.write_text("a b\tc\tX-1\nd e\tf\tX-1\n", encoding="utf-8")
    with pytest.raises(SimrateError, match=r"duplicate id 'X-1' \(lines 1 and 2\)"):
        read_clss(path)


def test_short_gold_key(tmp_path):
    path = tmp_path / "phrase2word.demo.input.tsv"
    path.write_text("a b\tc\tX-1\nd e\tf\tX-2\n", encoding="utf-8")
    (tmp_path / "phrase2word.demo.gs.tsv").write_text("2.5\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="phrase2word.demo.gs.tsv"):
        read_clss(path)


@pytest.mark.realdata
@pytest.mark.parametrize("level", LEVELS)
def test_real_trial_files(realdata, level):
    path = realdata / "clss2014" / "trial" / f"{level}.trial.input.tsv"
    raw = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    gold = (path.parent / f"{level}.trial.gs.tsv").read_text().split()
    items = read_clss(path)
    assert len(items) == len(raw) == len(gold)
    assert list(items["item_id"]) == [f"{level}:{fields[-1]}" for fields in raw]
    assert list(items["left"]) == [fields[0] for fields in raw]
    assert list(items["reference"]) == [float(g) for g in gold]
    assert items["reference"].between(0, 4).all()
    assert set(items["genre"]) == {"trial"}
    if level == "word2sense":
        assert [m["sense_key"] for m in items["meta"]] == [fields[1] for fields in raw]
        assert list(items["right"]) == [fields[2] for fields in raw]


@pytest.mark.realdata
def test_real_gold_keys_with_eighths(realdata):
    fractional = set()
    for level in LEVELS:
        items = read_clss(realdata / "clss2014" / "trial" / f"{level}.trial.input.tsv")
        fractional |= {r for r in items["reference"] if (r * 8) % 2 == 1}
    assert {0.375, 3.125} <= fractional
