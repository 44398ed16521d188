"""Options a command would silently ignore are refused with one line, and nothing changes."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, one_line_error

SAMPLES = ROOT / "sample_data"
PAIRS = SAMPLES / "pairs.tsv"
LONG = SAMPLES / "ratings_long.csv"
WIDE = SAMPLES / "ratings_wide.tsv"
PYR = SAMPLES / "D9901.pyr"


@pytest.fixture
def project(capsys, tmp_path):
    """The sample pairs with the sample ratings (ana, ben, cleo)."""
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0
    assert simrate(capsys, "import", path, PAIRS).status == 0
    assert simrate(capsys, "import", path, LONG).status == 0
    return path


def _state(path):
    with Project.open(path) as project:
        return (project.n_items, len(project.ratings()), project.annotators(),
                project.excluded_annotators(), len(project.changes()))


@pytest.mark.parametrize(("files", "options", "needle"), [
    ([PAIRS], ["--annotator", "bob"], "--annotator applies to ratings files only"),
    ([PAIRS], ["--annotator-column", "who"], "--annotator-column applies to ratings files"),
    ([LONG], ["--negatives", "3"], "--negatives applies to pyramid files only"),
    ([LONG], ["--test", "ranking"], "--test applies to pyramid files only"),
    ([PAIRS], ["--seed", "7"], "--seed applies to pyramid files only"),
    ([LONG], ["--dataset", "d"], "--dataset applies to pairs or sts or pit or clss files"),
    ([PYR], ["--dataset", "d"], "--dataset applies to pairs or sts or pit or clss files"),
    ([PAIRS], ["--resolve", "keep"], "--resolve applies to project files only"),
    ([PAIRS], ["--by", "lead"], "--by names who made a change"),
    # the second file would ignore the option: nothing is imported, not even the first
    ([PAIRS, PYR], ["--seed", "3"], "--seed applies to pyramid files only"),
])
def test_import_refuses_an_option_the_file_would_ignore(capsys, project, files, options,
                                                        needle):
    before = _state(project)
    result = simrate(capsys, "import", project, *files, *options)
    assert result.status == 2
    one_line_error(result.err, needle)
    assert _state(project) == before


@pytest.mark.parametrize(("source", "needle"), [
    (LONG, "names its annotators (column 'annotator'), so --annotator 'zed' would be ignored"),
    (WIDE, "a wide ratings file names its annotators in its header"),
])
def test_import_refuses_annotator_on_a_file_naming_its_raters(capsys, project, source, needle):
    before = _state(project)
    result = simrate(capsys, "import", project, source, "--annotator", "zed")
    assert result.status == 2
    one_line_error(result.err, f"{source}", needle)
    assert _state(project) == before


def test_annotator_fills_a_file_without_an_annotator_column(capsys, project, tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("item_id,score\nnews-01,2\n", encoding="utf-8")
    result = simrate(capsys, "import", project, path, "--annotator", "zed")
    assert result.status == 0, result.err
    with Project.open(project) as opened:
        assert "zed" in opened.annotators()


def test_annotator_and_annotator_column_together_are_refused(capsys, project, tmp_path):
    path = tmp_path / "prolific.csv"
    path.write_text("item_id,PROLIFIC_PID,score\nnews-01,p1,2\n", encoding="utf-8")
    result = simrate(capsys, "import", project, path, "--annotator", "zed",
                     "--annotator-column", "PROLIFIC_PID")
    assert result.status == 2
    one_line_error(result.err, "give either --annotator NAME or --annotator-column COLUMN")


@pytest.mark.parametrize("options", [["--annotator", "x"], ["--negatives", "2"],
                                     ["--resolve", "keep"], ["--seed", "1"]])
def test_machine_import_refuses_options_it_would_ignore(capsys, project, tmp_path, options):
    scores = tmp_path / "system.csv"
    scores.write_text("item_id,score\nnews-01,2\n", encoding="utf-8")
    before = _state(project)
    result = simrate(capsys, "import", project, scores, "--machine", "bert", *options)
    assert result.status == 2
    one_line_error(result.err, "does not apply to --machine")
    assert _state(project) == before


@pytest.mark.parametrize("options", [["--format", "sts"], ["--annotator", "x"],
                                     ["--dataset", "d"]])
def test_undo_refuses_import_options(capsys, project, options):
    before = _state(project)
    result = simrate(capsys, "import", project, "--undo", *options)
    assert result.status == 2
    one_line_error(result.err, "--undo takes no other import option")
    assert _state(project) == before


def test_undo_writes_by_into_the_change_log(capsys, project):
    assert simrate(capsys, "import", project, "--undo", "--by", "lead").status == 0
    with Project.open(project) as opened:
        assert opened.changes().iloc[-1]["who"] == "lead"


def test_package_seed_without_sample_is_refused(capsys, project, tmp_path):
    out = tmp_path / "ana.simrate"
    result = simrate(capsys, "package", project, out, "--annotator", "ana", "--seed", "4")
    assert result.status == 2
    one_line_error(result.err, "--seed chooses the draw of --sample N")
    assert not out.exists()
    # with --sample the seed is used
    result = simrate(capsys, "package", project, out, "--annotator", "ana", "--seed", "4",
                     "--sample", "5")
    assert result.status == 0, result.err


@pytest.mark.parametrize("checks", ["5", "1"])
def test_package_checks_on_a_project_without_check_items(capsys, project, tmp_path, checks):
    out = tmp_path / "ana.simrate"
    result = simrate(capsys, "package", project, out, "--annotator", "ana", "--checks", checks)
    assert result.status == 2
    one_line_error(result.err, f"--checks {checks}: the project has no check items",
                   "simrate checks")
    assert not out.exists()


def test_package_checks_beyond_the_check_items(capsys, project, tmp_path):
    assert simrate(capsys, "checks", project, "news-01", "news-02", "--score", "2").status == 0
    out = tmp_path / "ana.simrate"
    result = simrate(capsys, "package", project, out, "--annotator", "ana", "--checks", "5")
    assert result.status == 2
    one_line_error(result.err, "--checks 5: the project has only 2 check items")
    result = simrate(capsys, "package", project, out, "--annotator", "ana", "--checks", "2")
    assert result.status == 0, result.err
    assert "(2 of them check items)" in result.out


def test_exclude_and_include_of_one_name_together(capsys, project):
    before = _state(project)
    result = simrate(capsys, "annotators", project, "--exclude", "ana", "--include", "ana")
    assert result.status == 2
    one_line_error(result.err, "'ana' is given to both --exclude and --include")
    assert _state(project) == before


@pytest.mark.parametrize(("command", "options", "needle"), [
    ("annotators", ["--by", "lead"], "--by names who made a change"),
    ("checks", ["news-01", "--score", "2", "--from-reference"],
     "give one of --remove, --score X, --from-reference"),
    ("checks", ["news-01", "--remove", "--score", "2"], "give one of --remove, --score X"),
    ("checks", ["news-01", "--remove", "--dataset", "news"], "give either ITEM_IDs or --dataset"),
    ("checks", ["news-01", "--score", "2", "--dataset", "news"],
     "give either ITEM_IDs or --dataset"),
    ("checks", ["--dataset", "news"], "--dataset chooses the items of --from-reference"),
    ("checks", ["--by", "lead"], "--by names who made a change"),
    ("adjudicate", ["news-01", "3", "--withdraw"], "--withdraw takes no SCORE or --note"),
    ("adjudicate", ["news-01", "--withdraw", "--note", "why"], "--withdraw takes no SCORE"),
])
def test_other_commands_refuse_ignored_options(capsys, project, command, options, needle):
    before = _state(project)
    result = simrate(capsys, command, project, *options)
    assert result.status == 2
    one_line_error(result.err, needle)
    assert _state(project) == before


def test_agreement_with_machines_on_a_ratings_file(capsys):
    result = simrate(capsys, "agreement", "--ratings", LONG, "--with-machines")
    assert result.status == 2
    one_line_error(result.err, "--with-machines needs a project")


def test_machine_ratings_file_with_dataset_is_refused(capsys, project, tmp_path):
    scores = tmp_path / "system.csv"
    scores.write_text("item_id,score\nnews-01,2\n", encoding="utf-8")
    before = _state(project)
    result = simrate(capsys, "import", project, scores, "--machine", "bert", "--dataset", "x")
    assert result.status == 2
    one_line_error(result.err, f"{scores}:", "this ratings file names its items")
    assert _state(project) == before


def test_exclude_or_include_that_changes_nothing_says_so(capsys, project):
    before = _state(project)
    result = simrate(capsys, "annotators", project, "--include", "ana")
    assert result.status == 0
    assert "ana is not excluded (counted already): nothing changed" in result.err
    assert _state(project) == before  # not even a change-log entry
    assert simrate(capsys, "annotators", project, "--exclude", "ana").status == 0
    logged = _state(project)
    result = simrate(capsys, "annotators", project, "--exclude", "ana")
    assert "ana is excluded already: nothing changed" in result.err
    assert _state(project) == logged
