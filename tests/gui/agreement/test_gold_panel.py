"""Gold reliability beside alpha: Spearman-Brown from the live interval alpha at the mean
number of ratings per rated item, its interval from alpha's, the raters needed for 0.8 / 0.9;
it follows every rating."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from simrate.core.review.reliability import gold_reliability, raters_needed, reliability_ci
from simrate.gui.agreement.agreement_watch import OVERALL_ALL, AgreementWatcher
from simrate.gui.agreement.dashboard import Dashboard
from simrate.gui.agreement.gold_panel import (
    format_k,
    format_reliability,
    gold_figures,
)
from simrate.gui.base.bridge import ProjectBridge
from tests.core.frames import make_rated_project


@pytest.fixture
def organizer(qtbot, tmp_path):
    """(project, watcher, dashboard) on a small rated project."""
    project = Project.open(make_rated_project(tmp_path / "gold.simrate"))
    bridge = ProjectBridge(project)
    watcher = AgreementWatcher(project, bridge)
    dashboard = Dashboard(watcher)
    qtbot.addWidget(dashboard)
    dashboard.resize(520, 900)
    dashboard.show()
    yield project, watcher, dashboard
    watcher.shutdown()
    qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
    bridge.detach()
    project.close()


def expected(project: Project) -> tuple[str, float]:
    """The reliability as the view formats it, from the core's own numbers, and k."""
    ratings = project.ratings()
    ratings = ratings[ratings["score"].notna()]
    k = len(ratings) / ratings["item_id"].nunique()
    return format_reliability(gold_reliability(project.live.alpha("interval"), k)), k


def test_gold_reliability_is_spearman_brown_of_the_live_alpha(organizer):
    project, _watcher, dashboard = organizer
    text, k = expected(project)
    assert text != "\u2013"
    assert dashboard.gold.value_label.text() == text
    assert f"mean of {format_k(k)} ratings" in dashboard.gold.caption.text()
    alpha = project.live.alpha("interval")
    assert dashboard.gold.needed_label.text() == " / ".join(
        str(raters_needed(alpha, t)) for t in (0.8, 0.9))


def test_gold_reliability_follows_a_rating(qtbot, organizer):
    project, _watcher, dashboard = organizer
    before = dashboard.gold.value_label.text()
    project.rate("d:1", "ann", 0.0)
    project.rate("d:1", "ben", 4.0)  # a wide disagreement: alpha and the reliability drop
    text, _k = expected(project)
    assert text != before
    qtbot.waitUntil(lambda: dashboard.gold.value_label.text() == text, timeout=2000)


def test_the_interval_is_alphas_mapped_when_known(qtbot, organizer):
    project, watcher, dashboard = organizer
    watcher.compute_intervals()
    qtbot.waitUntil(lambda: watcher.has_intervals, timeout=20000)
    interval = watcher.interval(OVERALL_ALL)
    assert interval is not None
    _text, k = expected(project)
    low, high = reliability_ci(interval, k)
    qtbot.waitUntil(lambda: dashboard.gold.interval_label.text()
                    == f"95% CI {low:.3f}\u2013{high:.3f}", timeout=2000)
    dashboard.level_combo.setCurrentText("ordinal")  # intervals of another alpha: none
    qtbot.waitUntil(lambda: "interval level" in dashboard.gold.interval_label.text(),
                    timeout=2000)
    assert dashboard.gold.value_label.text() == expected(project)[0]


def test_figures_without_ratings_or_with_negative_alpha():
    empty = gold_figures(None, 0, 0)
    assert empty.value is None and empty.raters_per_item is None and empty.ci is None
    assert set(empty.needed.values()) == {None}
    noise = gold_figures(-0.2, 30, 10, (-0.4, 0.1))
    assert noise.value == pytest.approx(gold_reliability(-0.2, 3))
    assert noise.needed == {0.8: None, 0.9: None}
    assert noise.ci == pytest.approx(reliability_ci((-0.4, 0.1), 3))
    assert format_k(3.0) == "3" and format_k(3.25) == "3.25" and format_k(4.5) == "4.5"
