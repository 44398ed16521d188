"""Reads of any source stay bounded: devices are refused, pipes read under the file limits.

Real processes throughout: the command line runs in a fresh interpreter with a cap on its
address space, reading a pipe whose writer never stops, or a device that never ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simrate.formats.intake.limits import MAX_INPUT_BYTES
from tests.support.capped import TIME_LIMIT, limit_memory, run_limited
from tests.support.helpers import ROOT, new_project, one_line_error

SAMPLES = ROOT / "sample_data"


#: Writers that never stop (until the reader closes the pipe).
ENDLESS = {
    "short lines": "import sys\nline = b'a fairly ordinary text\\tand another\\n' * 4096\n"
                   "while True: sys.stdout.buffer.write(line)",
    "one endless line": "import sys\nblock = b'x' * 65536\n"
                        "while True: sys.stdout.buffer.write(block)",
    "NUL bytes": "import sys\nblock = bytes(65536)\nwhile True: sys.stdout.buffer.write(block)",
}


def run_with_pipe(writer: str | bytes, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    """`simrate ARGS` with `{pipe}` in ARGS replaced by /dev/fd/N, the read end of a pipe
    fed by `writer` (Python code for an endless writer, or bytes written once)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    if isinstance(writer, bytes):
        feeder = subprocess.Popen([sys.executable, "-c",
                                   "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    else:
        feeder = subprocess.Popen([sys.executable, "-c", writer], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
    fd = feeder.stdout.fileno()
    argv = [a.replace("{pipe}", f"/dev/fd/{fd}") for a in args]
    started = time.monotonic()
    try:
        reader = subprocess.Popen([sys.executable, "-m", "simrate", *argv], env=env,
                                  pass_fds=[fd], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, preexec_fn=limit_memory)
        feeder.stdout.close()  # the reader holds the only read end now
        if isinstance(writer, bytes):
            feeder.stdin.write(writer)
            feeder.stdin.close()
        out, err = reader.communicate(timeout=TIME_LIMIT)
        elapsed = time.monotonic() - started
    finally:
        feeder.kill()
        feeder.wait()
    return subprocess.CompletedProcess(argv, reader.returncode, out, err), elapsed


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    new_project(path, n_items=0).close()
    return path


@pytest.mark.parametrize(("device", "extra"), [
    ("/dev/zero", []), ("/dev/urandom", []), ("/dev/zero", ["--format", "pairs"]),
    ("/dev/zero", ["--format", "ratings"]), ("/dev/urandom", ["--format", "turk"]),
    ("/dev/zero", ["--format", "pyramid"])])
def test_a_device_is_refused_at_once(project, device, extra):
    started = time.monotonic()
    result = run_limited("import", project, device, *extra)
    assert time.monotonic() - started < 30
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, f"{device}: is a device, not a file")


@pytest.mark.parametrize("kind", sorted(ENDLESS))
def test_an_endless_pipe_stops_at_a_limit(project, kind):
    result, elapsed = run_with_pipe(ENDLESS[kind], "import", str(project), "{pipe}")
    assert result.returncode == 2, result.stderr
    if kind == "short lines":
        one_line_error(result.stderr, f"larger than {MAX_INPUT_BYTES // 2**30} GiB")
    else:
        one_line_error(result.stderr, ":1: a line longer than 16 MiB")
    assert elapsed < TIME_LIMIT


def test_an_endless_pipe_of_crowd_results_stops_at_the_line_limit(project):
    writer = ("import sys\nsys.stdout.buffer.write(b'HITId,AssignmentId,WorkerId,"
              "AssignmentStatus,WorkTimeInSeconds,Input.id1,Answer.score1\\n')\n"
              "block = b'y' * 65536\nwhile True: sys.stdout.buffer.write(block)")
    result, _ = run_with_pipe(writer, "import", str(project), "{pipe}", "--format", "turk")
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, ":2: a line longer than 16 MiB")


def test_an_endless_pipe_of_ratings_stops_at_the_line_limit(project):
    writer = ("import sys\nsys.stdout.buffer.write(b'item_id,annotator,score\\nx:1,ann,')\n"
              "block = b'1' * 65536\nwhile True: sys.stdout.buffer.write(block)")
    result, _ = run_with_pipe(writer, "import", str(project), "{pipe}", "--format", "ratings")
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, ":2: a line longer than 16 MiB")


def test_an_endless_pyramid_pipe_stops_at_the_size_limit(tmp_path):
    writer = ("import sys\nsys.stdout.buffer.write(b'<pyramid><text>')\n"
              "block = b'<line>words</line>\\n' * 4096\n"
              "while True: sys.stdout.buffer.write(block)")
    result, _ = run_with_pipe(writer, "pyramid", "{pipe}", "--out", str(tmp_path / "o.tsv"))
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, f"larger than {MAX_INPUT_BYTES // 2**30} GiB")


def test_a_nul_byte_from_a_pipe_is_refused_as_from_a_file(project):
    data = b"id\tleft\tright\n1\ta\x00b\tc\n"
    result, _ = run_with_pipe(data, "import", str(project), "{pipe}")
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, ":2: a NUL byte")


