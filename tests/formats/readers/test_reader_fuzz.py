"""Every reader, fed random bytes and random JSON, CSV and XLSX structures (hypothesis).

The only outcomes allowed are a result or SimrateError: no other exception, no call over
CALL_SECONDS, and no more memory than the child process's address-space cap. The examples
run in a child interpreter under that cap (resource.setrlimit), so a runaway read is
stopped by the cap and reported as a MemoryError rather than taking the machine down.
Item tables that a reader accepts are imported into a fresh project too, so values that
only the store would trip over (a lone surrogate, an infinite reference) are caught.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.helpers import ROOT

#: The child's address space: Python with pandas, numpy and openpyxl uses about 1 GB.
ADDRESS_SPACE = 3 * 2**30
CALL_SECONDS = 20
#: Examples per strategy: the whole run stays well under a minute. A longer hunt:
#: SIMRATE_FUZZ_SCALE=20 multiplies them.
_SCALE = max(1, int(os.environ.get("SIMRATE_FUZZ_SCALE", "1")))
EXAMPLES = {"bytes": 30 * _SCALE, "json": 30 * _SCALE, "csv": 30 * _SCALE, "xlsx": 15 * _SCALE}
#: The names each generated file is written under: each reader meets each of them.
NAMES = ("fuzz.tsv", "fuzz.csv", "fuzz.jsonl", "fuzz.json", "STS.input.fuzz.txt",
         "fuzz.data", "fuzz.pyr", "Batch_1_batch_results.csv")


class _Overtime(BaseException):
    """A reader call ran past CALL_SECONDS (BaseException: no reader may swallow it)."""


def _alarm(_signum, _frame):
    raise _Overtime()


def _readers():
    """(name, callable(path)) of every reader; imported here, in the child."""
    from simrate.core.base.scale import load_scale
    from simrate.formats.intake.pipeline import load_table
    from simrate.formats.pyramids.pyramid_project import read_pyramid_items
    from simrate.formats.readers.clss import read_clss
    from simrate.formats.readers.detect import detect_format, read_items
    from simrate.formats.readers.jsonl import read_jsonl_pairs
    from simrate.formats.readers.machine_scores import read_machine_scores
    from simrate.formats.readers.pairs import read_pairs
    from simrate.formats.readers.pit import read_pit
    from simrate.formats.readers.ratings import read_ratings
    from simrate.formats.readers.ratings_fast import read_long_ratings_fast
    from simrate.formats.readers.scores import read_gold
    from simrate.formats.readers.sts import read_sts
    from simrate.formats.readers.system_scores import read_pair
    from simrate.formats.readers.turk import read_turk

    return [
        ("detect", detect_format), ("items", read_items), ("pairs", read_pairs),
        ("jsonl", read_jsonl_pairs), ("sts", read_sts), ("clss", read_clss), ("pit", read_pit),
        ("ratings", read_ratings), ("ratings-fast", read_long_ratings_fast),
        ("turk", read_turk), ("pyramid", read_pyramid_items), ("table", load_table),
        ("gold-sts", lambda p: read_gold(p, "sts")), ("gold-pit", lambda p: read_gold(p, "pit")),
        ("evaluate", lambda p: read_pair("sts", p, p)),
        ("machine", lambda p: read_machine_scores(p, ["a", "b"], "m")),
        ("scale", load_scale),
    ]


_CACHE: dict[str, object] = {}


def _check_file(path: Path) -> None:
    """Run every reader on `path`; an item table read is imported into a fresh project."""
    from simrate.core.base.errors import SimrateError

    readers = _CACHE.setdefault("readers", _readers())
    for name, reader in readers:
        signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
        try:
            result = reader(path)
            if name in ("items", "pairs", "jsonl", "sts", "ratings", "turk") and (
                    result is not None):
                _store(result, name, path.with_name(f"p-{name}.simrate"), str(path))
        except SimrateError:
            pass
        except _Overtime:
            raise AssertionError(f"{name} on {path.name}: over {CALL_SECONDS} s") from None
        except Exception as exc:
            raise AssertionError(f"{name} on {path.name}: {type(exc).__name__}: {exc!s:.300}\n"
                                 + traceback.format_exc(limit=-4)) from None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


def _store(frame, name: str, project: Path, source: str) -> None:
    """Write what a reader gave into a fresh 0-5 project, as the import command does."""
    from simrate.core.base.frames import item_frame
    from simrate.core.project import Project

    with Project.create(project, scale="sts") as opened:
        if name == "turk":
            from simrate.services.crowd.crowd_import import import_crowd_results

            import_crowd_results(opened, frame, source)
        elif name == "ratings":
            ids = list(dict.fromkeys(str(i) for i in frame["item_id"]))
            opened.import_items(item_frame({
                "item_id": ids, "left": ["l"] * len(ids), "right": ["r"] * len(ids),
                "dataset": ["d"] * len(ids), "genre": [""] * len(ids),
                "reference": [float("nan")] * len(ids), "meta": [{}] * len(ids),
                "line": list(range(1, len(ids) + 1))}), source="items")
            opened.import_ratings(frame, source=source)
        else:
            opened.import_items(frame, source=source)


def _check_bytes(data: bytes, names=NAMES) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for file_name in names:
            path = Path(folder) / file_name
            path.write_bytes(data)
            _check_file(path)
            if file_name in CLI_NAMES:
                _check_cli_import(path)
            for stale in Path(folder).glob("*"):
                stale.unlink()


#: The names a generated file is also imported under by the command line (`simrate import
#: P FILE`, format detected): a refusal must leave the project as it was, to the byte.
CLI_NAMES = ("fuzz.tsv", "fuzz.csv", "fuzz.jsonl", "fuzz.xlsx", "Batch_1_batch_results.csv")


def _digest(path: Path) -> tuple[str, str]:
    """(SHA-256 of the file's bytes, SHA-256 of its content as SQL), read immutably."""
    import hashlib
    import sqlite3

    conn = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    try:
        content = hashlib.sha256("\n".join(conn.iterdump()).encode("utf-8",
                                                                   "surrogatepass"))
    finally:
        conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest(), content.hexdigest()


def _project_for_cli() -> tuple[Path, Path]:
    """(project the CLI imports into, its pristine copy): items x:1..x:3 and s:1..s:3."""
    if "cli" not in _CACHE:
        import shutil

        from simrate.core.project import Project
        from tests.support.helpers import make_items

        folder = Path(tempfile.mkdtemp(prefix="fuzz-cli-"))
        pristine = folder / "pristine.simrate"
        with Project.create(pristine, scale="sts") as project:
            project.import_items(make_items(3))
        target = folder / "p.simrate"
        shutil.copyfile(pristine, target)
        _CACHE["cli"] = (target, pristine, _digest(pristine))
    return _CACHE["cli"][:2]


def _check_cli_import(path: Path) -> None:
    """`simrate import P path`: exit 0, or 2/3 with one line and the project unchanged."""
    import contextlib
    import shutil

    from simrate.cli import main

    project, pristine = _project_for_cli()
    before = _CACHE["cli"][2]
    out, err = io.StringIO(), io.StringIO()
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(["import", str(project), str(path)])
    except _Overtime:
        raise AssertionError(f"simrate import {path.name}: over {CALL_SECONDS} s") from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    lines = err.getvalue().strip().splitlines()
    if status == 0:
        shutil.copyfile(pristine, project)  # accepted: the next example starts afresh
        return
    assert status in (2, 3), f"import {path.name}: exit {status}: {err.getvalue()[-800:]}"
    assert len(lines) == 1 and lines[0].startswith("simrate: error: "), err.getvalue()[-800:]
    assert not Path(f"{project}-wal").exists() and not Path(f"{project}-shm").exists()
    assert _digest(project) == before, f"import {path.name} refused, yet the project changed"


# ---------------------------------------------------------------- strategies

ROLE_NAMES = ["id", "item_id", "left", "right", "sentence1", "sentence2", "gold", "score",
              "reference", "similarity", "dataset", "genre", "annotator", "note", "rating:ana",
              "HITId", "AssignmentId", "WorkerId", "AssignmentStatus", "WorkTimeInSeconds",
              "Input.id1", "Input.left1", "Input.right1", "Answer.score1", "name", "low",
              "high", "step", "points", "value", "label"]
NUMBER_TEXTS = ["0", "3", "-3", "4.5", "5", "1e400", "-1e400", "1e-400", "1e308", "nan",
                "NaN", "inf", "-inf", "Infinity", "1_0", "٣", "３", "0x10", "9" * 400, "",
                " ", "-0", "2.3", "1e-320", "-50", "-5e9"]
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)  # surrogates too
CELL = st.one_of(st.sampled_from(NUMBER_TEXTS), st.sampled_from(ROLE_NAMES), ANY_TEXT,
                 st.sampled_from(['"', '""', 'a"b', "x,y", "x\ty", "x\ny", "\r", "\x00",
                                  "=1+2", "(3, 2)", "true", "----", "\ufeff"]))
