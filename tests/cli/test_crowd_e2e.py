"""A simulated STS-2012-style crowd run, end to end through the command line.

Export batches (5 items + 1 check per task), write the results the way Turk writes them
(HTML entities, quoted texts, a rejected assignment), import them, exclude the careless
workers by the check-item rule (one action, reversible), export gold.
"""

from __future__ import annotations

import csv
import html
import re

import numpy as np
import pandas as pd
import pytest

from simrate.core.base.frames import item_frame
from simrate.core.project import Project
from tests.cli.helpers import simrate

GOOD = [f"W{n:02d}GOOD" for n in range(9)]
CARELESS = ["X1CARE", "X2CARE", "X3CARE"]
TURK_HEAD = ["HITId", "HITTypeId", "Title", "AssignmentId", "WorkerId", "AssignmentStatus",
             "AcceptTime", "SubmitTime", "WorkTimeInSeconds"]


@pytest.fixture
def project_path(tmp_path):
    rng = np.random.default_rng(5)
    n = 150
    ids = [f"MSRvid:{i + 1}" for i in range(n)]
    truth = np.round(rng.uniform(0, 5, n) * 4) / 4
    path = tmp_path / "sts.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(item_frame({
            "item_id": ids, "left": [f"A man, number {i}, plays." for i in range(n)],
            "right": [f"Someone \"plays\" {i}" for i in range(n)],
            "dataset": ["MSRvid"] * n, "genre": [""] * n,
            # the organizers know the first 30 scores: these become the check items
            "reference": [float(t) if i < 30 else np.nan for i, t in enumerate(truth)],
            "meta": [{} for _ in range(n)], "line": list(range(1, n + 1))}), source="x.tsv")
    return path, dict(zip(ids, truth, strict=True))


def turk_results(batch_csv, truth, out, seed=0):
    """Results as Turk writes them: 5 assignments per task by distinct workers."""
    rng = np.random.default_rng(seed)
    tasks = pd.read_csv(batch_csv, dtype=str, keep_default_na=False)
    slots = [c[2:] for c in tasks.columns if c.startswith("id")]
    header = TURK_HEAD + [f"Input.{c}" for c in tasks.columns] + [f"Answer.score{s}"
                                                                 for s in slots]
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        for number, task in tasks.iterrows():
            for worker in rng.choice(GOOD + CARELESS, 5, replace=False):
                answers = []
                for s in slots:
                    item = task[f"id{s}"]
                    if not item:
                        answers.append("")
                    elif worker in CARELESS:
                        answers.append(str(rng.integers(0, 21) / 4))
                    else:
                        noisy = truth[item] + rng.normal(0, 0.4)
                        answers.append(str(np.clip(np.round(noisy * 4) / 4, 0, 5)))
                inputs = [html.escape(v).replace(",", "&#44;") for v in task.tolist()]
                writer.writerow([f"H{number}", "T1", "Rate pairs", f"A{number}{worker}",
                                 worker, "Approved", "", "", str(60 + number)]
                                + inputs + answers)
        # a rejected assignment with nonsense answers is dropped
        writer.writerow(["H0", "T1", "Rate pairs", "AREJ", "SPAMMER", "Rejected", "", "",
                         "3"] + [""] * len(tasks.columns) + ["x"] * len(slots))


