"""What importing other annotators' ratings would change, worked out before anything is written.

`preview_import` and `commit_import` open connections of their own, so the import dialog
runs them in worker threads.

Two sources: a ratings file (CSV, TSV, XLSX; long or wide), compared with the project by
the same rule `Project.import_ratings` applies, and a returned annotator package, planned
by `simrate.core.team.package_merge.plan_merge`. Either way the result is an `ImportPreview`: ratings
added, changed and unchanged, and the conflicts (a rating the project holds with another
score) that the organizer must decide about before committing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from simrate.core.base.scale import fmt
from simrate.core.data.open_files import refuse_if_open
from simrate.core.project import Project

RESOLVE_KEEP, RESOLVE_THEIRS = "keep", "theirs"


@dataclass(frozen=True)
class ConflictRow:
    """A rating the project holds with one score and the source with another."""

    item_id: str
    annotator: str
    project: str
    incoming: str


@dataclass
class ImportPreview:
    """What an import would do."""

    path: Path
    kind: str  # "ratings" or "package"
    annotators: list[str]
    new_annotators: list[str]
    added: int = 0
    skips: int = 0  # "cannot judge" marks new to the project (a package's skips)
    changed: int = 0  # same score, new note (conflicts are counted apart)
    unchanged: int = 0
    unrated: int = 0  # package items the annotator left unrated
    conflicts: list[ConflictRow] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)

    @property
    def changes_anything(self) -> bool:
        """True when committing would write something."""
        return bool(self.added or self.skips or self.changed)


def is_package(path: str | Path) -> bool:
    """True for a `.simrate` file (a returned annotator package)."""
    from simrate.formats.readers.detect import detect_format

    return detect_format(path) == "project"


def _score_text(scale, code) -> str:
    return "none" if code is None or code != code else fmt(scale.from_code(int(code)))


def preview_ratings(project: Project, frame: pd.DataFrame, path: Path) -> ImportPreview:
    """Compare a ratings frame with the project's ratings (the import_ratings rule)."""
    scale = project.scale
    known = set(project.annotators())
    names = list(dict.fromkeys(str(a) for a in frame["annotator"]))
    preview = ImportPreview(path, "ratings", names, [a for a in names if a not in known],
                            excluded=[a for a in names if a in project.excluded_annotators()])
    for planned in project.plan_ratings(frame, str(path)):
        if planned.status == "unchanged":
            preview.unchanged += 1
        elif planned.status == "added":
            preview.added += 1
        elif planned.status == "note":
            preview.changed += 1  # the same score with a note the project lacks
        else:
            preview.conflicts.append(ConflictRow(
                planned.item_id, planned.annotator, _score_text(scale, planned.old_code),
                _score_text(scale, planned.code)))
    return preview


def read_ratings_file(path: str | Path, annotator: str | None) -> pd.DataFrame:
    """The ratings of a file, as the import pipeline reads them (services/imports/file_import.py)."""
    from simrate.services.imports.file_import import ReadOptions, read_file

    refuse_if_open(path)
    return read_file(path, "ratings", ReadOptions(annotator=annotator or None)).rows()


def preview_import(project_path: str | Path, source: str | Path,
                   annotator: str | None = None) -> ImportPreview:
    """Preview importing a ratings file or merging a package (a worker-thread function)."""
    source = Path(source)
    with Project.open(project_path) as project:
        if is_package(source):
            return _package_preview(project, source)
        return preview_ratings(project, read_ratings_file(source, annotator), source)


def _package_preview(project: Project, source: Path) -> ImportPreview:
    from simrate.core.team.package_merge import plan_merge

    report = plan_merge(project, source)
    known = set(project.annotators())
    preview = ImportPreview(source, "package", [report.annotator],
                            [] if report.annotator in known else [report.annotator],
                            added=report.added, skips=report.skips, changed=report.changed,
                            unchanged=report.unchanged, unrated=report.unrated,
                            excluded=[report.annotator] if report.excluded else [])
    preview.conflicts = [ConflictRow(c.item_id, report.annotator, c.project, c.package)
                         for c in report.conflicts]
    return preview


def commit_import(project_path: str | Path, preview: ImportPreview, resolve: str,
                  annotator: str | None = None, by: str = "") -> str:
    """Write what the preview showed (conflicts resolved as asked); returns a summary line."""
    with Project.open(project_path) as project:
        if preview.kind == "package":
            from simrate.core.team.package_merge import merge_package

            report = merge_package(project, preview.path, resolve if preview.conflicts else None,
                                   by=by)
            return report.summary()
        frame = read_ratings_file(preview.path, annotator)
        if resolve == RESOLVE_KEEP and preview.conflicts:
            clash = {(c.item_id, c.annotator) for c in preview.conflicts}
            keep = [(i, str(a)) not in clash for i, a in zip(frame["item_id"],
                                                             frame["annotator"], strict=True)]
            frame = frame[keep]
        from simrate.services.imports.file_import import FileRead, write_file

        done = write_file(project, FileRead(str(preview.path), "ratings", "ratings", frame))
    return (f"{preview.path.name}: {done.added:,} ratings added, {done.changed:,} "
            f"changed, {done.unchanged:,} unchanged")
