"""Exporting a project: its gold table (app/core/review/gold.py) written by app/formats."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import check_name_length
from simrate.core.base.scale import Scale
from simrate.core.review.gold import (
    check_resolved,
    compute_gold,
    second_look_items,
    unresolved_counts,
)
from simrate.core.team.quality import annotator_frame
from simrate.formats.output.atomic import atomic_open
from simrate.formats.output.export import Progress, check_output, check_pit_scale
from simrate.formats.output.pyramid_export import pyramid_table
from simrate.formats.output.writers import WRITERS, choose_format
from simrate.formats.spreadsheet.xlsx_report import write_xlsx_report
from simrate.services.dataset.dataset_export import DatasetOptions, export_dataset
from simrate.services.exports.xlsx_agreement import write_agreement_sheet, write_over_time_sheet

if TYPE_CHECKING:
    from openpyxl import Workbook

    from simrate.core.project import Project


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


def _write_xlsx(gold: pd.DataFrame, out: str | Path, scale: Scale, progress: Progress | None,
                extra: dict) -> list[str]:
    """The XLSX report, with the agreement sheet computed here from the gold table."""
    def agreement_sheet(book: Workbook) -> None:
        write_agreement_sheet(book, gold, scale, title=extra.get("title", ""),
                              threshold=extra.get("threshold", 1.0),
                              excluded=extra.get("excluded", ()))
        if "ratings" in extra:
            write_over_time_sheet(book, extra["ratings"], extra.get("excluded", ()))

    return write_xlsx_report(gold, out, scale, progress=progress, agreement_sheet=agreement_sheet,
                             **extra)


def write_gold(gold: pd.DataFrame, out: str | Path, fmt: str, scale: Scale,
               progress: Progress | None = None,
               report_data: Callable[[], dict] | None = None) -> list[str]:
    """Write a gold table to `out` atomically in one format; returns warnings (XLSX only)."""
    if fmt == "xlsx":
        return _write_xlsx(gold, out, scale, progress, report_data() if report_data else {})
    writer = WRITERS.get(fmt)
    if writer is None or writer.stream is None:
        raise SimrateError(f"unknown export format {fmt!r}")
    with atomic_open(out) as handle:  # the pyramid's `gold` is already its benchmark table
        writer.stream(gold, handle, scale, progress)
    return []


def _pyramid_rows(gold: pd.DataFrame, project: Project) -> tuple[pd.DataFrame, list[str]]:
    """The benchmark's layout with the human gold; a note on items left out."""
    written, skipped = pyramid_table(gold, project.items())
    return written, [f"{skipped} item(s) not from a pyramid file left out"] if skipped else []


def _project_gold(project: Project, method: str = "mean"
                  ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, list]:
    """(gold, ratings, adjudications, left-out raters), each table read once; the gold of
    items without a verdict by `method` (mean, median, model), flags by the project's rule."""
    items, ratings = project.gold_inputs()
    adjudications = project.adjudications()
    excluded = project.roster.left_out()  # excluded people and machine raters
    gold = compute_gold(items, ratings, adjudications, project.scale, project.flag_rule,
                        excluded, project.annotators(), method=method)
    return gold, ratings, adjudications, excluded


def _sources(column: pd.Series) -> dict[str, int]:
    counts = column.replace("", "none").value_counts()
    return {str(k): int(v) for k, v in counts.items()}


def _export_folder(project: Project, out: str | Path, allow_unresolved: bool,
                   progress: Progress | None, options: DatasetOptions,
                   gold_method: str = "mean") -> ExportReport:
    """`--format dataset`: a folder (app/services/dataset/dataset_export.py)."""
    done = export_dataset(project, out, options, allow_unresolved, progress, gold_method)
    return ExportReport(path=done.path, format="dataset", format_from_extension=False,
                        items=len(done.gold), sources=_sources(done.gold["source"]),
                        flagged=done.unresolved["flagged"], unrated=done.unresolved["unrated"],
                        second_look=done.second_look,
                        warnings=[f"source field left out of the dataset: {field}"
                                  for field in done.left_out]
                        + ([f"{done.outside} item(s) in no split (their dataset is in no "
                            "--split NAME=DATASET,...) were left out"] if done.outside else []))


def _check_file_target(out: str | Path, project_path: Path, fmt: str | None) -> Path:
    """check_output, with a folder named without --format pointed to --format dataset."""
    check_name_length(out)  # before any look at the path (is_dir raises on a long name)
    if fmt is None and Path(out).is_dir():
        raise SimrateError("is a folder; give a file name to write, or --format dataset to "
                           "write a dataset folder (the folder must be empty)", out)
    return check_output(out, project_path)


def export_project(project: Project, out: str | Path, fmt: str | None = None,
                   allow_unresolved: bool = False,
                   progress: Progress | None = None,
                   dataset: DatasetOptions | None = None,
                   gold_method: str = "mean") -> ExportReport:
    """Export a project's gold to `out`; RuleError while items flagged by the range rule
    (not those flagged as uncertain crowd gold) or unrated items remain, unless allowed.
    `dataset`: the options of `fmt="dataset"`; `gold_method`: mean, median or model."""
    if fmt == "dataset":
        return _export_folder(project, out, allow_unresolved, progress,
                              dataset or DatasetOptions(), gold_method)
    if dataset is not None:
        raise SimrateError("--split, --license, --title, --keep-rater-names and --with-notes "
                           "belong to --format dataset")
    out = _check_file_target(out, project.path, fmt)
    chosen, from_extension = choose_format(out, fmt)
    if chosen == "pit":
        check_pit_scale(project.scale)
    # read each table once: the gold table and the second-look count share them
    gold, ratings, adjudications, excluded = _project_gold(project, gold_method)
    counts = unresolved_counts(gold) if allow_unresolved else check_resolved(gold, project.path)
    second_look = second_look_items(ratings, adjudications, project.scale, project.threshold,
                                    excluded)

    def report_data() -> dict:
        # the report lists skipped ratings and notes too, which gold does not need
        return {"ratings": project.ratings(), "adjudications": adjudications,
                "annotators": annotator_frame(project),
                "excluded": excluded,
                "title": project.title, "second_look": second_look,
                "threshold": project.flag_rule}

    written, notes = _pyramid_rows(gold, project) if chosen == "pyramid" else (gold, [])
    warnings = notes + write_gold(written, out, chosen, project.scale, progress, report_data)
    sources = _sources(written["gold_source" if chosen == "pyramid" else "source"])
    return ExportReport(
        path=out, format=chosen, format_from_extension=from_extension, items=len(written),
        sources=sources, flagged=counts["flagged"],
        unrated=counts["unrated"], second_look=len(second_look), warnings=warnings,
    )
