"""Importing files into a project: the one pipeline of `simrate import` and the window.

`read_file` reads one file of any format (detected or given) into what it holds: items,
ratings, crowd results, or another project to merge; `write_file` writes that into an
open project, all or nothing, and says what it did. The command line calls the two per
file; the window's import job calls them through `read_source` and `write_source` below.

The two steps are apart so that the caller can cancel between them. Reading (parsing the
file) is the slow part and may be abandoned; writing is one transaction, all or nothing,
through a connection of its own (`Project.open`, or `Project.create` for a new project),
so a failed write leaves the project as it was and a new project file is removed again.
The window runs both in a background job and then calls `Project.refresh()`, which notices
the file changed and tells every panel.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted
from simrate.core.data.open_files import refuse_if_open
from simrate.core.project import Project
from simrate.formats.intake.textio import reference_note

#: claim(project, rater names, kind): on an organizer's hub replica, the new raters are
#: claimed on the hub before anything is written (the command line passes the hub's).
Claim = Callable[[Project, Iterable[str], str], None]


@dataclass(frozen=True)
class ReadOptions:
    """How to read a file: who rated (ratings files) and the item readers' options."""

    annotator: str | None = None  # whose ratings a file without annotator column holds
    annotator_column: str | None = None  # the column naming the annotators
    fallback_annotator: str | None = None  # the window's rater, for a file naming none
    items: tuple[tuple[str, object], ...] = ()  # e.g. (("dataset", "news"),)


@dataclass
class FileRead:
    """What one file holds, read and not yet written."""

    path: str
    kind: str  # "items", "ratings", "turk" (crowd results) or "project" (to merge)
    fmt: str
    frame: pd.DataFrame | None  # None for a project: the merge reads it itself
    #: what the reading noticed (a sheet chosen, an encoding guessed, rows warned about)
    notes: list[str] = field(default_factory=list)

    def rows(self) -> pd.DataFrame:
        """The frame read: every kind has one but a project, which the merge reads itself."""
        if self.frame is None:
            raise ValueError(f"{self.path}: a project to merge is not read into rows")
        return self.frame


@dataclass(frozen=True)
class FileWritten:
    """What writing one file did: counts, and the line the command line prints."""

    kind: str
    added: int
    changed: int
    unchanged: int
    line: str


def read_file(path: str | Path, fmt: str = "auto",
              options: ReadOptions = ReadOptions()) -> FileRead:
    """Read one file in format `fmt` (or the detected one) into what it holds."""
    from simrate.formats.intake.xlsx_read import is_xlsx, xlsx_sheet_note
    from simrate.formats.readers.detect import detect_format, read_items

    path = str(path)
    fmt = detect_format(path) if fmt == "auto" else fmt
    note = xlsx_sheet_note(path) if is_xlsx(path) else None
    notes = [note] if note else []
    if fmt == "project":
        return FileRead(path, "project", fmt, None, notes)
    if fmt == "ratings":
        from simrate.formats.readers.ratings import read_ratings

        kind, frame = "ratings", read_ratings(
            path, annotator=options.annotator, annotator_column=options.annotator_column,
            fallback_annotator=options.fallback_annotator)
    elif fmt == "turk":
        from simrate.formats.readers.turk import read_turk

        kind, frame = "turk", read_turk(path)
    else:
        kind, frame = "items", read_items(path, fmt, **dict(options.items))
    if frame.attrs.get("encoding") == "cp1252":
        notes.append("no line is UTF-8 beyond ASCII; read as Windows-1252 (cp1252)")
    notes += [f"warning: {warning}" for warning in frame.attrs.get("warnings", [])]
    return FileRead(path, kind, fmt, frame, notes)


def write_file(project: Project, read: FileRead, *, source: str | None = None,
               resolve: str | None = None, claim: Claim | None = None,
               progress: Callable[[int, int], None] | None = None) -> FileWritten:
    """Write what `read_file` gave into the open project, all or nothing; `source` names
    it in the change log (default: its path), `resolve` settles a merge's conflicts,
    `progress(written, to write)` follows the writing of items."""
    source = read.path if source is None else source
    if read.kind == "project":
        from simrate.core.team.package_merge import merge_package

        report = merge_package(project, read.path, resolve=resolve)
        return FileWritten("project", 0, 0, 0, report.summary())
    frame = read.rows()
    if read.kind == "items":
        added, present = project.import_items(frame, source=source, progress=progress)
        note = f", {present} already present" if present else ""
        return FileWritten("items", added, 0, present,
                           f"{read.path}: {counted(added, 'item')} added{note} ({read.fmt}"
                           f"{_pyramid_note(frame)}){reference_note(frame)}")
    if claim is not None:
        claim(project, frame["annotator"].unique(), "crowd" if read.kind == "turk" else "human")
    if read.kind == "turk":
        return _write_turk(project, read.path, frame, source)
    counts = project.import_ratings(frame, source=source)
    return FileWritten("ratings", counts["added"], counts["changed"], counts["unchanged"],
                       f"{read.path}: {counted(counts['added'], 'rating')} added, {counts['changed']} "
                       f"changed, {counts['unchanged']} unchanged")


def _write_turk(project: Project, path: str, frame: pd.DataFrame, source: str) -> FileWritten:
    from simrate.services.crowd.crowd_import import import_crowd_results

    done = import_crowd_results(project, frame, source)
    items = f", {counted(done.items_added, 'item')} added" if done.items_added else ""
    counts = done.ratings
    return FileWritten("ratings", counts["added"], counts["changed"], counts["unchanged"],
                       f"{path}: {counted(counts['added'], 'rating')} added, {counts['changed']} "
                       f"changed, {counts['unchanged']} unchanged from "
                       f"{counted(done.workers, 'worker')}{items}")


