"""`checks --from-reference` on a set where every item has a reference score draws a sample
(10% unless told, and says so) instead of making every item a check; `crowd study` with no
task to serve is refused with the reason, before anything is written."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.quality import check_scores
from tests.cli.helpers import simrate


def sts_project(tmp_path, capsys, items: int = 40, with_gold: bool = True):
    """An STS input file (and its gold key beside it): every item has a reference score."""
    (tmp_path / "STS.input.demo.txt").write_text(
        "".join(f"left sentence {n}\tright sentence {n}\n" for n in range(items)),
        encoding="utf-8")
    if with_gold:
        (tmp_path / "STS.gs.demo.txt").write_text(
            "".join(f"{n % 6}\n" for n in range(items)), encoding="utf-8")
    path = tmp_path / "s.simrate"
    assert simrate(capsys, "new", path, "--scale", "sts").status == 0
    assert simrate(capsys, "import", path, tmp_path / "STS.input.demo.txt").status == 0
    return path


def checks(path) -> dict:
    with Project.open(path) as project:
        return check_scores(project)


def test_every_item_with_a_reference_draws_ten_percent_and_says_so(tmp_path, capsys):
    path = sts_project(tmp_path, capsys)
    done = simrate(capsys, "checks", path, "--from-reference")
    assert done.status == 0, done.err
    assert "4 items marked as checks" in done.out
    assert "every one of the 40 items has a reference score: 4 of them (10%) drawn" in done.err
    assert len(checks(path)) == 4


def test_sample_count_share_seed_and_all(tmp_path, capsys):
    path = sts_project(tmp_path, capsys)
    assert simrate(capsys, "checks", path, "--from-reference", "--sample", "7").status == 0
    first = checks(path)
    assert len(first) == 7
    assert simrate(capsys, "checks", path, "--remove", *first).status == 0
    assert simrate(capsys, "checks", path, "--from-reference", "--sample", "7").status == 0
    assert checks(path) == first  # the same seed draws the same items
    assert simrate(capsys, "checks", path, "--remove", *first).status == 0
    assert simrate(capsys, "checks", path, "--from-reference", "--sample", "7",
                   "--seed", "5").status == 0
    assert len(checks(path)) == 7 and checks(path) != first
    done = simrate(capsys, "checks", path, "--from-reference", "--sample", "25%")
    assert done.status == 0 and "10 items marked" in done.out and not done.err
    assert simrate(capsys, "checks", path, "--from-reference", "--sample", "all").status == 0
    assert len(checks(path)) == 40


@pytest.mark.parametrize("bad", ["0", "0%", "120%", "some"])
def test_a_bad_sample_is_one_line_and_exit_2(tmp_path, capsys, bad):
    path = sts_project(tmp_path, capsys, items=5)
    done = simrate(capsys, "checks", path, "--from-reference", "--sample", bad)
    assert done.status == 2 and "--sample" in done.err and "Traceback" not in done.err


def test_crowd_study_with_every_item_a_check_is_refused(tmp_path, capsys):
    path = sts_project(tmp_path, capsys, items=6)
    assert simrate(capsys, "checks", path, "--from-reference", "--sample", "all").status == 0
    done = simrate(capsys, "crowd", "study", path, "pilot", "--per-task", "3")
    assert done.status == 2
    assert "study 'pilot' would have 0 tasks to serve: all 6 items are check items" in done.err
    assert simrate(capsys, "crowd", "status", path, "--json").json()["studies"] == {}


def test_crowd_study_whose_items_all_have_their_ratings_is_refused(tmp_path, capsys):
    path = sts_project(tmp_path, capsys, items=4, with_gold=False)
    assert simrate(capsys, "crowd", "study", path, "pilot", "--per-task", "2",
                   "--per-item", "1").status == 0
    with Project.open(path) as project:  # two workers rate every item once on the web page
        for worker in ("w1", "w2"):
            lease = web.lease(project, "pilot", worker, session=worker)
            while (slot := web.next_slot(project, lease)) is not None:
                lease, _ = web.rate_slot(project, "pilot", lease.cookie, lease.token,
                                         slot.slot, "3")
    done = simrate(capsys, "crowd", "study", path, "pilot")
    assert done.status == 2
    assert ("every one of its 4 items already has its 1 web rating (--per-item 1); raise "
            "--per-item") in done.err
    assert simrate(capsys, "crowd", "study", path, "pilot", "--per-item", "2").status == 0
    empty = tmp_path / "none.simrate"
    assert simrate(capsys, "new", empty, "--scale", "sts").status == 0
    done = simrate(capsys, "crowd", "study", empty, "pilot", "--per-task", "2")
    assert done.status == 2 and "the project has no items yet" in done.err
