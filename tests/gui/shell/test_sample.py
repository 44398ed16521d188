"""The sample project: three raters who disagree a little, flagged items, one adjudication;
opened to rate or, with no question asked, as its organizer (start page, menu, command line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import simrate.gui.base.sample as sample_module
import simrate.gui.shell.main_window as main_window_module
from simrate.core.project import Project
from simrate.formats.readers.detect import read_items
from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.sample import (
    SAMPLE_NAME,
    SAMPLE_ORGANIZER,
    SAMPLE_TITLE,
    ensure_sample_project,
)
from simrate.gui.shell.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[3]


def rating_table(path: Path):
    with Project.open(path) as project:
        ratings = project.ratings()
        return ratings[["item_id", "annotator", "score", "note", "seconds"]].to_dict("records")


def test_the_sample_holds_three_raters_flags_and_an_adjudication(tmp_path):
    path = ensure_sample_project(tmp_path)
    with Project.open(path) as project:
        assert project.title == SAMPLE_TITLE and project.scale.name == "sts"
        assert project.annotators() == ["ana", "ben", "chloe"]
        ratings = project.ratings()
        assert len(ratings) == 60 and ratings["score"].notna().all()
        # Realistic disagreement: the raters differ on most pairs, a few pairs by a point or
        # more (flagged), and one of those is already adjudicated by the organizer.
        spread = ratings.groupby("item_id")["score"].agg(lambda s: s.max() - s.min())
        assert (spread > 0).sum() >= 15
        assert project.flagged_ids() == {"reviews-04", "travel-05", "science-01",
                                         "science-03"}
        adjudications = project.adjudications()
        assert adjudications[["item_id", "score", "by"]].values.tolist() == [
            ["news-04", 4.0, SAMPLE_ORGANIZER]]
        assert spread["news-04"] >= project.threshold
        alpha = project.live.alpha()
        assert 0.7 < alpha < 0.97
        assert ratings["seconds"].notna().all()


def test_the_sample_is_the_same_every_time_it_is_built(tmp_path):
    first = ensure_sample_project(tmp_path / "a")
    second = ensure_sample_project(tmp_path / "b")
    assert rating_table(first) == rating_table(second)


def test_an_older_sample_is_left_alone_and_the_new_one_built_beside_it(tmp_path):
    """A user who ran an older simrate has sample.simrate with one rater; a window may have it
    open, so it is never replaced: the new sample gets a new name."""
    old = tmp_path / "sample.simrate"
    with Project.create(old, scale="sts", title=SAMPLE_TITLE) as project:
        project.import_items(read_items(sample_module.SAMPLE_PAIRS, "auto"), source="pairs.tsv")
        project.rate(project.item_ids()[0], "carol", 2.0)
    before = (old.stat().st_ino, old.stat().st_mtime_ns)
    with Project.open(old) as held:  # as a window of the old version would
        path = ensure_sample_project(tmp_path)
        assert held.annotators() == ["carol"]
    assert path != old and path.name == SAMPLE_NAME
    assert (old.stat().st_ino, old.stat().st_mtime_ns) == before
    with Project.open(path) as project:
        assert project.annotators() == ["ana", "ben", "chloe"]
    assert ensure_sample_project(tmp_path) == path  # built once


@pytest.fixture
def start_window(qtbot, settings, monkeypatch, tmp_path):
    """A window on the start page whose sample lives in tmp_path; 'who is rating?' is
    recorded and answers 'carol'."""
    asked = []

    def fake_ask(names, last="", parent=None, organizer=False):
        asked.append(list(names))
        return "carol"

    monkeypatch.setattr(main_window_module, "ask_annotator", fake_ask)
    monkeypatch.setattr(sample_module, "sample_folder", lambda: tmp_path / "data")
    context = ApplicationContext(settings)
    window = MainWindow(context)
    window.asked = asked
    qtbot.addWidget(window)
    window.show()
    yield window
    context.close_project()


def test_start_page_offers_to_rate_the_sample_and_to_open_it_as_organizer(start_window):
    page = start_window.start_page
    assert page.sample_button.text() == "Rate the sample"
    assert page.sample_organizer_button.text() == "Open the sample as organizer"
    page.sample_button.click()
    context = start_window.context
    assert start_window.asked == [["ana", "ben", "chloe"]]
    assert context.annotator == "carol" and not context.organizer
    assert start_window.organizer.workspace is None


def test_open_the_sample_as_organizer_asks_nothing(qtbot, start_window):
    start_window.start_page.sample_organizer_button.click()
    context = start_window.context
    assert start_window.asked == []
    assert context.organizer and context.annotator == SAMPLE_ORGANIZER
    workspace = start_window.organizer.workspace
    assert workspace is not None
    assert start_window.organizer.mode_action.isChecked()
    workspace.show_queue()
    assert workspace.queue.current_id in context.project.flagged_ids()
    assert workspace.queue.model.rowCount() >= 4


def test_the_file_menu_opens_the_sample_as_organizer(start_window):
    start_window.actions_by_name["sample_organizer"].trigger()
    assert start_window.context.organizer and start_window.asked == []


def run_simrate(*args: str, data: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_DATA_HOME=str(data), QT_QPA_PLATFORM="offscreen",
               PYTHONPATH=str(ROOT), HOME=str(data))
    return subprocess.run([sys.executable, "-m", "simrate", *args], capture_output=True,
                          text=True, env=env, timeout=120, cwd=cwd or data)


def test_sample_organizer_opens_with_no_dialog_from_the_command_line(tmp_path):
    done = run_simrate("--sample", "--organizer", "--quit-when-shown", data=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"window shown: {SAMPLE_TITLE} \u2013 simrate"
    built = list(tmp_path.rglob(SAMPLE_NAME))
    assert len(built) == 1
    with Project.open(built[0]) as project:
        assert project.annotators() == ["ana", "ben", "chloe"]


def test_the_check_alone_answers_no_question_and_changes_nothing(tmp_path):
    """`simrate --sample --quit-when-shown`, offscreen with nobody to answer "Who is
    rating?": it opens as the login name (no dialog), prints the title and quits, and the
    project holds no new annotator."""
    first = run_simrate("--sample", "--quit-when-shown", data=tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == f"window shown: {SAMPLE_TITLE} \u2013 simrate"
    built = next(tmp_path.rglob(SAMPLE_NAME))
    with Project.open(built) as project:
        assert project.annotators() == ["ana", "ben", "chloe"]
        changes = len(project.changes())
    # not from the data folder: its simrate/ (the sample's folder) would shadow the package
    again = run_simrate(str(built), "--quit-when-shown", data=tmp_path, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    with Project.open(built) as project:
        assert len(project.changes()) == changes


def test_the_sample_module_prints_the_path_of_the_new_sample(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path), PYTHONPATH=str(ROOT),
               HOME=str(tmp_path))
    done = subprocess.run([sys.executable, "-m", "simrate.gui.base.sample"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.name == SAMPLE_NAME and path.is_file()
    assert len(rating_table(path)) == 60
