"""The full-window Agreement view: Ctrl+1/2/3 switch rating, review and agreement; at
1366x768 the whole dashboard and agreement over time fit without scrolling sideways."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QScrollArea

from simrate.gui.base.context import ApplicationContext
from simrate.gui.base.sample import SAMPLE_ORGANIZER, ensure_sample_project
from simrate.gui.shell.main_window import MainWindow


def organizer_on_sample(qtbot, settings, tmp_path, size=(1366, 768)) -> MainWindow:
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    window.organizer.set_mode(True)
    assert window.open_project(str(ensure_sample_project(tmp_path)), SAMPLE_ORGANIZER)
    qtbot.wait(50)
    return window


def keys(window, name: str) -> list[str]:
    return [k.toString() for k in window.actions_by_name[f"organizer_{name}"].shortcuts()]


def test_ctrl_1_2_3_switch_rating_review_and_agreement(qtbot, settings, tmp_path):
    window = organizer_on_sample(qtbot, settings, tmp_path)
    workspace = window.organizer.workspace
    assert keys(window, "rating")[0] == QKeySequence("Ctrl+1").toString()
    assert keys(window, "queue")[0] == QKeySequence("Ctrl+2").toString()
    assert keys(window, "agreement_view") == [QKeySequence("Ctrl+3").toString()]
    docks_before = {d.objectName() for d in window.project_docks if not d.isHidden()}
    window.actions_by_name["organizer_agreement_view"].trigger()
    assert window.stack.currentWidget() is workspace.agreement_view
    assert all(d.isHidden() for d in window.project_docks)  # the whole window
    window.actions_by_name["organizer_queue"].trigger()
    assert window.stack.currentWidget() is workspace.queue
    window.actions_by_name["organizer_agreement_view"].trigger()
    window.actions_by_name["organizer_rating"].trigger()
    assert window.stack.currentWidget() is window.rating_panel
    assert {d.objectName() for d in window.project_docks if not d.isHidden()} == docks_before
    window.context.close_project()


def test_the_agreement_view_fits_1366x768_with_agreement_over_time(qtbot, settings, tmp_path):
    window = organizer_on_sample(qtbot, settings, tmp_path)
    view = window.organizer.workspace.agreement_view
    window.organizer.show_agreement()
    chart = view.over_time.chart
    qtbot.waitUntil(lambda: len(chart.points) > 0, timeout=10000)
    qtbot.wait(50)
    dashboard = view.dashboard
    assert dashboard.wide
    scroll = dashboard.findChild(QScrollArea)
    assert not scroll.horizontalScrollBar().isVisible()
    assert scroll.widget().width() <= scroll.viewport().width()
    # every part on screen at once: headline, table, heatmap, distributions, over time
    for part in (dashboard.alpha_label, dashboard.interval_label, dashboard.table,
                 dashboard.heatmap, dashboard.distribution, chart):
        assert part.isVisible() and not part.visibleRegion().isEmpty(), part
        bottom = part.mapTo(scroll.viewport(), part.rect().bottomLeft()).y()
        assert bottom <= scroll.viewport().height(), part
    last = chart.points[-1]
    assert last.ratings == 60
    assert last.alpha is not None and abs(last.alpha - window.context.project.live.alpha()) < 1e-9
    assert set(last.vs_rest) == {"ana", "ben", "chloe"}
    assert "every 2 ratings" in view.over_time.title.text()
    window.context.close_project()


def test_a_new_rating_moves_agreement_over_time(qtbot, settings, tmp_path):
    window = organizer_on_sample(qtbot, settings, tmp_path)
    view = window.organizer.workspace.agreement_view
    window.organizer.show_agreement()
    chart = view.over_time.chart
    qtbot.waitUntil(lambda: len(chart.points) > 0, timeout=10000)
    window.context.project.rate("news-01", "dana", 0.0)
    qtbot.waitUntil(lambda: chart.points[-1].ratings == 61, timeout=10000)
    assert "dana" in chart.points[-1].vs_rest
    window.context.close_project()


def test_a_crowd_fits_sideways_and_a_tall_heatmap_leaves_no_gaps(qtbot, settings, tmp_path):
    from tests.gui.agreement.test_crowd_views import crowd_project

    path = crowd_project(tmp_path / "crowd.simrate", items=200)
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    window.setWindowState(Qt.WindowState.WindowNoState)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.organizer.set_mode(True)
    assert window.open_project(str(path), "lead")
    window.organizer.show_agreement()
    dashboard = window.organizer.workspace.agreement_view.dashboard
    qtbot.waitUntil(lambda: dashboard.heatmap.height() > 400, timeout=10000)
    scroll = dashboard.findChild(QScrollArea)
    assert not scroll.horizontalScrollBar().isVisible()
    summary, table = dashboard.sections["summary"], dashboard.sections["table"]
    gap = table.geometry().top() - summary.geometry().bottom()
    assert gap < 40, gap  # the heatmap's height does not push the table down
    window.context.close_project()


def test_the_agreement_view_says_who_is_drifting(qtbot, settings, tmp_path):
    from simrate.core.project import Project
    from tests.core.agreement.reports.test_over_time import study
    from tests.core.frames import make_items

    ratings = study(n_items=80, drift_from=40)
    path = tmp_path / "drift.simrate"
    with Project.create(path, scale="sts") as project:
        items = make_items(80)
        items["item_id"] = [f"i{k}" for k in range(80)]
        project.import_items(items, source="items.tsv")
        for row in ratings.itertuples():  # one by one, in the order of the study
            project.rate(row.item_id, row.annotator, row.score)
    window = MainWindow(ApplicationContext(settings))
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    window.organizer.set_mode(True)
    assert window.open_project(str(path), "lead")
    window.organizer.show_agreement()
    section = window.organizer.workspace.agreement_view.over_time
    qtbot.waitUntil(lambda: bool(section.chart.points), timeout=10000)
    assert set(section.drifting) == {"cy"}
    assert "cy vs rest <b" in section.legend.text() and "falling" in section.legend.text()
    window.context.close_project()


def test_a_narrow_window_stacks_the_agreement_view_in_one_column(qtbot, settings, tmp_path):
    window = organizer_on_sample(qtbot, settings, tmp_path, size=(900, 700))
    window.organizer.show_agreement()
    dashboard = window.organizer.workspace.agreement_view.dashboard
    qtbot.wait(50)
    assert dashboard.wide is False
    sections = dashboard.sections
    assert sections["over_time"].geometry().top() > sections["distribution"].geometry().top()
    assert sections["heatmap"].parentWidget() is sections["summary"].parentWidget()
    window.resize(1366, 768)
    qtbot.waitUntil(lambda: dashboard.wide, timeout=2000)
    assert sections["heatmap"].parentWidget() is sections["over_time"].parentWidget()
    assert not dashboard.findChild(QScrollArea).horizontalScrollBar().isVisible()
    window.context.close_project()


def test_a_new_raters_first_two_items_do_not_stretch_the_chart(qtbot):
    """A rater who shares two items with the rest has no r yet (it would be -1 or +1): the
    chart draws no point for them and its axis does not reach down to -1."""
    import pandas as pd

    from simrate.core.agreement.reports.over_time import agreement_over_time
    from simrate.gui.agreement.agreement_view import OverTimeChart

    rows = []
    for i in range(8):  # two careful raters
        rows += [(f"i{i}", "ax", float(i % 5), 2.0 * i), (f"i{i}", "bo", float(i % 5), 2.0 * i + 1)]
    rows += [("i0", "new", 3.0, 100.0), ("i1", "new", 0.0, 101.0)]  # r vs rest would be -1
    ratings = pd.DataFrame(rows, columns=["item_id", "annotator", "score", "updated_at"])
    _step, points = agreement_over_time(ratings, every=2)
    assert points[-1].vs_rest["new"] is None
    chart = OverTimeChart()
    qtbot.addWidget(chart)
    chart.set_points(points, ["ax", "bo", "new"])
    assert chart._bounds()[0] >= 0.0
