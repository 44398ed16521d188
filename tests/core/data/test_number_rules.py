"""Numbers at the extremes: thresholds, --score, scores in other digits."""

from __future__ import annotations

import json
import sqlite3

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from tests.support.helpers import new_project, one_line_error, run_cli
from tests.support.samples import rated_sample


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    return rated_sample(tmp_path_factory.mktemp("rated"))


def copy(path, folder):
    target = folder / "c.simrate"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    target.write_bytes(path.read_bytes())
    return target


# ---------------------------------------------------------------- thresholds
@pytest.mark.parametrize("given", ["1e308", "1e300", "5.01", "6"])
def test_flagged_threshold_beyond_the_scale_is_refused(rated, given):
    result = run_cli("flagged", rated, "--threshold", given)
    assert result.returncode == 2
    one_line_error(result.stderr, "--threshold", "at most the scale's range (5 on sts")


def test_flagged_threshold_of_the_whole_range_is_allowed(rated):
    result = run_cli("flagged", rated, "--threshold", "5", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize("points", [1e308, 1e300, 5.5])
def test_project_set_threshold_beyond_the_scale_is_refused(tmp_path, points):
    project = new_project(tmp_path / "p.simrate")
    with pytest.raises(SimrateError, match="at most the scale's range"):
        project.set_threshold(points)
    project.set_threshold(4.0)  # clss: 0-4
    assert Project.open(project.path).threshold == 4.0


@pytest.mark.parametrize("stored", ["1e300", "1e308", "9"])
def test_a_stored_huge_threshold_reads_safely(rated, tmp_path, stored):
    path = copy(rated, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'threshold'", (stored,))
    conn.commit()
    conn.close()
    for args in (["info"], ["flagged", "--json"], ["agreement"], ["annotators"],
                 ["export", tmp_path / "out.tsv"]):
        result = run_cli(args[0], path, *args[1:])
        assert result.returncode == 0, (args, result.stderr)
        assert "Error" not in result.stderr
    assert run_cli("flagged", path, "--json").stdout.strip() == "[]"  # nothing that far apart
    assert (tmp_path / "out.tsv").is_file()


# ---------------------------------------------------------------- checks --score
@pytest.mark.parametrize(("given", "needle"), [
    ("2.3", "not on the grid"), ("1e-320", "not on the grid"), ("7", "outside scale"),
    ("nan", "not a number"), ("３", "U+FF13")])
def test_checks_score_follows_the_ratings_rule(rated, tmp_path, given, needle):
    path = copy(rated, tmp_path)
    result = run_cli("checks", path, "reviews-04", "--score", given)
    assert result.returncode == 2
    one_line_error(result.stderr, "--score", needle)
    assert run_cli("checks", path, "--json").stdout.count("reviews-04") == 0


def test_checks_score_on_the_grid_is_kept(rated, tmp_path):
    path = copy(rated, tmp_path)
    result = run_cli("checks", path, "reviews-04", "--score", "2.25")
    assert result.returncode == 0, result.stderr
    assert "set to 2.25" in result.stdout


# ---------------------------------------------------------------- foreign digits
@pytest.mark.parametrize("digit", ["３", "٣", "३", "1.٥"])
def test_ratings_with_digits_other_than_ascii_are_refused(rated, tmp_path, digit):
    path = copy(rated, tmp_path)
    source = tmp_path / "r.csv"
    source.write_text(f"item_id,annotator,score\nreviews-04,zed,2\nnews-04,zed,{digit}\n",
                      encoding="utf-8")
    result = run_cli("import", path, source)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{source}:3:", "digits 0-9")
    assert "zed" not in run_cli("info", path).stdout


@pytest.mark.parametrize("digit", ["３", "٣"])
def test_adjudicate_with_digits_other_than_ascii_is_refused(rated, tmp_path, digit):
    path = copy(rated, tmp_path)
    result = run_cli("adjudicate", path, "reviews-04", digit)
    assert result.returncode == 2
    one_line_error(result.stderr, "digits 0-9")


def test_scale_parse_refuses_foreign_digits(tmp_path):
    project = new_project(tmp_path / "p.simrate")
    with pytest.raises(SimrateError, match="U\\+0663"):
        project.scale.parse("٣")
    assert project.scale.parse(" 3 ") == 12  # clss: step 0.25
