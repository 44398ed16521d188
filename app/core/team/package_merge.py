"""Merging an annotator's package back into the project it came from (packages.py makes
packages): the package must name this project as its origin and carry its scale; its
ratings come back under the package's annotator, all or nothing, and a rating that differs
from the one the project holds is a conflict, refused unless the caller says which side
wins (`resolve`: "keep" the project's value or take "theirs")."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from simrate.core.base.errors import RuleError, SimrateError
from simrate.core.base.events import RatingState
from simrate.core.data import raters
from simrate.core.data.changelog import log_change
from simrate.core.data.store import HUMAN, open_store, read_meta
from simrate.core.edits.roster import kind_clash
from simrate.core.project import Project
from simrate.core.team.package_checks import check_issued, check_values
from simrate.core.team.package_file import PackageContents, read_package

#: Conflicts named in a refusal message before "and N more".
CONFLICTS_SHOWN = 5

@dataclass(frozen=True)
class Conflict:
    """A package rating that disagrees with what the project holds."""

    item_id: str
    kind: str  # "rating": the annotator rated it otherwise here; "texts": the texts differ
    project: str
    package: str

    def describe(self) -> str:
        """`item 'a:1': project 3, package 2.5` for messages."""
        return f"item {self.item_id!r}: {self.kind} differ (project {self.project}, " \
               f"package {self.package})"


@dataclass
class MergeReport:
    """What merging one package did (or, from plan_merge, would do)."""

    path: Path
    annotator: str
    package_id: str
    items: int = 0
    added: int = 0  # scores new to the project
    skips: int = 0  # "cannot judge" marks new to the project (not ratings: no score)
    changed: int = 0
    unchanged: int = 0
    unrated: int = 0
    conflicts: list[Conflict] = field(default_factory=list)
    resolve: str | None = None
    excluded: bool = False

    def summary(self) -> str:
        """One line for the command line."""
        skips = f", {self.skips} skip{'s' * (self.skips != 1)} added" if self.skips else ""
        text = (f"{self.path}: {self.annotator}: {self.added} ratings added{skips}, "
                f"{self.changed} changed, {self.unchanged} unchanged, {self.unrated} of "
                f"{self.items} items not rated")
        if self.conflicts:
            how = "kept as in the project" if self.resolve == "keep" else "taken from the package"
            text += f"; {len(self.conflicts)} conflicts {how} (--resolve {self.resolve})"
        if self.excluded:
            text += f"; note: {self.annotator} is excluded from agreement and gold"
        return text

    def refusal(self) -> str:
        """The message refusing a merge with unresolved conflicts."""
        shown = "; ".join(c.describe() for c in self.conflicts[:CONFLICTS_SHOWN])
        more = len(self.conflicts) - CONFLICTS_SHOWN
        return (f"{len(self.conflicts)} conflicts with the project for {self.annotator!r}, "
                f"nothing merged: {shown}" + (f"; and {more} more" if more > 0 else "")
                + "; rerun with --resolve keep (project values) or --resolve theirs "
                "(package values)")


def _score_text(project: Project, code: int | None, skipped: int, note: str) -> str:
    value = "skipped" if skipped else ("none" if code is None else
                                       f"{project.scale.from_code(code):g}")
    return f"{value} {note!r}" if note else value


def _check_origin(project: Project, conn: sqlite3.Connection, package: PackageContents) -> str:
    """The package's annotator, once the package is known to belong to this project."""
    path, meta = package.path, package.meta
    here = read_meta(conn, "project_uuid")
    if here is None or meta["package_of"] != here:
        raise SimrateError(f"package comes from another project (origin {meta['package_of']}, "
                           f"this project {here or 'has made no packages'})", path)
    theirs, ours = json.loads(meta["scale"]), project.scale
    if (theirs.get("low"), theirs.get("high"), theirs.get("step")) != (ours.low, ours.high,
                                                                      ours.step):
        raise SimrateError("package scale differs from the project's", path)
    annotator = check_issued(conn, package)
    check_values(package, ours.max_code)
    strangers = sorted({r[1] for r in package.ratings} - {annotator})
    if strangers:
        raise SimrateError(f"package for {annotator!r} also holds ratings by "
                           f"{', '.join(map(repr, strangers))}; only its annotator's ratings "
                           "can be merged", path)
    return annotator


