"""The dashboard at crowd scale: the rater table, the top-N heatmap, machine raters' verdict."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QScrollArea

from simrate.core.agreement.correlation import pearson_matrix, pearson_vs_rest
from simrate.core.data.store import MACHINE
from simrate.core.machine.report import machine_report
from simrate.core.project import Project
from simrate.gui.agreement.agreement_watch import AgreementWatcher
from simrate.gui.agreement.dashboard import Dashboard
from simrate.gui.agreement.rater_table import MIN_OVERLAP, R_COLUMN, TOP_N, RaterTableModel
from simrate.gui.base.bridge import ProjectBridge
from tests.core.frames import make_items, make_rated_project, make_ratings

WORKERS = 20


def crowd_project(path, items: int = 80, per_item: int = 5, seed: int = 3):
    """Items rated by 5 of 20 workers each; w00 answers against the truth, w01 at random."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0, 5, items)
    rows = []
    for i in range(items):
        for w in rng.choice(WORKERS, per_item, replace=False):
            if w == 0:
                score = 5 - truth[i]
            elif w == 1:
                score = rng.uniform(0, 5)
            else:
                score = truth[i] + rng.normal(0, 0.5)
            rows.append((f"d:{i + 1}", f"w{w:02d}", float(np.clip(np.rint(score * 4) / 4, 0, 5))))
    with Project.create(path, scale="sts") as project:
        project.import_items(make_items(items), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="crowd.tsv")
    return path


def open_dashboard(qtbot, path):
    project = Project.open(path)
    bridge = ProjectBridge(project)
    watcher = AgreementWatcher(project, bridge)
    dashboard = Dashboard(watcher)
    qtbot.addWidget(dashboard)
    dashboard.resize(1200, 1000)
    qtbot.waitUntil(lambda: watcher.engine is not None, timeout=10000)
    qtbot.waitUntil(lambda: dashboard.pearson.model.rowCount() > 0, timeout=5000)
    return project, bridge, watcher, dashboard


@pytest.fixture
def crowd(qtbot, tmp_path):
    project, bridge, watcher, dashboard = open_dashboard(qtbot, crowd_project(tmp_path / "c.simrate"))
    yield project, watcher, dashboard
    watcher.shutdown()
    dashboard.machine_watch.shutdown()
    qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
    bridge.detach()
    project.close()


