"""simrate new / import / info: the contract of DESIGN.md, exit codes and one-line errors."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate


@pytest.fixture
def pairs_tsv(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("id\tleft\tright\n"
                    "a1\tA cat sits on the mat.\tA cat is sitting on a mat.\n"
                    "a2\tThe bank raised rates.\tRates went up at the bank.\n"
                    "a3\tHe plays the violin.\tThe market fell sharply.\n", encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path, capsys, pairs_tsv):
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss", "--title", "Demo").status == 0
    assert simrate(capsys, "import", path, pairs_tsv).status == 0
    return path


def test_new_import_info_json(project, capsys, tmp_path):
    ratings = tmp_path / "ratings.csv"
    ratings.write_text("item_id,annotator,score\na1,ann,3.25\na2,ann,2\na1,bob,1.75\n",
                       encoding="utf-8")
    result = simrate(capsys, "import", project, ratings)
    assert result.status == 0, result.err
    assert "detected format 'ratings'" in result.err
    info = simrate(capsys, "info", project, "--json").json()
    assert info["items"] == 3
    assert info["annotators"] == ["ann", "bob"]
    assert info["ratings"] == 3
    assert info["flagged"] == 1  # a1: 3.25 vs 1.75
    assert info["adjudicated"] == 0
    assert info["scale"] == {"low": 0.0, "high": 4.0, "step": 0.25}


def test_info_human_readable(project, capsys):
    result = simrate(capsys, "info", project)
    assert result.status == 0
    assert "items       3" in result.out and "clss (0-4, step 0.25)" in result.out
    assert ("flagged     0 (rule auto (spread >= 1 point up to 3 ratings, SD >= 0.8 points "
            "above), not adjudicated)") in result.out
    with Project.open(project) as p:
        p.set_threshold(1.5)
        p.set_flag_rule("range")
    assert "flagged     0 (rule range (spread >= 1.5 points), not adjudicated)" in simrate(
        capsys, "info", project).out


def test_reimport_adds_nothing(project, capsys, pairs_tsv):
    result = simrate(capsys, "import", project, pairs_tsv)
    assert result.status == 0
    assert "0 items added, 3 already present" in result.out
    assert simrate(capsys, "info", project, "--json").json()["items"] == 3


def test_off_grid_rating_names_file_and_line(project, capsys, tmp_path):
    ratings = tmp_path / "bad.tsv"
    ratings.write_text("item_id\tannotator\tscore\na1\tann\t2\na2\tann\t3.3\n",
                       encoding="utf-8")
    result = simrate(capsys, "import", project, ratings, "--format", "ratings")
    assert result.status == 2
    assert result.err.strip().splitlines()[-1] == (
        f"simrate: error: {ratings}:3: score 3.3 is not on the grid of scale clss (0-4, step 0.25)")
    assert "Traceback" not in result.err
    assert simrate(capsys, "info", project, "--json").json()["ratings"] == 0


def test_ratings_for_unknown_items_change_nothing(project, capsys, tmp_path):
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\na1,ann,2\nzz9,ann,3\n", encoding="utf-8")
    result = simrate(capsys, "import", project, ratings)
    assert result.status == 2 and f"{ratings}:3:" in result.err and "zz9" in result.err
    assert simrate(capsys, "info", project, "--json").json()["ratings"] == 0


def test_png_posing_as_project(tmp_path, capsys):
    fake = tmp_path / "x.simrate"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    result = simrate(capsys, "info", fake)
    assert result.status == 2
    assert result.err.strip() == f"simrate: error: {fake}: not a simrate project (not an SQLite database)"


def test_usage_errors_are_one_line_exit_2(capsys, tmp_path):
    result = simrate(capsys, "new", tmp_path / "p.simrate", "--scale", "nope")
    assert result.status == 2 and "no such scale" in result.err
    result = simrate(capsys, "info")
    assert result.status == 2 and result.err.strip().splitlines()[-1].startswith("simrate: error:")


def test_a_scale_that_is_no_json_file_is_one_plain_line(tmp_path, capsys):
    folder, latin = tmp_path / "scales", tmp_path / "latin.json"
    folder.mkdir()
    latin.write_bytes(b'{\n"name": "caf\xe9"}')
    for scale, message in ((folder, " is a folder, not a scale file"),
                           (latin, "2: not UTF-8 text (invalid continuation byte)")):
        result = simrate(capsys, "new", tmp_path / "p.simrate", "--scale", scale)
        assert result.status == 2
        assert result.err == f"simrate: error: {scale}:{message}\n"
    assert not (tmp_path / "p.simrate").exists()


def test_new_refuses_to_overwrite(project, capsys):
    result = simrate(capsys, "new", project, "--scale", "sts")
    assert result.status == 2 and "already exists" in result.err


def test_custom_scale_file(tmp_path, capsys):
    scale = tmp_path / "seven.json"
    scale.write_text('{"name": "seven", "low": 1, "high": 7, "step": 0.5, "points": '
                     '[{"value": 1, "label": "none"}, {"value": 7, "label": "all"}]}')
    path = tmp_path / "s.simrate"
    assert simrate(capsys, "new", path, "--scale", scale).status == 0
    info = simrate(capsys, "info", path, "--json").json()
    assert info["scale"] == {"low": 1.0, "high": 7.0, "step": 0.5}


def test_info_loads_neither_numpy_nor_pandas(project):
    """`info` counts with SQL: in a fresh interpreter, the whole command imports neither
    (what keeps it near the interpreter's start-up time on a million items)."""
    import subprocess
    import sys

    code = ("import sys; from simrate.cli import main; main(['info', sys.argv[1]]); "
            "print(sorted(m for m in ('numpy', 'pandas') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_write_command_does_not_load_scipy(project):
    """`adjudicate` opens the project and writes one verdict: in a fresh interpreter it
    imports no scipy (its statistics module alone cost 2 s of every organizer command's
    start on a busy machine, through the rater model's interval)."""
    import subprocess
    import sys

    code = ("import sys; from simrate.cli import main; "
            "main(['adjudicate', sys.argv[1], 'news-01', '2', '--by', 'org']); "
            "print(sorted(m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')))")
    done = subprocess.run([sys.executable, "-c", code, str(project)], capture_output=True,
                          text=True)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
