"""`simrate check P --salvage NEW`: what can still be read of a damaged project goes into a
new, sound file; the damaged file is only read. Real files, damaged on disk."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from simrate.core.check.integrity import find_problems
from simrate.core.project import Project
from simrate.core.team.quality import check_scores
from tests.support.helpers import make_items, one_line_error, run_cli

RATERS = ("ann", "bob", "cy")


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """2,000 items rated by three people, a check item marked, checkpointed into one file."""
    import pandas as pd

    path = tmp_path_factory.mktemp("good") / "p.simrate"
    with Project.create(path, scale="sts") as project:
        project.import_items(make_items(2000))
        ids = project.item_ids()
        rows = [(item, rater, float((n + k) % 6)) for n, item in enumerate(ids)
                for k, rater in enumerate(RATERS)]
        frame = pd.DataFrame(rows, columns=["item_id", "annotator", "score"])
        frame["line"] = range(2, len(frame) + 2)
        frame["note"] = ""
        project.import_ratings(frame, "r.csv")
    marked = run_cli("checks", path, ids[0], "--score", "3")
    assert marked.returncode == 0, marked.stderr
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    return path


def copy(good: Path, folder: Path) -> Path:
    target = folder / "d.simrate"
    target.write_bytes(good.read_bytes())
    return target


def pages_of(path: Path, table: str, kind: str) -> tuple[list[int], int]:
    conn = sqlite3.connect(path)
    try:
        pages = [r[0] for r in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = ? ORDER BY pageno",
            (table, kind))]
        return pages, conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def overwrite(path: Path, page: int, size: int) -> None:
    data = bytearray(path.read_bytes())
    data[(page - 1) * size:page * size] = b"\xa5" * size
    path.write_bytes(bytes(data))


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def salvage(path: Path, out: Path):
    return run_cli("check", path, "--salvage", out, "--json")


def test_a_lost_leaf_of_the_ratings_costs_only_the_ratings_on_it(good, tmp_path):
    path = copy(good, tmp_path)
    leaves, size = pages_of(path, "ratings", "leaf")
    assert len(leaves) > 5
    overwrite(path, leaves[len(leaves) // 2], size)
    assert find_problems(path)  # damaged indeed
    before = digest(path)
    out = tmp_path / "saved.simrate"
    result = salvage(path, out)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["problems"] == [] and find_problems(out) == []
    assert report["copied"]["items"] == 2000
    assert report["unreadable"]["ratings"] >= 1
    assert digest(path) == before  # the damaged file is only read
    with Project.open(out) as project:
        ratings = project.ratings()
        assert 6000 - len(leaves) * 200 < len(ratings) < 6000  # one page's worth is gone
        assert report["copied"]["ratings"] == len(ratings)
        assert sorted(project.annotators()) == sorted(RATERS)
        # what was copied is what the good file holds
        with Project.open(good) as original:
            kept = original.ratings().merge(ratings, on=["item_id", "annotator"])
        assert len(kept) == len(ratings) and (kept["score_x"] == kept["score_y"]).all()
        assert project.n_items == 2000
        # team tables travel: the check item is still marked, with its score
        assert check_scores(project) == {"x:1": 3.0}


def test_the_ratings_root_page_gone_keeps_items_and_people(good, tmp_path):
    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    root, size = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'ratings'"
                              ).fetchone()[0], conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    overwrite(path, root, size)
    out = tmp_path / "saved.simrate"
    result = salvage(path, out)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["copied"]["items"] == 2000 and report["copied"]["annotators"] == 3
    assert report["copied"].get("ratings", 0) == 0
    assert "ratings" in report["given_up"] or report["unreadable"].get("ratings")
    with Project.open(out) as project:
        assert project.n_items == 2000 and len(project.ratings()) == 0


def test_texts_that_are_not_utf8_are_kept_and_counted(good, tmp_path):
    path = copy(good, tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE items SET left = CAST(x'41ff42' AS TEXT) WHERE ord IN (3, 4)")
    conn.commit()
    conn.close()
    out = tmp_path / "saved.simrate"
    result = run_cli("check", path, "--salvage", out)
    assert result.returncode == 0, result.stderr
    assert "2 text(s) with bytes that are not UTF-8" in result.stdout
    assert "no damage found" in result.stdout
    with Project.open(out) as project:
        assert project.items()["left"].iloc[3] == "A\ufffdB"


def test_the_damaged_message_names_the_salvage(good, tmp_path):
    path = copy(good, tmp_path)
    leaves, size = pages_of(path, "ratings", "leaf")
    overwrite(path, leaves[1], size)
    result = run_cli("agreement", path)
    one_line_error(result.stderr, f"{path}:", "damaged project", f"simrate check {path}",
                   "--salvage")
    result = run_cli("check", path)
    assert result.returncode == 2 and "--salvage recovered.simrate" in result.stdout


def test_refusals_say_what_is_wrong(good, tmp_path):
    path = copy(good, tmp_path)
    taken = tmp_path / "taken.simrate"
    taken.write_bytes(b"mine")
    result = salvage(path, taken)
    one_line_error(result.stderr, f"{taken}:", "already exists")
    assert taken.read_bytes() == b"mine"
    headless = tmp_path / "h.simrate"
    headless.write_bytes(b"\0" * 4096 + path.read_bytes()[4096:])
    result = salvage(headless, tmp_path / "n.simrate")
    assert result.returncode == 2
    one_line_error(result.stderr, f"{headless}:")
    assert not (tmp_path / "n.simrate").exists()
    result = salvage(tmp_path / "missing.simrate", tmp_path / "m.simrate")
    one_line_error(result.stderr, "no such project file")
