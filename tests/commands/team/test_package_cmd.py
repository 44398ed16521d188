"""simrate package / import --format project / assign / checks, and the whole team workflow."""

from __future__ import annotations

import itertools
import statistics
from pathlib import Path

import pandas as pd
import pytest

from simrate.core.project import Project
from tests.cli.helpers import Result, simrate

N_ITEMS = 60
CHECK_IDS = [f"p:{i}" for i in range(61, 69)]
ALL_IDS = [f"p:{i}" for i in range(1, 69)]


def latent(item_id: str) -> float:
    """The 'true' similarity of an item: spread over the whole 0-5 grid."""
    number = int(item_id.split(":")[1])
    return (number * 7 % 21) * 0.25


def write_inputs(folder: Path) -> tuple[Path, Path]:
    """A pairs file and a file of check pairs with known (gold) scores."""
    pairs = folder / "pairs.tsv"
    pairs.write_text("id\tleft\tright\n" + "".join(
        f"p:{i}\tleft sentence {i}\tright sentence {i}\n" for i in range(1, N_ITEMS + 1)),
        encoding="utf-8")
    checks = folder / "checks.tsv"
    checks.write_text("id\tleft\tright\tgold\n" + "".join(
        f"{i}\tleft sentence {i[2:]}\tright sentence {i[2:]}\t{latent(i):.3f}\n"
        for i in CHECK_IDS), encoding="utf-8")
    return pairs, checks


def assert_one_line_error(result: Result, status: int = 2) -> str:
    assert result.status == status, result
    assert result.err.startswith("simrate: error: ") and result.err.count("\n") == 1
    assert "Traceback" not in result.err
    return result.err


@pytest.fixture
def project(tmp_path, capsys) -> Path:
    path = tmp_path / "study.simrate"
    pairs, checks = write_inputs(tmp_path)
    assert simrate(capsys, "new", path, "--scale", "sts").status == 0
    for source in (pairs, checks):
        assert simrate(capsys, "import", path, source, "--dataset", "pairs").status == 0
    return path


def rate_package(path: Path, annotator: str, score_of) -> dict[str, float]:
    """What the annotator does in the app: rate every item of their package."""
    given = {}
    with Project.open(path) as package:
        assert package.items()["reference"].isna().all()
        for item_id in package.item_ids():
            given[item_id] = score_of(item_id)
            package.rate(item_id, annotator, given[item_id], seconds=6.0)
    return given


# ----------------------------------------------------------------- single commands
def test_package_command_writes_and_reports(project, tmp_path, capsys):
    out = tmp_path / "ann.simrate"
    result = simrate(capsys, "package", project, out, "--annotator", "ann", "--sample", "10",
                     "--seed", "3")
    assert result.status == 0, result.err
    assert result.out == f"{out}: package for ann: 10 items (0 of them check items)\n"
    with Project.open(out) as package:
        assert package.n_items == 10
    again = simrate(capsys, "package", project, out, "--annotator", "ann")
    assert "already exists" in assert_one_line_error(again)
    bad = simrate(capsys, "package", project, tmp_path / "x.simrate", "--annotator", "ann",
                  "--dataset", "nope")
    assert "no items in dataset 'nope'" in assert_one_line_error(bad)
    missing = simrate(capsys, "package", tmp_path / "none.simrate", tmp_path / "y.simrate",
                      "--annotator", "ann")
    assert "no such project file" in assert_one_line_error(missing)


def test_import_project_format_merges_refuses_conflicts_and_resolves(project, tmp_path, capsys):
    out = tmp_path / "ann.simrate"
    simrate(capsys, "package", project, out, "--annotator", "ann")
    rate_package(out, "ann", latent)
    with Project.open(project) as p:
        p.rate("p:5", "ann", 0.0 if latent("p:5") else 5.0)
    refused = simrate(capsys, "import", project, out, "--format", "project")
    err = assert_one_line_error(refused, status=3)
    assert "1 conflicts" in err and "'p:5'" in err and "--resolve" in err
    kept = simrate(capsys, "import", project, out, "--format", "project", "--resolve", "keep")
    assert kept.status == 0, kept.err
    assert f"{len(ALL_IDS) - 1} ratings added" in kept.out and "1 conflicts kept" in kept.out
    auto = simrate(capsys, "import", project, out, "--resolve", "keep")  # format detected
    assert auto.status == 0 and "detected format 'project'" in auto.err
    assert f"{len(ALL_IDS) - 1} unchanged" in auto.out