def _pyramid_note(frame: pd.DataFrame) -> str:
    """`: 88 paraphrases, 88 non-paraphrases` for a pyramid import (what was drawn)."""
    metas = [m for m in frame["meta"] if isinstance(m, dict) and m.get("source") == "pyramid"]
    if not metas:
        return ""
    if metas[0].get("test") == "ranking":
        return f": {len({m['question_id'] for m in metas})} ranking questions x 4 candidates"
    positive = sum(m["label"] for m in metas)
    return f": {positive} paraphrases, {len(metas) - positive} non-paraphrases"


@dataclass(frozen=True)
class ImportRequest:
    """What to import where; `new_scale` set means: create the project first."""

    source: Path
    project_path: Path
    fmt: str = "auto"
    new_scale: str | None = None
    title: str = ""
    annotator: str | None = None
    more_sources: tuple[Path, ...] = ()  # further files of items, imported after `source`
    options: tuple[tuple[str, object], ...] = ()  # reader options, e.g. (("test", "ranking"),)

    @property
    def sources(self) -> tuple[Path, ...]:
        """Every file of the request, in order."""
        return (self.source, *self.more_sources)


@dataclass(frozen=True)
class ImportResult:
    """What an import did."""

    request: ImportRequest
    kind: str  # "items" or "ratings"
    fmt: str
    added: int
    unchanged: int
    #: `; reference scores of N items read from the gold key beside it, NAME` or ''.
    reference: str = ""

    def summary(self) -> str:
        """One line for the status bar."""
        what = "item" if self.kind == "items" else "rating"
        plural = "" if self.added == 1 else "s"
        extra = f", {self.unchanged:,} already present" if self.unchanged else ""
        name = self.request.source.name
        if self.request.more_sources:
            name += f" and {len(self.request.more_sources)} more"
        return f"{name}: {self.added:,} {what}{plural} added{extra} ({self.fmt}){self.reference}"


def read_source(request: ImportRequest) -> tuple[str, pd.DataFrame, str]:
    """Parse the request's files (`read_file` each): ('items' | 'ratings', frame, format)."""
    from simrate.formats.readers.detect import detect_format

    path = str(request.source)
    for source in request.sources:
        refuse_if_open(source, request.project_path)
    fmt = detect_format(path) if request.fmt == "auto" else request.fmt
    if fmt == "project":
        raise SimrateError("merging another project is done with `simrate import` for now",
                           path)
    if fmt in ("ratings", "turk") and request.new_scale is not None:
        what = "a ratings file" if fmt == "ratings" else "a crowd results file"
        raise SimrateError(f"this is {what}; a new project needs a file of pairs", path)
    options = ReadOptions(fallback_annotator=request.annotator, items=request.options)
    if not request.more_sources:
        read = read_file(path, fmt, options)
        return ("ratings" if read.kind == "turk" else read.kind), read.rows(), fmt
    frames = [read_file(source, fmt, options).rows() for source in request.sources]
    frame = pd.concat(frames, ignore_index=True)
    clash = frame["item_id"][frame["item_id"].duplicated()]
    if len(clash):
        raise SimrateError(f"item {clash.iloc[0]!r} comes from two of the files (the same "
                           "pyramid topic twice?); import them one at a time", path)
    frame.attrs["sources"] = [(str(s), len(f)) for s, f in zip(request.sources, frames,
                                                              strict=True)]
    frame.attrs["warnings"] = [w for f in frames for w in f.attrs.get("warnings", [])]
    return "items", frame, fmt


def write_source(request: ImportRequest, kind: str, frame: pd.DataFrame, fmt: str,
                 progress: Callable[[int, int], None] | None = None) -> ImportResult:
    """Write what `read_source` gave into the project (created first if asked), all or
    nothing, each file by `write_file`; `progress(items written, items in all)` follows
    the items' writing across every source file."""
    if request.new_scale is not None:
        project = Project.create(request.project_path, scale=request.new_scale,
                                 title=request.title)
    else:
        project = Project.open(request.project_path)
    try:
        if kind == "items":
            added = present = 0
            for source, part in _parts_by_source(request, frame):
                def step(done: int, _total: int, before: int = added + present) -> None:
                    if progress is not None:
                        progress(before + done, len(frame))
                done = write_file(project, FileRead(source, "items", fmt, part), progress=step)
                added, present = added + done.added, present + done.unchanged
        else:
            ratings = "turk" if fmt == "turk" else "ratings"  # crowd results: ratings too
            done = write_file(project, FileRead(str(request.source), ratings, fmt, frame))
            added, present = done.added + done.changed, done.unchanged
    except BaseException:
        project.close()
        if request.new_scale is not None:
            _remove_project_file(request.project_path)
        raise
    project.close()
    return ImportResult(request, kind, fmt, added, present, reference_note(frame))


def _parts_by_source(request: ImportRequest, frame: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The frame cut back into the files it was read from (one file: the whole frame)."""
    sources = frame.attrs.get("sources")
    if not sources:
        return [(str(request.source), frame)]
    parts, start = [], 0
    for source, rows in sources:
        parts.append((source, frame.iloc[start:start + rows]))
        start += rows
    return parts


def _remove_project_file(path: Path) -> None:
    """Delete a project file we created, with its WAL companions."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
