"""The dashboard judges no rater on fewer shared items than every other figure needs
(DEFAULT_MIN_OVERLAP): a new rater with 3 ratings is no coloured "bad" cell."""

from __future__ import annotations

from simrate.core.agreement.correlation import DEFAULT_MIN_OVERLAP, reason_few_common
from simrate.core.project import Project
from simrate.gui.agreement.rater_table import R_COLUMN
from tests.core.frames import make_items, make_ratings
from tests.gui.agreement.test_crowd_views import open_dashboard


def test_a_rater_with_three_shared_items_is_not_coloured(qtbot, tmp_path):
    rows = [(f"d:{n + 1}", name, float((n + k * (n % 2)) % 6))
            for n in range(30) for k, name in enumerate(("ann", "bob"))]
    rows += [("d:1", "cy", 5.0), ("d:2", "cy", 3.0), ("d:3", "cy", 0.0)]
    with Project.create(tmp_path / "p.simrate", scale="sts") as project:
        project.import_items(make_items(30), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="ratings.tsv")
    project, bridge, watcher, dashboard = open_dashboard(qtbot, tmp_path / "p.simrate")
    try:
        heatmap = dashboard.heatmap
        cy = heatmap.names.index("cy")
        assert heatmap.vs_rest[cy] is None  # r vs rest over 3 items: -0.9, deep orange before
        assert all(heatmap.matrix[cy][k] is None for k in range(len(heatmap.names)) if k != cy)
        assert heatmap.vs_rest[heatmap.names.index("ann")] is not None
        assert f"fewer than {DEFAULT_MIN_OVERLAP} items" in dashboard.pearson.title.text()
        model = dashboard.pearson.model
        row = next(k for k, r in enumerate(model.rows) if r.name == "cy")
        index = model.index(row, R_COLUMN)
        assert index.data() == "n/a"
        assert model.data(index, 3) == ("n/a: undefined because "
                                        + reason_few_common(DEFAULT_MIN_OVERLAP))
        dashboard.grab().save(str(tmp_path / "dashboard.png"))
    finally:
        watcher.shutdown()
        dashboard.machine_watch.shutdown()
        qtbot.waitUntil(lambda: not watcher.runner.busy, timeout=10000)
        bridge.detach()
        project.close()


def test_the_annotator_report_says_n_a_in_the_same_words(qtbot, tmp_path):
    from simrate.gui.organizer.annotator_report import (
        COLUMNS,
        AnnotatorReportModel,
        compute_report,
    )

    rows = [(f"d:{n + 1}", name, float(n % 6)) for n in range(12) for name in ("ann", "bob")]
    rows += [("d:1", "cy", 5.0), ("d:2", "cy", 3.0), ("d:3", "cy", 0.0)]
    with Project.create(tmp_path / "r.simrate", scale="sts") as project:
        project.import_items(make_items(12), source="items.tsv")
        project.import_ratings(make_ratings(rows), source="ratings.tsv")
        model = AnnotatorReportModel(project)
        model.set_rows(compute_report(tmp_path / "r.simrate"))
        column = [key for key, _title, _format in COLUMNS].index("pearson_vs_rest")
        row = [r["annotator"] for r in model.rows].index("cy")
        index = model.index(row, column)
        assert index.data() == "n/a"
        assert model.data(index, 3) == ("n/a: undefined because "
                                        + reason_few_common(DEFAULT_MIN_OVERLAP))
        assert model.index([r["annotator"] for r in model.rows].index("ann"), column
                           ).data() != "n/a"
