"""Text input: encodings, line ends, quoting and line numbers."""

from __future__ import annotations

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.intake.pipeline import load_table, read_text
from simrate.formats.intake.textio import csv_records, parse_number, tsv_records


def test_empty_file_is_an_error(tmp_path):
    path = tmp_path / "empty.tsv"
    path.write_bytes(b"")
    with pytest.raises(SimrateError, match="file is empty") as caught:
        read_text(path)
    assert caught.value.path == str(path)


def test_file_of_blank_lines_and_a_bom_is_empty(tmp_path):
    path = tmp_path / "blank.tsv"
    path.write_bytes(b"\xef\xbb\xbf\r\n  \r\n")
    with pytest.raises(SimrateError, match="file is empty"):
        read_text(path)


def test_missing_file_is_an_error(tmp_path):
    with pytest.raises(SimrateError, match="no such file"):
        read_text(tmp_path / "absent.tsv")


def test_utf8_bom_is_dropped(tmp_path):
    path = tmp_path / "bom.tsv"
    path.write_bytes("\ufeffid\tleft\tright\n1\tcafé\tthé\n".encode())
    source = read_text(path)
    assert source.text.startswith("id\t")
    assert source.encoding == "utf-8-sig"
    assert not source.fell_back


def test_cp1252_bytes_fall_back_and_say_so(tmp_path):
    path = tmp_path / "windows.tsv"
    # 0x93/0x94 are curly quotes, 0xe9 is é, 0x80 the euro sign in cp1252; 0x81 is undefined
    path.write_bytes(b"\x93Caf\xe9\x94 costs \x805\t\x81x\n")
    source = read_text(path)
    assert source.fell_back
    assert source.lines() == ["\u201cCaf\u00e9\u201d costs \u20ac5\t\x81x"]


def test_crlf_and_cr_line_ends(tmp_path):
    crlf = tmp_path / "crlf.tsv"
    crlf.write_bytes(b"a\tb\r\nc\td\r\n")
    assert read_text(crlf).lines() == ["a\tb", "c\td"]
    old_mac = tmp_path / "cr.tsv"
    old_mac.write_bytes(b"a\tb\rc\td\r")
    assert read_text(old_mac).lines() == ["a\tb", "c\td"]


def test_stray_cr_inside_a_line_does_not_shift_line_numbers(tmp_path):
    path = tmp_path / "stray.tsv"
    path.write_bytes(b"a\tb\nc\rx\td\ne\tf\n")
    assert [number for number, _ in tsv_records(read_text(path))] == [1, 2, 3]


def test_quoted_csv_field_with_tab_quote_and_newline_is_read_exactly(tmp_path):
    path = tmp_path / "quoted.csv"
    path.write_bytes(b'left,right\r\n"tab\there, ""quoted"",\r\nnext line",plain\r\nx,y\r\n')
    records = list(csv_records(read_text(path), ","))
    assert records == [
        (1, ["left", "right"]),
        # inside quotes the bytes are data: the CRLF stays as written (export round trips)
        (2, ['tab\there, "quoted",\r\nnext line', "plain"]),
        (4, ["x", "y"]),
    ]


def test_unterminated_quote_names_the_line_where_the_record_starts(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text('a,b\nc,d\n"e,f\ng,h\n', encoding="utf-8")
    with pytest.raises(SimrateError) as caught:
        list(csv_records(read_text(path), ","))
    assert caught.value.line == 3


def test_quoted_tsv_field_holding_tab_and_newline(tmp_path):
    path = tmp_path / "excel.tsv"
    path.write_text('left\tright\n"a\tb\nc"\td\n', encoding="utf-8")
    assert tsv_records(read_text(path)) == [(1, ["left", "right"]), (2, ["a\tb\nc", "d"])]


def test_tsv_text_that_merely_starts_with_a_quote_keeps_it(tmp_path):
    path = tmp_path / "hand.tsv"
    path.write_text('left\tright\n"Yes," she said.\tShe agreed.\nx\ty\n', encoding="utf-8")
    assert tsv_records(read_text(path)) == [
        (1, ["left", "right"]), (2, ['"Yes," she said.', "She agreed."]), (3, ["x", "y"])]


def test_semicolon_csv_is_sniffed(tmp_path):
    path = tmp_path / "excel_de.csv"
    path.write_text("left;right\nein, zwei;drei\n", encoding="utf-8")
    table = load_table(path)
    assert not table.spreadsheet
    assert table.records[1] == (2, ["ein, zwei", "drei"])


@pytest.mark.parametrize("text, expected", [
    ("3.25", 3.25), (" 4 ", 4.0), ("-1", -1.0), ("0.375", 0.375),
    ("NaN", None), ("nan", None), ("inf", None), ("-", None), ("1_0", None), ("", None),
])
def test_parse_number(text, expected):
    assert parse_number(text) == expected
