"""simrate annotators: JSON keys of DESIGN.md, the text table, excluding and including raters."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from simrate.core.team.quality import set_checks
from tests.cli.helpers import simrate
from tests.commands.team.test_package_cmd import assert_one_line_error
from tests.core.team.test_packages import make_items

DESIGN_KEYS = ["annotator", "rated", "skipped", "mean", "sd", "pearson_vs_rest",
               "check_pearson", "check_mae", "excluded", "seconds_per_item"]


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "a.simrate"
    with Project.create(path, scale="clss") as p:
        p.import_items(make_items(6), source="items.tsv")
        set_checks(p, {"d:1": 0.0, "d:2": 2.0, "d:3": 4.0})
        for i, item_id in enumerate(p.item_ids()):
            p.rate(item_id, "good", float(i % 5) if i > 2 else 2.0 * i, seconds=10.0 + i)
            p.rate(item_id, "bad", 4.0 - 2.0 * i if i < 3 else 1.0)
        p.skip("d:6", "bad", reason="garbled")
    return path


def test_json_has_the_design_keys_for_every_annotator(project, capsys):
    result = simrate(capsys, "annotators", project, "--json")
    assert result.status == 0 and result.err == ""
    rows = result.json()
    assert [row["annotator"] for row in rows] == ["good", "bad"]
    for row in rows:
        assert list(row)[:len(DESIGN_KEYS)] == DESIGN_KEYS
    good, bad = rows
    assert (good["rated"], good["skipped"], bad["rated"], bad["skipped"]) == (6, 0, 5, 1)
    assert good["check_pearson"] == pytest.approx(1.0) and good["check_mae"] == 0.0
    assert bad["check_pearson"] == pytest.approx(-1.0) and bad["flagged"] is True
    assert good["seconds_per_item"] == pytest.approx(12.5)  # median of 10..15
    assert bad["seconds_per_item"] is None  # no times recorded


def test_text_table_marks_flagged_and_excluded(project, capsys):
    result = simrate(capsys, "annotators", project)
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0].split()[:3] == ["annotator", "rated", "skipped"]
    assert lines[1].startswith("good") and "FLAGGED" not in lines[1]
    assert lines[2].startswith("bad") and lines[2].endswith("FLAGGED")
    assert lines[-1].startswith("FLAGGED bad: ") and "below 0.5" in lines[-1]


def test_legend_gives_each_flagged_raters_own_reason(project, capsys):
    report = simrate(capsys, "annotators", project, "--json").json()
    reasons = {row["annotator"]: row["flag_reason"] for row in report if row["flagged"]}
    text = simrate(capsys, "annotators", project).out
    for name, reason in reasons.items():
        assert f"FLAGGED {name}: {reason}" in text


def test_exclusion_without_by_is_not_logged_as_the_excluded_rater(project, capsys):
    assert simrate(capsys, "annotators", project, "--exclude", "bad").status == 0
    with Project.open(project) as p:
        who = p.changes().query("kind == 'exclude'")["who"].tolist()
    assert who and who[0] != "bad"


def test_exclude_and_include_are_logged_and_reversible(project, capsys):
    excluded = simrate(capsys, "annotators", project, "--exclude", "bad", "--by", "lead")
    assert excluded.status == 0
    assert "EXCLUDED FLAGGED" in excluded.out
    with Project.open(project) as p:
        assert p.excluded_annotators() == ["bad"]
        assert "bad" not in p.live.pearson().columns  # out of live agreement at once
    included = simrate(capsys, "annotators", project, "--json", "--include", "bad",
                       "--by", "lead")
    assert [row["excluded"] for row in included.json()] == [False, False]
    with Project.open(project) as p:
        log = p.changes()
        toggles = log[log["kind"] == "exclude"]
        assert toggles["new"].tolist() == [True, False]
        assert set(toggles["who"]) == {"lead"}


def test_unknown_annotator_is_a_one_line_error(project, capsys):
    result = simrate(capsys, "annotators", project, "--exclude", "nobody")
    assert "no annotator named 'nobody'" in assert_one_line_error(result)
    missing = simrate(capsys, "annotators", project.parent / "none.simrate")
    assert "no such project file" in assert_one_line_error(missing)
