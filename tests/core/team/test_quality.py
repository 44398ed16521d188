"""Check items and the per-annotator report, against figures computed independently."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.quality import (
    REPORT_COLUMNS,
    annotator_frame,
    annotator_report,
    check_scores,
    mark_checks_from_reference,
    set_checks,
)
from tests.core.team.test_packages import make_items

JSON_KEYS = ["annotator", "rated", "skipped", "mean", "sd", "pearson_vs_rest",
             "check_pearson", "check_mae", "excluded", "seconds_per_item"]


@pytest.fixture
def project(tmp_path):
    references = [float("nan")] * 4 + [0.5, 1.0, 2.0, 3.0, 4.5, 5.0]
    p = Project.create(tmp_path / "q.simrate", scale="sts")
    p.import_items(make_items(10, reference=references), source="items.tsv")
    yield p
    p.close()


def by_name(report: list[dict]) -> dict[str, dict]:
    return {row["annotator"]: row for row in report}


# ----------------------------------------------------------------- check items
def test_checks_from_references_keep_off_grid_scores_exactly(project):
    assert mark_checks_from_reference(project) == 6
    assert check_scores(project) == {"d:5": 0.5, "d:6": 1.0, "d:7": 2.0, "d:8": 3.0,
                                     "d:9": 4.5, "d:10": 5.0}
    set_checks(project, {"d:9": 4.4, "d:10": None}, by="lead")  # STS gold like 4.400
    assert check_scores(project)["d:9"] == 4.4 and "d:10" not in check_scores(project)
    log = project.changes()
    last = log[log["kind"] == "check"].iloc[-1]
    assert (last["item_id"], last["old"], last["new"], last["who"]) == ("d:10", 5.0, None, "lead")


def test_bad_check_requests_are_refused(project):
    with pytest.raises(SimrateError, match="outside scale"):
        set_checks(project, {"d:1": 5.5})
    with pytest.raises(SimrateError, match="no item with id 'zz'"):
        set_checks(project, {"zz": 1.0})
    with pytest.raises(SimrateError, match="'d:1' has no reference score"):
        mark_checks_from_reference(project, ["d:1", "d:5"])
    with pytest.raises(SimrateError, match="no items with reference"):
        mark_checks_from_reference(project, dataset="other")
    assert check_scores(project) == {}
    assert mark_checks_from_reference(project, ["d:6"]) == 1
    assert set_checks(project, {"d:6": 1.0}) == 0  # already so: nothing to log


# ----------------------------------------------------------------- the report
def test_report_figures_match_an_independent_computation(project):
    mark_checks_from_reference(project)
    careful = {"d:1": 1.0, "d:2": 2.0, "d:3": 3.0, "d:5": 0.75, "d:6": 1.25, "d:7": 2.0,
               "d:8": 3.25, "d:9": 4.5, "d:10": 4.75}
    careless = {"d:1": 4.0, "d:2": 1.0, "d:3": 3.0, "d:5": 5.0, "d:6": 3.0, "d:7": 4.0,
                "d:8": 1.0, "d:9": 2.0, "d:10": 0.0}
    third = {"d:1": 1.5, "d:2": 2.5, "d:5": 0.5, "d:9": 4.0}
    for name, scores in (("careful", careful), ("careless", careless), ("third", third)):
        for position, (item_id, score) in enumerate(scores.items()):
            project.rate(item_id, name, score, seconds=float(position + 1))
    project.skip("d:4", "careful", reason="unreadable")
    report = by_name(annotator_report(project, min_overlap=3))
    known = check_scores(project)

    row = report["careful"]
    values = list(careful.values())
    assert (row["rated"], row["skipped"]) == (9, 1)
    assert math.isclose(row["mean"], statistics.mean(values))
    assert math.isclose(row["sd"], statistics.stdev(values))
    on_checks = [i for i in careful if i in known]
    expected_r = stats.pearsonr([careful[i] for i in on_checks], [known[i] for i in on_checks])
    assert math.isclose(row["check_pearson"], expected_r[0])
    assert math.isclose(row["check_mae"], statistics.mean(
        abs(careful[i] - known[i]) for i in on_checks))
    assert row["checks"] == 6 and row["seconds_per_item"] == 5.0  # median of 1..9
    rest = {i: statistics.mean([s[i] for s in (careless, third) if i in s]) for i in careful}
    expected_rest = stats.pearsonr([careful[i] for i in careful], [rest[i] for i in careful])
    assert math.isclose(row["pearson_vs_rest"], expected_rest[0])
    assert row["flagged"] is False

    assert report["careless"]["check_pearson"] < 0.5
    assert report["careless"]["flagged"] is True
    assert "below 0.5" in report["careless"]["flag_reason"]
    assert report["third"]["checks"] == 2


def test_excluded_rater_is_left_out_of_the_others_rest(project):
    # 4 and 9 shared items: under the shown floor of 10, so these ask for the least r takes
    a = {"d:1": 1.0, "d:2": 2.0, "d:3": 3.0, "d:4": 4.0}
    b = {"d:1": 1.5, "d:2": 2.0, "d:3": 3.5, "d:4": 3.5}
    wild = {"d:1": 5.0, "d:2": 0.0, "d:3": 4.0, "d:4": 0.5}
    for name, scores in (("a", a), ("b", b), ("wild", wild)):
        for item_id, score in scores.items():
            project.rate(item_id, name, score)
    project.set_excluded("wild", True, by="lead")
    report = by_name(annotator_report(project, min_overlap=3))
    assert report["wild"]["excluded"] is True and report["a"]["excluded"] is False
    only_b = stats.pearsonr(list(a.values()), list(b.values()))[0]
    assert math.isclose(report["a"]["pearson_vs_rest"], only_b)
    rest_of_wild = [(a[i] + b[i]) / 2 for i in a]  # the excluded rater is still measured
    assert math.isclose(report["wild"]["pearson_vs_rest"],
                        stats.pearsonr(list(wild.values()), rest_of_wild)[0])
    project.set_excluded("wild", False)
    assert by_name(annotator_report(project, min_overlap=3))["a"]["pearson_vs_rest"] != pytest.approx(only_b)


def test_one_score_for_every_check_is_flagged_though_pearson_is_undefined(project):
    mark_checks_from_reference(project)
    for item_id in ("d:5", "d:6", "d:7", "d:8"):
        project.rate(item_id, "lazy", 3.0)
    row = annotator_report(project)[0]
    assert row["check_pearson"] is None
    assert math.isclose(row["check_mae"], statistics.mean([2.5, 2.0, 1.0, 0.0]))
    assert row["flagged"] is True and row["flag_reason"] == "the same score on every check item"


def test_thresholds_can_be_set(project):
    mark_checks_from_reference(project)
    scores = {"d:5": 1.0, "d:6": 0.5, "d:7": 2.5, "d:8": 3.0, "d:9": 4.0, "d:10": 4.0}
    for item_id, score in scores.items():
        project.rate(item_id, "r", score)
    r = annotator_report(project)[0]["check_pearson"]
    assert 0.5 < r < 0.99
    assert annotator_report(project, threshold=0.99)[0]["flagged"] is True
    assert annotator_report(project, max_mae=0.1)[0]["flag_reason"].startswith("check MAE")
    assert annotator_report(project)[0]["flagged"] is False


def test_empty_and_undefined_figures(project):
    assert annotator_report(project) == []
    assert list(annotator_frame(project).columns) == list(REPORT_COLUMNS)
    project.rate("d:1", "solo", 2.0)
    row = annotator_report(project)[0]
    assert list(row)[:len(JSON_KEYS)] == JSON_KEYS
    assert row["rated"] == 1 and row["mean"] == 2.0
    for key in ("sd", "pearson_vs_rest", "check_pearson", "check_mae", "seconds_per_item"):
        assert row[key] is None, key
    assert row["flagged"] is False


def test_check_pearson_over_two_checks_is_undefined():
    """Over two check items r is +1 or -1 whatever the scores: no figure, no flag from it."""
    import numpy as np

    from simrate.core.agreement.sparse import LongRatings
    from simrate.core.team.quality import _check_table

    data = np.array([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]])  # rater 1: r -1 on checks 0 and 1
    known = np.array([1.0, 3.0, np.nan])
    table = _check_table(LongRatings.from_matrix(data), known)
    assert table["checks"].tolist() == [2, 2]
    assert np.isnan(table["check_pearson"]).all()
    known = np.array([1.0, 3.0, 2.0])  # three checks: now a figure
    assert _check_table(LongRatings.from_matrix(data), known)["check_pearson"][1] == \
        pytest.approx(-0.5)
