"""A newcomer's first hour on a real shared-task file, command by command, checking the
files each step leaves: a project from the STS 2012 MSRvid test input (its gold key beside
it read as reference scores, and said so), three annotators' ratings imported from a file,
agreement, the flagged items adjudicated, the gold exported in the task's own format and
evaluated against the official key."""

from __future__ import annotations

import shutil

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate

pytestmark = pytest.mark.realdata

STEP = 0.25


def on_grid(value: float) -> float:
    return min(5.0, max(0.0, round(value / STEP) * STEP))


def ratings_rows(gold: list[float]) -> list[str]:
    """Three annotators close to the official gold; every 75th item one of them far off."""
    rows = ["item_id,ann,bob,cy"]
    for line, score in enumerate(gold, start=1):
        ann = on_grid(score)
        bob = on_grid(score + STEP * (line % 3 - 1))
        if line % 75 == 0:  # 10 items the third annotator misjudges by more than a point
            cy = on_grid(score - 1.5) if score >= 2.5 else on_grid(score + 1.5)
        else:
            cy = on_grid(score + STEP * (line % 5 - 2) / 2)
        rows.append(f"MSRvid:{line},{ann},{bob},{cy}")
    return rows


def test_first_hour_on_the_sts_2012_msrvid_file(realdata, tmp_path, capsys):
    source = realdata / "sts2012"
    for name in ("STS.input.MSRvid.txt", "STS.gs.MSRvid.txt"):
        shutil.copy(source / name, tmp_path)
    key = tmp_path / "STS.gs.MSRvid.txt"
    gold = [float(line) for line in key.read_text().split()]
    project = tmp_path / "msrvid.simrate"

    done = simrate(capsys, "new", project, "--scale", "sts", "--title", "MSRvid")
    assert done.status == 0, done.err
    done = simrate(capsys, "import", project, tmp_path / "STS.input.MSRvid.txt")
    assert done.status == 0, done.err
    assert ("750 items added (sts); reference scores of 750 items read from the gold key "
            "beside it, STS.gs.MSRvid.txt") in done.out
    with Project.open(project) as opened:
        assert opened.items()["reference"].tolist() == gold

    ratings = tmp_path / "ratings.csv"
    ratings.write_text("\n".join(ratings_rows(gold)) + "\n", encoding="utf-8")
    done = simrate(capsys, "import", project, ratings)
    assert done.status == 0, done.err
    assert "2250 ratings added, 0 changed, 0 unchanged" in done.out

    agreement = simrate(capsys, "agreement", project, "--json").json()
    assert agreement["items"] == 750 and agreement["annotators"] == ["ann", "bob", "cy"]
    assert 0.8 < agreement["alpha"]["interval"] < agreement["alpha_unadjudicated"]["interval"]

    flagged = simrate(capsys, "flagged", project, "--json").json()
    assert sorted(entry["item_id"] for entry in flagged) == sorted(
        f"MSRvid:{n}" for n in range(75, 751, 75))
    refused = simrate(capsys, "export", project, tmp_path / "early.sts")
    assert refused.status == 3 and not (tmp_path / "early.sts").exists()
    for entry in flagged:
        line = int(entry["item_id"].split(":")[1])
        done = simrate(capsys, "adjudicate", project, entry["item_id"],
                       f"{on_grid(gold[line - 1])}", "--note", "read again", "--by", "lead")
        assert done.status == 0, done.err
    assert simrate(capsys, "flagged", project, "--json").json() == []

    out = tmp_path / "gold.sts"
    done = simrate(capsys, "export", project, out)
    assert done.status == 0, done.err
    assert "750 items written as sts (chosen from the file name" in done.out
    written = out.read_text(encoding="utf-8").splitlines()
    assert len(written) == 750 and all(len(v.split(".")[1]) == 3 for v in written)
    rows = [row.split(",") for row in ratings_rows(gold)[1:]]
    for line, (value, row) in enumerate(zip(written, rows, strict=True), start=1):
        mean = sum(float(v) for v in row[1:]) / 3
        expected = on_grid(gold[line - 1]) if line % 75 == 0 else mean
        assert float(value) == pytest.approx(expected, abs=5e-4), line

    table = tmp_path / "gold.tsv"
    assert simrate(capsys, "export", project, table).status == 0
    header = table.read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert header[:6] == ["item_id", "dataset", "genre", "left", "right", "gold"]
    assert header[-3:] == ["rating:ann", "rating:bob", "rating:cy"]

    report = simrate(capsys, "evaluate", "--task", "sts", key, out, "--json").json()
    scored = report["datasets"]["MSRvid"]
    assert scored["n"] == 750 and 0.95 < scored["pearson"] < 1.0
