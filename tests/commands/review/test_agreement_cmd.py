"""simrate agreement: JSON keys of DESIGN.md, reference values, bad input, project mode."""

from __future__ import annotations

from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.project import Project
from tests.cli.helpers import simrate

pytestmark = pytest.mark.filterwarnings("error")  # no division or NaN warnings, ever

KEYS = {"items", "pairable_items", "annotators", "alpha", "pearson", "pearson_vs_rest",
        "min_overlap", "gold_reliability", "raters_needed"}
# Krippendorff (2011), section C, as a wide file: item_id, then one column per observer.
K2011_WIDE = (
    "item_id,A,B,C,D\n1,1,1,,1\n2,2,2,3,2\n3,3,3,3,3\n4,3,3,3,3\n5,2,2,2,2\n6,1,2,3,4\n"
    "7,4,4,4,4\n8,1,1,2,1\n9,2,2,2,2\n10,,5,5,5\n11,,,1,1\n12,,3,,\n"
)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def ok_json(capsys, *args):
    result = simrate(capsys, "agreement", *args, "--json")
    assert result.status == 0, result.err
    assert result.err == ""
    return result.json()


def error_line(capsys, *args) -> str:
    result = simrate(capsys, "agreement", *args)
    assert result.status == 2 and result.out == ""
    assert result.err.startswith("simrate: error: ") and result.err.count("\n") == 1
    assert "Traceback" not in result.err
    return result.err


def test_ratings_file_reproduces_krippendorff_2011(tmp_path, capsys):
    path = write(tmp_path, "k.csv", K2011_WIDE)
    out = ok_json(capsys, "--ratings", path, "--level", "all", "--min-overlap", "2")
    assert set(out) == KEYS and out["min_overlap"] == 2
    assert {k: round(v, 3) for k, v in out["alpha"].items()} == {
        "interval": 0.849, "ordinal": 0.815, "nominal": 0.743, "ratio": 0.797}
    assert out["items"] == 12 and out["pairable_items"] == 11
    assert out["annotators"] == ["A", "B", "C", "D"]
    a, b = [1, 2, 3, 3, 2, 1, 4, 1, 2], [1, 2, 3, 3, 2, 2, 4, 1, 2]  # items both rated
    assert out["pearson"]["A"]["B"] == pytest.approx(stats.pearsonr(a, b)[0])
    assert out["pearson"]["B"]["A"] == out["pearson"]["A"]["B"]
    assert set(out["pearson_vs_rest"]) == {"A", "B", "C", "D"}


def test_default_level_is_interval_and_ci_adds_ci95(tmp_path, capsys):
    rng = np.random.default_rng(0)
    truth = rng.integers(0, 17, 300)
    rows = ["item_id,annotator,score"] + [
        f"i{u},{who},{np.clip(truth[u] + rng.integers(-2, 3), 0, 16) * 0.25}"
        for u in range(300) for who in ("x", "y", "z") if rng.random() > 0.1]
    path = write(tmp_path, "long.csv", "\n".join(rows) + "\n")
    out = ok_json(capsys, "--ratings", path, "--ci")
    assert set(out) == KEYS | {"ci95"} and list(out["alpha"]) == ["interval"]
    low, high = out["ci95"]["interval"]
    assert low < out["alpha"]["interval"] < high
    hayes = ok_json(capsys, "--ratings", path, "--ci", "--ci-method", "hayes", "--level", "all")
    assert set(hayes["ci95"]) == {"interval", "ordinal", "nominal", "ratio"}
    frame = pd.read_csv(path).pivot(index="annotator", columns="item_id", values="score")
    assert out["alpha"]["interval"] == pytest.approx(
        krippendorff.alpha(frame.to_numpy(float), level_of_measurement="interval"))


def test_human_output_is_a_small_table(tmp_path, capsys):
    path = write(tmp_path, "k.tsv", K2011_WIDE.replace(",", "\t"))
    result = simrate(capsys, "agreement", "--ratings", path, "--level", "all", "--ci")
    assert result.status == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("All items: 12 items, 11 with two or more ratings; 4 annotators")
    assert any(line.split()[:2] == ["interval", "0.849"] for line in lines)
    assert any(line.split()[:2] == ["ordinal", "0.815"] for line in lines)
    assert "95% CI, all items (unit bootstrap)" in result.out and "vs rest" in result.out
    assert "nan" not in result.out.lower()


def test_xlsx_ratings_file(tmp_path, capsys):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in K2011_WIDE.splitlines():
        sheet.append([float(c) if c.replace(".", "").isdigit() and i else (c or None)
                      for i, c in enumerate(row.split(","))])
    path = tmp_path / "k.xlsx"
    book.save(path)
    out = ok_json(capsys, "--ratings", path, "--level", "ordinal")
    assert round(out["alpha"]["ordinal"], 3) == 0.815


