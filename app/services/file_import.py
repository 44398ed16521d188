"""Importing a file of pairs or ratings into a project, as the window does it: read, then write.

The two steps are apart so that the caller can cancel between them. Reading (parsing the
file) is the slow part and may be abandoned; writing is one transaction, all or nothing,
through a connection of its own (`Project.open`, or `Project.create` for a new project),
so a failed write leaves the project as it was and a new project file is removed again.
The window runs both in a background job and then calls `Project.refresh()`, which notices
the file changed and tells every panel.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.data.open_files import refuse_if_open
from simrate.core.project import Project
from simrate.formats.textio import reference_note


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
    """Parse the source file: ('items' | 'ratings', frame, chosen format)."""
    from simrate.formats.detect import detect_format, read_items

    path = str(request.source)
    for source in request.sources:
        refuse_if_open(source, request.project_path)
    fmt = detect_format(path) if request.fmt == "auto" else request.fmt
    if fmt == "project":
        raise SimrateError("merging another project is done with `simrate import` for now",
                           path)
    if fmt == "ratings":
        if request.new_scale is not None:
            raise SimrateError("this is a ratings file; a new project needs a file of pairs",
                               path)
        from simrate.formats.ratings import read_ratings

        return "ratings", read_ratings(path, fallback_annotator=request.annotator), fmt
    options = dict(request.options)
    if not request.more_sources:
        return "items", read_items(path, fmt, **options), fmt
    frames = [read_items(str(source), fmt, **options) for source in request.sources]
    frame = pd.concat(frames, ignore_index=True)
    clash = frame["item_id"][frame["item_id"].duplicated()]
    if len(clash):
        raise SimrateError(f"item {clash.iloc[0]!r} comes from two of the files (the same "
                           "pyramid topic twice?); import them one at a time", path)
    frame.attrs["sources"] = [(str(s), len(f)) for s, f in zip(request.sources, frames,
                                                              strict=True)]
    frame.attrs["warnings"] = [w for f in frames for w in f.attrs.get("warnings", [])]
    return "items", frame, fmt


def write_source(request: ImportRequest, kind: str, frame: pd.DataFrame,
                 fmt: str) -> ImportResult:
    """Write what `read_source` gave into the project (created first if asked), all or nothing."""
    if request.new_scale is not None:
        project = Project.create(request.project_path, scale=request.new_scale,
                                 title=request.title)
    else:
        project = Project.open(request.project_path)
    try:
        if kind == "items":
            added = present = 0
            for source, part in _parts_by_source(request, frame):
                more_added, more_present = project.import_items(part, source=source)
                added, present = added + more_added, present + more_present
        else:
            counts = project.import_ratings(frame, source=str(request.source))
            added, present = counts["added"] + counts["changed"], counts["unchanged"]
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
