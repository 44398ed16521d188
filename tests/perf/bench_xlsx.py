"""Benchmark: XLSX export, the previous writer against this one, and the two libraries' floors.

Run: python tests/perf/bench_xlsx.py [--items 200000] [--repeat 3] [--baseline REV]
                                     [--parts export,sheets]

Builds one project of N items x 3 ratings (tests/perf/bench_export.py), then, in one run:

export  `simrate export PROJECT out.xlsx --allow-unresolved` as a whole process, once with
        the app/ of git revision --baseline (unpacked with `git archive`; by default the last
        commit whose report wrote every cell through openpyxl) and once with this checkout,
        the two alternating; median seconds, largest peak RSS, ratio old / new.
sheets  the two big sheets (gold, ratings) of the same project written in-process by
        (a) openpyxl's write-only mode, plain values appended row by row (styled cells only
        for the header); (b) XlsxWriter's constant_memory mode, write_string /
        write_number / write_boolean per cell, strings_to_formulas/urls/numbers off;
        (c) this checkout's report writer (header by openpyxl, rows serialised by
        app/formats/spreadsheet/xlsx_rows.py). Each run is its own process, for its peak RSS.

Target (issue 18): XLSX export of 200,000 items x 3 raters under 30 s and 600 MB.
XlsxWriter is needed only here (pip install XlsxWriter); without it (b) is left out.
Peak RSS of the `sheets` runs includes loading the project's tables, done alike by all.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.perf.bench_export import build_project  # noqa: E402

#: The last commit whose XLSX report wrote every cell through openpyxl's write-only mode.
BASELINE = "928a5af"
#: Runs one command; prints its wall time and the peak RSS of its process (children).
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[2:], cwd=sys.argv[1], stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
if done.returncode:
    sys.stderr.write(done.stderr.decode())
print(json.dumps({"seconds": seconds, "peak_mb": peak, "rc": done.returncode,
                  "said": done.stdout.decode().strip().splitlines()[-1:]}))
"""
#: Writes the gold and ratings sheets of a project with one writer, in-process.
SHEETS = """
import sys, time
sys.path.insert(0, sys.argv[1])
from tests.perf.bench_xlsx import load_frames, WRITERS
gold, ratings, scale = load_frames(sys.argv[2])
start = time.perf_counter()
WRITERS[sys.argv[3]](gold, ratings, scale, sys.argv[4])
print(time.perf_counter() - start)
"""


def load_frames(project_path: str) -> tuple:
    """(gold table, long ratings, scale) of a project, as the export reads them."""
    from simrate.core.project import Project

    with Project.open(project_path) as project:
        return project.gold(), project.ratings(), project.scale


def _rows(gold, ratings) -> tuple[list[str], list, list]:
    """Header and plain row values of both sheets, typed as the report types them."""
    from simrate.formats.output.export import BOOL_COLUMNS, TEXT_COLUMNS, table_header

    header = table_header(gold)
    columns = []
    for name in header:
        series = gold[name]
        if name in BOOL_COLUMNS:
            columns.append(series.to_numpy(dtype=bool).tolist())
        elif name == "n_ratings":
            columns.append(series.to_numpy(dtype="int64").tolist())
        elif name in TEXT_COLUMNS:
            columns.append([v if isinstance(v, str) and v else None for v in series.tolist()])
        else:
            columns.append([None if v != v else v for v in series.to_numpy(dtype=float).tolist()])
    status = ["skipped" if s else None for s in ratings["skipped"].tolist()]
    notes = [v or None for v in ratings["note"].fillna("").tolist()]
    scores = [None if v != v else v for v in ratings["score"].to_numpy(dtype=float).tolist()]
    rating_rows = zip(ratings["item_id"].tolist(), ratings["annotator"].tolist(), scores,
                      status, notes, strict=True)
    return header, zip(*columns, strict=True), rating_rows


def write_openpyxl(gold, ratings, scale, out: str) -> None:
    """Both sheets through openpyxl's write-only mode (plain values, styled header)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    header, gold_rows, rating_rows = _rows(gold, ratings)
    book = Workbook(write_only=True)
    for title, names, rows in (("gold", header, gold_rows),
                               ("ratings", ["item_id", "annotator", "score", "status", "note"],
                                rating_rows)):
        sheet = book.create_sheet(title)
        cells = []
        for name in names:
            cell = WriteOnlyCell(sheet, name)
            cell.font = Font(bold=True)
            cells.append(cell)
        sheet.append(cells)
        for row in rows:
            sheet.append(row)
    book.save(out)


def write_xlsxwriter(gold, ratings, scale, out: str) -> None:
    """Both sheets through XlsxWriter's constant_memory mode, one typed call per cell."""
    import xlsxwriter

    header, gold_rows, rating_rows = _rows(gold, ratings)
    book = xlsxwriter.Workbook(out, {"constant_memory": True, "strings_to_formulas": False,
                                     "strings_to_urls": False, "strings_to_numbers": False})
    bold = book.add_format({"bold": True})
    for title, names, rows in (("gold", header, gold_rows),
                               ("ratings", ["item_id", "annotator", "score", "status", "note"],
                                rating_rows)):
        sheet = book.add_worksheet(title)
        text, number, boolean = sheet.write_string, sheet.write_number, sheet.write_boolean
        for col, name in enumerate(names):
            text(0, col, name, bold)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, str):
                    text(r, c, value)
                elif isinstance(value, bool):
                    boolean(r, c, value)
                else:
                    number(r, c, value)
    book.close()


