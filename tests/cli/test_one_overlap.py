"""One minimum overlap for every correlation shown: a rater who shares 3 items with the others
has no r in `agreement`, `annotators`, the XLSX report or the window, each saying why in the
same words; and what the undisputed-items figure is said to be holds on real data."""

from __future__ import annotations

import openpyxl
import pytest

from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP, reason_few_common
from simrate.core.base.names import UNDISPUTED_NOTE
from tests.cli.helpers import simrate

FEW = reason_few_common(DEFAULT_MIN_OVERLAP)  # "fewer than 10 common items (--min-overlap)"


@pytest.fixture
def project(tmp_path, capsys):
    """ann and bob rate 30 items alike; cy, new, rates 3 of them against the grain."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"a{n}\tleft {n}\tright {n}\n" for n in range(30)),
                     encoding="utf-8")
    rows = ["item_id,annotator,score"]
    for n in range(30):
        rows += [f"a{n},ann,{n % 6}", f"a{n},bob,{(n + n % 2) % 6}"]
    rows += ["a0,cy,5", "a1,cy,3", "a2,cy,0"]
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("\n".join(rows) + "\n", encoding="utf-8")
    path = tmp_path / "p.simrate"
    for args in (("new", path, "--scale", "sts"), ("import", path, pairs),
                 ("import", path, ratings)):
        assert simrate(capsys, *args).status == 0
    return path


def test_agreement_and_annotators_leave_the_same_pair_undefined(project, capsys):
    agreement = simrate(capsys, "agreement", project)
    assert FEW in agreement.out
    figures = simrate(capsys, "agreement", project, "--json").json()
    assert figures["pearson"]["ann"]["cy"] is None and figures["pearson_vs_rest"]["cy"] is None
    report = {e["annotator"]: e for e in simrate(capsys, "annotators", project, "--json").json()}
    assert report["cy"]["pearson_vs_rest"] is None  # it was -0.9 over 3 items
    assert report["cy"]["pearson_vs_rest_reason"] == FEW
    assert report["ann"]["pearson_vs_rest"] is not None
    table = simrate(capsys, "annotators", project).out
    assert f"n/a: cy's vs_rest undefined because {FEW}" in table


def test_the_xlsx_report_leaves_it_empty_and_says_why(project, capsys, tmp_path):
    out = tmp_path / "report.xlsx"
    assert simrate(capsys, "export", project, out, "--format", "xlsx",
                   "--allow-unresolved").status == 0
    rows = [[c for c in row] for row in openpyxl.load_workbook(out)["agreement"].values]
    cy = [row for row in rows if row and row[0] == "cy"]
    assert cy and all(cell is None for row in cy for cell in row[1:3])
    assert [f"n/a (empty cell): undefined because {FEW}"] in [
        [c for c in row if c is not None] for row in rows]


def test_the_undisputed_note_claims_no_rise_by_construction():
    assert "by construction" not in UNDISPUTED_NOTE
    assert "can be lower" in UNDISPUTED_NOTE


def test_the_undisputed_ordinal_alpha_can_be_lower(tmp_path, capsys):
    # most calm items at one score, the disputed ones spread: leaving those out narrows the
    # ranks alpha compares with more than it lowers the disagreement
    calm = [(0, 0)] * 12 + [(0, 0.5)] * 3 + [(5, 5)] * 2 + [(4.5, 5)]
    scores = calm + [(0, 3), (5, 2), (1, 4)]
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("".join(f"i{n}\tleft {n}\tright {n}\n" for n in range(len(scores))),
                     encoding="utf-8")
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("item_id,ann,bob\n" + "".join(
        f"i{n},{a},{b}\n" for n, (a, b) in enumerate(scores)), encoding="utf-8")
    path = tmp_path / "u.simrate"
    for args in (("new", path, "--scale", "sts"), ("import", path, pairs),
                 ("import", path, ratings)):
        assert simrate(capsys, *args).status == 0
    figures = simrate(capsys, "agreement", path, "--json", "--level", "ordinal").json()
    assert len(simrate(capsys, "flagged", path, "--json").json()) == 3
    assert figures["alpha_unadjudicated"]["ordinal"] < figures["alpha"]["ordinal"]
    assert "can be lower" in simrate(capsys, "agreement", path, "--level", "ordinal").out
