"""Every grid value of every scale, read however it is typed and written as its shortest
decimal (issue 41): the built-in scales (clss 0-4, sts 0-5, steps of 0.25) and two custom
0-5 scales in steps of 0.1 and 0.05, through every reader and writer, on real files."""

from __future__ import annotations

import csv
import json
import re
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest
from openpyxl import Workbook, load_workbook

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import Scale, load_scale
from simrate.core.project import Project
from simrate.core.team.web_tables import score_code
from simrate.formats.readers.jsonl import read_jsonl_pairs
from simrate.formats.readers.pairs import read_pairs
from simrate.formats.readers.ratings import read_ratings
from simrate.formats.readers.ratings_fast import read_long_ratings_fast
from tests.cli.helpers import simrate

SCALES = {
    "clss": "clss",
    "sts": "sts",
    "tenths": {"name": "tenths", "low": 0, "high": 5, "step": 0.1},
    "twentieths": {"name": "twentieths", "low": 0, "high": 5, "step": 0.05},
}
#: The ways a rater or a spreadsheet may type one value (0.3: 0.3, .3, 0.30, 3e-1).
TYPINGS = ("plain", "dotted", "padded", "exponent")


def decimals_of(scale: Scale) -> list[Decimal]:
    """The exact decimal of every code, in code order."""
    low, step = Decimal(repr(scale.low)), Decimal(repr(scale.step))
    return [low + code * step for code in range(scale.n_codes)]


def places(value: Decimal) -> int:
    return max(0, -value.normalize().as_tuple().exponent)


def typed(value: Decimal, how: str) -> str:
    """`value` written one way: plain `0.3`, dotted `.3`, padded `0.30`, exponent `3e-1`."""
    plain = format(value.normalize(), "f")
    if how == "plain":
        return plain
    if how == "dotted":
        return plain[1:] if plain.startswith("0.") else plain
    if how == "padded":
        return f"{value:.{places(value) + 1}f}"
    return f"{int(value.scaleb(places(value)))}e-{places(value)}"


def shortest(value: Decimal) -> str:
    """What the text writers print for a grid value: the repr of its exact float."""
    return repr(float(value))


@pytest.fixture(params=list(SCALES))
def case(request, tmp_path):
    """(scale, spec for `simrate new`, the grid's decimals) of one scale."""
    spec = SCALES[request.param]
    if isinstance(spec, dict):
        path = tmp_path / f"{request.param}.json"
        path.write_text(json.dumps(spec), encoding="utf-8")
        spec = str(path)
    scale = load_scale(spec)
    return scale, spec, decimals_of(scale)


def new_project(capsys, tmp_path: Path, spec: str, values: list[Decimal]) -> Path:
    """A project on the scale with one item per grid value, `g<code>`."""
    pairs = tmp_path / "grid.tsv"
    pairs.write_text("id\tleft\tright\n" + "".join(
        f"g{code}\tleft {code}\tright {code}\n" for code in range(len(values))), encoding="utf-8")
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", spec).status == 0
    result = simrate(capsys, "import", path, pairs)
    assert result.status == 0, result.err
    return path


def long_rows(values: list[Decimal]) -> list[list[str]]:
    return [[f"g{code}", how, typed(value, how)]
            for code, value in enumerate(values) for how in TYPINGS]


def wide_rows(values: list[Decimal]) -> list[list[str]]:
    return [[f"g{code}", *(typed(value, how) for how in TYPINGS)]
            for code, value in enumerate(values)]


def write_ratings(path: Path, values: list[Decimal], layout: str) -> None:
    """A ratings file (TSV, CSV or XLSX by the name; long or wide) of every typing."""
    header = ["item_id", "annotator", "score"] if layout == "long" else ["item_id", *TYPINGS]
    rows = long_rows(values) if layout == "long" else wide_rows(values)
    if path.suffix == ".xlsx":
        book = Workbook()
        sheet = book.active
        sheet.append(header)
        for row in rows:
            sheet.append(_xlsx_row(row, layout))
        book.save(path)
        return
    delimiter = "\t" if path.suffix == ".tsv" else ","
    path.write_text("".join(delimiter.join(r) + "\n" for r in [header, *rows]),
                    encoding="utf-8")


def _xlsx_row(row: list[str], layout: str) -> list[object]:
    """An XLSX row: a `plain` score as a number cell, every other typing as a text cell."""
    if layout == "long":
        return [row[0], row[1], float(row[2]) if row[1] == "plain" else row[2]]
    return [row[0], float(row[1]), *row[2:]]


