"""ItemTableModel and DatasetProgressModel, built from a project alone."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from simrate.core.project import Project
from simrate.gui.base.bridge import ProjectBridge
from simrate.gui.base.session import AnnotatorSession
from simrate.gui.rating.item_model import COL_ID, COL_RATING, ItemIdRole, ItemTableModel
from simrate.gui.rating.progress_panel import DatasetProgressModel
from tests.core.frames import make_items, make_ratings


@pytest.fixture
def session(qtbot, tmp_path):
    project = Project.create(tmp_path / "m.simrate", scale="clss")
    project.import_items(make_items(12), source="items.tsv")
    project.import_ratings(make_ratings([("d:1", "alice", 2.0), ("d:2", "bob", 1.0)]),
                           source="r.tsv")
    bridge = ProjectBridge(project)
    session = AnnotatorSession(project, "alice", bridge)
    yield session
    bridge.detach()
    project.close()


def shown_ids(model):
    return [model.data(model.index(r, COL_ID), ItemIdRole) for r in range(model.rowCount())]


def test_model_passes_the_model_tester(qtmodeltester, session):
    model = ItemTableModel(session)
    qtmodeltester.check(model)
    model.set_filter("unrated")
    qtmodeltester.check(model)
    model.set_search("cats")
    qtmodeltester.check(model)


def test_model_stays_consistent_while_ratings_change(qtmodeltester, session):
    model = ItemTableModel(session)
    model.set_filter("unrated")
    qtmodeltester.check(model, force_py=True)  # the tester keeps watching the signals
    project = session.project
    project.rate("d:3", "alice", 1.0)
    project.rate("d:3", "alice", None)
    project.skip("d:5", "alice", "unreadable")
    project.rate("d:12", "alice", 4.0)
    assert "d:3" in shown_ids(model)
    assert "d:5" not in shown_ids(model)
    assert "d:12" not in shown_ids(model)


def test_columns_and_rating_display(session):
    model = ItemTableModel(session)
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(6)]
    # generic pairs, even on the CLSS scale: the data does not say which text is larger
    assert headers == ["Id", "Dataset", "Genre", "First text", "Second text", "Your rating"]
    row = [model.data(model.index(0, c)) for c in range(6)]
    assert row[:3] == ["d:1", "alpha", "forum"]  # make_items: odd positions are news
    assert row[3].startswith("left text number 1")
    assert row[5] == "2"
    # bob rated d:2; alice did not: the cell is empty, not bob's score.
    assert model.data(model.index(1, COL_RATING)) == ""


def test_filters(session):
    project = session.project
    project.skip("d:4", "alice", "cannot tell")
    project.rate("d:6", "alice", 3.5)
    model = ItemTableModel(session)
    model.set_filter("rated")
    assert shown_ids(model) == ["d:1", "d:6"]
    model.set_filter("skipped")
    assert shown_ids(model) == ["d:4"]
    model.set_filter("unrated")
    assert shown_ids(model) == [f"d:{i}" for i in range(1, 13) if i not in (1, 4, 6)]
    model.set_filter("all")
    assert model.rowCount() == 12
    with pytest.raises(ValueError):
        model.set_filter("flagged")


def test_search_by_text_or_id_ignores_case(session):
    model = ItemTableModel(session)
    model.set_search("CATS")
    assert shown_ids(model) == ["d:3", "d:6", "d:9", "d:12"]
    model.set_search("d:1")
    assert shown_ids(model) == ["d:1", "d:10", "d:11", "d:12"]
    model.set_filter("rated")
    assert shown_ids(model) == ["d:1"]
    model.set_search("")
    model.set_filter("all")
    assert model.rowCount() == 12


def test_a_rating_updates_only_its_cell(qtbot, session):
    model = ItemTableModel(session)
    with qtbot.waitSignal(model.dataChanged) as blocker:
        session.project.rate("d:7", "alice", 0.25)
    top, bottom, roles = blocker.args
    assert (top.row(), top.column(), bottom.row(), bottom.column()) == (6, COL_RATING, 6,
                                                                         COL_RATING)
    assert Qt.ItemDataRole.DisplayRole in roles
    assert model.data(model.index(6, COL_RATING)) == "0.25"


def test_other_annotators_ratings_change_nothing(qtbot, session):
    model = ItemTableModel(session)
    with qtbot.assertNotEmitted(model.dataChanged), qtbot.assertNotEmitted(session.row_changed):
        session.project.rate("d:7", "bob", 3.0)


def test_dataset_progress_model(qtmodeltester, session):
    model = DatasetProgressModel(session)
    qtmodeltester.check(model)
    rows = [[model.data(model.index(r, c)) for c in range(5)] for r in range(model.rowCount())]
    # make_items alternates alpha, beta: d:1 (alpha) is alice's one rating.
    assert rows == [["alpha", "1", "0", "6", "17%"], ["beta", "0", "0", "6", "0%"]]
    session.project.rate("d:2", "alice", 1.0)
    model.refresh()
    assert model.data(model.index(1, 1)) == "1"


def test_next_unrated_wraps_and_skips_skipped(session):
    project = session.project
    project.skip("d:2", "alice", "no")
    assert session.next_unrated(0) == 2  # d:3
    for i in range(3, 13):
        project.rate(f"d:{i}", "alice", 1.0)
    assert session.next_unrated(11) is None
    project.rate("d:1", "alice", None)
    assert session.next_unrated(5) == 0


def test_deferred_details_arrive_in_the_model(qtbot, tmp_path):
    project = Project.create(tmp_path / "d.simrate", scale="sts")
    project.import_items(make_items(6), source="items.tsv")
    session = AnnotatorSession(project, "alice", defer_details=True)
    model = ItemTableModel(session)
    # Ids and ratings are there at once; texts and datasets only after load_details().
    assert model.rowCount() == 6 and model.data(model.index(0, COL_ID)) == "d:1"
    assert model.data(model.index(0, 3)) == ""
    with qtbot.waitSignal(model.dataChanged):
        session.load_details()
    assert model.data(model.index(0, 1)) == "alpha"
    assert model.data(model.index(0, 3)).startswith("left text number 1")
    project.close()


def test_search_before_the_details_loads_them(tmp_path):
    project = Project.create(tmp_path / "s.simrate", scale="sts")
    project.import_items(make_items(6), source="items.tsv")
    session = AnnotatorSession(project, "alice", defer_details=True)
    model = ItemTableModel(session)
    model.set_search("cats")
    assert shown_ids(model) == ["d:3", "d:6"]
    project.close()


def test_ids_lose_the_dataset_prefix_the_dataset_column_shows(tmp_path):
    project = Project.create(tmp_path / "c.simrate", scale="clss")
    frame = make_items(3)
    frame["item_id"] = [f"{d}:Newswire-{i}" for i, d in enumerate(frame["dataset"], 1)]
    project.import_items(frame, source="items.tsv")
    session = AnnotatorSession(project, "alice")
    model = ItemTableModel(session)
    assert [model.data(model.index(r, COL_ID)) for r in range(3)] == [
        "Newswire-1", "Newswire-2", "Newswire-3"]
    # The full id stays in the tooltip and in the id role.
    assert model.data(model.index(1, COL_ID), Qt.ItemDataRole.ToolTipRole) == "beta:Newswire-2"
    assert model.data(model.index(1, COL_ID), ItemIdRole) == "beta:Newswire-2"
    project.close()
