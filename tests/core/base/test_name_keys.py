"""Names and paths: long names, Unicode forms, hidden characters, trailing slashes, outputs
over inputs."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import NAME_MAX
from tests.support.helpers import new_project, one_line_error, run_cli
from tests.support.samples import SAMPLE, info, rated_sample
from tests.support.samples import copy_project as copy

NFC_ZOE, NFD_ZOE = "Zo\u00eb", "Zoe\u0308"


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    return rated_sample(tmp_path_factory.mktemp("rated"))


# ---------------------------------------------------------------- long names
@pytest.mark.parametrize("length", [220, 240, 255])
@pytest.mark.parametrize("ending", ["tsv", "xlsx", "jsonl"])
def test_long_export_names_can_be_written(rated, tmp_path, length, ending):
    name = "g" * (length - len(ending) - 1) + "." + ending
    assert len(name) == length
    result = run_cli("export", rated, tmp_path / name, "--allow-unresolved")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_long_names_for_pyramid_crowd_and_package(rated, tmp_path):
    out = tmp_path / ("q" * 251 + ".tsv")
    result = run_cli("pyramid", SAMPLE / "D9901.pyr", "--out", out)
    assert result.returncode == 0, result.stderr
    assert out.is_file()
    project = copy(rated, tmp_path)
    crowd = tmp_path / ("c" * 251 + ".csv")
    result = run_cli("crowd", "export", project, crowd, "--per-task", "2")
    assert result.returncode == 0, result.stderr
    assert crowd.is_file()
    package = tmp_path / ("k" * 238 + ".simrate")  # 246 bytes: room for SQLite's -journal
    result = run_cli("package", project, package, "--annotator", "ana")
    assert result.returncode == 0, result.stderr
    assert package.is_file()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("command", ["export", "pyramid", "crowd", "package", "new"])
def test_impossible_names_are_refused_in_one_line(rated, tmp_path, command):
    long = tmp_path / ("z" * 300 + ".out")
    project = copy(rated, tmp_path)
    args = {"export": ["export", project, long, "--allow-unresolved"],
            "pyramid": ["pyramid", SAMPLE / "D9901.pyr", "--out", long],
            "crowd": ["crowd", "export", project, long, "--per-task", "2"],
            "package": ["package", project, long, "--annotator", "ana"],
            "new": ["new", long, "--scale", "sts"]}[command]
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "the file name is 304 bytes long", "at most")


def test_a_project_name_leaves_room_for_the_journal(tmp_path):
    result = run_cli("new", tmp_path / ("n" * 245 + ".simrate"), "--scale", "sts")
    assert result.returncode == 2
    one_line_error(result.stderr, "253 bytes long", f"at most {NAME_MAX - 8} bytes")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- trailing slash, own files
@pytest.mark.parametrize("command", ["export", "package", "pyramid", "crowd", "new"])
def test_a_trailing_slash_is_refused(rated, tmp_path, command):
    project = copy(rated, tmp_path)
    out = f"{tmp_path}/out.tsv/"
    args = {"export": ["export", project, out, "--allow-unresolved"],
            "package": ["package", project, out, "--annotator", "ana"],
            "pyramid": ["pyramid", SAMPLE / "D9901.pyr", "--out", out],
            "crowd": ["crowd", "export", project, out, "--per-task", "2"],
            "new": ["new", out, "--scale", "sts"]}[command]
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "slash")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.simrate"]


def test_no_output_over_the_open_project(rated, tmp_path):
    project = copy(rated, tmp_path)
    before = project.read_bytes()
    for args in (["export", project, project, "--allow-unresolved", "--format", "tsv"],
                 ["export", project, f"{project}-wal", "--allow-unresolved", "--format", "tsv"],
                 ["crowd", "export", project, project, "--per-task", "2"],
                 ["package", project, project, "--annotator", "ana"]):
        result = run_cli(*args)
        assert result.returncode == 2, (args, result.stderr)
        one_line_error(result.stderr)
    assert project.read_bytes() == before
    assert info(project)["items"] == 20
    assert "crowd" not in run_cli("info", project).stdout


def test_pyramid_does_not_write_over_its_input(tmp_path):
    source = tmp_path / "D9901.pyr"
    source.write_bytes((SAMPLE / "D9901.pyr").read_bytes())
    result = run_cli("pyramid", source, "--out", source)
    assert result.returncode == 2
    one_line_error(result.stderr, "is one of the input files")
    assert source.read_bytes() == (SAMPLE / "D9901.pyr").read_bytes()


# ---------------------------------------------------------------- Unicode forms
def test_annotator_names_in_either_form_are_one_annotator(rated, tmp_path):
    project = copy(rated, tmp_path)
    source = tmp_path / "r.csv"
    source.write_text(f"item_id,annotator,score\nreviews-04,{NFC_ZOE},2\n"
                      f"news-04,{NFD_ZOE},3\n", encoding="utf-8")
    assert run_cli("import", project, source).returncode == 0
    names = info(project)["annotators"]
    assert names.count(NFC_ZOE) == 1 and NFD_ZOE not in names
    result = run_cli("import", project, source)  # the same ratings again: unchanged
    assert "0 ratings added, 0 changed, 2 unchanged" in result.stdout


def test_item_ids_in_either_form_are_one_item(rated, tmp_path):
    project = copy(rated, tmp_path)
    items = tmp_path / "items.csv"
    items.write_text("id,left,right\ncaf\u00e9,a,b\n", encoding="utf-8")
    assert run_cli("import", project, items).returncode == 0
    again = tmp_path / "again.csv"
    again.write_text("id,left,right\ncafe\u0301,a,b\n", encoding="utf-8")
    result = run_cli("import", project, again)
    assert result.returncode == 0 and "0 items added, 1 already present" in result.stdout
    result = run_cli("adjudicate", project, "cafe\u0301", "3")
    assert result.returncode == 0, result.stderr
    both = tmp_path / "both.csv"
    both.write_text("id,left,right\nna\u00efve,a,b\nnai\u0308ve,a,b\n", encoding="utf-8")
    result = run_cli("import", project, both)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{both}:3:", "given twice (first on line 2)")


@pytest.mark.parametrize("char", ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff"])
def test_invisible_characters_in_names_and_ids_are_refused(rated, tmp_path, char):
    project = copy(rated, tmp_path)
    ratings = tmp_path / "r.csv"
    ratings.write_text(f"item_id,annotator,score\nreviews-04,an{char}a,2\n", encoding="utf-8")
    result = run_cli("import", project, ratings)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{ratings}:2:", f"U+{ord(char):04X}")
    items = tmp_path / "i.csv"
    items.write_text(f"id,left,right\nx{char}1,a,b\n", encoding="utf-8")
    result = run_cli("import", project, items)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{items}:2:", f"U+{ord(char):04X}")
    assert info(project)["items"] == 20


def test_project_api_refuses_hidden_characters_in_names(tmp_path):
    project = new_project(tmp_path / "p.simrate")
    with pytest.raises(SimrateError, match="U\\+200B"):
        project.rate("x:1", "a\u200bb", 2.0)
    project.rate("x:1", NFD_ZOE, 2.0)
    assert project.annotators() == [NFC_ZOE]
    assert project.rating("x:1", NFC_ZOE) == 2.0


# ---------------------------------------------------------------- control characters
@pytest.mark.parametrize("char", ["\n", "\t", "\u2028", "\u0085", "\x1b"])
def test_control_characters_in_item_ids_are_refused(rated, tmp_path, char):
    project = copy(rated, tmp_path)
    items = tmp_path / "i.csv"
    items.write_text(f'id,left,right\nok,a,b\n"x{char}y",a,b\n', encoding="utf-8")
    result = run_cli("import", project, items)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{items}:3:", "item id")
    assert info(project)["items"] == 20


@pytest.mark.parametrize(("dataset", "needle"), [
    ("a\nb", "U+000A"), (" ", "empty or only white space"), ("", "empty"),
    ("a/b", "slash"), (" a", "white space"), ("a\u200bb", "U+200B")])
@pytest.mark.parametrize("command", ["import", "package", "checks", "assign"])
def test_bad_dataset_options_are_refused(rated, tmp_path, dataset, needle, command):
    project = copy(rated, tmp_path)
    args = {"import": ["import", project, SAMPLE / "pairs.csv"],
            "package": ["package", project, tmp_path / "k.simrate", "--annotator", "ana"],
            "checks": ["checks", project, "--remove"],
            "assign": ["assign", project, "ana", "ben", "--per-item", "1"]}[command]
    result = run_cli(*args, "--dataset", dataset)
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "--dataset", needle)


def test_dataset_option_in_decomposed_form(rated, tmp_path):
    project = copy(rated, tmp_path)
    items = tmp_path / "i.tsv"
    items.write_text("left\tright\nsome text\tother text\n", encoding="utf-8")
    result = run_cli("import", project, items, "--dataset", "re\u0301sume\u0301")
    assert result.returncode == 0, result.stderr
    assert "r\u00e9sum\u00e9" in info(project)["datasets"]