def test_sts2012_style_run(project_path, tmp_path, capsys):
    path, truth = project_path
    assert simrate(capsys, "checks", path, "--from-reference").status == 0
    batch = tmp_path / "batch.csv"
    done = simrate(capsys, "crowd", "export", path, batch, "--per-task", "5", "--checks", "1",
                   "--seed", "7")
    assert done.status == 0, done.err
    again = tmp_path / "again.csv"
    simrate(capsys, "crowd", "export", path, again, "--per-task", "5", "--checks", "1",
            "--seed", "7")
    assert batch.read_bytes() == again.read_bytes()  # deterministic for a seed
    tasks = pd.read_csv(batch, dtype=str, keep_default_na=False)
    assert len(tasks) == 24  # 120 items that are not checks, 5 per task
    assert list(tasks.columns[:3]) == ["batch", "task", "id1"] and "right6" in tasks.columns
    checks_per_task = tasks[[f"id{s}" for s in range(1, 7)]].apply(
        lambda row: sum(int(i.split(":")[1]) <= 30 for i in row), axis=1)
    assert (checks_per_task == 1).all()

    results = tmp_path / "Batch_123_batch_results.csv"
    turk_results(batch, truth, results)
    imported = simrate(capsys, "import", path, results)
    assert imported.status == 0, imported.err
    assert "detected format 'turk'" in imported.err and "1 rejected" in imported.err
    added = int(imported.out.split(": ")[1].split()[0])
    # 24 tasks x 5 workers x 6 slots; a worker meeting a check item again keeps the first answer
    again = re.search(r"(\d+) answers of a worker to an item they had already", imported.err)
    assert added + (int(again.group(1)) if again else 0) == 720
    with Project.open(path) as project:
        ratings = project.ratings()
        assert "SPAMMER" not in set(ratings["annotator"])
        first = ratings[ratings["annotator"] == ratings["annotator"].iat[0]]
        assert first["seconds"].notna().all()  # the work time, shared among the task's items

    excluded = simrate(capsys, "annotators", path, "--exclude-careless", "--json")
    assert excluded.status == 0, excluded.err
    report = {e["annotator"]: e for e in excluded.json()}
    assert {a for a, e in report.items() if e["excluded"]} == set(CARELESS)
    assert "3 annotators excluded by the check-item rule" in excluded.err

    gold = tmp_path / "gold.tsv"
    exported = simrate(capsys, "export", path, gold, "--allow-unresolved")
    assert exported.status == 0, exported.err
    table = pd.read_csv(gold, sep="\t", keep_default_na=False)
    assert not [c for c in table.columns if "CARE" in c]
    item = table[table["n_ratings"] > 0].iloc[0]
    given = [float(item[c]) for c in table.columns if c.startswith("rating:") and item[c] != ""]
    assert float(item["mean"]) == pytest.approx(np.mean(given), abs=5e-5)  # 4 decimals
    rated = table[table["n_ratings"] > 0]  # some check items went to no task
    assert len(rated) >= 120
    error = np.abs(rated["gold"].astype(float) - rated["item_id"].map(truth)).mean()
    assert error < 0.3  # the good workers' mean is close to the truth

    restored = simrate(capsys, "annotators", path, "--restore-careless", "--json")
    assert not any(e["excluded"] for e in restored.json())
    with Project.open(path) as project:
        kinds = project.changes()["kind"].tolist()
    assert kinds.count("exclude_rule") == 2 and kinds.count("crowd_batch") == 2


def test_results_of_another_batch_are_refused(project_path, tmp_path, capsys):
    path, truth = project_path
    simrate(capsys, "checks", path, "--from-reference")
    batch = tmp_path / "batch.csv"
    simrate(capsys, "crowd", "export", path, batch, "--per-task", "5", "--checks", "1")
    results = tmp_path / "results.csv"
    turk_results(batch, truth, results)
    text = results.read_text(encoding="utf-8").splitlines()
    fields = next(csv.reader([text[3]]))
    column = next(csv.reader([text[0]])).index("Input.id1")
    fields[column] = "MSRvid:150" if fields[column] != "MSRvid:150" else "MSRvid:149"
    buffer = pd.io.common.StringIO()
    csv.writer(buffer).writerow(fields)
    text[3] = buffer.getvalue().rstrip("\r\n")
    results.write_text("\n".join(text) + "\n", encoding="utf-8")
    refused = simrate(capsys, "import", path, results)
    assert refused.status == 2 and ":4: task " in refused.err and "slot 1" in refused.err
    with Project.open(path) as project:
        assert project.ratings().empty  # nothing imported