def batch_figures(project: Project) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(raters, dense Pearson matrix, r vs rest) from the ratings, independent of the GUI."""
    ratings = project.ratings()
    table = ratings.pivot(index="annotator", columns="item_id", values="score")
    data = table.to_numpy(dtype=float)
    return list(table.index), pearson_matrix(data), pearson_vs_rest(data)


def proxy_column(dashboard, column: int) -> list[str]:
    proxy = dashboard.pearson.proxy
    return [proxy.index(row, column).data() for row in range(proxy.rowCount())]


def test_table_lists_every_rater_with_lowest_r_first(crowd):
    project, _watcher, dashboard = crowd
    raters, _matrix, rest = batch_figures(project)
    assert dashboard.pearson.crowd.isVisibleTo(dashboard)
    names = proxy_column(dashboard, 0)
    assert sorted(names) == sorted(raters) and len(names) == WORKERS
    assert names[0] == "w00"  # answers against the truth: the most in doubt
    shown = [float(v) for v in proxy_column(dashboard, R_COLUMN)]
    assert shown == sorted(shown)
    expected = {name: f"{r:.3f}" for name, r in zip(raters, rest, strict=True)}
    assert dict(zip(names, proxy_column(dashboard, R_COLUMN), strict=True)) == expected


def test_table_sorts_by_any_column_and_filters_by_name(crowd):
    project, _watcher, dashboard = crowd
    counts = project.ratings()["annotator"].value_counts()
    table = dashboard.pearson.table
    table.sortByColumn(3, Qt.SortOrder.DescendingOrder)
    shown = [int(v.replace(",", "")) for v in proxy_column(dashboard, 3)]
    assert shown == sorted(counts.tolist(), reverse=True)
    table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert proxy_column(dashboard, 0) == sorted(counts.index)
    dashboard.pearson.filter_edit.setText("W1")  # case-insensitive
    assert proxy_column(dashboard, 0) == [f"w{n}" for n in range(10, WORKERS)]


def test_heatmap_shows_the_top_n_by_doubt_with_their_pairwise_r(crowd):
    project, _watcher, dashboard = crowd
    heatmap = dashboard.heatmap
    assert len(heatmap.names) == TOP_N
    assert heatmap.names == dashboard.pearson.model.top(TOP_N)
    assert heatmap.names[:2] == ["w00", "w01"]
    assert f"{TOP_N} of {WORKERS}" in dashboard.pearson.title.text()
    raters, matrix, _rest = batch_figures(project)
    table = project.ratings().pivot(index="annotator", columns="item_id", values="score")
    present = table.notna().to_numpy(dtype=int)
    shared = present @ present.T
    blanks = 0
    for a, name in enumerate(heatmap.names):
        for b, other in enumerate(heatmap.names):
            i, j = raters.index(name), raters.index(other)
            if a != b and shared[i, j] < MIN_OVERLAP:  # too few shared items: no r shown
                blanks += 1
                assert heatmap.matrix[a][b] is None
            else:
                assert heatmap.matrix[a][b] == pytest.approx(matrix[i, j], abs=1e-9)
    assert 0 < blanks < TOP_N * (TOP_N - 1)  # both kinds of cell were checked


def test_an_edit_updates_the_raters_of_its_item(qtbot, crowd):
    project, _watcher, dashboard = crowd
    item = "d:7"
    raters_of_item = sorted(project.ratings().query("item_id == @item")["annotator"])
    worker = raters_of_item[-1]
    before = project.rating(item, worker)
    project.rate(item, worker, 0.0 if before > 2.5 else 5.0)
    raters, _matrix, rest = batch_figures(project)
    expected = {name: f"{r:.3f}" for name, r in zip(raters, rest, strict=True)}
    qtbot.waitUntil(lambda: dict(zip(proxy_column(dashboard, 0),
                                     proxy_column(dashboard, R_COLUMN), strict=True))
                    == expected, timeout=3000)


def test_few_raters_look_as_before(qtbot, tmp_path):
    project, bridge, watcher, dashboard = open_dashboard(
        qtbot, make_rated_project(tmp_path / "few.simrate"))
    try:
        assert dashboard.heatmap.names == ["ann", "ben", "cat"]
        assert not dashboard.pearson.crowd.isVisibleTo(dashboard)
        assert dashboard.pearson.title.text().startswith("Pearson r between raters")
        assert not dashboard.machines.isVisibleTo(dashboard)
    finally:
        watcher.shutdown()
        dashboard.machine_watch.shutdown()
        qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
        bridge.detach()
        project.close()


def test_rater_table_model(qtmodeltester, crowd):
    project, _watcher, _dashboard = crowd
    model = RaterTableModel(lambda: project.agreement.live)
    model.reload()
    assert model.rowCount() == WORKERS
    qtmodeltester.check(model)


def test_machine_verdict_appears_on_the_dashboard(qtbot, crowd):
    project, _watcher, dashboard = crowd
    project.roster.add_machine("bot")
    rows = []  # a machine's scores come by a machine import (Project.rate is a person's)
    for item_id in project.item_ids():
        scores = project.ratings().query("item_id == @item_id")["score"]
        rows.append((item_id, "bot", float(np.rint(scores.mean() * 4) / 4)))
    project.import_ratings(make_ratings(rows), kind=MACHINE)
    panel = dashboard.machines
    dashboard.machine_watch.compute()
    qtbot.waitUntil(lambda: panel.model.rowCount() == 1 and panel.isVisibleTo(dashboard),
                    timeout=10000)
    qtbot.waitUntil(lambda: not dashboard.machine_watch._timer.isActive()
                    and dashboard.machine_watch._job is None, timeout=10000)
    expected = machine_report(project)["machines"]["bot"]
    row = [panel.model.index(0, c).data() for c in range(panel.model.columnCount())]
    test = expected["alt_test"]
    assert row[0] == "bot"
    assert row[1] == f"{test['winning_rate']:.0%}"
    assert row[2] == f"{test['advantage_probability']:.3f}"
    assert row[3] == ("passed" if test["passed"] else "failed")
    assert row[4] == f"{expected['pearson_vs_humans']:.3f}"
    assert row[5:] == [f"{expected['alpha_without']:.3f}", f"{expected['alpha_with']:.3f}"]
    # the machine is in the Pearson table and heatmap too, marked as a machine
    names, kinds = proxy_column(dashboard, 0), proxy_column(dashboard, 1)
    assert kinds[names.index("bot")] == "machine" and kinds.count("machine") == 1
    every_item = f"{len(project.item_ids()):,}"  # the bot scored them all, beside humans
    bot = names.index("bot")
    assert (proxy_column(dashboard, 3)[bot], proxy_column(dashboard, 4)[bot]) == (every_item,
                                                                                 every_item)
    assert dashboard.heatmap.names[-1] == "bot" and "bot" in dashboard.heatmap.machines
    assert "machine" in dashboard.heatmap.describe(TOP_N, 0)


def test_a_machine_report_finishing_after_shutdown_is_dropped(qtbot, crowd):
    """Closing the project while the report is computed: the late result reaches nobody
    (its watch may already be deleted), and nothing is emitted."""
    project, _watcher, dashboard = crowd
    project.roster.add_machine("bot")
    project.import_ratings(make_ratings([(project.item_ids()[0], "bot", 2.0)]), kind=MACHINE)
    watch = dashboard.machine_watch
    emitted = []
    watch.updated.connect(lambda *args: emitted.append(args))
    watch.failed.connect(emitted.append)
    qtbot.waitUntil(lambda: watch._job is None and not watch._timer.isActive(), timeout=10000)
    emitted.clear()
    watch.compute()
    assert watch._job is not None
    watch.shutdown()
    qtbot.waitUntil(lambda: not watch.runner.busy, timeout=10000)
    qtbot.wait(50)
    assert emitted == [] and watch._job is None


def test_a_narrow_dashboard_shows_the_crowd_raters_that_fit_without_scrolling_sideways(
        qtbot, crowd):
    """In a dock as narrow as a laptop's (about 420 px), the heatmap holds fewer of the
    raters most in doubt instead of pushing the dashboard wider than its dock; widened
    again, it holds TOP_N."""
    from simrate.gui.agreement.pearson_view import FEWEST

    _project, _watcher, dashboard = crowd
    dashboard.resize(420, 900)
    dashboard.show()
    qtbot.waitUntil(lambda: len(dashboard.heatmap.names) < TOP_N, timeout=5000)
    shown = dashboard.heatmap.names
    assert FEWEST <= len(shown) and shown == dashboard.pearson.model.top(len(shown))
    assert f"the {len(shown)} of {WORKERS}" in dashboard.pearson.title.text()
    scroll = dashboard.findChild(QScrollArea)
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible()
    heatmap = dashboard.heatmap
    last = heatmap._cell_rect(len(shown) - 1, len(shown))  # the vs-rest cell of the last row
    assert last.right() <= heatmap.width()  # drawn whole, not cut at the edge
    dashboard.resize(1200, 1000)
    qtbot.waitUntil(lambda: len(dashboard.heatmap.names) == TOP_N, timeout=5000)