def check_stored(path: Path, scale: Scale, values: list[Decimal], raters: tuple) -> None:
    """Every rater's score of every item is the exact grid float of its code."""
    with Project.open(path) as project:
        ratings = project.ratings()
    assert len(ratings) == len(values) * len(raters)
    for row in ratings.itertuples(index=False):
        code = int(row.item_id[1:])
        assert row.code == code, (row.annotator, row.item_id)
        assert repr(row.score) == shortest(values[code])
        assert scale.from_code(code) == row.score == scale.grid_values()[code]


@pytest.mark.parametrize("name, layout", [
    ("r.tsv", "long"), ("r.csv", "long"), ("r.tsv", "wide"), ("r.csv", "wide"),
    ("r.xlsx", "long"), ("r.xlsx", "wide"),
])
def test_ratings_files_import_every_grid_value_however_typed(case, tmp_path, capsys, name,
                                                             layout):
    scale, spec, values = case
    project = new_project(capsys, tmp_path, spec, values)
    ratings = tmp_path / name
    write_ratings(ratings, values, layout)
    for row in read_ratings(ratings).itertuples(index=False):  # the reader alone
        assert row.score == float(values[int(row.item_id[1:])])
    result = simrate(capsys, "import", project, ratings, "--format", "ratings")
    assert result.status == 0, result.err
    check_stored(project, scale, values, TYPINGS)


def test_the_fast_reader_reads_as_the_careful_one(case, tmp_path):
    _, _, values = case
    path = tmp_path / "plain.tsv"  # no exponents, no quotes: the fast path takes it
    path.write_text("item_id\tannotator\tscore\n" + "".join(
        "\t".join(row) + "\n" for row in long_rows(values) if row[1] != "exponent"),
        encoding="utf-8")
    fast = read_long_ratings_fast(path)
    assert fast is not None
    careful = read_ratings(path)
    assert fast["score"].tolist() == careful["score"].tolist()
    assert fast["score"].tolist() == [float(values[int(i[1:])]) for i in fast["item_id"]]


def test_pair_readers_take_the_reference_exactly(case, tmp_path):
    _, _, values = case
    for how in TYPINGS:
        pairs = tmp_path / f"pairs-{how}.tsv"
        pairs.write_text("id\tleft\tright\tscore\n" + "".join(
            f"g{c}\ta {c}\tb {c}\t{typed(v, how)}\n" for c, v in enumerate(values)),
            encoding="utf-8")
        assert read_pairs(pairs)["reference"].tolist() == [float(v) for v in values]
        if how == "dotted":
            continue  # JSON has no `.3`
        lines = tmp_path / f"pairs-{how}.jsonl"
        lines.write_text("".join(
            f'{{"id": "g{c}", "left": "a", "right": "b", "gold": {typed(v, how)}}}\n'
            for c, v in enumerate(values)), encoding="utf-8")
        assert read_jsonl_pairs(lines)["reference"].tolist() == [float(v) for v in values]


def test_the_web_page_and_the_scale_parse_every_typing(case):
    scale, _, values = case
    for code, value in enumerate(values):
        for how in TYPINGS:
            assert score_code(scale, typed(value, how)) == code
            assert scale.parse(" " + typed(value, how) + " ") == code
        # what earlier versions wrote (0.30000000000000004) still reads as its code
        assert scale.to_code(scale.low + code * scale.step) == code


def test_off_grid_values_are_refused_by_name(case):
    scale, _, values = case
    for text in (f"{values[1] / 2}", f"{values[-2]}000001", f"{values[3]}1"):
        with pytest.raises(SimrateError, match=re.escape(str(float(text)))):
            scale.parse(text)
        with pytest.raises(SimrateError, match=re.escape(f"scale {scale.describe()}")):
            score_code(scale, text)


def test_project_rate_and_adjudicate_keep_the_exact_value(case, tmp_path, capsys):
    scale, spec, values = case
    path = new_project(capsys, tmp_path, spec, values)
    with Project.open(path) as project:
        for code, value in enumerate(values):
            for how in TYPINGS:
                project.rate(f"g{code}", how, float(typed(value, how)))
                assert repr(project.rating(f"g{code}", how)) == shortest(value)
            project.adjudicate(f"g{code}", float(typed(value, "exponent")))
            assert project.verdict(f"g{code}").code == code
        adjudicated = project.adjudications()
    assert [repr(v) for v in adjudicated["score"]] == [shortest(v) for v in values]
    check_stored(path, scale, values, TYPINGS)


