"""Gold exports: TSV, CSV, JSONL, STS and PIT key files, and (via xlsx_report) XLSX.

Every file is written atomically (app.formats.atomic). Conventions, all documented in the
README: UTF-8 without a byte-order mark; `\\n` line ends; numbers written in Python's
shortest exact form (`3.25`, `1.6666666666666667`), so a reader gets the same float back;
a missing number (no gold, the sd of one rating, a rater who did not rate) is an empty
field in TSV/CSV and `null` in JSONL; booleans are `true`/`false`. A text field is quoted
(doubling its quotes) when it holds the delimiter, a quote, CR or LF, and never otherwise,
so texts survive byte for byte, including a leading `=`, `+`, `-` or `@`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from app.core.errors import RuleError, SimrateError
from app.core.gold import (
    GOLD_COLUMNS,
    RATING_PREFIX,
    annotator_columns,
    compute_gold,
    second_look_items,
    unresolved_counts,
)
from app.core.scale import Scale
from app.formats.atomic import atomic_open, check_writable_target
from app.formats.pit import LABEL_FILE_WORDS, label_of_score

FORMATS = ("tsv", "csv", "xlsx", "sts", "pit", "jsonl", "pyramid")
#: A string as JSON text without ASCII escapes (what json.dumps(ensure_ascii=False) writes).
encode_json_text = json.encoder.encode_basestring
#: File name endings and the format they choose when --format is not given.
EXTENSIONS = {
    ".tsv": "tsv", ".tab": "tsv", ".csv": "csv", ".xlsx": "xlsx", ".jsonl": "jsonl",
    ".ndjson": "jsonl", ".txt": "sts", ".gs": "sts", ".label": "pit", ".output": "pit",
}
TEXT_COLUMNS = ("item_id", "dataset", "genre", "left", "right", "source", "note")
BOOL_COLUMNS = ("flagged", "adjudicated")
CHUNK_ROWS = 20_000
#: progress(rows written, rows in all) after each chunk; raising in it abandons the export.
Progress = Callable[[int, int], None]


@dataclass
class ExportReport:
    """What an export wrote, for the command line and the GUI to tell the user."""

    path: Path
    format: str
    format_from_extension: bool
    items: int
    sources: dict[str, int] = field(default_factory=dict)
    flagged: int = 0
    unrated: int = 0
    second_look: int = 0
    warnings: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- choosing
def choose_format(out: str | Path, given: str | None) -> tuple[str, bool]:
    """(format, chosen from the extension?) for an output path and an optional --format."""
    if given:
        if given not in FORMATS:
            raise SimrateError(f"unknown export format {given!r}; choose one of: "
                               f"{', '.join(FORMATS)}")
        return given, False
    suffix = Path(out).suffix.lower()
    if suffix in EXTENSIONS:
        return EXTENSIONS[suffix], True
    known = ", ".join(sorted(EXTENSIONS))
    raise SimrateError(f"cannot tell the export format from the name (known endings: {known}); "
                       f"give --format {{{','.join(FORMATS)}}}", out)


def check_output(out: str | Path, project_path: str | Path) -> Path:
    """The output path, refused when it is the project file (or its journal) or unwritable."""
    out = Path(out)
    project_path = Path(project_path)
    guarded = [project_path] + [Path(f"{project_path}{s}") for s in ("-wal", "-shm", "-journal")]
    for path in guarded:
        same = out.resolve() == path.resolve()
        if not same and out.exists() and path.exists():
            same = os.path.samefile(out, path)
        if same:
            raise SimrateError("is the project file itself; choose another output name", out)
    return check_writable_target(out)


def check_pit_scale(scale: Scale) -> None:
    """PIT labels are defined on the 0-5 expert scale only."""
    if scale.low != 0 or scale.high != 5:
        raise SimrateError(f"the pit format needs a 0-5 scale, and this project's scale is "
                           f"{scale.describe()}; export tsv, csv, jsonl, xlsx or sts instead")


def check_resolved(gold: pd.DataFrame, where: str | Path | None = None) -> dict[str, int]:
    """Counts of flagged and unrated items; RuleError (exit 3) naming them if there are any."""
    counts = unresolved_counts(gold)
    problems = []
    if counts["flagged"]:
        problems.append(f"{counts['flagged']} flagged item{'s' * (counts['flagged'] != 1)} "
                        "not adjudicated")
    if counts["unrated"]:
        problems.append(f"{counts['unrated']} item{'s' * (counts['unrated'] != 1)} "
                        "with no rating")
    if problems:
        raise RuleError(f"export refused: {' and '.join(problems)} "
                        f"(of {len(gold)}); adjudicate or rate them, or give "
                        "--allow-unresolved", where)
    return counts


# ----------------------------------------------------------------------------- cells
def number_texts(values: np.ndarray) -> list[str]:
    """Numbers in shortest exact form (repr), NaN as an empty string.

    Scores, means and spreads take few distinct values, so each is formatted once.
    """
    values = np.asarray(values, dtype="float64")
    distinct, position = np.unique(values, return_inverse=True)
    texts = np.array(["" if v != v else repr(float(v)) for v in distinct.tolist()],
                     dtype=object)
    return texts[position.reshape(-1)].tolist()


def quote_texts(values: Iterable[str], delimiter: str) -> list[str]:
    """Texts quoted only where needed (delimiter, quote, CR, LF), quotes doubled."""
    special = re.compile("[" + re.escape(delimiter) + '"\n\r]').search
    return [('"' + text.replace('"', '""') + '"') if special(text) else text
            for text in ("" if v is None or v != v else str(v) for v in values)]


def _quoted_column(values: pd.Series, delimiter: str) -> list[str]:
    """A text column quoted where needed; the search runs over the column at once."""
    texts = values.fillna("").astype(object).tolist()
    joined = "\x00".join(texts)  # one scan finds whether any text needs quotes
    if not any(ch in joined for ch in (delimiter, '"', "\n", "\r")):
        return texts
    return quote_texts(texts, delimiter)


def _column_texts(gold: pd.DataFrame, column: str, delimiter: str) -> list[str]:
    """One column of the gold table as field texts."""
    values = gold[column]
    if column in TEXT_COLUMNS:
        return _quoted_column(values, delimiter)
    if column in BOOL_COLUMNS:
        return ["true" if v else "false" for v in values.to_numpy(dtype=bool)]
    if column == "n_ratings":
        return [str(int(v)) for v in values.to_numpy()]
    return number_texts(values.to_numpy(dtype="float64"))


def table_header(gold: pd.DataFrame) -> list[str]:
    """The header row: GOLD_COLUMNS then rating:<annotator> columns."""
    return GOLD_COLUMNS + annotator_columns(gold)


# ----------------------------------------------------------------------------- writers
def row_chunks(total: int) -> Iterable[tuple[int, int]]:
    """(start, stop) of each chunk of CHUNK_ROWS rows, so progress can be told between them."""
    for start in range(0, total, CHUNK_ROWS):
        yield start, min(start + CHUNK_ROWS, total)


def write_table(gold: pd.DataFrame, handle: IO[str], delimiter: str,
                progress: Progress | None = None) -> None:
    """TSV (delimiter tab) or CSV (comma): a header row, then one row per item."""
    header = table_header(gold)
    handle.write(delimiter.join(quote_texts(header, delimiter)) + "\n")
    total = len(gold)
    for start, stop in row_chunks(total):
        part = gold.iloc[start:stop]
        columns = [_column_texts(part, name, delimiter) for name in header]
        handle.write("".join(delimiter.join(row) + "\n" for row in zip(*columns, strict=True)))
        if progress:
            progress(stop, total)


def _json_fragments(part: pd.DataFrame, column: str) -> list[str]:
    """One column as JSON value texts, each formatted once per distinct number."""
    if column in TEXT_COLUMNS:
        return [encode_json_text(v) for v in part[column].fillna("").astype(object).tolist()]
    if column in BOOL_COLUMNS:
        return ["true" if v else "false" for v in part[column].to_numpy(dtype=bool)]
    if column == "n_ratings":
        return [str(int(v)) for v in part[column].to_numpy()]
    return [t or "null" for t in number_texts(part[column].to_numpy(dtype="float64"))]


def _jsonl_lines(part: pd.DataFrame) -> list[str]:
    """The JSONL lines of some rows, built from column texts rather than json.dumps per row."""
    raters = annotator_columns(part)
    columns = table_header(part)
    # a str.format template with each key written once; braces in names are escaped
    template = "{{" + ", ".join(encode_json_text(c).replace("{", "{{").replace("}", "}}")
                                + ": {}" for c in columns) + ', "ratings": {}}}'
    rater_keys = [encode_json_text(c[len(RATING_PREFIX):]) + ": " for c in raters]
    fragments = [_json_fragments(part, c) for c in columns]
    scores = fragments[len(GOLD_COLUMNS):]
    objects = ["{" + ", ".join(k + v for k, v in zip(rater_keys, row, strict=True)
                               if v != "null") + "}"
               for row in zip(*scores, strict=True)] if raters else ["{}"] * len(part)
    return [template.format(*row) for row in zip(*fragments, objects, strict=True)]


def write_jsonl(gold: pd.DataFrame, handle: IO[str], progress: Progress | None = None) -> None:
    """One JSON object per line: the TSV fields in order, then a `ratings` object.

    A missing number is null; `ratings` maps each annotator who scored the item to the score.
    """
    total = len(gold)
    for start, stop in row_chunks(total):
        handle.write("".join(line + "\n" for line in _jsonl_lines(gold.iloc[start:stop])))
        if progress:
            progress(stop, total)


def write_sts(gold: pd.DataFrame, handle: IO[str]) -> None:
    """One gold score per line in project order, three decimals; an empty line for no gold."""
    handle.write("".join(("" if v != v else f"{v:.3f}") + "\n"
                         for v in gold["gold"].to_numpy(dtype="float64")))


def pit_label(gold_score: float) -> str:
    """`true` (4-5), `----` (3) or `false` (0-2) of a 0-5 gold score rounded half up."""
    return LABEL_FILE_WORDS[label_of_score(gold_score)]


def write_pit(gold: pd.DataFrame, handle: IO[str], scale: Scale) -> None:
    """`label<TAB>score` per item: score = gold / scale high at 4 decimals; empty for no gold."""
    check_pit_scale(scale)
    lines = []
    for value in gold["gold"].to_numpy(dtype="float64"):
        lines.append("" if value != value else f"{pit_label(value)}\t{value / scale.high:.4f}")
    handle.write("".join(line + "\n" for line in lines))


# ----------------------------------------------------------------------------- export
def write_gold(gold: pd.DataFrame, out: str | Path, fmt: str, scale: Scale,
               progress: Progress | None = None,
               report_data: Callable[[], dict] | None = None) -> list[str]:
    """Write a gold table to `out` atomically in one format; returns warnings (XLSX only)."""
    if fmt == "xlsx":
        from app.formats.xlsx_report import write_xlsx_report

        extra = report_data() if report_data else {}
        return write_xlsx_report(gold, out, scale, progress=progress, **extra)
    with atomic_open(out) as handle:
        if fmt in ("tsv", "csv"):
            write_table(gold, handle, "\t" if fmt == "tsv" else ",", progress)
        elif fmt == "jsonl":
            write_jsonl(gold, handle, progress)
        elif fmt == "sts":
            write_sts(gold, handle)
        elif fmt == "pit":
            write_pit(gold, handle, scale)
        elif fmt == "pyramid":  # `gold` is already the table of app/formats/pyramid_export.py
            from app.formats.pyramid_export import write_pyramid_table

            write_pyramid_table(gold, handle, progress)
        else:
            raise SimrateError(f"unknown export format {fmt!r}")
    return []


def export_project(project: object, out: str | Path, fmt: str | None = None,
                   allow_unresolved: bool = False,
                   progress: Progress | None = None) -> ExportReport:
    """Export a project's gold to `out`; RuleError while items are unresolved (unless allowed)."""
    out = check_output(out, project.path)
    chosen, from_extension = choose_format(out, fmt)
    if chosen == "pit":
        check_pit_scale(project.scale)
    # read each table once: the gold table and the second-look count share them
    items, ratings = project.gold_inputs()
    adjudications = project.adjudications()
    excluded = project.excluded_annotators()
    gold = compute_gold(items, ratings, adjudications, project.scale, project.threshold,
                        excluded, project.annotators())
    del items
    counts = unresolved_counts(gold) if allow_unresolved else check_resolved(gold, project.path)
    second_look = second_look_items(ratings, adjudications, project.scale, project.threshold,
                                    excluded)

    def report_data() -> dict:
        from app.core.quality import annotator_frame

        # the report lists skipped ratings and notes too, which gold does not need
        return {"ratings": project.ratings(), "adjudications": adjudications,
                "annotators": annotator_frame(project),
                "excluded": excluded,
                "title": project.title, "second_look": second_look,
                "threshold": project.threshold}

    written, notes = gold, []
    if chosen == "pyramid":
        from app.formats.pyramid_export import pyramid_table

        written, skipped = pyramid_table(gold, project.items())
        if skipped:
            notes.append(f"{skipped} item(s) not from a pyramid file left out")
    warnings = notes + write_gold(written, out, chosen, project.scale, progress, report_data)
    sources = (written["gold_source"] if chosen == "pyramid" else gold["source"])
    sources = sources.replace("", "none").value_counts()
    return ExportReport(
        path=out, format=chosen, format_from_extension=from_extension, items=len(written),
        sources={str(k): int(v) for k, v in sources.items()}, flagged=counts["flagged"],
        unrated=counts["unrated"], second_look=len(second_look), warnings=warnings,
    )
