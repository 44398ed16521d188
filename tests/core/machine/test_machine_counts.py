"""machine_counts: a machine rater's scores, and those on items a counted human scored."""

from __future__ import annotations

from simrate.core.base.frames import rating_frame
from simrate.core.data.store import MACHINE
from simrate.core.machine.report import machine_counts
from simrate.core.project import Project
from tests.core.frames import make_rated_project


def test_counts_only_items_a_counted_human_scored(tmp_path):
    with Project.open(make_rated_project(tmp_path / "m.simrate", n_items=6)) as project:
        assert machine_counts(project) == {}
        project.roster.add_machine("bot")
        # a machine's scores come in as a machine import (Project.rate is a person's)
        project.import_ratings(rating_frame({
            "item_id": ["d:1", "d:2", "d:3"], "annotator": ["bot"] * 3, "score": [2.0] * 3,
            "note": [""] * 3, "line": [1, 2, 3]}), kind=MACHINE)
        for rater in ("ann", "ben", "cat"):
            project.rate("d:3", rater, None)  # nobody but the machine scored d:3 now
        assert machine_counts(project) == {"bot": (3, 2)}
        project.set_excluded("ann", True)
        project.set_excluded("ben", True)
        project.rate("d:2", "cat", None)  # d:2 only by excluded humans: not shared
        assert machine_counts(project) == {"bot": (3, 1)}
