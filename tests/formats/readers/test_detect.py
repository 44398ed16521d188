"""Format detection and the read_items dispatcher."""

from __future__ import annotations

import sqlite3
import sys
import types

import pandas as pd
import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import ITEM_COLUMNS
from simrate.formats.readers.detect import detect_format, read_items


@pytest.mark.parametrize("name, fmt", [
    ("pairs.tsv", "pairs"), ("pairs.csv", "pairs"), ("pairs.xlsx", "pairs"),
    ("STS.input.demo.txt", "sts"), ("paragraph2sentence.sample.input.tsv", "clss"),
    ("tweets.data", "pit"), ("ratings_long.csv", "ratings"), ("ratings_wide.tsv", "ratings"),
])
def test_sample_files(sample_data, name, fmt):
    assert detect_format(sample_data / name) == fmt


@pytest.mark.parametrize("name", ["STS.gs.demo.txt", "paragraph2sentence.sample.gs.tsv"])
def test_gold_keys_point_to_their_input(sample_data, name):
    with pytest.raises(SimrateError, match="gold key"):
        detect_format(sample_data / name)


def test_project_by_content_and_name(tmp_path):
    database = tmp_path / "renamed.db"
    sqlite3.connect(database).execute("create table t (x)").connection.commit()
    assert detect_format(database) == "project"
    named = tmp_path / "study.simrate"
    named.write_bytes(b"")
    assert detect_format(named) == "project"


def test_pyramid_by_extension_and_by_content(tmp_path):
    pan = tmp_path / "topic.pan"
    pan.write_text("<pyramid></pyramid>", encoding="utf-8")
    assert detect_format(pan) == "pyramid"
    xml = tmp_path / "topic.xml"
    xml.write_text('<?xml version="1.0"?>\n<!DOCTYPE pyramid []>\n<pyramid>\n<text/>\n'
                   "</pyramid>\n", encoding="utf-8")
    assert detect_format(xml) == "pyramid"


def test_headerless_two_columns_and_nli_style_header_are_pairs(tmp_path):
    bare = tmp_path / "bare.txt"
    bare.write_text("a text\tanother text\n", encoding="utf-8")
    assert detect_format(bare) == "pairs"
    nli = tmp_path / "nli.tsv"
    nli.write_text("id\tpremise\thypothesis\n1\tA cat.\tAn animal.\n", encoding="utf-8")
    assert detect_format(nli) == "pairs"


def test_wide_ratings_with_missing_cells(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,rater_a,rater_b\nx,1,\ny,,2.5\n", encoding="utf-8")
    assert detect_format(path) == "ratings"


def test_expert_labelled_pit_file_without_data_suffix(tmp_path):
    path = tmp_path / "tweets.tsv"
    path.write_text("1\tTopic\tone\ttwo\t4\tone/O/NN\ttwo/O/NN\n", encoding="utf-8")
    assert detect_format(path) == "pit"


def test_empty_and_binary_files(tmp_path):
    empty = tmp_path / "nothing.tsv"
    empty.write_bytes(b"")
    with pytest.raises(SimrateError, match="file is empty"):
        detect_format(empty)
    binary = tmp_path / "image.bin"
    binary.write_bytes(b"\x89PNG\x00\x00\x01")
    with pytest.raises(SimrateError, match="binary"):
        detect_format(binary)


def test_read_items_dispatches_and_ignores_options_a_reader_does_not_take(sample_data):
    items = read_items(sample_data / "STS.input.demo.txt", "auto", dataset="mine", seed=3)
    assert tuple(items.columns) == ITEM_COLUMNS
    assert items.iloc[0]["item_id"] == "mine:1"


@pytest.mark.parametrize("fmt, message", [("ratings", "ratings file"),
                                          ("project", "project file"),
                                          ("jsonl", "unknown format")])
def test_read_items_refuses_non_item_formats(sample_data, fmt, message):
    with pytest.raises(SimrateError, match=message):
        read_items(sample_data / "ratings_long.csv", fmt)


def test_pyramid_dispatch_passes_its_options(monkeypatch, tmp_path):
    calls = []

    def fake_reader(path, negatives="all", seed=0):
        calls.append((str(path), negatives, seed))
        return pd.DataFrame(columns=list(ITEM_COLUMNS))

    fake = types.ModuleType("simrate.formats.pyramids.pyramid_project")
    fake.read_pyramid_items = fake_reader
    monkeypatch.setitem(sys.modules, "simrate.formats.pyramids.pyramid_project", fake)
    path = tmp_path / "topic.pyr"
    path.write_text("<pyramid/>", encoding="utf-8")
    read_items(path, "auto", negatives=2, seed=7, dataset="ignored")
    assert calls == [(str(path), 2, 7)]


@pytest.mark.realdata
def test_real_files(realdata):
    expected = {"sts2012/STS.input.MSRvid.txt": "sts", "pit2015/dev.head300.data": "pit",
                "pit2015/sampletest.data": "pit"}
    expected |= {f"clss2014/trial/{level}.trial.input.tsv": "clss" for level in
                 ("paragraph2sentence", "sentence2phrase", "phrase2word", "word2sense")}
    expected |= {str(p.relative_to(realdata)): "pyramid" for p in realdata.glob("pyramid/*.pyr")}
    for name, fmt in expected.items():
        assert detect_format(realdata / name) == fmt, name


def test_old_excel_files_get_advice(tmp_path):
    path = tmp_path / "old.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\x00\x00")
    with pytest.raises(SimrateError, match="as .xlsx"):
        detect_format(path)


def test_input_tsv_of_an_unknown_level_is_judged_by_content(tmp_path):
    path = tmp_path / "my.batch.input.tsv"
    path.write_text("id\tleft\tright\n1\ta\tb\n", encoding="utf-8")
    assert detect_format(path) == "pairs"


def test_xlsx_ratings_below_a_title(tmp_path):
    from openpyxl import Workbook

    path = tmp_path / "scores.xlsx"
    book = Workbook()
    for row in (("Ratings of batch 2",), (), ("item_id", "annotator", "score"), ("a", "dan", 3)):
        book.active.append(row)
    book.save(path)
    assert detect_format(path) == "ratings"
