"""Generic pair lists: TSV, CSV and XLSX."""

from __future__ import annotations

import math

import pytest
from openpyxl import Workbook

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import ITEM_COLUMNS
from simrate.formats.readers.pairs import read_pairs


def write_xlsx(path, rows):
    """Save rows (tuples, None for empty) as the first sheet of a workbook."""
    book = Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)


def test_sample_tsv(sample_data):
    items = read_pairs(sample_data / "pairs.tsv")
    assert tuple(items.columns) == ITEM_COLUMNS
    assert len(items) == 20
    first = items.iloc[0]
    assert first["item_id"] == "news-01"
    assert first["left"] == "The city council voted to extend the night bus service until March."
    assert first["genre"] == "news"
    assert first["dataset"] == "pairs"
    assert first["meta"] == {"source": "written for simrate"}
    assert first["line"] == 2
    assert items["reference"].isna().all()
    assert set(items["genre"]) == {"news", "reviews", "travel", "science"}


def test_sample_csv_quoted_field_and_ids_from_lines(sample_data):
    items = read_pairs(sample_data / "pairs.csv")
    assert len(items) == 12
    quoted = items.iloc[1]
    assert quoted["left"] == 'She wrote, "Back by six," on a note\nand left it on the fridge.'
    # the quoted record spans lines 3-4, so the next one starts on line 5
    assert list(items["item_id"][:3]) == ["pairs:2", "pairs:3", "pairs:5"]
    assert items.iloc[2]["right"] == "A van injured two people on bikes, police said."
    assert quoted["reference"] == 3.75  # the `similarity` column
    assert quoted["meta"] == {}
    assert quoted["genre"] == "everyday"


def test_sample_xlsx_header_on_row_3(sample_data):
    items = read_pairs(sample_data / "pairs.xlsx")
    assert len(items) == 10
    assert items.iloc[0]["item_id"] == "xl-01"
    assert items.iloc[0]["line"] == 4  # spreadsheet row number
    spider = items.set_index("item_id").loc["xl-03"]
    assert spider["right"] == "8"  # a number cell used as a text
    assert spider["reference"] == 1.25
    assert spider["meta"] == {"batch": "1"}


def test_xlsx_header_after_title_and_blank_rows(tmp_path):
    path = tmp_path / "survey.xlsx"
    write_xlsx(path, [("Round 2 pairs",), (), ("prepared by the team", None, "2024"),
                      ("ID", "Sentence 1", "Sentence 2"), ("a", "one text", "another"),
                      ("b", "third text", "fourth")])
    items = read_pairs(path)
    assert list(items["item_id"]) == ["a", "b"]
    assert list(items["left"]) == ["one text", "third text"]
    assert list(items["line"]) == [5, 6]


@pytest.mark.parametrize("header", [
    "id\tleft\tright", "item_id\ttext1\ttext2", "Pair_ID\tSentence1\tSentence2",
    "pair-id\tsent_1\tsent_2", "ID\tS1\tS2", "id\tlarger\tsmaller",
])
def test_header_names_are_recognised(tmp_path, header):
    path = tmp_path / "pairs.tsv"
    path.write_text(f"{header}\nk1\tfirst text\tsecond text\n", encoding="utf-8")
    items = read_pairs(path)
    assert list(items["item_id"]) == ["k1"]
    assert items.iloc[0]["left"] == "first text"
    assert items.iloc[0]["right"] == "second text"


def test_named_columns_and_meta(tmp_path):
    path = tmp_path / "qa.csv"
    path.write_text("qid,question,answer,annotator_hint,dataset\n"
                    "q1,Where is it?,In the box.,easy,quiz\n", encoding="utf-8")
    items = read_pairs(path, id_column="qid", left_column="question", right_column="answer")
    row = items.iloc[0]
    assert (row["item_id"], row["left"], row["right"]) == ("q1", "Where is it?", "In the box.")
    assert row["meta"] == {"annotator_hint": "easy"}
    assert row["dataset"] == "quiz"  # a dataset column wins over the file stem
    assert read_pairs(path, dataset="mine", id_column="qid", left_column="question",
                      right_column="answer").iloc[0]["dataset"] == "mine"