# ------------------------------------------------------------------ bad input
def test_one_rater_only(tmp_path, capsys):
    path = write(tmp_path, "one.csv", "item_id,annotator,score\n1,a,2\n2,a,3\n")
    out = ok_json(capsys, "--ratings", path, "--level", "all", "--ci")
    assert out["alpha"] == {"interval": None, "ordinal": None, "nominal": None, "ratio": None}
    assert out["ci95"]["interval"] is None and out["pearson_vs_rest"] == {"a": None}
    human = simrate(capsys, "agreement", "--ratings", path).out
    assert "n/a [1]" in human and "[1] one rater only" in human


def test_every_rating_identical(tmp_path, capsys):
    path = write(tmp_path, "same.csv", "item_id,a,b\n1,3,3\n2,3,3\n3,3,3\n")
    out = ok_json(capsys, "--ratings", path, "--level", "all")
    assert set(out["alpha"].values()) == {None}
    assert out["pearson"]["a"]["b"] is None
    human = simrate(capsys, "agreement", "--ratings", path).out
    assert "no variance" in human


def test_units_with_a_single_rating(tmp_path, capsys):
    only_single = write(tmp_path, "single.csv", "item_id,a,b\n1,3,\n2,,4\n3,1,\n")
    out = ok_json(capsys, "--ratings", only_single)
    assert out["alpha"]["interval"] is None and out["pairable_items"] == 0
    assert "no pairable units" in simrate(capsys, "agreement", "--ratings", only_single).out
    mixed = write(tmp_path, "mixed.csv", "item_id,a,b\n1,3,\n2,1,2\n3,4,4\n4,2,1\n5,,0\n")
    out = ok_json(capsys, "--ratings", mixed)
    data = np.array([[3, 1, 4, 2, np.nan], [np.nan, 2, 4, 1, 0]])
    assert out["alpha"]["interval"] == pytest.approx(krippendorff.alpha(data))


def test_non_numeric_cell_names_file_and_line(tmp_path, capsys):
    path = write(tmp_path, "bad.csv", "item_id,annotator,score\n1,a,2\n1,b,high\n")
    err = error_line(capsys, "--ratings", path)
    assert "bad.csv:3:" in err and "high" in err


def test_empty_file(tmp_path, capsys):
    path = write(tmp_path, "empty.csv", "")
    assert "empty.csv" in error_line(capsys, "--ratings", path)
    header_only = write(tmp_path, "header.csv", "item_id,annotator,score\n")
    assert "no ratings" in error_line(capsys, "--ratings", header_only)


def test_rater_with_nothing_in_common(tmp_path, capsys):
    path = write(tmp_path, "apart.csv", "item_id,a,b,c\n1,1,2,\n2,2,3,\n3,3,3,\n4,,,2\n5,,,3\n")
    out = ok_json(capsys, "--ratings", path, "--min-overlap", "3")
    assert out["pearson"]["a"]["c"] is None and out["pearson"]["c"]["b"] is None
    assert out["pearson"]["a"]["b"] == pytest.approx(stats.pearsonr([1, 2, 3], [2, 3, 3])[0])
    assert out["pearson_vs_rest"]["c"] is None
    human = simrate(capsys, "agreement", "--ratings", path).out
    assert "no common items" in human


def test_pairs_sharing_fewer_items_than_min_overlap_have_no_pearson(tmp_path, capsys):
    path = write(tmp_path, "k.csv", K2011_WIDE)
    out = ok_json(capsys, "--ratings", path)
    assert out["min_overlap"] == 10  # the default, named in the output
    assert out["pearson"]["A"]["B"] is None and out["pearson"]["A"]["A"] == 1.0
    human = simrate(capsys, "agreement", "--ratings", path).out
    assert "fewer than 10 common items (--min-overlap)" in human
    assert "must be 2 or more" in error_line(capsys, "--ratings", path, "--min-overlap", "1")


def test_usage_errors(tmp_path, capsys):
    path = write(tmp_path, "k.csv", K2011_WIDE)
    assert "PROJECT or --ratings" in error_line(capsys)
    assert "needs a project" in error_line(capsys, "--ratings", path, "--by", "dataset")
    assert "no such file" in error_line(capsys, "--ratings", tmp_path / "nope.csv").lower()


# ------------------------------------------------------------------ project mode
RATINGS = {  # item: (ann1, ann2, ann3) on the CLSS scale; None = not rated
    "p2s:1": (3.0, 3.25, 3.0), "p2s:2": (1.0, 1.0, 1.5), "p2s:3": (4.0, 2.0, 4.0),
    "p2s:4": (0.0, 0.25, None), "p2s:5": (2.0, 2.5, 2.25), "p2s:6": (3.5, 3.5, 3.75),
    "s2p:1": (2.0, 2.0, 2.25), "s2p:2": (0.5, 3.0, 1.0), "s2p:3": (4.0, 3.75, 4.0),
    "s2p:4": (1.0, 1.25, 1.0), "s2p:5": (3.0, None, 2.75), "s2p:6": (0.0, 1.5, 0.25),
}
GENRE = {"p2s:1": "news", "p2s:2": "news", "p2s:3": "slang", "p2s:4": "slang",
         "p2s:5": "news", "p2s:6": "slang"}


