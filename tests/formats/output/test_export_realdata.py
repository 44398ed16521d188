"""Exports checked against the field: STS 2012 gold keys and PIT 2015 label files."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simrate.core.base.frames import rating_frame
from simrate.core.project import Project
from simrate.formats.readers.pit import read_pit
from simrate.formats.readers.sts import read_sts
from simrate.services.exports.export import export_project
from tests.cli.helpers import simrate

#: STS 2012 gold scores are averages of five raters, given to three decimals (0.083, 4.400),
#: so a project holding them exactly needs a 0-5 scale with steps of 0.001.
FINE_STS_SCALE = {"name": "sts-fine", "title": "STS, any three-decimal score", "low": 0,
                  "high": 5, "step": 0.001}


def rate_with_reference(project: Project, items, raters: tuple[str, ...]) -> None:
    """Every rater gives each item its reference score from the file."""
    rows = [(item_id, name, score) for name in raters
            for item_id, score in zip(items["item_id"], items["reference"], strict=True)]
    project.import_ratings(rating_frame({
        "item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
        "score": [r[2] for r in rows], "note": [""] * len(rows),
        "line": list(range(1, len(rows) + 1)),
    }), source="reference")


@pytest.mark.realdata
def test_sts_2012_key_is_reproduced(realdata, tmp_path, capsys):
    folder = realdata / "sts2012"
    scale_file = tmp_path / "sts-fine.json"
    scale_file.write_text(json.dumps(FINE_STS_SCALE))
    items = read_sts(folder / "STS.input.MSRvid.txt")
    assert len(items) == 750 and items["reference"].notna().all()
    out = tmp_path / "STS.gs.MSRvid.txt"
    with Project.create(tmp_path / "msrvid.simrate", scale=scale_file) as project:
        project.import_items(items, source="STS.input.MSRvid.txt")
        rate_with_reference(project, items, ("ann", "bob"))
        report = export_project(project, out)
    assert (report.format, report.sources) == ("sts", {"mean": 750})
    official = (folder / "STS.gs.MSRvid.txt").read_text().splitlines()
    ours = out.read_text().splitlines()
    assert ours == [line.strip() for line in official]  # line for line, same text
    assert np.corrcoef(np.array(ours, float), np.array(official, float))[0, 1] == \
        pytest.approx(1.0, abs=1e-12)
    # the scorer reads our key as gold and the official key as a system output
    result = simrate(capsys, "evaluate", "--task", "sts", out, folder / "STS.gs.MSRvid.txt",
                     "--json")
    assert result.status == 0, result.err
    scores = result.json()
    assert scores["datasets"]["MSRvid"]["n"] == 750
    assert scores["datasets"]["MSRvid"]["pearson"] == pytest.approx(1.0, abs=1e-12)


def expected_pit_lines(data_file) -> list[str]:
    """Label lines by the task's published rules, from the expert digit in column 5."""
    lines = []
    for raw in data_file.read_text(encoding="utf-8").splitlines():
        digit = int(raw.split("\t")[4])
        label = "true" if digit >= 4 else "----" if digit == 3 else "false"
        lines.append(f"{label}\t{digit / 5:.4f}")
    return lines


@pytest.mark.realdata
def test_pit_2015_labels_are_reproduced(realdata, tmp_path):
    data_file = realdata / "pit2015" / "sampletest.data"
    items = read_pit(data_file)
    out = tmp_path / "sampletest.label"
    with Project.create(tmp_path / "pit.simrate", scale="sts") as project:
        project.import_items(items, source=str(data_file))
        rate_with_reference(project, items, ("expert",))
        report = export_project(project, out)
    assert report.format == "pit"
    ours = out.read_text().splitlines()
    expected = expected_pit_lines(data_file)
    assert ours == expected