def test_unknown_named_column_lists_the_columns(tmp_path):
    path = tmp_path / "qa.csv"
    path.write_text("qid,question,answer\nq1,a,b\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="no column named 'prompt'.*qid, question, answer"):
        read_pairs(path, left_column="prompt", right_column="answer")


def test_two_unnamed_columns_beside_an_id_are_the_texts(tmp_path):
    path = tmp_path / "nli.tsv"
    path.write_text("id\tpremise\thypothesis\n7\tA cat sleeps.\tAn animal rests.\n",
                    encoding="utf-8")
    row = read_pairs(path).iloc[0]
    assert (row["item_id"], row["left"], row["right"]) == ("7", "A cat sleeps.", "An animal rests.")


def test_non_numeric_gold_goes_to_meta(tmp_path):
    path = tmp_path / "labels.tsv"
    path.write_text("left\tright\tgold\na\tb\thigh\nc\td\t2.5\n", encoding="utf-8")
    items = read_pairs(path)
    assert items["reference"].isna().all()
    assert [m["gold"] for m in items["meta"]] == ["high", "2.5"]


def test_numeric_gold_with_an_empty_cell(tmp_path):
    path = tmp_path / "gold.tsv"
    path.write_text("left\tright\tscore\na\tb\t3.25\nc\td\t\n", encoding="utf-8")
    items = read_pairs(path)
    assert items.iloc[0]["reference"] == 3.25
    assert math.isnan(items.iloc[1]["reference"])
    assert items.iloc[1]["meta"] == {}


def test_headerless_two_and_three_columns(tmp_path):
    two = tmp_path / "two.tsv"
    two.write_text("first a\tfirst b\nsecond a\tsecond b\n", encoding="utf-8")
    assert list(read_pairs(two)["item_id"]) == ["two:1", "two:2"]
    id_first = tmp_path / "idfirst.tsv"
    id_first.write_text("x-1\tfirst a\tfirst b\nx-2\tsecond a\tsecond b\n", encoding="utf-8")
    assert list(read_pairs(id_first)["item_id"]) == ["x-1", "x-2"]
    id_last = tmp_path / "idlast.tsv"
    id_last.write_text("first a\tfirst b\tNews-1\nsecond a\tsecond b\tNews-2\n", encoding="utf-8")
    assert list(read_pairs(id_last)["item_id"]) == ["News-1", "News-2"]


def test_duplicate_ids_name_both_lines(tmp_path):
    path = tmp_path / "dup.tsv"
    path.write_text("id\tleft\tright\na\tx\ty\nb\tx\ty\na\tz\tw\n", encoding="utf-8")
    with pytest.raises(SimrateError, match=r"duplicate item id 'a' \(lines 2 and 4\)") as caught:
        read_pairs(path)
    assert caught.value.line == 4


def test_wrong_column_count_deep_in_a_large_file(tmp_path):
    path = tmp_path / "large.tsv"
    lines = ["id\tleft\tright"] + [f"p{n}\tleft text {n}\tright text {n}" for n in range(2, 6001)]
    lines[3417 - 1] = "p3417\tonly one text"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="2 columns, but the header has 3") as caught:
        read_pairs(path)
    assert caught.value.line == 3417
    assert str(caught.value).startswith(f"{path}:3417: ")


def test_extra_empty_trailing_fields_are_tolerated(tmp_path):
    path = tmp_path / "trailing.csv"
    path.write_text("left,right\na,b,,\n", encoding="utf-8")
    assert read_pairs(path).iloc[0]["right"] == "b"


@pytest.mark.parametrize("row", ["k\t\tright", "k\tleft\t   "])
def test_empty_text_is_an_error(tmp_path, row):
    path = tmp_path / "empty_text.tsv"
    path.write_text(f"id\tleft\tright\nok\ta\tb\n{row}\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="empty text") as caught:
        read_pairs(path)
    assert caught.value.line == 3


def test_header_only_is_an_error(tmp_path):
    path = tmp_path / "header.tsv"
    path.write_text("id\tleft\tright\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="no pairs"):
        read_pairs(path)


def test_bom_crlf_and_cp1252_pairs(tmp_path):
    path = tmp_path / "win.csv"
    path.write_bytes(b"\xef\xbb\xbfleft,right\r\nna\xc3\xafve,plain\r\n")
    items = read_pairs(path)
    assert items.iloc[0]["left"] == "na\u00efve"
    assert items.attrs["encoding"] == "utf-8-sig"
    legacy = tmp_path / "legacy.csv"
    legacy.write_bytes(b"left,right\r\nna\xefve,\x93quoted\x94\r\n")
    items = read_pairs(legacy)
    row = items.iloc[0]
    assert (row["left"], row["right"]) == ("na\u00efve", "\u201cquoted\u201d")
    assert items.attrs["encoding"] == "cp1252"  # the import command can say so


def test_texts_are_kept_exactly(tmp_path):
    path = tmp_path / "spaces.tsv"
    path.write_text("left\tright\n  leading and trailing  \tx\n", encoding="utf-8")
    assert read_pairs(path).iloc[0]["left"] == "  leading and trailing  "