def _plan(project: Project, conn: sqlite3.Connection, package: PackageContents,
          report: MergeReport) -> list[tuple]:
    """Fill `report` and return the (ord, rating, old, conflict) rows that differ."""
    origin = {i: (o, left, right) for i, o, left, right in
              conn.execute("SELECT id, ord, left, right FROM items")}
    missing = [i for i in package.texts if i not in origin]
    if missing:
        raise SimrateError(f"package item {missing[0]!r} is not in this project "
                           f"({len(missing)} such items)", package.path)
    found = raters.find(conn, report.annotator)
    row = None if found is None else conn.execute(
        "SELECT id, excluded FROM annotators WHERE id = ?", (found[0],)).fetchone()
    report.excluded = bool(row and row[1])
    existing = {} if row is None else {
        o: (c, n, s) for o, c, n, s in conn.execute(
            "SELECT item_ord, code, note, skipped FROM ratings WHERE annotator_id = ?", (row[0],))}
    report.items = len(package.texts)
    report.unrated = report.items - len(package.ratings)
    differing = []
    for rating in package.ratings:
        ord_, left, right = origin[rating[0]]
        compared = _compare(project, package, rating, (left, right), existing.get(ord_), report)
        if compared is not None:
            differing.append((ord_, rating, existing.get(ord_), compared[1]))
    return differing


def _compare(project: Project, package: PackageContents, rating: tuple,
             texts: tuple[str, str], old: tuple | None,
             report: MergeReport) -> tuple[bool, Conflict | None] | None:
    """Count one package rating in `report`; None when it is already merged, else
    (True, the conflict or None)."""
    item_id, _name, code, note, skipped, _seconds = rating
    same_value = old is not None and (old[0], bool(old[2])) == (code, bool(skipped))
    if old is not None and same_value and old[1] == note:
        report.unchanged += 1  # already merged: nothing to do, whatever else differs
        return None
    conflict = None
    if package.texts[item_id] != texts:
        conflict = Conflict(item_id, "texts", "{!r} / {!r}".format(*texts),
                            "{!r} / {!r}".format(*package.texts[item_id]))
    elif old is not None and (not same_value or old[1]):
        # a different score, or the same score with a different note: both are the
        # annotator's words in two places, and only the organizer can pick one
        conflict = Conflict(item_id, "ratings", _score_text(project, *old),
                            _score_text(project, code, skipped, note))
    if conflict is not None:
        report.conflicts.append(conflict)
    elif old is None and skipped:
        report.skips += 1
    elif old is None:
        report.added += 1
    else:
        report.changed += 1  # the same score, with a note the project lacked
    return True, conflict


def plan_merge(project: Project, path: str | Path) -> MergeReport:
    """What merging the package would do, conflicts included, without writing anything."""
    package = read_package(Path(path))
    conn, _meta = open_store(project.path)  # as merge_package reads, without its transaction
    try:
        annotator = _check_origin(project, conn, package)
        report = MergeReport(Path(path), annotator, package.meta.get("project_uuid", ""))
        _plan(project, conn, package, report)
    finally:
        conn.close()
    return report


def merge_package(project: Project, path: str | Path, resolve: str | None = None,
                  by: str = "") -> MergeReport:
    """Merge a returned package's ratings into the project, all or nothing.

    Conflicts (the annotator rated an item otherwise in the project, or the item's texts
    differ in the package) refuse the merge with a RuleError listing them, unless `resolve`
    is "keep" (the project's values stay) or "theirs" (the package's values replace them; the
    old ones stay in the change log). Merging the same package again changes nothing. The
    write is one transaction of `project.edit()`, published as any rating is.
    """
    if resolve not in (None, "keep", "theirs"):
        raise SimrateError(f"resolve must be 'keep' or 'theirs', not {resolve!r}")
    path = Path(path)
    package = read_package(path)
    with project.edit() as change:  # the one write path (app/core/edits/edit.py)
        annotator = _check_origin(project, change.conn, package)
        report = MergeReport(path, annotator, package.meta.get("project_uuid", ""),
                             resolve=resolve)
        differing = _plan(project, change.conn, package, report)
        if report.conflicts and resolve is None:
            raise RuleError(report.refusal(), path)
        _write(change, report, differing, by or f"package {path.name}")
    return report


def _write(change, report: MergeReport, differing: list[tuple], who: str) -> None:
    """Write the differing ratings (conflicts only when resolved as theirs) and log them."""
    writes = [d for d in differing if d[3] is None or report.resolve == "theirs"]
    if not writes:
        return
    name = report.annotator
    row = raters.find(change.conn, name)  # the rater of the name's key (`ANA` is `ana`)
    if row is not None and row[2] != HUMAN:  # a package holds a person's ratings
        raise SimrateError(kind_clash(row[1], row[2], HUMAN), report.path)
    if row is not None:
        name = row[1]
    aid = change.rater(name)
    for ord_, (item_id, _n, code, note, skipped, seconds), _old, _conflict in writes:
        change.rate(item_id, name, RatingState(code, note, bool(skipped), seconds),
                    ord_=ord_, aid=aid, who=who)
    log_change(change.conn, "merge_package", who=who, annotator=name, new={
        "package": report.package_id, "added": report.added, "skips": report.skips,
        "changed": report.changed,
        "unchanged": report.unchanged, "conflicts": len(report.conflicts),
        "resolve": report.resolve})
