"""simrate flagged: the JSON contract, ordering, a one-off threshold, second looks."""

from __future__ import annotations

import random

import pytest

from simrate.commands.review.flagged_cmd import flagged_items
from simrate.core.review.gold import flagged_list
from tests.cli.helpers import simrate
from tests.support.export_fixtures import make_project

RATINGS = [
    ("t:1", "ann", 1.0), ("t:1", "bob", 2.0),                       # spread 1
    ("t:2", "ann", 0.0), ("t:2", "bob", 3.5), ("t:2", "cy", 2.0),   # spread 3.5
    ("t:3", "ann", 2.0), ("t:3", "bob", 2.5),                       # spread 0.5
    ("t:4", "ann", 4.0), ("t:4", "bob", 2.5),                       # spread 1.5
    ("t:5", "ann", 3.0),                                            # one rating
]


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "p.simrate"
    make_project(path, scale="sts", texts=list("abcde"), ratings=RATINGS).close()
    return path


def test_json_is_a_list_largest_spread_first(project_path, capsys):
    result = simrate(capsys, "flagged", project_path, "--json")
    assert result.status == 0, result.err
    assert result.json() == [
        {"item_id": "t:2", "ratings": {"ann": 0.0, "bob": 3.5, "cy": 2.0}, "spread": 3.5},
        {"item_id": "t:4", "ratings": {"ann": 4.0, "bob": 2.5}, "spread": 1.5},
        {"item_id": "t:1", "ratings": {"ann": 1.0, "bob": 2.0}, "spread": 1.0},
    ]


def test_one_off_threshold_leaves_the_project_setting(project_path, capsys):
    result = simrate(capsys, "flagged", project_path, "--threshold", "0.5", "--json")
    assert [r["item_id"] for r in result.json()] == ["t:2", "t:4", "t:1", "t:3"]
    result = simrate(capsys, "flagged", project_path, "--threshold", "2", "--json")
    assert [r["item_id"] for r in result.json()] == ["t:2"]
    assert simrate(capsys, "info", project_path, "--json").json()["flagged"] == 3


def test_text_listing_and_second_look(project_path, capsys):
    assert simrate(capsys, "adjudicate", project_path, "t:2", "2", "--by", "lead").status == 0
    from simrate.core.project import Project

    with Project.open(project_path) as project:
        project.rate("t:2", "dee", 4.5)  # after the verdict, 2.5 points away
    result = simrate(capsys, "flagged", project_path)
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0] == ("2 flagged items under rule auto (spread >= 1 point up to 3 ratings, "
                        "SD >= 0.8 points above), not adjudicated")
    assert lines[1].split("\t")[:2] == ["  t:4", "spread 1.5"]
    assert "ann=4  bob=2.5" in lines[1]
    assert "1 adjudicated item needs a second look" in result.out and "t:2" in lines[-1]


@pytest.mark.parametrize("value", ["0", "-1"])
def test_bad_threshold(project_path, capsys, value):
    result = simrate(capsys, "flagged", project_path, "--threshold", value)
    assert result.status == 2
    assert result.err.startswith("simrate: error: ") and "threshold" in result.err
    assert "Traceback" not in result.err


def test_missing_project(tmp_path, capsys):
    result = simrate(capsys, "flagged", tmp_path / "nope.simrate", "--json")
    assert result.status == 2 and "no such project file" in result.err and result.out == ""


def test_live_index_and_table_rule_agree(tmp_path):
    rng = random.Random(11)
    ratings = [(f"t:{i}", name, rng.randrange(21) * 0.25)
               for i in range(1, 201) for name in ("a", "b", "c") if rng.random() < 0.7]
    with make_project(tmp_path / "p.simrate", texts=[f"x{i}" for i in range(200)],
                      ratings=ratings) as project:
        for item_id in list(project.flagged_ids())[:10]:
            project.adjudicate(item_id, 2.0)
        for _ in range(50):  # live changes after the index was built
            item = f"t:{rng.randrange(1, 201)}"
            project.rate(item, rng.choice("abc"), rng.choice([None, rng.randrange(21) * 0.25]))
        live = flagged_items(project)  # the FlagIndex path
        table = flagged_list(project.gold(threshold=project.threshold))  # the vectorised path
        assert live["item_id"].tolist() == table["item_id"].tolist()
        assert live["spread"].tolist() == table["spread"].tolist()
        assert live["ratings"].tolist() == table["ratings"].tolist()
