"""Machine raters: imported with --machine, never in gold, flags or the humans' alpha;
`simrate machine --json` with the alt-test; older project files migrate."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from simrate.core.base.frames import item_frame, rating_frame
from simrate.core.data.store import SCHEMA_VERSION
from simrate.core.project import Project
from tests.cli.helpers import simrate

N = 60


@pytest.fixture
def project_path(tmp_path):
    rng = np.random.default_rng(4)
    truth = rng.uniform(0, 5, N)
    ids = [f"d:{i + 1}" for i in range(N)]
    path = tmp_path / "m.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(item_frame({
            "item_id": ids, "left": ids, "right": ids, "dataset": ["d"] * N,
            "genre": [""] * N, "reference": [np.nan] * N, "meta": [{}] * N,
            "line": list(range(1, N + 1))}), source="x")
        rows = {"item_id": [], "annotator": [], "score": [], "note": [], "line": []}
        for i, item in enumerate(ids):
            for who in ("ann", "bob", "cid"):
                rows["item_id"].append(item)
                rows["annotator"].append(who)
                rows["score"].append(float(np.clip(np.round((truth[i] + rng.normal(0, .6)) * 4)
                                                   / 4, 0, 5)))
                rows["note"].append("")
                rows["line"].append(len(rows["line"]) + 1)
        project.import_ratings(rating_frame(rows), source="r")
    scores = tmp_path / "system.txt"  # a system output: one score per line, project order
    scores.write_text("\n".join(f"{t:.3f}" for t in truth) + "\n", encoding="utf-8")
    return path, scores


def test_machine_rater_end_to_end(project_path, tmp_path, capsys):
    path, scores = project_path
    before = simrate(capsys, "agreement", path, "--json").json()
    flagged_before = simrate(capsys, "flagged", path, "--json").json()
    done = simrate(capsys, "import", path, scores, "--machine", "gpt")
    assert done.status == 0, done.err
    assert "60 ratings added" in done.out and "rounded to the scale's grid" in done.out
    after = simrate(capsys, "agreement", path, "--json").json()
    assert after["annotators"] == ["ann", "bob", "cid"]  # not in the humans' alpha
    assert after["alpha"] == before["alpha"]
    with_it = simrate(capsys, "agreement", path, "--json", "--with-machines").json()
    assert "gpt" in with_it["annotators"]
    assert simrate(capsys, "flagged", path, "--json").json() == flagged_before  # no flags
    gold = tmp_path / "gold.tsv"
    assert simrate(capsys, "export", path, gold, "--allow-unresolved").status == 0
    assert "rating:gpt" not in gold.read_text(encoding="utf-8").splitlines()[0]

    report = simrate(capsys, "machine", path, "--json", "--epsilon", "0.2").json()
    entry = report["machines"]["gpt"]
    assert set(entry) == {"pearson", "pearson_vs_humans", "alpha_without", "alpha_with",
                          "alt_test"}
    assert set(entry["pearson"]) == {"ann", "bob", "cid"}
    assert entry["alpha_without"] == pytest.approx(before["alpha"]["interval"])
    assert entry["alpha_with"] == pytest.approx(with_it["alpha"]["interval"])
    test = entry["alt_test"]
    assert test["epsilon"] == 0.2 and test["passed"] is True and test["winning_rate"] >= 0.5
    assert set(test["humans"]) == {"ann", "bob", "cid"}
    assert all(h["instances"] == N for h in test["humans"].values())
    text = simrate(capsys, "machine", path).out
    assert "machine gpt: alt-test PASSED" in text
    annotators = {e["annotator"]: e for e in simrate(capsys, "annotators", path, "--json").json()}
    assert annotators["gpt"]["machine"] is True and annotators["ann"]["machine"] is False


def test_machine_name_of_a_person_and_bad_files_are_refused(project_path, tmp_path, capsys):
    path, scores = project_path
    taken = simrate(capsys, "import", path, scores, "--machine", "ann")
    assert taken.status == 2 and "human annotator" in taken.err
    short = tmp_path / "short.txt"
    short.write_text("1\n2\n", encoding="utf-8")
    refused = simrate(capsys, "import", path, short, "--machine", "m2")
    assert refused.status == 2 and "2 scores for 60 items" in refused.err
    with Project.open(path) as project:
        assert project.roster.machines() == []


def test_schema_1_file_is_migrated(tmp_path):
    path = tmp_path / "old.simrate"
    with Project.create(path, scale="sts"):
        pass
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE a2 (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, "
                       "excluded INTEGER NOT NULL DEFAULT 0);"  # the annotators of schema 1
                       "INSERT INTO a2 SELECT id, name, excluded FROM annotators;"
                       "DROP TABLE annotators; ALTER TABLE a2 RENAME TO annotators;"
                       "INSERT INTO annotators VALUES (1, 'old', 0);"
                       "UPDATE meta SET value = '1' WHERE key = 'schema_version';")
    conn.close()
    with Project.open(path) as project:
        assert project.meta("schema_version") == str(SCHEMA_VERSION)
        assert project.roster.machines() == [] and project.annotators() == ["old"]
        project.roster.add_machine("bot")
        assert project.roster.machines() == ["bot"]