@pytest.mark.parametrize(("sample", "args", "said"), [
    ("pairs.tsv", [], "20 items added (pairs)"),
    ("pairs.csv", ["--format", "pairs"], "items added (pairs)"),
])
def test_a_pipe_of_normal_size_is_read(project, sample, args, said):
    data = (SAMPLES / sample).read_bytes()
    result, _ = run_with_pipe(data, "import", str(project), "{pipe}", *args)
    assert result.returncode == 0, result.stderr
    assert said in result.stdout


def test_pipes_of_ratings_and_pyramids_are_read(tmp_path, project):
    run_limited("import", project, SAMPLES / "pairs.tsv").check_returncode()
    result, _ = run_with_pipe((SAMPLES / "ratings_long.csv").read_bytes(),
                              "import", str(project), "{pipe}")
    assert result.returncode == 0, result.stderr
    assert "58 ratings added" in result.stdout
    out = tmp_path / "o.tsv"
    result, _ = run_with_pipe((SAMPLES / "D9901.pyr").read_bytes(), "pyramid", "{pipe}",
                              "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8").count("\n") > 100


def test_a_workbook_from_a_pipe_is_named(project):
    result, _ = run_with_pipe((SAMPLES / "pairs.xlsx").read_bytes(), "import", str(project),
                              "{pipe}")
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "a zip file (a workbook?)")


def test_a_scale_from_a_pipe_is_read(tmp_path):
    project = tmp_path / "q.simrate"
    result, _ = run_with_pipe(b'{"name": "q", "low": 0, "high": 5, "step": 1}', "new",
                              str(project), "--scale", "{pipe}")
    assert result.returncode == 0, result.stderr
    assert project.exists()


READERS_ON_A_DEVICE = """
import sys
from pathlib import Path
from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import load_scale
from simrate.formats.readers.detect import detect_format
from simrate.formats.readers.jsonl import read_jsonl_pairs
from simrate.formats.pyramids.pyramid import read_pyramid
from simrate.formats.readers.ratings import read_ratings
from simrate.formats.readers.ratings_fast import read_long_ratings_fast
from simrate.formats.readers.scores import read_gold
from simrate.formats.intake.pipeline import bound, load_table, read_text
from simrate.formats.readers.turk import read_turk

readers = [detect_format, read_text, load_table, lambda p: bound(p, "table", True), read_turk, read_ratings,
           read_pyramid, read_jsonl_pairs, lambda p: read_gold(p, "sts")]
for reader in readers:
    try:
        reader(Path("/dev/zero"))
    except SimrateError as exc:
        assert "is a device" in str(exc), exc
    else:
        sys.exit(f"{reader} read a device")
assert read_long_ratings_fast(Path("/dev/zero")) is None  # no .csv name: never read
try:
    load_scale("/dev/zero")
except SimrateError:
    pass
else:
    sys.exit("load_scale read a device")
print("all refused")
"""


def test_every_reader_refuses_a_device_in_process():
    """The readers themselves, called as the window calls them, not only the command line
    (in a child with capped memory, so that a regression fails rather than fills memory)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", READERS_ON_A_DEVICE], env=env,
                            capture_output=True, text=True, timeout=TIME_LIMIT,
                            preexec_fn=limit_memory)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "all refused" in result.stdout


@pytest.mark.parametrize("name", ["big.tsv", "big.jsonl", "Batch_1_batch_results.csv"])
def test_a_file_over_the_input_limit_is_refused_before_it_is_read(tmp_path, project, name):
    """A sparse file: 1 GiB and a byte that take no disk space, refused from its size."""
    path = tmp_path / name
    with open(path, "wb") as stream:
        stream.truncate(MAX_INPUT_BYTES + 1)
    started = time.monotonic()
    result = run_limited("import", project, path)
    assert time.monotonic() - started < 30
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, f"{path}: larger than 1 GiB")


def test_process_substitution_of_two_files_and_a_slow_writer(project):
    """`simrate import P <(cat a) <(sleep; cat b)`: each pipe is read once, in full, and
    telling its format does not use up what the reader then reads."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    script = (f'"{sys.executable}" -m app import "{project}" <(cat "{SAMPLES / "pairs.tsv"}") '
              f'<(sleep 0.5; cat "{SAMPLES / "pairs.csv"}") && '
              f'"{sys.executable}" -m app import "{project}" '
              f'<(sleep 0.5; cat "{SAMPLES / "ratings_long.csv"}")')
    result = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                            timeout=TIME_LIMIT, preexec_fn=limit_memory)
    assert result.returncode == 0, result.stderr
    added = [line for line in result.stdout.splitlines() if "added" in line]
    assert "20 items added" in added[0] and "12 items added" in added[1], result.stdout
    assert "58 ratings added" in added[2], result.stdout


def test_a_workbook_through_a_named_pipe_is_read_in_memory(tmp_path, project):
    """A FIFO named .xlsx: openpyxl and the zip checks read the pipe's bytes in memory."""
    fifo = tmp_path / "book.xlsx"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f'cat "{SAMPLES / "pairs.xlsx"}" > "{fifo}"'])
    try:
        result = run_limited("import", project, fifo)
    finally:
        writer.wait(timeout=TIME_LIMIT)
    assert result.returncode == 0, result.stderr
    assert "10 items added" in result.stdout
