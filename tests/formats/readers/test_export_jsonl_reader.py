"""The JSON Lines pair reader: our exports and other JSONL pair files; line-numbered errors."""

from __future__ import annotations

import json
import math

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.readers.jsonl import read_jsonl_pairs


def write_lines(path, *objects_or_texts):
    """Write each argument as one line: dicts as JSON, strings as they are."""
    lines = [json.dumps(o, ensure_ascii=False) if isinstance(o, dict) else o
             for o in objects_or_texts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_generic_keys(tmp_path):
    path = write_lines(tmp_path / "snli.jsonl",
                       {"pair_id": "p1", "sentence1": "A dog.", "sentence2": "An animal.",
                        "score": 3.5, "source": "x"},
                       "",
                       {"pair_id": "p2", "sentence1": "Rain.", "sentence2": "Sun.",
                        "score": None, "source": "y"})
    items = read_jsonl_pairs(path)
    assert items["item_id"].tolist() == ["p1", "p2"]
    assert items["left"].tolist() == ["A dog.", "Rain."]
    assert items["reference"][0] == 3.5 and math.isnan(items["reference"][1])
    assert items["dataset"].tolist() == ["snli", "snli"]
    assert items["meta"][0] == {"source": "x"} and items["line"].tolist() == [1, 3]


def test_without_ids_lines_name_the_items(tmp_path):
    path = write_lines(tmp_path / "pairs.jsonl", {"left": "a", "right": "b"},
                       {"left": "c", "right": "d", "gold": "2.5"})
    items = read_jsonl_pairs(path, dataset="mine")
    assert items["item_id"].tolist() == ["pairs:1", "pairs:2"]
    assert items["reference"][1] == 2.5 and set(items["dataset"]) == {"mine"}


def test_a_label_that_is_not_a_number_goes_to_meta(tmp_path):
    path = write_lines(tmp_path / "p.jsonl", {"left": "a", "right": "b", "score": "high"})
    items = read_jsonl_pairs(path)
    assert math.isnan(items["reference"][0]) and items["meta"][0] == {"score": "high"}


@pytest.mark.parametrize("lines, line, words", [
    (['{"left": "a", "right": "b"}', '{"left": "c", "right": '], 2, "not valid JSON"),
    (['{"left": "a", "right": "b"}', '["a", "b"]'], 2, "one JSON object"),
    (['{"left": "a", "right": "b"}', '{"left": "", "right": "b"}'], 2, "empty or missing"),
    (['{"left": "a", "right": "b"}', '{"right": "b"}'], 2, "empty or missing"),
    (['{"id": "x", "left": "a", "right": "b"}', '{"id": "x", "left": "c", "right": "d"}'], 2,
     "duplicate item id 'x'"),
    (['{"text": "a", "other": "b"}'], 1, "which keys hold the two texts"),
    (['{"left": ["a"], "right": "b"}'], 1, "must be text"),
])
def test_bad_files_name_the_line(tmp_path, lines, line, words):
    path = write_lines(tmp_path / "bad.jsonl", *lines)
    with pytest.raises(SimrateError, match=words) as error:
        read_jsonl_pairs(path)
    assert error.value.line == line and error.value.path == str(path)


def test_empty_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    with pytest.raises(SimrateError, match="empty"):
        read_jsonl_pairs(path)
