"""Reading a file is one pipeline (app/formats/intake/pipeline.py): bound, decode, parse, in
that order, every reader through it. The calls are watched with the interpreter's profile
hook, which sees the real functions run and changes none of them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.formats.intake.limits import MAX_LINE_BYTES
from simrate.formats.intake.pipeline import read, read_text
from simrate.formats.pyramids.pyramid_project import read_pyramid_items
from simrate.formats.readers.clss import read_clss
from simrate.formats.readers.jsonl import read_jsonl_pairs
from simrate.formats.readers.machine_scores import read_machine_scores
from simrate.formats.readers.pairs import read_pairs
from simrate.formats.readers.pit import read_pit
from simrate.formats.readers.ratings import read_ratings
from simrate.formats.readers.scores import read_gold
from simrate.formats.readers.sts import read_sts
from simrate.formats.readers.turk import read_turk

#: The functions of each step, by (file, function); reading the bytes and decoding them.
BOUND = {("limits.py", "read_input"), ("limits.py", "input_source"),
         ("limits.py", "check_unpacked_size")}
DECODE = {("textio.py", "text_file"), ("textio.py", "decode_lenient"),
          ("textio.py", "decode"), ("xlsx_read.py", "workbook_records")}


def watched(call):
    """Run call(); return its result and the (step, caller) of each bound and decode, and of
    each parse the pipeline hands its input to, in the order they ran."""
    steps: list[tuple[str, str]] = []

    def profile(frame, event, arg):
        if event != "call" or frame.f_back is None:
            return
        code, back = frame.f_code, frame.f_back.f_code
        here, caller = (Path(code.co_filename).name, code.co_name), (
            Path(back.co_filename).name, back.co_name)
        if here in BOUND:
            steps.append(("bound", "/".join(caller)))
        elif here in DECODE:
            steps.append(("decode", "/".join(caller)))
        elif caller == ("pipeline.py", "read") and here[0] not in ("pipeline.py", "pathlib.py"):
            steps.append(("parse", "/".join(here)))

    sys.setprofile(profile)
    try:
        result = call()
    finally:
        sys.setprofile(None)
    return result, steps


def turk_file(folder: Path) -> Path:
    path = folder / "Batch_1_batch_results.csv"
    path.write_text("HITId,AssignmentId,WorkerId,AssignmentStatus,WorkTimeInSeconds,"
                    "Input.id1,Input.left1,Input.right1,Answer.score1\n"
                    "H1,A1,W1,Approved,12,n-1,one,two,2\n", encoding="utf-8")
    return path


def jsonl_file(folder: Path) -> Path:
    path = folder / "pairs.jsonl"
    path.write_text('{"id": "a", "sentence1": "one", "sentence2": "two"}\n', encoding="utf-8")
    return path


def machine_file(folder: Path) -> Path:
    path = folder / "system.txt"
    path.write_text("1.5\n2\n", encoding="utf-8")
    return path


READERS = {
    "pairs tsv": lambda s, t: read_pairs(s / "pairs.tsv"),
    "pairs csv": lambda s, t: read_pairs(s / "pairs.csv"),
    "pairs xlsx": lambda s, t: read_pairs(s / "pairs.xlsx"),
    "jsonl": lambda s, t: read_jsonl_pairs(jsonl_file(t)),
    "sts": lambda s, t: read_sts(s / "STS.input.demo.txt"),
    "clss": lambda s, t: read_clss(s / "paragraph2sentence.sample.input.tsv"),
    "pit": lambda s, t: read_pit(s / "tweets.data"),
    "pyramid": lambda s, t: read_pyramid_items(s / "D9901.pyr"),
    "ratings long": lambda s, t: read_ratings(s / "ratings_long.csv"),
    "ratings wide": lambda s, t: read_ratings(s / "ratings_wide.tsv"),
    "ratings named": lambda s, t: read_ratings(s / "ratings_long.csv", annotator_column="annotator"),
    "turk": lambda s, t: read_turk(turk_file(t)),
    "machine": lambda s, t: read_machine_scores(machine_file(t), ["a", "b"], "m"),
    "gold key": lambda s, t: read_gold(s / "STS.gs.demo.txt", "sts"),
}


@pytest.mark.parametrize("name", sorted(READERS))
def test_every_reader_bounds_decodes_then_parses_through_the_pipeline(name, sample_data,
                                                                        tmp_path):
    result, steps = watched(lambda: READERS[name](sample_data, tmp_path))
    assert result is not None
    assert steps, "the reader never went through the pipeline"
    kinds = [kind for kind, _ in steps]
    # only the pipeline's own steps bound and decode (the limits and the decoders are
    # never called from a reader directly)
    assert {caller for kind, caller in steps if kind == "bound"} <= {
        "pipeline.py/bound", "xlsx_read.py/xlsx_sheet_note"}, steps
    assert {caller for kind, caller in steps if kind == "decode"} <= {
        "pipeline.py/decode", "textio.py/text_file"}, steps
    # each read: bound, then decode (an XML parser decodes by itself), then parse
    for at, kind in enumerate(kinds):
        if kind == "parse":
            before = kinds[:at]
            assert "bound" in before, steps
            if name != "pyramid":
                assert before.index("bound") < len(before) - before[::-1].index("decode") - 1
        if kind == "decode" and steps[at][1] == "pipeline.py/decode":
            assert "bound" in kinds[:at], steps


def test_the_parser_is_handed_decoded_text(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_bytes(b"id\tleft\tright\r\n1\tcaf\xe9\tna\xefve\r\n")  # Windows-1252, CRLF
    got = read(path, lambda source: source, "text")
    assert got.text == "id\tleft\tright\n1\tcafé\tnaïve\n" and got.encoding == "cp1252"
    table = read(path, lambda source: source, "table")
    assert table.records == [(1, ["id", "left", "right"]), (2, ["1", "café", "naïve"])]


def test_bad_encoding_is_refused_before_any_parse(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_bytes("id\tleft\tright\n1\tcafé\tok\n".encode() + b"2\tna\xefve\tok\n")
    parsed: list[object] = []
    with pytest.raises(SimrateError) as caught:
        read(path, parsed.append, "text")
    assert parsed == []
    assert str(caught.value) == (
        f"{path}:3: mixed encodings: this line is not UTF-8 (byte 0xEF at column 5) but the "
        "rest of the file holds UTF-8; save the whole file as UTF-8")
    with pytest.raises(SimrateError) as by_reader:  # a reader says the very same line
        read_pairs(path)
    assert str(by_reader.value) == str(caught.value)


def test_an_input_over_a_limit_never_reaches_the_decoder(tmp_path):
    path = tmp_path / "long.tsv"
    with open(path, "wb") as stream:
        stream.write(b"id\tleft\tright\n1\t")
        stream.write(b"\xe9" * (MAX_LINE_BYTES + 1))  # not UTF-8 either: decoding would say so
        stream.write(b"\tb\n")
    _, steps = watched(lambda: pytest.raises(SimrateError, read_text, path))
    assert [kind for kind, _ in steps] == ["bound"]
    with pytest.raises(SimrateError, match=r":2: a line longer than 16 MiB"):
        read_pairs(path)