def write_report(gold, ratings, scale, out: str) -> None:
    """Both sheets through this checkout's report writer (no agreement sheet)."""
    from simrate.formats.spreadsheet.xlsx_report import write_xlsx_report

    write_xlsx_report(gold, out, scale, ratings=ratings)


WRITERS = {"openpyxl": write_openpyxl, "xlsxwriter": write_xlsxwriter, "report": write_report}


def timed(argv: list[str], cwd: Path) -> dict:
    """Wall seconds and peak RSS of one process."""
    out = subprocess.run([sys.executable, "-c", WRAPPER, str(cwd), *argv], capture_output=True,
                         text=True, check=True)
    result = json.loads(out.stdout)
    if result["rc"]:
        raise SystemExit(f"failed: {' '.join(argv)}\n{out.stderr}")
    return result


def summary(runs: list[dict]) -> dict:
    """Median seconds and largest peak of some runs."""
    return {"seconds": statistics.median(r["seconds"] for r in runs),
            "peak_mb": max(r["peak_mb"] for r in runs), "all": [r["seconds"] for r in runs]}


def baseline_tree(rev: str, folder: Path) -> Path:
    """The app/ package of git revision `rev`, unpacked into `folder`."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "app"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def measure_export(project: Path, folder: Path, rev: str, repeat: int) -> dict:
    """Whole-process `simrate export` with the baseline's app/ and with this checkout's."""
    trees = {f"export, {rev} (openpyxl per cell)": baseline_tree(rev, folder / "baseline"),
             "export, this checkout": ROOT}
    runs = {name: [] for name in trees}
    for _ in range(repeat):  # alternate, so load on the machine falls on both alike
        for name, tree in trees.items():
            argv = [sys.executable, "-m", "simrate", "export", str(project),
                    str(folder / "out.xlsx"), "--allow-unresolved"]
            runs[name].append(timed(argv, tree))
    return {name: summary(found) for name, found in runs.items()}


def measure_sheets(project: Path, folder: Path, repeat: int, writers: list[str]) -> dict:
    """The gold and ratings sheets by each writer, each run its own process."""
    if "xlsxwriter" in writers and importlib.util.find_spec("xlsxwriter") is None:
        print("XlsxWriter is not installed (pip install XlsxWriter): left out", flush=True)
        writers = [name for name in writers if name != "xlsxwriter"]
    runs = {name: [] for name in writers}
    for _ in range(repeat):
        for name in writers:
            out = folder / f"sheets-{name}.xlsx"
            argv = [sys.executable, "-c", SHEETS, str(ROOT), str(project), name, str(out)]
            result = timed(argv, ROOT)
            # the writer's own seconds (the child prints them), without start-up and loading
            result["seconds"] = float(result["said"][0])
            runs[name].append(result)
    return {f"sheets, {name} (writing only)": summary(found) for name, found in runs.items()}


def render(results: dict, reference: str) -> list[str]:
    """Table lines: median seconds, peak MB, ratio of the reference's seconds to each."""
    lines = [f"{'what':<44}{'median s':>10}{'peak MB':>9}{'ref / this':>12}   runs (s)"]
    for name, got in results.items():
        ratio = results[reference]["seconds"] / got["seconds"] if reference in results else 0
        runs = " ".join(f"{s:.1f}" for s in got["all"])
        lines.append(f"{name:<44}{got['seconds']:>10.2f}{got['peak_mb']:>9.0f}"
                     f"{ratio:>12.2f}   {runs}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", default=BASELINE, help="git revision of the old writer")
    parser.add_argument("--parts", default="export,sheets")
    parser.add_argument("--writers", default="openpyxl,xlsxwriter,report")
    args = parser.parse_args()
    parts = args.parts.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project = folder / "bench.simrate"
        built = build_project(project, args.items)
        print(f"{args.items:,} items x 3 ratings, built in {built:.1f} s; python "
              f"{sys.version.split()[0]}, {os.cpu_count()} cpus, load average "
              f"{os.getloadavg()[0]:.1f}; median of {args.repeat}", flush=True)
        if "export" in parts:
            found = measure_export(project, folder, args.baseline, args.repeat)
            print("\n".join(render(found, next(iter(found)))), flush=True)
        if "sheets" in parts:
            found = measure_sheets(project, folder, args.repeat, args.writers.split(","))
            print("\n".join(render(found, next(iter(found)))), flush=True)


if __name__ == "__main__":
    main()
