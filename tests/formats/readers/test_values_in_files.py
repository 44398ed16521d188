"""Values inside files that used to crash a reader or slip through: one line with the line.

JSONL that json cannot turn into text and numbers, reference scores that are not finite or
lie outside the scale (one rule for every format), crowd work times below zero, the
annotator column options, and workbook formulas without a saved value.
"""

from __future__ import annotations

import sqlite3

import pytest

from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import new_project, one_line_error

PAIR = '{"id": "a", "left": "one text", "right": "another"}\n'


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.simrate"
    Project.create(path, scale="sts").close()
    return path


def item_count(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
    finally:
        conn.close()


# ---------------------------------------------------------------- JSONL

@pytest.mark.parametrize(("second", "needle"), [
    ('{"id": "b", "left": "x", "right": "y", "deep": ' + "[" * 100_000 + "]" * 100_000 + "}",
     "JSON nested too deeply"),
    ('{"id": "b", "left": "x", "right": "y", "deep": ' + '{"a":' * 100_000 + "1"
     + "}" * 100_000 + "}", "JSON nested too deeply"),
    ('{"id": "b", "left": "x", "right": "y", "n": ' + "7" * 5000 + "}",
     "a number of more than 4,300 digits"),
    ('{"id": "b", "left": "x\\ud800", "right": "y"}', "a lone surrogate \\ud800"),
    ('{"id": "\\udfff", "left": "x", "right": "y"}', "a lone surrogate \\udfff"),
    ('{"id": "b", "left": "x", "right": "y", "note": ["\\uDBFF"]}', "a lone surrogate \\udbff"),
])
def test_jsonl_values_json_cannot_read_are_one_line(capsys, tmp_path, project, second, needle):
    path = tmp_path / "pairs.jsonl"
    path.write_text(PAIR + second + "\n", encoding="utf-8")
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:2:", needle)
    assert item_count(project) == 0


def test_a_surrogate_pair_is_one_character_and_is_kept(capsys, tmp_path, project):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a", "left": "smile \\ud83d\\ude00", "right": "b"}\n',
                    encoding="utf-8")
    assert simrate(capsys, "import", project, path).status == 0
    with Project.open(project) as opened:
        assert opened.item("a")["left"] == "smile \U0001F600"


def test_evaluate_reads_our_jsonl_exports_with_the_same_rules(capsys, tmp_path):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"item_id": "a", "gold": 3}\n{"item_id": "b", "gold": '
                    + "[" * 100_000 + "]" * 100_000 + "}\n", encoding="utf-8")
    system = tmp_path / "system.tsv"
    system.write_text("a\t3\nb\t2\n", encoding="utf-8")
    result = simrate(capsys, "evaluate", "--task", "sts", gold, system)
    assert result.status == 2
    one_line_error(result.err, f"{gold}:2:", "JSON nested too deeply")


# ---------------------------------------------------------------- reference scores

@pytest.mark.parametrize(("gold", "needle"), [
    ("Infinity", "is not a finite number"),
    ("-Infinity", "is not a finite number"),
    ("1e400", "is not a finite number"),
    ("NaN", "is not a finite number"),
    ("9" * 400, "is not a finite number"),
    ('"inf"', "'inf' is not a finite number"),
    ('"nan"', "'nan' is not a finite number"),
    ('"1e-400"', "too small to be held"),
    ("-3", "the reference score -3 is outside the scale sts (0-5"),
    ("5.5", "the reference score 5.5 is outside the scale sts (0-5"),
    ("1e300", "is outside the scale sts"),
])
def test_jsonl_reference_not_finite_or_out_of_range_is_refused(capsys, tmp_path, project,
                                                               gold, needle):
    path = tmp_path / "pairs.jsonl"
    path.write_text(PAIR + '{"id": "b", "left": "x", "right": "y", "gold": ' + gold + "}\n",
                    encoding="utf-8")
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:2:", needle)
    assert item_count(project) == 0


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
@pytest.mark.parametrize(("value", "needle"), [
    ("inf", "'inf' in column 'gold' is not a finite number"),
    ("-Infinity", "'-Infinity' in column 'gold' is not a finite number"),
    ("nan", "'nan' in column 'gold' is not a finite number"),
    ("1e400", "'1e400' in column 'gold' is not a finite number"),
    ("1e-400", "'1e-400' in column 'gold' is too small"),
    ("-3", "the reference score -3 is outside the scale sts"),
    ("6", "the reference score 6 is outside the scale sts"),
])
def test_table_reference_not_finite_or_out_of_range_is_refused(capsys, tmp_path, project,
                                                               suffix, value, needle):
    sep = "\t" if suffix == ".tsv" else ","
    path = tmp_path / f"pairs{suffix}"
    rows = [["id", "left", "right", "gold"], ["a", "x", "y", "3"], ["b", "x", "z", value]]
    path.write_text("".join(sep.join(r) + "\n" for r in rows), encoding="utf-8")
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", needle)
    assert item_count(project) == 0


