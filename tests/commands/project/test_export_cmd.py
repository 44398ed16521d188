"""simrate export: refusal with counts (exit 3), format from the name, bad outputs (exit 2)."""

from __future__ import annotations

import pytest

from tests.cli.helpers import simrate
from tests.support.export_fixtures import make_project

RATINGS = [("t:1", "ann", 0.0), ("t:1", "bob", 3.0), ("t:2", "ann", 2.0), ("t:2", "bob", 2.0)]


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "p.simrate"
    make_project(path, scale="clss", texts=["a", "b", "c"], ratings=RATINGS).close()
    return path


def test_refused_with_counts_then_allowed(project_path, tmp_path, capsys):
    out = tmp_path / "gold.tsv"
    result = simrate(capsys, "export", project_path, out)
    assert result.status == 3
    assert "1 flagged item not adjudicated and 1 item with no rating (of 3)" in result.err
    assert result.err.count("\n") == 1 and not out.exists()
    result = simrate(capsys, "export", project_path, out, "--allow-unresolved")
    assert result.status == 0, result.err
    assert "3 items written as tsv (chosen from the file name" in result.out
    assert "warning: exported with 1 flagged item(s)" in result.err
    assert out.read_text().count("\n") == 4


def test_resolved_project_exports_in_the_asked_format(project_path, tmp_path, capsys):
    assert simrate(capsys, "adjudicate", project_path, "t:1", "1.5", "--by", "me").status == 0
    assert simrate(capsys, "adjudicate", project_path, "t:3", "0", "--by", "me").status == 0
    result = simrate(capsys, "export", project_path, tmp_path / "gold.out", "--format", "sts")
    assert result.status == 0, result.err
    assert "as sts (as asked)" in result.out and result.err == ""
    assert (tmp_path / "gold.out").read_text() == "1.500\n2.000\n0.000\n"


@pytest.mark.parametrize("name, fmt, words", [
    ("gold.label", None, "needs a 0-5 scale"),
    ("gold.tsv", "pit", "needs a 0-5 scale"),
    ("gold.unknown", None, "cannot tell the export format"),
    ("missing/gold.tsv", None, "does not exist"),
])
def test_bad_outputs_exit_2(project_path, tmp_path, capsys, name, fmt, words):
    args = ["export", project_path, tmp_path / name, "--allow-unresolved"]
    result = simrate(capsys, *args, *(["--format", fmt] if fmt else []))
    assert result.status == 2
    assert words in result.err and result.err.count("\n") == 1
    assert not (tmp_path / name).exists()


def test_output_is_the_project(project_path, capsys):
    before = project_path.read_bytes()
    result = simrate(capsys, "export", project_path, project_path, "--format", "tsv",
                     "--allow-unresolved")
    assert result.status == 2 and "project file itself" in result.err
    assert project_path.read_bytes() == before


def test_sts_ending_chooses_sts_and_unknown_endings_are_listed(project_path, tmp_path, capsys):
    assert simrate(capsys, "adjudicate", project_path, "t:1", "1.5", "--by", "me").status == 0
    assert simrate(capsys, "adjudicate", project_path, "t:3", "0", "--by", "me").status == 0
    result = simrate(capsys, "export", project_path, tmp_path / "gold.sts")
    assert result.status == 0, result.err
    assert "as sts (chosen from the file name" in result.out
    assert (tmp_path / "gold.sts").read_text() == "1.500\n2.000\n0.000\n"
    result = simrate(capsys, "export", project_path, tmp_path / "gold.gold")
    assert result.status == 2 and result.err.count("\n") == 1
    assert "known endings: .csv, .gs, .jsonl, .label, .ndjson, .output, .sts, .tab, .tsv, " \
        ".txt, .xlsx" in result.err