@pytest.fixture
def project_path(tmp_path):
    ids = list(RATINGS) + ["s2p:7"]  # one item nobody rated
    path = tmp_path / "p.simrate"
    with Project.create(path, scale="clss") as project:
        project.import_items(item_frame({
            "item_id": ids, "left": [f"left {i}" for i in ids],
            "right": [f"right {i}" for i in ids],
            "dataset": [i.split(":")[0] for i in ids],
            "genre": [GENRE.get(i, "") for i in ids],
            "reference": [float("nan")] * len(ids), "meta": [{}] * len(ids),
            "line": list(range(1, len(ids) + 1))}), source="items.tsv")
        rows = [(item, f"ann{k + 1}", score) for item, scores in RATINGS.items()
                for k, score in enumerate(scores) if score is not None]
        project.import_ratings(rating_frame({
            "item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
            "score": [r[2] for r in rows], "note": [""] * len(rows),
            "line": list(range(2, len(rows) + 2))}), source="r.csv")
        project.adjudicate("s2p:6", 0.5, note="misread", by="boss")
    return path


def reference(items) -> float:
    data = np.array([[np.nan if RATINGS[i][k] is None else RATINGS[i][k] for i in items]
                     for k in range(3)])
    return krippendorff.alpha(data, level_of_measurement="interval")


def test_project_alpha_and_unadjudicated(project_path, capsys):
    out = ok_json(capsys, project_path)
    assert set(out) == KEYS | {"alpha_unadjudicated"}
    assert out["items"] == 13 and out["pairable_items"] == 12
    assert out["annotators"] == ["ann1", "ann2", "ann3"]
    assert out["alpha"]["interval"] == pytest.approx(reference(RATINGS))
    # flagged: spread >= 1 point and not adjudicated (p2s:3, s2p:2); adjudicated: s2p:6
    calm = [i for i in RATINGS if i not in {"p2s:3", "s2p:2", "s2p:6"}]
    assert out["alpha_unadjudicated"]["interval"] == pytest.approx(reference(calm))


def test_project_groups_by_dataset_and_genre(project_path, capsys):
    out = ok_json(capsys, project_path, "--by", "dataset", "--ci")
    assert set(out["groups"]) == {"p2s", "s2p"}
    p2s = out["groups"]["p2s"]
    assert set(p2s) == KEYS | {"alpha_unadjudicated", "ci95"}
    assert p2s["items"] == 6
    assert p2s["alpha"]["interval"] == pytest.approx(reference([i for i in RATINGS
                                                                if i.startswith("p2s")]))
    assert out["groups"]["s2p"]["items"] == 7  # includes the unrated item
    genres = ok_json(capsys, project_path, "--by", "genre")["groups"]
    assert set(genres) == {"news", "slang", ""}
    assert genres["news"]["alpha"]["interval"] == pytest.approx(
        reference(["p2s:1", "p2s:2", "p2s:5"]))
    human = simrate(capsys, "agreement", project_path, "--by", "genre")
    assert "genre (none)" in human.out and "genre news" in human.out


def test_project_excluded_annotator_is_left_out(project_path, capsys):
    with Project.open(project_path) as project:
        if not hasattr(project, "set_excluded"):
            pytest.skip("this Project cannot exclude annotators")
        project.set_excluded("ann3")
    out = ok_json(capsys, project_path)
    assert out["annotators"] == ["ann1", "ann2"]
    data = np.array([[np.nan if s[k] is None else s[k] for s in RATINGS.values()]
                     for k in range(2)])
    assert out["alpha"]["interval"] == pytest.approx(krippendorff.alpha(data))


def test_project_without_ratings(tmp_path, capsys):
    path = tmp_path / "empty.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(item_frame({
            "item_id": ["a", "b"], "left": ["x", "y"], "right": ["z", "w"],
            "dataset": ["d", "d"], "genre": ["", ""], "reference": [float("nan")] * 2,
            "meta": [{}, {}], "line": [1, 2]}), source="items.tsv")
    out = ok_json(capsys, path, "--ci", "--by", "dataset")
    assert out["items"] == 2 and out["annotators"] == [] and out["alpha"]["interval"] is None
    assert out["groups"]["d"]["ci95"] == {"interval": None}
    assert "[1] no ratings" in simrate(capsys, "agreement", path).out


def test_not_a_project(tmp_path, capsys):
    path = write(tmp_path, "x.simrate", "hello")
    assert "x.simrate" in error_line(capsys, path)


def test_the_subset_is_named_for_what_it_holds(project_path, capsys):
    """The text report names the subset of items never flagged nor adjudicated
    "undisputed", says in one line why its alpha is higher, and `--help` says it too."""
    from simrate.core.base.names import UNDISPUTED_NOTE

    result = simrate(capsys, "agreement", project_path)
    assert result.status == 0, result.err
    header = next(line for line in result.out.splitlines() if "Krippendorff" in line)
    assert header.split()[-4:] == ["all", "items", "undisputed", "items"]
    assert "unadjudicated" not in result.out
    assert result.out.rstrip().endswith(UNDISPUTED_NOTE)
    help_text = simrate_help(capsys, "agreement")
    assert " ".join(UNDISPUTED_NOTE.split()) in " ".join(help_text.split())


def simrate_help(capsys, *command: str) -> str:
    from simrate.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return capsys.readouterr().out
