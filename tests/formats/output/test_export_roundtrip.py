"""An export read back as pairs loses nothing: ids, texts byte for byte, gold as reference."""

from __future__ import annotations

import math

import pytest

from simrate.core.base.frames import FIGURE_DECIMALS
from simrate.core.project import Project
from simrate.formats.readers.jsonl import read_jsonl_pairs
from simrate.formats.readers.pairs import read_pairs
from simrate.services.exports.export import export_project
from tests.cli.helpers import simrate
from tests.support.export_fixtures import TRICKY_TEXTS, make_project

READERS = {"tsv": read_pairs, "csv": read_pairs, "jsonl": read_jsonl_pairs}
STAT_COLUMNS = ["source", "n_ratings", "mean", "sd", "min", "max", "flagged", "adjudicated",
                "note", "rating:ann", "rating:bob", "rating:cy"]


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path / "p.simrate")
    p.adjudicate("t:3", 2.75, note='a note with "quotes",\ttabs\nand lines', by="lead")
    yield p
    p.close()


def figures(values) -> list[float]:
    """A computed column as the exports write it: each value rounded to FIGURE_DECIMALS."""
    return [v if v != v else round(v, FIGURE_DECIMALS) for v in values.tolist()]


def same_floats(a, b) -> bool:
    """Equal float lists, NaN equal to NaN."""
    return len(a) == len(b) and all((x == y) or (math.isnan(x) and math.isnan(y))
                                    for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("fmt", ["tsv", "csv", "jsonl"])
def test_export_reads_back_as_pairs(project, tmp_path, fmt):
    out = tmp_path / f"gold.{fmt}"
    export_project(project, out)
    back = READERS[fmt](out)
    items, gold = project.items(), project.gold()
    assert back["item_id"].tolist() == items["item_id"].tolist()
    for column in ("left", "right"):
        assert back[column].tolist() == items[column].tolist()  # byte for byte
    assert back["left"].tolist()[: len(TRICKY_TEXTS)] == TRICKY_TEXTS
    assert back["dataset"].tolist() == items["dataset"].tolist()
    assert back["genre"].tolist() == items["genre"].tolist()
    # exactly the gold as written: a grid value as it is, a mean rounded to 4 decimals
    assert same_floats(back["reference"].tolist(), figures(gold["gold"]))
    meta = back["meta"].tolist()
    assert all(set(STAT_COLUMNS) <= set(m) for m in meta)
    notes = [str(m["note"]) for m in meta]
    assert notes[2] == 'a note with "quotes",\ttabs\nand lines'
    # the statistics come back as the same numbers
    for column in ("mean", "sd", "rating:cy"):
        values = [float(m[column]) if m[column] not in ("", None) else math.nan for m in meta]
        expected = gold[column].tolist() if column == "rating:cy" else figures(gold[column])
        assert same_floats(values, expected)


def test_jsonl_keeps_the_ratings_object(project, tmp_path):
    export_project(project, tmp_path / "gold.jsonl")
    back = read_jsonl_pairs(tmp_path / "gold.jsonl")
    assert back["meta"].tolist()[0]["ratings"] == {"ann": 1.0, "bob": 1.0, "cy": 1.5}


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_import_command_reads_an_export_into_a_new_project(project, tmp_path, capsys, fmt):
    out = tmp_path / f"gold.{fmt}"
    export_project(project, out)
    target = tmp_path / "copy.simrate"
    assert simrate(capsys, "new", target, "--scale", "sts").status == 0
    result = simrate(capsys, "import", target, out)
    assert result.status == 0, result.err
    with Project.open(target) as copy:
        items = copy.items()
        assert items["left"].tolist() == project.items()["left"].tolist()
        assert same_floats(items["reference"].tolist(), figures(project.gold()["gold"]))


def test_import_command_reads_a_jsonl_export(project, tmp_path, capsys):
    out = tmp_path / "gold.jsonl"
    export_project(project, out)
    target = tmp_path / "copy.simrate"
    assert simrate(capsys, "new", target, "--scale", "sts").status == 0
    result = simrate(capsys, "import", target, out)
    assert result.status == 0, result.err
    with Project.open(target) as copy:
        items = copy.items()
        assert items["item_id"].tolist() == project.item_ids()
        assert items["right"].tolist() == project.items()["right"].tolist()
        assert same_floats(items["reference"].tolist(), figures(project.gold()["gold"]))
        assert items["meta"][0]["ratings"] == {"ann": 1.0, "bob": 1.0, "cy": 1.5}


@pytest.mark.parametrize("fmt", [
    "tsv",
    "csv",
    "jsonl",
])
def test_crlf_inside_a_text_survives(tmp_path, fmt):
    texts = ["windows\r\nline end", "plain"]
    with make_project(tmp_path / "p.simrate", texts=texts,
                      ratings=[("t:1", "a", 1.0), ("t:2", "a", 2.0)]) as project:
        export_project(project, tmp_path / f"gold.{fmt}")
    assert READERS[fmt](tmp_path / f"gold.{fmt}")["left"].tolist() == texts
