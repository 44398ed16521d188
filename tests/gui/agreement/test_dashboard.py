"""The dashboard follows ratings: alpha, counts, intervals, table, heatmap, distributions."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from simrate.core.agreement.batch import alpha
from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.gui.agreement.agreement_watch import OVERALL_ALL, AgreementWatcher
from simrate.gui.agreement.dashboard import AgreementTableModel, Dashboard
from simrate.gui.base.bridge import ProjectBridge
from tests.core.frames import make_rated_project


def core_alpha(project: Project, level: str = "interval") -> float | None:
    """Batch alpha over the project's ratings (raters x items), independent of the GUI."""
    ratings = project.ratings()
    table = ratings.pivot(index="annotator", columns="item_id", values="score")
    return alpha(table.to_numpy(dtype=float), level)


@pytest.fixture
def organizer(qtbot, tmp_path):
    """(project, watcher, dashboard) on a small rated project, engine built."""
    project = Project.open(make_rated_project(tmp_path / "org.simrate"))
    bridge = ProjectBridge(project)
    watcher = AgreementWatcher(project, bridge)
    dashboard = Dashboard(watcher)
    qtbot.addWidget(dashboard)
    dashboard.resize(520, 900)
    qtbot.waitUntil(lambda: watcher.engine is not None, timeout=10000)
    yield project, watcher, dashboard
    watcher.shutdown()
    qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
    bridge.detach()
    project.close()


def test_alpha_label_follows_a_rating(qtbot, organizer):
    project, watcher, dashboard = organizer
    before = dashboard.alpha_label.text()
    assert before == f"{core_alpha(project):.3f}"
    project.rate("d:1", "ann", 0.0)
    project.rate("d:1", "ben", 4.0)  # a wide disagreement: alpha must drop
    expected = f"{core_alpha(project):.3f}"
    assert expected != before
    qtbot.waitUntil(lambda: dashboard.alpha_label.text() == expected, timeout=2000)
    assert dashboard.alpha_label.text() == f"{project.live.alpha():.3f}"


def test_unadjudicated_alpha_and_counts_follow_an_adjudication(qtbot, organizer):
    project, watcher, dashboard = organizer
    flagged = sorted(project.flagged_ids())
    assert flagged, "the fixture must flag some items"
    project.adjudicate(flagged[0], 2.0, note="read both texts again", by="org")

    def expected_unadjudicated() -> str:
        settled = project.flagged_ids() | set(project.adjudications()["item_id"])
        ratings = project.ratings()
        kept = ratings[~ratings["item_id"].isin(settled)]
        table = kept.pivot(index="annotator", columns="item_id", values="score")
        return f"{alpha(table.to_numpy(dtype=float)):.3f}"

    qtbot.waitUntil(lambda: dashboard.count_labels["adjudicated"].text() == "1", timeout=2000)
    assert dashboard.count_labels["flagged"].text() == str(len(flagged) - 1)
    assert dashboard.alpha_unadjudicated_label.text() == expected_unadjudicated()
    # named for what it holds, smaller than the headline, and said why it is higher
    assert "undisputed items only" in dashboard.unadjudicated_caption.text()
    assert "usually higher but can be lower" in dashboard.undisputed_note.text()
    assert dashboard.undisputed_note.isVisibleTo(dashboard)
    assert (dashboard.alpha_unadjudicated_label.font().pointSizeF()
            < dashboard.alpha_label.font().pointSizeF())


def test_level_choice_changes_every_alpha(qtbot, organizer):
    project, watcher, dashboard = organizer
    dashboard.level_combo.setCurrentText("ordinal")
    qtbot.waitUntil(lambda: dashboard.alpha_label.text() == f"{core_alpha(project, 'ordinal'):.3f}",
                    timeout=2000)
    assert "ordinal" in dashboard.alpha_caption.text()


def test_intervals_arrive_in_the_background_and_contain_alpha(qtbot, organizer):
    project, watcher, dashboard = organizer
    watcher.compute_intervals()
    qtbot.waitUntil(lambda: watcher.has_intervals, timeout=20000)
    low, high = watcher.interval(OVERALL_ALL)
    assert low <= project.live.alpha() <= high
    assert dashboard.interval_label.text() == f"95% interval {low:.3f}\u2013{high:.3f}"


