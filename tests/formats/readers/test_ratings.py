"""Ratings files, long and wide."""

from __future__ import annotations

import pytest
from openpyxl import Workbook

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import RATING_COLUMNS
from simrate.formats.readers.ratings import read_ratings


def as_set(frame):
    """The (item, annotator, score) triples of a rating frame."""
    return set(zip(frame["item_id"], frame["annotator"], frame["score"], strict=True))


def test_sample_long_and_wide_hold_the_same_ratings(sample_data):
    long = read_ratings(sample_data / "ratings_long.csv")
    wide = read_ratings(sample_data / "ratings_wide.tsv")
    assert tuple(long.columns) == tuple(wide.columns) == RATING_COLUMNS
    # 20 items x 3 annotators, two of chloe's cells left empty
    assert len(long) == len(wide) == 58
    assert as_set(long) == as_set(wide)
    assert set(wide["annotator"]) == {"ana", "ben", "chloe"}
    assert ("reviews-01", "chloe") not in set(zip(wide["item_id"], wide["annotator"], strict=True))


def test_sample_ratings_cover_the_sample_pairs_and_disagree(sample_data):
    from simrate.formats.readers.pairs import read_pairs

    ratings = read_ratings(sample_data / "ratings_wide.tsv")
    assert set(ratings["item_id"]) == set(read_pairs(sample_data / "pairs.tsv")["item_id"])
    assert ((ratings["score"] * 4) % 1 == 0).all() and ratings["score"].between(0, 4).all()
    spread = ratings.groupby("item_id")["score"].agg(lambda s: s.max() - s.min())
    assert (spread >= 1).sum() >= 3


def test_long_notes_and_lines(sample_data):
    long = read_ratings(sample_data / "ratings_long.csv").set_index(["item_id", "annotator"])
    row = long.loc[("reviews-04", "chloe")]
    assert row["note"] == 'both talk about the "book", so related'
    assert row["score"] == 2.0
    assert long.loc[("news-01", "ana")]["line"] == 2
    assert long.loc[("news-01", "ana")]["note"] == ""


def test_long_without_annotator_column_takes_the_argument(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("item_id\tscore\na\t3.25\nb\t\nc\t0\n", encoding="utf-8")
    frame = read_ratings(path, annotator="dana")
    assert as_set(frame) == {("a", "dana", 3.25), ("c", "dana", 0.0)}
    assert list(frame["line"]) == [2, 4]
    with pytest.raises(SimrateError, match="no annotator column"):
        read_ratings(path)


@pytest.mark.parametrize("cell", ["NaN", "-", "n/a", "three", "inf"])
def test_non_numeric_wide_cell_names_file_line_and_column(tmp_path, cell):
    path = tmp_path / "wide.tsv"
    path.write_text(f"item_id\tana\tben\na\t1\t2\nb\t3\t{cell}\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="leave the cell empty for a missing rating") as caught:
        read_ratings(path)
    assert caught.value.line == 3
    assert caught.value.path == str(path)
    assert "'ben'" in caught.value.message and repr(cell) in caught.value.message


def test_non_numeric_long_score(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("item_id,annotator,score\na,ana,1\na,ben,NaN\n", encoding="utf-8")
    with pytest.raises(SimrateError, match=r"column 'score': 'NaN' is not a number") as caught:
        read_ratings(path)
    assert caught.value.line == 3


def test_off_grid_and_out_of_range_values_are_returned_for_the_project_to_judge(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("item_id,annotator,score\na,ana,3.3\nb,ana,7\n", encoding="utf-8")
    frame = read_ratings(path)
    assert list(frame["score"]) == [3.3, 7.0]
    assert list(frame["line"]) == [2, 3]


def test_same_rating_twice_names_both_lines(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("item_id,annotator,score\na,ana,1\nb,ana,2\na,ana,3\n", encoding="utf-8")
    with pytest.raises(SimrateError, match=r"rates item 'a' twice \(lines 2 and 4\)"):
        read_ratings(path)


def test_wide_item_on_two_rows(tmp_path):
    path = tmp_path / "wide.tsv"
    path.write_text("item_id\tana\na\t1\na\t2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match=r"two rows \(lines 2 and 3\)"):
        read_ratings(path)


def test_wide_export_columns(tmp_path):
    path = tmp_path / "gold.tsv"
    path.write_text("item_id\tleft\tright\tgold\tmean\trating:ana\trating:ben\n"
                    "a\tx\ty\t2.5\t2.5\t2\t3\n", encoding="utf-8")
    assert as_set(read_ratings(path)) == {("a", "ana", 2.0), ("a", "ben", 3.0)}


def test_xlsx_wide_with_title_row(tmp_path):
    path = tmp_path / "ratings.xlsx"
    book = Workbook()
    for row in (("Ratings, batch 1",), ("item_id", "ana", "ben"), ("a", 1.25, None),
                (2, 4, 3.5)):
        book.active.append(row)
    book.save(path)
    frame = read_ratings(path)
    assert as_set(frame) == {("a", "ana", 1.25), ("2", "ana", 4.0), ("2", "ben", 3.5)}
    assert list(frame["line"]) == [3, 4, 4]


def test_header_is_required(tmp_path):
    path = tmp_path / "bare.tsv"
    path.write_text("a\t1\nb\t2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="needs a header row with an item_id column"):
        read_ratings(path)


def test_empty_ratings_file(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("", encoding="utf-8")
    with pytest.raises(SimrateError, match="file is empty"):
        read_ratings(path)


def test_wide_annotator_with_two_columns(tmp_path):
    path = tmp_path / "wide.tsv"
    path.write_text("item_id\tana\tana\na\t1\t2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="'ana' has two columns"):
        read_ratings(path)


def test_wide_rows_come_back_in_file_order(tmp_path):
    path = tmp_path / "wide.tsv"
    path.write_text("item_id\tana\tben\nb\t1\t2\na\t\t3\n", encoding="utf-8")
    frame = read_ratings(path)
    assert list(zip(frame["item_id"], frame["annotator"], frame["line"], strict=True)) == [
        ("b", "ana", 2), ("b", "ben", 2), ("a", "ben", 3)]


def test_long_empty_item_id_or_annotator(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("item_id,annotator,score\na,ana,1\n,ana,2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="empty item id") as caught:
        read_ratings(path)
    assert caught.value.line == 3
    path.write_text("item_id,annotator,score\na,ana,1\nb, ,2\n", encoding="utf-8")
    with pytest.raises(SimrateError, match="empty annotator") as caught:
        read_ratings(path)
    assert caught.value.line == 3