def test_xlsx_reference_out_of_range_is_refused(capsys, tmp_path, project):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in (["id", "left", "right", "gold"], ["a", "x", "y", 3], ["b", "x", "z", -3],
                ["c", "x", "w", "inf"]):
        sheet.append(row)
    path = tmp_path / "pairs.xlsx"
    book.save(path)
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:4:", "'inf' in column 'gold' is not a finite number")
    sheet.delete_rows(4)
    book.save(path)
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "-3 is outside the scale sts")


def test_a_text_reference_column_stays_item_information(capsys, tmp_path, project):
    """Words in a `score` column (labels, not numbers) keep the column as item information,
    as before: only spellings of numbers that are not finite are refused."""
    path = tmp_path / "pairs.tsv"
    path.write_text("id\tleft\tright\tscore\na\tx\ty\thigh\nb\tx\tz\t-3\n", encoding="utf-8")
    assert simrate(capsys, "import", project, path).status == 0
    with Project.open(project) as opened:
        item = opened.item("b")
        assert item["meta"]["score"] == "-3"
        assert item["reference"] is None  # no reference


def test_sts_gold_out_of_range_is_refused(capsys, tmp_path, tmp_path_factory):
    folder = tmp_path / "sts"
    folder.mkdir()
    (folder / "STS.input.demo.txt").write_text("a b\tc d\ne f\tg h\n", encoding="utf-8")
    (folder / "STS.gs.demo.txt").write_text("3\n-3\n", encoding="utf-8")
    path = tmp_path / "p.simrate"
    Project.create(path, scale="sts").close()
    result = simrate(capsys, "import", path, folder / "STS.input.demo.txt")
    assert result.status == 2
    one_line_error(result.err, "STS.input.demo.txt:2:", "-3 is outside the scale sts")


def test_pit_references_on_a_narrower_scale_are_refused(capsys, tmp_path):
    """PIT expert labels are 0-5; a CLSS project's scale ends at 4."""
    path = tmp_path / "p.simrate"
    new_project(path, n_items=0).close()  # clss, 0-4
    data = tmp_path / "test.data"
    data.write_text("1\tTopic\tfirst text here\tsecond text here\t5\tx\ty\n", encoding="utf-8")
    result = simrate(capsys, "import", path, data, "--format", "pit")
    assert result.status == 2
    one_line_error(result.err, f"{data}:1:", "the reference score 5 is outside the scale clss")


def test_checks_from_reference_works_after_a_refused_import(capsys, tmp_path, project):
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "a", "left": "x", "right": "y", "gold": 4}\n', encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "b", "left": "x", "right": "z", "gold": Infinity}\n',
                   encoding="utf-8")
    assert simrate(capsys, "import", project, good).status == 0
    assert simrate(capsys, "import", project, bad).status == 2
    result = simrate(capsys, "checks", project, "--from-reference")
    assert result.status == 0, result.err


# ---------------------------------------------------------------- crowd work time

TURK_HEAD = ("HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,Input.id1,"
             "Input.left1,Input.right1,Answer.score1\n")


@pytest.mark.parametrize(("seconds", "needle"), [
    ("-50", "WorkTimeInSeconds '-50' is below zero"),
    ("-5e9", "WorkTimeInSeconds '-5e9' is below zero"),
    ("-0.5", "WorkTimeInSeconds '-0.5' is below zero"),
    ("inf", "WorkTimeInSeconds: 'inf' is not a number"),
    ("nan", "WorkTimeInSeconds: 'nan' is not a number"),
    ("-inf", "WorkTimeInSeconds: '-inf' is not a number"),
])
def test_crowd_work_time_below_zero_or_not_finite_is_refused(capsys, tmp_path, project,
                                                            seconds, needle):
    path = tmp_path / "Batch_1_batch_results.csv"
    path.write_text(TURK_HEAD + "H1,A1,W1,Approved,30,a,one,two,3\n"
                    f"H1,A2,W2,Approved,{seconds},a,one,two,4\n", encoding="utf-8")
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", needle)
    assert item_count(project) == 0


def test_a_rejected_assignment_may_hold_any_work_time(capsys, tmp_path, project):
    path = tmp_path / "Batch_1_batch_results.csv"
    path.write_text(TURK_HEAD + "H1,A1,W1,Approved,30,a,one,two,3\n"
                    "H1,A2,W2,Rejected,-50,a,one,two,4\n", encoding="utf-8")
    result = simrate(capsys, "import", project, path)
    assert result.status == 0, result.err
    assert "1 rating added" in result.out


# ---------------------------------------------------------------- annotator column

RATINGS = "item_id,who,score,note\na,ana,3,\nb,ben,4,fine\n"


