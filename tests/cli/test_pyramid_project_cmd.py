"""Pyramid projects from the command line: a sample to rate, questions as pairs, export back."""

from __future__ import annotations

import csv

from simrate.core.project import Project
from simrate.formats.output.pyramid_export import PYRAMID_COLUMNS
from simrate.formats.pyramids.pyramid_project import ROLES, count_pyramid
from tests.cli.helpers import simrate


def read_tsv(path) -> list[dict[str, str]]:
    """Rows of a TSV file with a header, read by the csv module."""
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream, delimiter="\t"))


def new_project(tmp_path, capsys):
    """An empty CLSS project."""
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0
    return path


def test_import_defaults_to_one_non_paraphrase_per_paraphrase(tmp_path, sample_data, capsys):
    project = new_project(tmp_path, capsys)
    counts = count_pyramid(sample_data / "D9901.pyr")
    assert counts.non_paraphrases > 2 * counts.paraphrases  # the whole set would bury people
    result = simrate(capsys, "import", project, sample_data / "D9901.pyr")
    assert result.status == 0, result.err
    assert (f"{counts.paraphrases} paraphrases, {counts.paraphrases} non-paraphrases"
            in result.out)
    with Project.open(project) as opened:
        labels = [m["label"] for m in opened.items()["meta"]]
    assert sum(labels) == counts.paraphrases and len(labels) == 2 * counts.paraphrases


def test_ranking_questions_import_as_four_adjacent_pairs(tmp_path, sample_data, capsys):
    project = new_project(tmp_path, capsys)
    result = simrate(capsys, "import", project, sample_data / "D9901.pyr", "--format",
                     "pyramid", "--test", "ranking", "--seed", "4")
    assert result.status == 0, result.err
    with Project.open(project) as opened:
        items = opened.items()
    questions = count_pyramid(sample_data / "D9901.pyr").questions
    assert len(items) == 4 * questions
    metas = items["meta"].tolist()
    first_roles = set()
    for start in range(0, len(metas), 4):
        group = metas[start:start + 4]
        assert len({m["question_id"] for m in group}) == 1  # a question's four stay together
        assert sorted(m["role"] for m in group) == sorted(ROLES)
        assert [m["label"] for m in group].count(1) == 1
        assert len(set(items["left"].iloc[start:start + 4])) == 1  # the question on the left
        first_roles.add(group[0]["role"])
    assert len(first_roles) > 1  # the answer is not always shown first


def test_export_pyramid_puts_human_gold_beside_the_label(tmp_path, sample_data, capsys):
    project = new_project(tmp_path, capsys)
    simrate(capsys, "import", project, sample_data / "D9901.pyr", "--seed", "2")
    with Project.open(project) as opened:
        items = opened.items()
    ratings = tmp_path / "ratings.tsv"
    scores = {}
    with open(ratings, "w", encoding="utf-8") as stream:
        stream.write("item_id\tannotator\tscore\n")
        for k, item_id in enumerate(items["item_id"]):
            scores[item_id] = (k % 4, (k % 4) + (0.5 if k % 2 else 0))
            stream.write(f"{item_id}\tann\t{scores[item_id][0]}\n")
            stream.write(f"{item_id}\tbob\t{scores[item_id][1]}\n")
    assert simrate(capsys, "import", project, ratings, "--format", "ratings").status == 0
    out = tmp_path / "rated.tsv"
    result = simrate(capsys, "export", project, out, "--format", "pyramid")
    assert result.status == 0, result.err
    rows = read_tsv(out)
    assert tuple(rows[0]) == PYRAMID_COLUMNS
    assert len(rows) == len(items)
    by_id = dict(zip(items["item_id"], items["meta"], strict=True))
    for row in rows:
        item_id = f"{row['topic']}:{row['pair_id']}"
        meta = by_id[item_id]
        assert row["label"] == str(meta["label"])
        assert (row["left_scu"], row["right_scu"]) == (meta["left_scu"], meta["right_scu"])
        assert float(row["gold"]) == sum(scores[item_id]) / 2
        assert (row["n_ratings"], row["gold_source"], row["test"]) == ("2", "mean", "binary")
    pairs = tmp_path / "bench.tsv"
    simrate(capsys, "pyramid", sample_data / "D9901.pyr", "--out", pairs)
    benchmark = {r["pair_id"]: r for r in read_tsv(pairs)}
    for row in rows:  # the same pair reads the same as in the benchmark
        same = benchmark[row["pair_id"]]
        assert (row["left"], row["right"], row["label"]) == (same["left"], same["right"],
                                                             same["label"])


def test_export_pyramid_refuses_a_project_without_pyramid_items(tmp_path, sample_data, capsys):
    project = new_project(tmp_path, capsys)
    simrate(capsys, "import", project, sample_data / "pairs.tsv")
    result = simrate(capsys, "export", project, tmp_path / "x.tsv", "--format", "pyramid",
                     "--allow-unresolved")
    assert result.status == 2
    assert result.err.startswith("simrate: error:") and "no items imported from pyramid" \
        in result.err