@pytest.mark.parametrize("damage", ["foreign", "truncated", "newer", "plain"])
def test_bad_packages_are_one_line_errors(project, tmp_path, capsys, damage):
    out = tmp_path / "ann.simrate"
    if damage == "foreign":
        other = tmp_path / "other.simrate"
        simrate(capsys, "new", other, "--scale", "sts")
        simrate(capsys, "import", other, tmp_path / "pairs.tsv", "--dataset", "pairs")
        simrate(capsys, "package", other, out, "--annotator", "ann")
    elif damage == "plain":
        simrate(capsys, "new", out, "--scale", "sts")
    else:
        simrate(capsys, "package", project, out, "--annotator", "ann")
        rate_package(out, "ann", latent)
        if damage == "truncated":
            out.write_bytes(out.read_bytes()[:-5000])
        else:
            with Project.open(out) as package, package.team_tables.transaction() as conn:
                conn.execute("UPDATE meta SET value='7' WHERE key='package_format'")
    result = simrate(capsys, "import", project, out, "--format", "project")
    err = assert_one_line_error(result)
    assert str(out) in err
    expected = {"foreign": "another project", "truncated": "damaged", "newer": "newer simrate",
                "plain": "not an annotator package"}
    assert expected[damage] in err
    with Project.open(project) as p:
        assert p.ratings().empty


def test_import_while_the_project_is_open_in_the_gui(project, tmp_path, capsys):
    out = tmp_path / "ann.simrate"
    simrate(capsys, "package", project, out, "--annotator", "ann")
    rate_package(out, "ann", latent)
    with Project.open(project) as window:
        window.rate("p:1", "bob", 1.0)
        assert simrate(capsys, "import", project, out).status == 0
        assert window.refresh()
        assert window.rating("p:2", "ann") == latent("p:2")
        assert len(window.ratings()) == len(ALL_IDS) + 1


def test_assign_and_checks_commands(project, tmp_path, capsys):
    marked = simrate(capsys, "checks", project, "--from-reference")
    assert marked.status == 0 and marked.out.startswith("8 items marked as checks")
    wrong = simrate(capsys, "checks", project, "p:1", "--from-reference")
    assert "'p:1' has no reference score" in assert_one_line_error(wrong)
    plan = simrate(capsys, "assign", project, "ann", "bob", "cy", "--per-item", 2, "--seed", 9,
                   "--json")
    assert plan.status == 0
    facts = plan.json()
    assert facts["items"] == {"ann": 40, "bob": 40, "cy": 40}  # 60 items x 2 / 3
    assert sum(facts["overlap"].values()) == N_ITEMS
    too_many = simrate(capsys, "assign", project, "ann", "--per-item", 2)
    assert "1 to 1 annotators" in assert_one_line_error(too_many)
    result = simrate(capsys, "package", project, tmp_path / "bob.simrate", "--annotator", "bob")
    assert result.out.endswith("48 items (8 of them check items)\n")


# ----------------------------------------------------------------- the whole workflow
ORDERS = list(itertools.permutations(["ann", "bob", "cy"]))