def test_stale_intervals_for_another_level_are_dropped(qtbot, organizer):
    project, watcher, dashboard = organizer
    watcher.compute_intervals()  # interval level
    dashboard.level_combo.setCurrentText("nominal")
    qtbot.waitUntil(lambda: watcher.has_intervals, timeout=20000)
    assert watcher.intervals_level == "nominal"


def test_a_failed_interval_job_is_shown(qtbot, organizer, monkeypatch):
    project, watcher, dashboard = organizer
    assert dashboard.status_label.isHidden()

    def fail(*_args, **_kwargs):
        raise SimrateError("no memory left for the resamples")

    monkeypatch.setattr("simrate.gui.agreement.agreement_watch.scope_intervals", fail)
    watcher.compute_intervals()
    qtbot.waitUntil(lambda: not dashboard.status_label.isHidden(), timeout=10000)
    assert "no memory left" in dashboard.status_label.text()


def test_an_interval_job_ending_after_shutdown_reaches_nobody(qtbot, organizer, monkeypatch):
    """Closing the project while intervals are computed: the late failure is not shown
    and no new computation is scheduled (the watcher may already be deleted)."""
    project, watcher, _dashboard = organizer
    started, release = threading.Event(), threading.Event()

    def held_fail(*_args, **_kwargs):
        started.set()
        release.wait(10)
        raise SimrateError("the project was closed")

    qtbot.waitUntil(lambda: watcher._interval_job is None, timeout=10000)
    monkeypatch.setattr("simrate.gui.agreement.agreement_watch.scope_intervals", held_fail)
    failures = []
    watcher.failed.connect(failures.append)
    watcher.compute_intervals()
    assert started.wait(10)
    project.rate("d:1", "ann", 1.0)  # a change the job did not see: it would run again
    watcher.shutdown()
    release.set()
    qtbot.wait(100)
    watcher.runner.collect()
    assert failures == [] and not watcher._interval_timer.isActive()


def test_ratings_after_the_watcher_started_count_a_new_rater_too(qtbot, tmp_path):
    project = Project.open(make_rated_project(tmp_path / "b.simrate"))
    bridge = ProjectBridge(project)
    watcher = AgreementWatcher(project, bridge)
    project.rate("d:2", "dan", 1.0)  # a rater the per-scope sums have not seen
    project.rate("d:2", "ann", 4.0)
    assert "dan" in watcher.engine.raters
    assert watcher.engine.alpha() == pytest.approx(core_alpha(project))
    watcher.shutdown()
    qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
    bridge.detach()
    project.close()


def test_heatmap_and_distribution_show_every_rater(qtbot, organizer):
    project, watcher, dashboard = organizer
    assert dashboard.heatmap.names == ["ann", "ben", "cat"]
    ratings = project.ratings()
    pair = ratings.pivot(index="item_id", columns="annotator", values="score")[
        ["ann", "ben"]].dropna()
    r = float(np.corrcoef(pair["ann"], pair["ben"])[0, 1])
    assert dashboard.heatmap.matrix[0][1] == pytest.approx(r)
    counts = dashboard.distribution.counts
    assert counts.sum() == len(ratings)
    assert counts[2].sum() == (ratings["annotator"] == "cat").sum()


def test_excluding_a_rater_rebuilds_without_them(qtbot, organizer):
    project, watcher, dashboard = organizer
    project.set_excluded("cat", True)
    qtbot.waitUntil(lambda: watcher.engine is not None and "cat" not in watcher.engine.raters,
                    timeout=10000)
    qtbot.waitUntil(lambda: "cat" in dashboard.excluded_label.text(), timeout=2000)
    assert dashboard.heatmap.names == ["ann", "ben"]


def test_agreement_table_model(qtmodeltester, organizer):
    project, watcher, dashboard = organizer
    model = AgreementTableModel(watcher, "genre")
    qtmodeltester.check(model)
    groups = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert groups == ["forum", "news", "All items"]
    model.set_grouping("dataset")
    qtmodeltester.check(model)
    assert model.rowCount() == 3
