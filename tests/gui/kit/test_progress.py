"""The counted progress bar: busy until the first count, then the count, the rate and the
time left."""

from __future__ import annotations

from simrate.gui.kit.progress import CountedProgress, count_text


def test_the_text_counts_and_adds_rate_and_time_left_once_settled():
    assert count_text(0, 200_000, "rows", 0.0) == "0 of 200,000 rows (0%)"
    assert count_text(20_000, 200_000, "rows", 0.5) == "20,000 of 200,000 rows (10%)"
    assert count_text(20_000, 200_000, "rows", 2.0) == (
        "20,000 of 200,000 rows (10%) \u00b7 10,000 rows/s \u00b7 about 18 s left")
    assert count_text(1_000, 200_000, "rows", 2.0).endswith("about 7 min left")
    assert count_text(200_000, 200_000, "rows", 9.0) == "200,000 of 200,000 rows (100%)"
    assert count_text(1, 1, "item", 0.0) == "1 of 1 item (100%)"


def test_the_bar_is_busy_until_the_first_count(qtbot):
    now = [100.0]
    bar = CountedProgress("rows", clock=lambda: now[0])
    qtbot.addWidget(bar)
    assert (bar.minimum(), bar.maximum()) == (0, 0)
    now[0] = 103.0
    bar.show_count(60_000, 200_000)
    assert (bar.maximum(), bar.value()) == (200_000, 60_000)
    assert bar.text() == "60,000 of 200,000 rows (30%) \u00b7 20,000 rows/s \u00b7 about 7 s left"
    bar.start()
    assert (bar.minimum(), bar.maximum()) == (0, 0)