@pytest.fixture
def rated_project(tmp_path):
    path = tmp_path / "r.simrate"
    Project.create(path, scale="sts").close()
    items = tmp_path / "items.jsonl"
    items.write_text(PAIR + '{"id": "b", "left": "x", "right": "y"}\n', encoding="utf-8")
    with Project.open(path) as opened:
        from simrate.formats.readers.jsonl import read_jsonl_pairs
        opened.import_items(read_jsonl_pairs(items), source=str(items))
    return path


@pytest.mark.parametrize(("column", "role"), [
    ("item_id", "the item ids"), ("Item_ID", "the item ids"), ("score", "the scores"),
    ("note", "the notes")])
def test_annotator_column_naming_another_role_is_refused(capsys, tmp_path, rated_project,
                                                         column, role):
    path = tmp_path / "ratings.csv"
    path.write_text(RATINGS, encoding="utf-8")
    result = simrate(capsys, "import", rated_project, path, "--annotator-column", column)
    assert result.status == 2
    one_line_error(result.err, f"{path}:1:", f"holds {role}, not annotator names")


def test_annotator_column_on_a_wide_file_naming_the_item_column_is_refused(capsys, tmp_path,
                                                                          rated_project):
    path = tmp_path / "wide.tsv"
    path.write_text("item_id\tana\tben\na\t3\t4\nb\t2\t\n", encoding="utf-8")
    result = simrate(capsys, "import", rated_project, path, "--annotator-column", "item_id")
    assert result.status == 2
    one_line_error(result.err, f"{path}:1:", "holds the item ids")


def test_annotator_and_annotator_column_together_are_refused(capsys, tmp_path, rated_project):
    path = tmp_path / "ratings.csv"
    path.write_text(RATINGS, encoding="utf-8")
    result = simrate(capsys, "import", rated_project, path, "--annotator-column", "who",
                     "--annotator", "zed")
    assert result.status == 2
    one_line_error(result.err, f"{path}:", "not both")
    ok = simrate(capsys, "import", rated_project, path, "--annotator-column", "who")
    assert ok.status == 0, ok.err
    assert "2 ratings added" in ok.out


# ---------------------------------------------------------------- workbook formulas

def _workbook(path, rows, title="Sheet"):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = title
    for row in rows:
        sheet.append(row)
    book.save(path)
    return path


def _rewrite_sheet(path, old: bytes, new: bytes) -> None:
    """Edit the first sheet's XML inside the workbook as a spreadsheet program would save it."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    part = "xl/worksheets/sheet1.xml"
    assert old in parts[part]
    parts[part] = parts[part].replace(old, new)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_a_rating_formula_without_a_value_is_named(capsys, tmp_path, rated_project):
    path = _workbook(tmp_path / "ratings.xlsx",
                     [["item_id", "annotator", "score"], ["a", "ana", 4], ["b", "ana", "=1+2"]],
                     title="Ratings")
    result = simrate(capsys, "import", rated_project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "cell Ratings!C3 holds a formula without a saved "
                   "value", "open it in a spreadsheet program, save it")


def test_a_reference_formula_without_a_value_is_named(capsys, tmp_path, project):
    path = _workbook(tmp_path / "pairs.xlsx", [["id", "left", "right", "gold"],
                                               ["a", "x", "y", 3], ["b", "x", "z", "=2+1"]])
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:3:", "cell Sheet!D3 holds a formula")
    assert item_count(project) == 0


def test_evaluate_names_a_gold_formula_without_a_value(capsys, tmp_path):
    gold = _workbook(tmp_path / "gold.xlsx", [["item_id", "gold"], ["a", 3], ["b", "=SUM(1,2)"]])
    system = tmp_path / "system.tsv"
    system.write_text("a\t3\nb\t2\n", encoding="utf-8")
    result = simrate(capsys, "evaluate", "--task", "sts", gold, system)
    assert result.status == 2
    one_line_error(result.err, f"{gold}:3:", "cell Sheet!B3 holds a formula")


def test_a_formula_with_its_saved_value_is_read(capsys, tmp_path, project):
    path = _workbook(tmp_path / "pairs.xlsx", [["id", "left", "right", "gold"],
                                               ["a", "x", "y", 3], ["b", "x", "z", "=2+1"],
                                               ["c", "x", "w", '=IF(1,"","x")']])
    _rewrite_sheet(path, b"<f>2+1</f><v></v>", b"<f>2+1</f><v>3</v>")
    # the empty-text result, as a spreadsheet program saves it: t="str" and an empty <v>
    _rewrite_sheet(path, b'<c r="D4"><f>', b'<c r="D4" t="str"><f>')
    result = simrate(capsys, "import", project, path)
    assert result.status == 0, result.err
    with Project.open(project) as opened:
        assert opened.item("b")["reference"] == 3.0
        assert opened.item("c")["reference"] is None