# ----------------------------------------------------------------------------- writers
def rated_project(capsys, tmp_path: Path, spec: str, values: list[Decimal]) -> Path:
    """Every item rated its own grid value by three raters (the mean of three equal floats
    is not always that float: 0.1 + 0.1 + 0.1 = 0.30000000000000004), every third one
    adjudicated at it too."""
    path = new_project(capsys, tmp_path, spec, values)
    ratings = tmp_path / "three.tsv"
    ratings.write_text("item_id\tannotator\tscore\n" + "".join(
        f"g{c}\t{who}\t{typed(v, how)}\n" for c, v in enumerate(values)
        for who, how in (("ann", "plain"), ("bob", "padded"), ("cy", "exponent"))),
        encoding="utf-8")
    result = simrate(capsys, "import", path, ratings, "--format", "ratings")
    assert result.status == 0, result.err
    with Project.open(path) as project:
        for code in range(0, len(values), 3):
            project.adjudicate(f"g{code}", float(values[code]), by="lead")
    return path


def export(capsys, path: Path, out: Path, fmt: str) -> Path:
    result = simrate(capsys, "export", path, out, "--format", fmt)
    assert result.status == 0, result.err
    return out


GRID_FIELDS = ("gold", "mean", "min", "max", "rating:ann", "rating:bob", "rating:cy")


def check_texts(scale: Scale, values: list[Decimal], item_id: str, texts: list[str]) -> None:
    """Each text is the shortest decimal of the item's grid value, and reads as its code."""
    code = int(item_id[1:])
    for text in texts:
        assert text == shortest(values[code]), (item_id, texts)
        assert Decimal(text) == values[code]
        assert scale.parse(text) == code


