"""Byte-order marks and sheets: UTF-16 and UTF-32 files with a mark are read, a doubled UTF-8
mark keeps the header, a hidden first sheet is skipped and named."""

from __future__ import annotations

import codecs
import json

import pytest
from openpyxl import Workbook

from tests.support.helpers import run_cli
from tests.support.samples import copy_project as copy
from tests.support.samples import info, rated_sample

NFC_ZOE, NFD_ZOE = "Zo\u00eb", "Zoe\u0308"


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    return rated_sample(tmp_path_factory.mktemp("rated"))


# ---------------------------------------------------------------- encodings
@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_and_utf32_files_with_a_mark_are_read(rated, tmp_path, encoding):
    project = copy(rated, tmp_path)
    bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
           "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}[encoding]
    items = tmp_path / "wide.tsv"
    items.write_bytes(bom + "id\tleft\tright\nw1\tcaf\u00e9 \u00e0 Z\u00fcrich\tb\n"
                      .encode(encoding))
    result = run_cli("import", project, items)
    assert result.returncode == 0, result.stderr
    ratings = tmp_path / "wide.csv"
    ratings.write_bytes(bom + f"item_id,annotator,score\nw1,{NFC_ZOE},2.5\n".encode(encoding))
    result = run_cli("import", project, ratings)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out.jsonl"
    assert run_cli("export", project, out, "--allow-unresolved").returncode == 0
    row = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()
           if json.loads(line)["item_id"] == "w1"][0]
    assert row["left"] == "caf\u00e9 \u00e0 Z\u00fcrich" and row["ratings"] == {NFC_ZOE: 2.5}


def test_utf16_system_file_for_evaluate(tmp_path):
    (tmp_path / "gold.txt").write_text("1\n2\n3\n4\n")
    (tmp_path / "sys.txt").write_bytes(codecs.BOM_UTF16_LE + "1\n2\n3\n5\n".encode("utf-16-le"))
    result = run_cli("evaluate", "--task", "sts", tmp_path / "gold.txt", tmp_path / "sys.txt",
                     "--json")
    assert result.returncode == 0, result.stderr


def test_a_doubled_utf8_mark_keeps_the_header(rated, tmp_path):
    project = copy(rated, tmp_path)
    items = tmp_path / "twice.tsv"
    items.write_bytes(codecs.BOM_UTF8 * 2 + b"id\tleft\tright\nmine-1\ta\tb\n")
    result = run_cli("import", project, items)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "o.jsonl"
    run_cli("export", project, out, "--allow-unresolved")
    assert "mine-1" in out.read_text(encoding="utf-8")
    assert "twice:" not in out.read_text(encoding="utf-8")
    ratings = tmp_path / "twice.csv"
    ratings.write_bytes(codecs.BOM_UTF8 * 2 + b"item_id,annotator,score\nmine-1,zed,2\n")
    result = run_cli("import", project, ratings)
    assert result.returncode == 0, result.stderr
    assert "zed" in info(project)["annotators"]


# ---------------------------------------------------------------- hidden sheets
def test_a_hidden_first_sheet_is_skipped_and_named(rated, tmp_path):
    project = copy(rated, tmp_path)
    book = Workbook()
    old = book.active
    old.title = "Old"
    old.append(["id", "left", "right"])
    old.append(["old-1", "stale", "stale"])
    old.sheet_state = "hidden"
    data = book.create_sheet("Data")
    data.append(["id", "left", "right"])
    data.append(["new-1", "fresh", "fresh"])
    path = tmp_path / "book.xlsx"
    book.save(path)
    result = run_cli("import", project, path)
    assert result.returncode == 0, result.stderr
    assert "read sheet 'Data', the first visible one (hidden: 'Old')" in result.stderr
    out = tmp_path / "o.tsv"
    run_cli("export", project, out, "--allow-unresolved")
    text = out.read_text(encoding="utf-8")
    assert "new-1" in text and "old-1" not in text
