"""Imports say what they did: a gold key read beside the input, skips apart from ratings."""

from __future__ import annotations

import shutil

from simrate.core.project import Project
from simrate.services.imports.file_import import ImportRequest, read_source, write_source
from tests.cli.helpers import simrate


def test_sts_import_says_it_read_the_gold_key_beside_the_input(sample_data, tmp_path, capsys):
    shutil.copy(sample_data / "STS.input.demo.txt", tmp_path)
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    alone = simrate(capsys, "import", project, tmp_path / "STS.input.demo.txt")
    assert alone.status == 0, alone.err
    assert "gold key" not in alone.out  # nothing beside it: nothing said
    shutil.copy(sample_data / "STS.gs.demo.txt", tmp_path)
    other = tmp_path / "q.simrate"
    assert simrate(capsys, "new", other, "--scale", "sts").status == 0
    done = simrate(capsys, "import", other, tmp_path / "STS.input.demo.txt")
    lines = (sample_data / "STS.gs.demo.txt").read_text().split()
    assert (f"12 items added (sts); reference scores of {len(lines)} items read from the "
            "gold key beside it, STS.gs.demo.txt") in done.out
    with Project.open(other) as opened:
        assert opened.items()["reference"].notna().sum() == len(lines)


def test_the_window_import_says_it_too(sample_data, tmp_path):
    request = ImportRequest(source=sample_data / "paragraph2sentence.sample.input.tsv",
                            project_path=tmp_path / "w.simrate", new_scale="clss")
    result = write_source(request, *read_source(request))
    assert result.summary().endswith(
        "(clss); reference scores of 10 items read from the gold key beside it, "
        "paragraph2sentence.sample.gs.tsv")


def test_a_package_merge_counts_skips_apart_from_ratings(tmp_path, capsys):
    """A skip ("cannot judge") is no rating: the merge, its preview in the window and
    `simrate annotators` count it the same way."""
    from simrate.core.team.packages import make_package
    from simrate.services.imports.ratings_preview import preview_import
    from tests.core.team.test_packages import make_items

    origin = tmp_path / "o.simrate"
    with Project.create(origin, scale="clss") as project:
        project.import_items(make_items(6), source="items.tsv")
        make_package(project, tmp_path / "ann.simrate", "ann")
    with Project.open(tmp_path / "ann.simrate") as package:
        package.rate("d:1", "ann", 2.0)
        package.rate("d:2", "ann", 3.0)
        package.skip("d:3", "ann", reason="garbled")
    preview = preview_import(origin, tmp_path / "ann.simrate", None)
    assert (preview.added, preview.skips) == (2, 1)
    done = simrate(capsys, "import", origin, tmp_path / "ann.simrate")
    assert done.status == 0, done.err
    assert "ann: 2 ratings added, 1 skip added, 0 changed" in done.out
    report = simrate(capsys, "annotators", origin, "--json").json()
    ann = next(row for row in report if row["annotator"] == "ann")
    assert (ann["rated"], ann["skipped"]) == (2, 1)