RAW_JSON = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1e-400",
                            "9" * 5000, "[" * 5000 + "]" * 5000, '"\\ud800"', '"\\udfff x"',
                            '"\\ud83d\\ude00"', "null", "true", "{}", "[]", '"" ',
                            '{"a": 1, "a": 2}'])
JSON_SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                        st.floats(allow_nan=True, allow_infinity=True), ANY_TEXT,
                        st.sampled_from(NUMBER_TEXTS))


def _json_text(value: object, ascii_only: bool) -> str:
    return json.dumps(value, ensure_ascii=ascii_only)


JSON_VALUE = st.one_of(
    RAW_JSON,
    st.builds(_json_text, st.recursive(JSON_SCALAR, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(ANY_TEXT, inner, max_size=3)),
        max_leaves=8), st.booleans()))
_PAIRS = st.lists(st.tuples(st.one_of(st.sampled_from(ROLE_NAMES), ANY_TEXT), JSON_VALUE),
                 max_size=8)
#: Half the objects are pairs a reader can take (texts under left and right), so the
#: values beside them (ids, references, meta) get read too.
_READABLE = st.tuples(st.builds(_json_text, ANY_TEXT, st.booleans()),
                      st.builds(_json_text, ANY_TEXT, st.booleans()), _PAIRS).map(
    lambda parts: [("left", parts[0]), ("right", parts[1]), *parts[2]])
