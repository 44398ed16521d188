"""Every option and importer reads a user-named file through the one bounded reader
(core/base/inputs.py, issue 43): a named pipe with no writer, a device and a file over its
limit are each refused with exit 2 and one line, in bounded time and memory, and the
project's bytes are unchanged. Real processes with capped memory, and the reader measured
in process."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from simrate.commands.team.crowd_cmd import _markdown_file
from simrate.core.base.errors import SimrateError
from simrate.core.base.inputs import MAX_MARKDOWN_BYTES, WRITER_WAIT, read_bounded
from simrate.formats.intake.limits import MAX_INPUT_BYTES, read_input
from tests.support.capped import run_limited
from tests.support.helpers import new_project, one_line_error

#: Each option or importer that reads a file: (argv with {f} for the file, the file's
#: name, the limit a larger file meets).
READERS = {
    "instructions": (["crowd", "study", "{p}", "s", "--per-task", "2", "--instructions", "{f}"],
                     "how.md", "larger than 1 MiB"),
    "consent": (["crowd", "study", "{p}", "s", "--per-task", "2", "--consent", "{f}"],
                "consent.md", "larger than 1 MiB"),
    "import": (["import", "{p}", "{f}"], "pairs.tsv", "larger than 1 GiB"),
    "import ratings": (["import", "{p}", "{f}", "--format", "ratings"], "r.csv",
                       "larger than 1 GiB"),
    "import turk": (["import", "{p}", "{f}", "--format", "turk"], "Batch_1_batch_results.csv",
                    "larger than 1 GiB"),
    "import xlsx": (["import", "{p}", "{f}"], "book.xlsx", "larger than 1 GiB"),
    "import machine": (["import", "{p}", "{f}", "--machine", "m"], "m.tsv",
                       "larger than 1 GiB"),
    "import pyramid": (["import", "{p}", "{f}", "--format", "pyramid"], "D1.pyr",
                       "larger than 1 GiB"),
    "pyramid": (["pyramid", "{f}", "--out", "{o}"], "D1.pyr", "larger than 1 GiB"),
    "scale": (["new", "{o}", "--scale", "{f}"], "scale.json", "larger than 1 MiB"),
    "agreement": (["agreement", "--ratings", "{f}"], "r.csv", "larger than 1 GiB"),
    "evaluate": (["evaluate", "--task", "sts", "{f}", "{f}"], "gold.txt", "larger than 1 GiB"),
}


def run_reader(tmp_path: Path, name: str, target: Path) -> tuple:
    """Run READERS[name] on `target`: (result, seconds, project bytes before, after)."""
    project = tmp_path / "p.simrate"
    if not project.exists():
        new_project(project, n_items=3).close()
    before = project.read_bytes()
    argv = [a.replace("{p}", str(project)).replace("{f}", str(target))
            .replace("{o}", str(tmp_path / "out.simrate")) for a in READERS[name][0]]
    started = time.monotonic()
    result = run_limited(*argv)
    return result, time.monotonic() - started, before, project.read_bytes()


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_named_pipe_with_no_writer_is_refused_not_waited_for(tmp_path, name):
    fifo = tmp_path / READERS[name][1]
    os.mkfifo(fifo)
    result, seconds, before, after = run_reader(tmp_path, name, fifo)
    assert result.returncode == 2, result.stderr
    if name in ("instructions", "consent"):  # regular files only
        one_line_error(result.stderr, f"{fifo}: is a pipe or socket, not a file")
    else:
        one_line_error(result.stderr, f"{fifo}: a pipe with nothing writing to it")
    assert before == after and seconds < 60


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_device_is_refused_at_once(tmp_path, name):
    result, seconds, before, after = run_reader(tmp_path, name, Path("/dev/zero"))
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "/dev/zero: is a device, not a file")
    assert before == after and seconds < 60


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_file_over_its_limit_is_refused_from_its_size(tmp_path, name):
    """A sparse file one byte over the limit (no disk space used), never read."""
    big = tmp_path / READERS[name][1]
    limit = MAX_INPUT_BYTES if "GiB" in READERS[name][2] else MAX_MARKDOWN_BYTES
    with open(big, "wb") as stream:
        stream.truncate(max(limit + 1, 100 * 2**20 if limit < MAX_INPUT_BYTES else 0))
    result, seconds, before, after = run_reader(tmp_path, name, big)
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, f"{big}: {READERS[name][2]}")
    assert before == after and seconds < 60


def measured(read) -> tuple[float, int, BaseException | None]:
    """(seconds, peak bytes allocated, the error) of `read()`."""
    tracemalloc.start()
    started = time.monotonic()
    error = None
    try:
        read()
    except SimrateError as exc:
        error = exc
    seconds = time.monotonic() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, error


def test_the_reader_refuses_in_bounded_time_and_memory(tmp_path):
    fifo, big_md, big_data = tmp_path / "f.tsv", tmp_path / "big.md", tmp_path / "big.tsv"
    os.mkfifo(fifo)
    with open(big_md, "wb") as stream:
        stream.truncate(100 * 2**20)  # the 100 MB instructions: 7.6 s and 304 MB
    with open(big_data, "wb") as stream:
        stream.truncate(MAX_INPUT_BYTES + 1)
    cases = {"fifo, no writer": (lambda: read_input(fifo), WRITER_WAIT + 0.5),
             "/dev/zero as --instructions": (lambda: _markdown_file("/dev/zero"), 0.2),
             "/dev/zero as data": (lambda: read_input("/dev/zero"), 0.2),
             "100 MB --instructions": (lambda: _markdown_file(str(big_md)), 0.2),
             "1 GiB + 1 data file": (lambda: read_input(big_data), 0.2),
             "fifo as --consent": (lambda: _markdown_file(str(fifo)), 0.2)}
    for what, (read, most) in cases.items():
        seconds, peak, error = measured(read)
        print(f"{what}: refused in {seconds * 1000:.1f} ms, peak {peak / 1024:.0f} KiB")
        assert error is not None and "\n" not in str(error), what
        assert seconds < most and peak < 1 * 2**20, (what, seconds, peak)


def test_a_writer_that_comes_late_or_writes_nothing(tmp_path):
    fifo = tmp_path / "late.tsv"
    os.mkfifo(fifo)

    def write(data: bytes, delay: float) -> None:
        time.sleep(delay)
        try:
            with open(fifo, "wb") as stream:
                stream.write(data)
        except BrokenPipeError:
            pass  # the reader stopped at its limit

    late = threading.Thread(target=write, args=(b"id\tleft\tright\n1\ta\tb\n", 0.2))
    late.start()
    assert read_bounded(fifo, 1000) == b"id\tleft\tright\n1\ta\tb\n"
    late.join()
    empty = threading.Thread(target=write, args=(b"", 0.1))
    empty.start()
    assert read_bounded(fifo, 1000) == b""  # a writer came and went: an empty input
    empty.join()
    endless = threading.Thread(target=write, args=(b"x" * 5000, 0.0))
    endless.start()
    with pytest.raises(SimrateError, match="larger than"):
        read_bounded(fifo, 1000)
    endless.join()