@pytest.mark.parametrize("fmt", ["tsv", "csv"])
def test_tables_print_the_shortest_decimal(case, tmp_path, capsys, fmt):
    scale, spec, values = case
    out = export(capsys, rated_project(capsys, tmp_path, spec, values), tmp_path / "g", fmt)
    with open(out, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t" if fmt == "tsv" else ","))
    assert len(rows) == len(values)
    for row in rows:
        check_texts(scale, values, row["item_id"], [row[f] for f in GRID_FIELDS])
        assert row["sd"] == "0.0"
    back = read_pairs(out)  # read back as pairs: the gold as the reference
    assert back["reference"].tolist() == [float(v) for v in values]


def test_jsonl_prints_the_shortest_decimal(case, tmp_path, capsys):
    scale, spec, values = case
    out = export(capsys, rated_project(capsys, tmp_path, spec, values), tmp_path / "g", "jsonl")
    for line in out.read_text(encoding="utf-8").splitlines():
        record = json.loads(line, parse_float=str)  # the numbers' texts as written
        check_texts(scale, values, record["item_id"],
                    [record[f] for f in GRID_FIELDS] + list(record["ratings"].values()))
    assert read_jsonl_pairs(out)["reference"].tolist() == [float(v) for v in values]


def sheet_cells(out: Path, sheet: str) -> dict[str, dict[str, str]]:
    """{row number: {header: the number cell's text}} of a sheet of an XLSX report."""
    book = load_workbook(out, read_only=True)
    names = book.sheetnames
    header = [c.value for c in next(book[sheet].iter_rows(max_row=1))]
    book.close()
    with zipfile.ZipFile(out) as package:
        xml = package.read(f"xl/worksheets/sheet{names.index(sheet) + 1}.xml").decode()
    letters = {chr(ord("A") + i): name for i, name in enumerate(header[:26])}
    rows: dict[str, dict[str, str]] = {}
    for letter, row, text in re.findall(r'<c r="([A-Z])(\d+)" t="n"><v>([^<]*)</v>', xml):
        rows.setdefault(row, {})[letters[letter]] = text
    return rows


def test_xlsx_cells_hold_the_exact_grid_float(case, tmp_path, capsys):
    scale, spec, values = case
    out = export(capsys, rated_project(capsys, tmp_path, spec, values), tmp_path / "g.xlsx", "xlsx")
    book = load_workbook(out, read_only=True)
    for row in book["gold"].iter_rows(min_row=2, values_only=True):
        code = int(row[0][1:])
        assert row[5] == float(values[code]) and scale.to_code(row[5]) == code
    book.close()
    cells = sheet_cells(out, "gold")
    assert len(cells) == len(values)
    for number, row in cells.items():
        value = values[int(number) - 2]  # row 2 holds g0
        written = shortest(value).removesuffix(".0")  # a whole number is a number cell `3`
        assert [row[f] for f in GRID_FIELDS] == [written] * len(GRID_FIELDS)
    scores = [row["score"] for row in sheet_cells(out, "ratings").values()]
    assert sorted(Decimal(s) for s in scores) == sorted(values * 3)
    assert all(s == shortest(Decimal(s)).removesuffix(".0") for s in scores)


def test_dataset_folder_prints_the_shortest_decimal(case, tmp_path, capsys):
    scale, spec, values = case
    folder = export(capsys, rated_project(capsys, tmp_path, spec, values), tmp_path / "d",
                    "dataset")
    gold = [json.loads(line, parse_float=str) for line in
            (folder / "data" / "gold-train.jsonl").read_text(encoding="utf-8").splitlines()]
    for record in gold:
        check_texts(scale, values, record["item_id"], [record["gold"]])
        assert record["spread"] == record["sd"] == "0.0"
    rated = [json.loads(line, parse_float=str) for line in
             (folder / "data" / "ratings-train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rated) == 3 * len(values)
    for record in rated:
        check_texts(scale, values, record["item_id"], [record["score"]])


def test_sts_key_keeps_three_decimals(case, tmp_path, capsys):
    _, spec, values = case
    out = export(capsys, rated_project(capsys, tmp_path, spec, values), tmp_path / "g.txt",
                 "sts")
    assert out.read_text(encoding="utf-8").splitlines() == [f"{v:.3f}" for v in values]


# ----------------------------------------------------------------------------- figures
def test_means_and_sds_are_printed_to_four_decimals(tmp_path, capsys):
    path = new_project(capsys, tmp_path, "sts", decimals_of(load_scale("sts"))[:3])
    ratings = tmp_path / "r.tsv"  # g0: 1, 1, 3 (mean 1.6666..); g1: 0.25, 0.5 (0.375)
    ratings.write_text("item_id\tannotator\tscore\ng0\ta\t1\ng0\tb\t1\ng0\tc\t3\n"
                       "g1\ta\t0.25\ng1\tb\t0.5\ng2\ta\t3.5\ng2\tb\t3.5\n", encoding="utf-8")
    assert simrate(capsys, "import", path, ratings, "--format", "ratings").status == 0
    result = simrate(capsys, "export", path, tmp_path / "g.tsv", "--allow-unresolved")
    assert result.status == 0, result.err
    with open(tmp_path / "g.tsv", encoding="utf-8", newline="") as handle:
        rows = {r["item_id"]: r for r in csv.DictReader(handle, delimiter="\t")}
    assert (rows["g0"]["gold"], rows["g0"]["mean"]) == ("1.6667", "1.6667")
    assert (rows["g1"]["mean"], rows["g2"]["mean"], rows["g2"]["sd"]) == ("0.375", "3.5", "0.0")
    with Project.open(path) as project:
        sd = float(project.gold().set_index("item_id").at["g0", "sd"])
    assert rows["g0"]["sd"] == repr(round(sd, 4)) and len(rows["g0"]["sd"]) <= 6


def test_rounding_is_pythons_and_keeps_fine_grids():
    from simrate.formats.output.export import figure_decimals, rounded

    samples = [0.12345, 1.00005, 2.5, 1 / 3, 2 / 3, 0.30000000000000004, 4.800000000000001,
               *(k / 20000 for k in range(0, 100001, 7))]
    assert rounded(samples).tolist() == [round(v, 4) for v in samples]
    assert str(rounded([float("nan")])[0]) == "nan"
    assert figure_decimals(load_scale("sts")) == 4
    fine = Scale("fine", 0.0, 0.1, 0.00005)
    assert figure_decimals(fine) == 5
    assert rounded([fine.from_code(3)], figure_decimals(fine))[0] == 0.00015


def test_codes_turn_into_exact_values_and_distances(case):
    scale, _, values = case
    grid = scale.grid_values()
    assert [repr(v) for v in grid.tolist()] == [shortest(v) for v in values]
    assert not grid.flags.writeable and scale.grid_values() is grid  # computed once
    codes = [float(c) for c in range(scale.n_codes)] + [float("nan")]
    assert scale.values_of(codes)[:-1].tolist() == grid.tolist()
    for code, value in enumerate(values):
        assert scale.from_code(code) == float(value)
        assert repr(scale.distance(code)) == shortest(value - values[0])