JSON_OBJECT = st.one_of(_PAIRS, _READABLE).map(
    lambda pairs: "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}")
JSON_LINES = st.lists(st.one_of(JSON_OBJECT, JSON_VALUE, st.just("")), min_size=1, max_size=6)


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@st.composite
def csv_files(draw) -> bytes:
    header = draw(st.lists(st.one_of(st.sampled_from(ROLE_NAMES), CELL), min_size=1,
                           max_size=8))
    rows = draw(st.lists(st.lists(CELL, max_size=len(header) + 2), max_size=8))
    delimiter = draw(st.sampled_from([",", "\t", ";"]))
    if draw(st.booleans()):
        out = io.StringIO()
        writer = csv.writer(out, delimiter=delimiter, lineterminator=draw(
            st.sampled_from(["\n", "\r\n", "\r"])))
        for row in [header, *rows]:
            writer.writerow(row)
        text = out.getvalue()
    else:
        text = "".join(delimiter.join(row) + "\n" for row in [header, *rows])
    prefix = draw(st.sampled_from(["", "\ufeff", "\ufeff\ufeff"]))
    return _encode(prefix + text)


XLSX_CELL = st.one_of(st.none(), st.booleans(), st.integers(-10**15, 10**15),
                      st.floats(allow_nan=False, allow_infinity=False),
                      st.sampled_from(NUMBER_TEXTS + ROLE_NAMES + ["=1+2", "=A1", "=SUM(",
                                                                   "#N/A"]),
                      st.text(max_size=10),
                      st.datetimes(min_value=datetime.datetime(1900, 3, 1),
                                   max_value=datetime.datetime(9999, 1, 1)))


@st.composite
def xlsx_files(draw) -> bytes:
    from openpyxl import Workbook
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    book = Workbook()
    sheet = book.active
    sheet.title = draw(st.sampled_from(["Sheet", "Ratings", "x"]))
    header = draw(st.lists(st.sampled_from(ROLE_NAMES), min_size=1, max_size=6))
    for row in [header, *draw(st.lists(st.lists(XLSX_CELL, max_size=7), max_size=6))]:
        sheet.append([ILLEGAL_CHARACTERS_RE.sub("", v) if isinstance(v, str) else v
                      for v in row])
    out = io.BytesIO()
    book.save(out)
    data = bytearray(out.getvalue())
    for share, value in draw(st.lists(st.tuples(st.integers(0, 9999), st.integers(0, 255)),
                                      max_size=3)):
        # damage inside the zip (bad CRCs, bad XML, a bad directory), placed by share of
        # the length: the saved size varies with the time stamp in the workbook
        data[share * len(data) // 10_000] = value
    return bytes(data)


# ---------------------------------------------------------------- properties (run in the child)

def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


@fuzz(EXAMPLES["bytes"])
@given(st.one_of(st.binary(max_size=3000),
                 st.lists(st.sampled_from([b"\t", b",", b"\n", b"\r", b'"', b"\x00", b"\xff",
                                           b"\xef\xbb\xbf", b"PK\x03\x04", b"<pyramid>",
                                           b"SQLite format 3\x00", b"id", b"left", b"score",
                                           b"{", b"}", b"3", b"-1e400"]),
                          max_size=60).map(b"".join)))
def random_bytes(data: bytes) -> None:
    _check_bytes(data)


@fuzz(EXAMPLES["json"])
@given(JSON_LINES)
def random_json(lines: list[str]) -> None:
    _check_bytes(_encode("\n".join(lines) + "\n"), ("fuzz.jsonl", "fuzz.json", "gold.jsonl"))


@fuzz(EXAMPLES["csv"])
@given(csv_files())
def random_csv(data: bytes) -> None:
    _check_bytes(data, ("fuzz.csv", "fuzz.tsv", "Batch_1_batch_results.csv", "fuzz.txt"))


@fuzz(EXAMPLES["xlsx"])
@given(xlsx_files())
def random_xlsx(data: bytes) -> None:
    _check_bytes(data, ("fuzz.xlsx",))


def run_in_child(which: str) -> None:
    """The child's entry point: cap the address space, then run one property."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    signal.signal(signal.SIGALRM, _alarm)
    {"bytes": random_bytes, "json": random_json, "csv": random_csv, "xlsx": random_xlsx}[which]()


def _run(which: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    code = f"from tests.formats.readers.test_reader_fuzz import run_in_child; run_in_child({which!r})"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-8000:]


def test_random_bytes_reach_every_reader():
    _run("bytes")


def test_random_json_reaches_every_reader():
    _run("json")


def test_random_csv_reaches_every_reader():
    _run("csv")


def test_random_xlsx_reaches_every_reader():
    _run("xlsx")
