"""simrate adjudicate: set, revise, withdraw; bad items and scores are one-line errors."""

from __future__ import annotations

import getpass

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.export_fixtures import make_project


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "p.simrate"
    make_project(path, scale="clss", texts=["a", "b"],
                 ratings=[("t:1", "ann", 0.0), ("t:1", "bob", 3.0)]).close()
    return path


def test_set_revise_withdraw(project_path, capsys):
    result = simrate(capsys, "adjudicate", project_path, "t:1", "2.25", "--note",
                     "bob overlooked the negation", "--by", "chair")
    assert (result.status, result.out) == (0, "t:1: adjudicated 2.25 by chair\n")
    result = simrate(capsys, "adjudicate", project_path, "t:1", "2.5", "--by", "chair")
    assert result.out == "t:1: adjudicated 2.5 (was 2.25) by chair\n"
    with Project.open(project_path) as project:
        verdict = project.adjudications().iloc[0]
        assert (verdict["item_id"], verdict["score"], verdict["by"]) == ("t:1", 2.5, "chair")
        assert project.flagged_ids() == set()
    result = simrate(capsys, "adjudicate", project_path, "t:1", "-", "--withdraw", "--by", "x")
    assert result.status == 0
    assert "withdrawn" in result.out and "flagged again" in result.out
    with Project.open(project_path) as project:
        assert project.flagged_ids() == {"t:1"}
        log = project.changes().query("kind == 'adjudication'")
        assert log["who"].tolist() == ["chair", "chair", "x"]


def test_by_defaults_to_the_login_name(project_path, capsys):
    assert simrate(capsys, "adjudicate", project_path, "t:1", "1").status == 0
    with Project.open(project_path) as project:
        assert project.adjudications()["by"].tolist() == [getpass.getuser()]


@pytest.mark.parametrize("item, score, words", [
    ("t:9", "2", "no item with id 't:9'"),
    ("t:1", "2.1", "not on the grid"),
    ("t:1", "4.5", "outside scale"),
    ("t:1", "-1", "outside scale"),
    ("t:1", "high", "not a number"),
])
def test_bad_input_is_one_line_exit_2(project_path, capsys, item, score, words):
    result = simrate(capsys, "adjudicate", project_path, item, score)
    assert result.status == 2
    assert result.err.count("\n") == 1 and words in result.err
    assert result.err.startswith("simrate: error: ")
    with Project.open(project_path) as project:
        assert len(project.adjudications()) == 0


def test_withdrawing_nothing(project_path, capsys):
    result = simrate(capsys, "adjudicate", project_path, "t:2", "-", "--withdraw")
    assert result.status == 2 and "no adjudication to withdraw" in result.err
