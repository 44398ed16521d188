"""A project for the dataset-folder tests, built through the command line like a user would:
people with recognisable names, crowd workers with platform ids from a Turk results file, a
machine rater, an adjudication by a login with a note, rater notes, a check item and an
exclusion. Every planted string is in PLANTED, for the privacy test to look for."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from tests.cli.helpers import simrate

# `datasets` and `huggingface_hub` never reach the network in these tests, and keep what
# they cache out of the user's home
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="simrate-test-hf-"))

N = 40
PEOPLE = ("Margarethe Quillfeather", "Bartholomew Znidarsic", "Oksana Vrublevska")
WORKERS = ("A3QX9PLATFORMW1", "A17ZZTURKWORKER2")
MACHINE = "zorbamodel-v7"
ADJUDICATOR = "hortensia.login"
ADJUDICATION_NOTE = "verdict note mentioning Quentin Farthingale"
RATER_NOTE = "rater comment xyzzy-plugh"
PLANTED = (*PEOPLE, *WORKERS, MACHINE, ADJUDICATOR, ADJUDICATION_NOTE, RATER_NOTE)


def _write_items(path: Path) -> None:
    lines = ["id\tleft\tright\tdataset\tgenre\ttopic"]
    lines += [f"d:{i}\tLeft sentence number {i}, \"quoted\".\tRight sentence {i} \u00e9t\u00e9"
              f"\t{'news' if i % 2 else 'forum'}\tg{i % 3}\ttopic-{i % 5}"
              for i in range(1, N + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_ratings(path: Path, truth: np.ndarray, rng: np.random.Generator) -> None:
    lines = ["item_id,annotator,score,note"]
    for i in range(1, N + 1):
        for who in PEOPLE:
            score = float(np.clip(np.round((truth[i - 1] + rng.normal(0, 0.15)) * 4) / 4, 0, 5))
            if i == 1 and who != PEOPLE[2]:  # d:1 spreads over the whole scale: flagged
                score = 0.0 if who == PEOPLE[0] else 5.0
            note = RATER_NOTE if (i, who) == (3, PEOPLE[0]) else ""
            lines.append(f"d:{i},{who},{score},{note}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_turk(path: Path, truth: np.ndarray) -> None:
    head = "HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
    lines = [head + "Input.id1,Input.left1,Input.right1,Answer.score1"]
    for n, worker in enumerate(WORKERS):
        for i in range(1, 11):
            score = float(np.clip(np.round(truth[i - 1] * 4) / 4, 0, 5))
            lines.append(f"H{i},A{n}{i},{worker},Approved,{12 + i},d:{i},"
                         f"Left sentence number {i}&#44; &quot;quoted&quot;.,"
                         f"Right sentence {i} \u00e9t\u00e9,{score}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def build_project(capsys, folder: Path, adjudicate: bool = True) -> Path:
    """The project file, built with `simrate new/import/adjudicate/checks/annotators`."""
    rng = np.random.default_rng(7)
    truth = rng.uniform(0, 5, N)
    project = folder / "study.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts", "--title", "Planted study").status == 0
    _write_items(folder / "items.tsv")
    _write_ratings(folder / "ratings.csv", truth, rng)
    _write_turk(folder / "turk.csv", truth)
    machine = folder / "system.txt"
    machine.write_text("".join(f"{min(5.0, max(0.0, t + 0.1)):.2f}\n" for t in truth))
    steps = [("import", project, folder / "items.tsv"),
             ("import", project, folder / "ratings.csv"),
             ("import", project, folder / "turk.csv"),
             ("import", project, machine, "--machine", MACHINE),
             ("checks", project, "d:5", "--score", "3")]
    if adjudicate:
        steps.append(("adjudicate", project, "d:1", "4.5", "--note", ADJUDICATION_NOTE,
                      "--by", ADJUDICATOR))
    steps.append(("annotators", project, "--exclude", WORKERS[1]))
    for args in steps:
        done = simrate(capsys, *args)
        assert done.status == 0, (args, done.err)
    return project
