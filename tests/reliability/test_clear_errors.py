"""Bad input gives exit 2 and one line naming the file: no traceback, no class names."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale
from simrate.core.project import Project
from tests.cli.helpers import simrate

from .helpers import ROOT, new_project, one_line_error, run_on_small_disk

PYR = ROOT / "sample_data" / "D9901.pyr"


@pytest.mark.parametrize("encoding", ["UTF-7", "foo-bar", "utf-32"])
def test_pyr_declaring_an_encoding_python_cannot_use(capsys, tmp_path, encoding):
    lines = PYR.read_text(encoding="utf-8").splitlines(keepends=True)
    path = tmp_path / "bad.pyr"
    path.write_text(f'<?xml version="1.0" encoding="{encoding}"?>\n' + "".join(lines[1:]),
                    encoding="utf-8")
    result = simrate(capsys, "pyramid", path, "--out", tmp_path / "out.tsv")
    assert result.status == 2
    one_line_error(result.err, f"{path}:1:", f"encoding {encoding!r}")
    assert not (tmp_path / "out.tsv").exists()


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("schema_version", "abc", "schema_version is 'abc', not a whole number"),
    ("schema_version", "1.5", "schema_version is '1.5', not a whole number"),
    ("scale", "{not json", "the stored scale is not a JSON object"),
    ("scale", "[1, 2]", "the stored scale is not a JSON object"),
    ("threshold", "abc", "threshold is 'abc', not a positive number"),
    ("threshold", "inf", "threshold is 'inf', not a positive number"),
    ("threshold", "-1", "threshold is '-1', not a positive number"),
])
def test_damaged_meta_values(capsys, tmp_path, key, value, needle):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    conn.commit()
    conn.close()
    for command in ("info", "flagged", "agreement"):
        result = simrate(capsys, command, path)
        assert result.status == 2
        one_line_error(result.err, f"{path}:", "damaged project", needle)


@pytest.mark.parametrize("given", ["inf", "-inf", "nan", "1e400", "-1", "0"])
def test_flagged_threshold_must_be_a_positive_finite_number(capsys, tmp_path, given):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    result = simrate(capsys, "flagged", path, f"--threshold={given}")
    assert result.status == 2
    line = one_line_error(result.err, "threshold")
    assert given.lstrip("-") in line


@pytest.mark.parametrize("points", [float("inf"), float("nan"), -1.0, 0.0])
def test_project_threshold_refuses_non_finite_and_non_positive(tmp_path, points):
    project = new_project(tmp_path / "p.simrate")
    with pytest.raises(SimrateError, match="threshold must be a positive number"):
        project.set_threshold(points)
    assert Project.open(project.path).threshold == 1.0


READ_ONLY = '''
import json, subprocess, sys
from pathlib import Path
folder = Path(sys.argv[1])
subprocess.run(["cp", sys.argv[2], str(folder)], check=True)
subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
path = folder / "p.simrate"
for args in (["info", str(path), "--json"], ["adjudicate", str(path), "x:1", "2"]):
    proc = subprocess.run([sys.executable, "-m", "simrate", *args], capture_output=True, text=True)
    print(json.dumps([proc.returncode, proc.stdout, proc.stderr]))
'''


def test_wal_project_in_a_read_only_folder_reads_and_refuses_writes(tmp_path):
    source = tmp_path / "p.simrate"
    project = new_project(source)
    project.rate("x:1", "ann", 1.0)
    project.close()  # the last connection folds the WAL in and removes -wal and -shm
    assert not (tmp_path / "p.simrate-wal").exists()
    folder = tmp_path / "ro"
    folder.mkdir()
    script = tmp_path / "ro.py"
    script.write_text(READ_ONLY)
    proc, _ = run_on_small_disk(folder, 1024, [sys.executable, str(script), str(folder),
                                               str(source)])
    assert proc.returncode == 0, proc.stderr
    info, write = (json.loads(line) for line in proc.stdout.strip().splitlines())
    assert info[0] == 0 and json.loads(info[1])["ratings"] == 1, info
    assert write[0] == 2, write
    one_line_error(write[2], "p.simrate: ", "read-only")


def test_values_off_the_grid_by_a_hair_or_underflowing_are_refused(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path)
    for value in (2.75 + 1e-15, 1e-320, 5e-324, 0.25 + 2 ** -40):
        with pytest.raises(SimrateError, match="is not on the grid"):
            project.rate("x:1", "ann", value)
    result = simrate(capsys, "adjudicate", path, "x:1", "1e-400")
    assert result.status == 2
    one_line_error(result.err, "1e-400", "not on the grid")
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\nx:1,ann,1\nx:2,ann,1e-400\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    one_line_error(result.err, f"{ratings}:3:", "1e-400", "not on the grid")
    ratings.write_text("item_id,annotator,score\nx:1,ann,2.7500000000000013\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    one_line_error(result.err, f"{ratings}:2:", "2.7500000000000013", "not on the grid")
    assert len(Project.open(path).ratings()) == 0


def test_grid_values_as_text_and_as_computed_are_both_on_the_grid(tmp_path):
    tenths = Scale("tenths", 0.0, 1.0, 0.1)
    assert tenths.to_code(0.3) == 3  # the float nearest the decimal 0.3
    assert tenths.to_code(3 * 0.1) == 3  # the float our own exports write for code 3
    assert tenths.to_code(0.7) == 7 and tenths.to_code(tenths.from_code(7)) == 7
    with pytest.raises(SimrateError):
        tenths.to_code(0.30000000000000010)


def test_huge_numbers_are_shortened_in_messages(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    project = new_project(path)
    with pytest.raises(SimrateError) as caught:
        project.rate("x:1", "ann", 1e308)
    assert len(str(caught.value)) < 200 and "1e+308" in str(caught.value)
    result = simrate(capsys, "adjudicate", path, "x:1", "9" * 309)
    assert result.status == 2
    assert len(one_line_error(result.err, "1e+309") if False else result.err) < 300
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\nx:1,ann," + "7" * 309 + ".5\n")
    result = simrate(capsys, "import", path, ratings)
    assert result.status == 2
    line = one_line_error(result.err, f"{ratings}:2:")
    assert len(line) < 300 + len(str(ratings)) and "7" * 60 not in line


@pytest.mark.parametrize("name", ["a\x00b", "late\nnight", "x\ny", "tab\there", "a\rb",
                                  "bell\x07", "line\u2028sep", "del\x7f"])
def test_annotator_names_with_control_characters_are_refused_everywhere(capsys, tmp_path,
                                                                        name):
    from simrate.core.team.assignment import assign_project
    from simrate.core.team.packages import make_package
    path = tmp_path / "p.simrate"
    project = new_project(path)
    with pytest.raises(SimrateError, match="control character"):
        project.rate("x:1", name, 1.0)
    with pytest.raises(SimrateError, match="control character"):
        make_package(project, tmp_path / "pkg.simrate", name)
    with pytest.raises(SimrateError, match="control character"):
        assign_project(project, ["ann", name], 1)
    wide = tmp_path / "wide.csv"
    quoted = '"' + name.replace('"', '""') + '"'
    wide.write_text(f"item_id,ann,{quoted}\nx:1,1,2\n", newline="")
    result = simrate(capsys, "import", path, wide, "--format", "ratings")
    assert result.status == 2
    one_line_error(result.err, f"{wide}:", "control character")
    if "\x00" not in name:  # a NUL cannot reach a program's arguments
        plain = tmp_path / "scores.csv"
        plain.write_text("item_id,score\nx:1,1\n")
        result = simrate(capsys, "import", path, plain, "--annotator", name)
        assert result.status == 2
        one_line_error(result.err, "control character")
    assert Project.open(path).annotators() == []


def test_a_nul_byte_makes_detection_name_the_line(capsys, tmp_path):
    """Detection takes a NUL for a binary file and says where; with `--format pairs` such
    a text is read as it is (texts may hold any character: test_roundtrip_property.py)."""
    path = tmp_path / "pairs.tsv"
    path.write_bytes(b"id\tleft\tright\na1\tok\tfine\na2\tbad\x00x\tfine\n")
    project = tmp_path / "p.simrate"
    new_project(project, n_items=0).close()
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "NUL byte")
    with Project.open(project) as opened:
        assert opened.n_items == 0


def test_a_text_that_is_only_white_space_is_refused_by_the_api_as_by_every_reader(tmp_path):
    """The API keeps the readers' rule, so every export of a project reads back: an id or a
    text that is empty or only white space is refused, naming the line, nothing stored."""
    from simrate.core.base.frames import item_frame

    def frame(left: str, right: str, item: str = "b") -> object:
        return item_frame({"item_id": ["a", item], "left": ["fine", left],
                           "right": ["fine", right], "dataset": ["", ""], "genre": ["", ""],
                           "reference": [None, None], "meta": [{}, {}], "line": [2, 3]})

    with Project.create(tmp_path / "p.simrate", scale="sts") as project:
        for bad, where in ((frame(" \t\u3000", "x"), "item 'b': the left text"),
                           (frame("x", ""), "item 'b': the right text"),
                           (frame("x", "y", item="  "), "the id")):
            with pytest.raises(SimrateError) as caught:
                project.import_items(bad, "items.tsv")
            assert str(caught.value).startswith(f"items.tsv:3: {where} is empty or only white")
            assert project.n_items == 0
        assert project.import_items(frame(" x ", "y"), "items.tsv") == (2, 0)
