"""Hostile file sizes are refused within 10 s and 500 MB, naming the limit that was hit."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook

from simrate.core.project import Project
from simrate.formats.intake.limits import MAX_COLUMNS, MAX_XLSX_UNPACKED
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, new_project, one_line_error

SECONDS, MEGABYTES = 10.0, 500


#: Runs `simrate ARGS` and writes the process's peak resident memory (VmHWM, in KiB) to the
#: file named by SIMRATE_HWM_FILE. The peak is read from /proc because the rusage of a child
#: counts from its parent's size at fork (Linux carries the parent's high-water mark across
#: exec), so a test process that had grown would be measured instead of the import.
_MEASURED = """
import os, sys
from simrate.cli import main
try:
    status = main(sys.argv[1:])
finally:
    with open("/proc/self/status") as table:
        peak = next(line.split()[1] for line in table if line.startswith("VmHWM"))
    with open(os.environ["SIMRATE_HWM_FILE"], "w") as out:
        out.write(peak)
sys.exit(status)
"""


def _import_measured(project, path) -> tuple[int, str, float, float]:
    """`simrate import` in a child process: (status, stderr, seconds, peak MB)."""
    hwm = Path(str(project) + ".hwm")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIMRATE_HWM_FILE": str(hwm)}
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _MEASURED, "import", str(project), str(path)],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    return proc.returncode, proc.stderr.decode(), seconds, int(hwm.read_text()) / 1024


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path, 0).close()
    return path


def _refused_quickly(project, path, *needles):
    status, err, seconds, megabytes = _import_measured(project, path)
    assert status == 2, err
    one_line_error(err, str(path), *needles)
    assert seconds < SECONDS and megabytes < MEGABYTES, (seconds, megabytes)
    assert Project.open(project).n_items == 0


def test_200_mb_single_line_tsv_with_tabs(tmp_path, project):
    path = tmp_path / "huge.tsv"
    with open(path, "wb") as fh:
        fh.write(b"item_id\tsentence1\tsentence2\n")
        for _ in range(200):
            fh.write(b"x\t" * (1 << 19))
        fh.write(b"\n")
    _refused_quickly(project, path, f"{path}:2:", "a line longer than 16 MiB")


@pytest.mark.parametrize("suffix", [".tsv", ".csv"])
def test_too_many_columns(tmp_path, project, suffix):
    sep = "\t" if suffix == ".tsv" else ","
    path = tmp_path / f"wide{suffix}"
    path.write_text(sep.join(["item_id", "sentence1", "sentence2"]) + "\n"
                    + sep.join(["a"] * (MAX_COLUMNS + 5)) + "\n")
    _refused_quickly(project, path, f"{MAX_COLUMNS + 5:,} columns", f"at most {MAX_COLUMNS:,}")


def test_field_over_the_text_limit_names_the_limit(capsys, tmp_path, project):
    path = tmp_path / "long.csv"
    path.write_text('item_id,sentence1,sentence2\na,"' + "w" * 1_000_001 + '",b\n')
    result = simrate(capsys, "import", project, path)
    assert result.status == 2
    one_line_error(result.err, f"{path}:2:", "longer than 1,000,000 characters")


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_own_export_of_a_200k_text_reads_back(capsys, tmp_path, project, fmt):
    text = "lorem, \"ipsum\"\tdolor\n" * 10_000  # 210,000 characters
    with Project.open(project) as p:
        from tests.support.helpers import make_items
        items = make_items(1)
        items["left"] = [text]
        p.import_items(items)
        p.rate("x:1", "ann", 2.0)
    out = tmp_path / f"gold.{fmt}"
    assert simrate(capsys, "export", project, out).status == 0
    again = tmp_path / "again.simrate"
    new_project(again, 0).close()
    result = simrate(capsys, "import", again, out, "--format", "pairs")
    assert result.status == 0, result.err
    assert Project.open(again).item("x:1")["left"] == text


def _padded_workbook(path, padding: int) -> None:
    """A real workbook whose sheet holds `padding` bytes of whitespace: a zip bomb."""
    book = Workbook()
    book.active.append(["item_id", "sentence1", "sentence2"])
    book.active.append(["a", "b", "c"])
    plain = path.with_name("plain.xlsx")
    book.save(plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename != "xl/worksheets/sheet1.xml":
                dst.writestr(info, data)
                continue
            head, _, tail = data.partition(b"<sheetData>")
            with dst.open(info.filename, "w", force_zip64=True) as out:
                out.write(head)
                block = b" " * (1 << 24)
                for _ in range(padding // len(block)):
                    out.write(block)
                out.write(b"<sheetData>" + tail)


def test_xlsx_bomb_is_refused_before_unpacking(tmp_path, project):
    path = tmp_path / "bomb.xlsx"
    _padded_workbook(path, MAX_XLSX_UNPACKED + 48 * 2**20)
    assert path.stat().st_size < 2**20
    _refused_quickly(project, path, "unpacks to 304 MiB", "up to 256 MiB unpacked")


def test_xlsx_claiming_a_huge_sheet_is_read_without_padding(tmp_path, project):
    book = Workbook()
    sheet = book.active
    sheet.append(["item_id", "sentence1", "sentence2"])
    sheet.append(["a", "left", "right"])
    plain = tmp_path / "plain.xlsx"
    book.save(plain)
    path = tmp_path / "claims.xlsx"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = re.sub(rb'<dimension ref="A1:C2"\s*/>',
                              b'<dimension ref="A1:XFD1048576" />', data)
                assert b"XFD1048576" in data
            dst.writestr(info, data)
    status, err, seconds, megabytes = _import_measured(project, path)
    assert status == 0, err
    assert seconds < SECONDS and megabytes < MEGABYTES, (seconds, megabytes)
    assert Project.open(project).item("a")["right"] == "right"