@pytest.mark.parametrize("order", [ORDERS[0], ORDERS[3], ORDERS[5]])
def test_three_annotators_end_to_end(project, tmp_path, capsys, order):
    """Send packages, merge in any order, spot the careless rater, exclude, export gold."""
    assert simrate(capsys, "checks", project, "--from-reference").status == 0
    assert simrate(capsys, "assign", project, "ann", "bob", "cy", "--per-item", 2,
                   "--seed", 1).status == 0
    raters = {
        "ann": latent,
        "bob": lambda i: min(5.0, latent(i) + 0.25),
        "cy": lambda i: 5.0 - latent(i),  # reads the scale backwards
    }
    given: dict[str, dict[str, float]] = {}
    for name, score_of in raters.items():
        out = tmp_path / f"{name}.simrate"
        assert simrate(capsys, "package", project, out, "--annotator", name).status == 0
        given[name] = rate_package(out, name, score_of)

    for name in order:  # packages come back in any order, one of them twice
        result = simrate(capsys, "import", project, tmp_path / f"{name}.simrate",
                         "--format", "project")
        assert result.status == 0, result.err
    again = simrate(capsys, "import", project, tmp_path / f"{order[0]}.simrate")
    assert f"0 ratings added, 0 changed, {len(given[order[0]])} unchanged" in again.out

    with Project.open(project) as p:  # nothing lost, nothing counted twice
        ratings = p.ratings()
        assert len(ratings) == sum(len(g) for g in given.values())
        for name, scores in given.items():
            mine = ratings[ratings["annotator"] == name].set_index("item_id")["score"]
            assert mine.to_dict() == scores
    assert set(itertools.chain(*given.values())) == set(ALL_IDS)

    report = {row["annotator"]: row for row in
              simrate(capsys, "annotators", project, "--json").json()}
    assert report["cy"]["flagged"] and report["cy"]["check_pearson"] < 0.5
    assert not report["ann"]["flagged"] and report["ann"]["check_pearson"] > 0.95
    assert not report["bob"]["flagged"]
    refused = simrate(capsys, "export", project, tmp_path / "gold.tsv")
    assert refused.status == 3  # cy's reversed scores leave items flagged

    excluded = simrate(capsys, "annotators", project, "--json", "--exclude", "cy",
                       "--by", "lead")
    assert excluded.status == 0
    assert {r["annotator"]: r["excluded"] for r in excluded.json()} == {
        "ann": False, "bob": False, "cy": True}
    exported = simrate(capsys, "export", project, tmp_path / "gold.tsv")
    assert exported.status == 0, exported.err
    gold = pd.read_csv(tmp_path / "gold.tsv", sep="\t").set_index("item_id")
    assert sorted(gold.index) == sorted(ALL_IDS)
    assert "rating:cy" not in gold.columns
    for item_id in ALL_IDS:
        counted = [given[n][item_id] for n in ("ann", "bob") if item_id in given[n]]
        assert gold.loc[item_id, "n_ratings"] == len(counted)
        assert gold.loc[item_id, "gold"] == pytest.approx(statistics.mean(counted), abs=5e-4)
    with Project.open(project) as p:
        log = p.changes()
        last = log[log["kind"] == "exclude"].iloc[-1]
        assert (last["annotator"], last["who"], last["new"]) == ("cy", "lead", True)


def test_checks_command_sets_lists_and_removes(project, capsys):
    set_two = simrate(capsys, "checks", project, "p:1", "p:2", "--score", 2.5)
    assert set_two.out.splitlines()[:2] == ["2 check items set to 2.5", "2 check items"]
    listed = simrate(capsys, "checks", project, "--json")
    assert listed.json() == {"p:1": 2.5, "p:2": 2.5}
    unsafe = simrate(capsys, "checks", project, "--remove")
    assert "--remove needs the ITEM_IDs" in assert_one_line_error(unsafe)
    removed = simrate(capsys, "checks", project, "--remove", "--dataset", "pairs")
    assert removed.out.startswith("2 check items unmarked")
    off_scale = simrate(capsys, "checks", project, "p:1", "--score", 7.0)
    assert "outside scale" in assert_one_line_error(off_scale)


def test_checks_item_ids_may_follow_the_options(project, capsys):
    marked = simrate(capsys, "checks", project, "--score", 2.5, "p:1", "p:2")
    assert marked.status == 0, marked.err
    assert simrate(capsys, "checks", project, "--json").json() == {"p:1": 2.5, "p:2": 2.5}
    removed = simrate(capsys, "checks", project, "--remove", "p:1")
    assert removed.status == 0, removed.err
    assert simrate(capsys, "checks", project, "--json").json() == {"p:2": 2.5}
