"""Annotator packages: a standalone project for one annotator, and merging it back.

A package is an ordinary `.simrate` project (so the app opens it as is) holding the chosen
items, the scale with its guidelines and the annotator's own earlier ratings of those items,
plus meta keys naming its origin: `package_of` (the origin's `project_uuid`),
`package_annotator`, `package_created`, `package_format`. It carries no one else's ratings,
no reference scores, no item metadata (which can hold votes or labels) and nothing that marks
check items, so a check item looks like any other.

Identity: a package belongs to the project whose uuid it names. Ratings come back under the
package's annotator name; two packages for the same name from the same origin are the same
person and merge as one annotator. A package from any other project is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import sqlite3
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import name_problem
from simrate.core.base.names import NAME_MAX, check_name_length, fit_name, nfc
from simrate.core.data import meta as meta_table
from simrate.core.data.changelog import log_change
from simrate.core.data.store import HUMAN, open_store, transaction
from simrate.core.edits import writes
from simrate.core.edits.roster import kind_clash
from simrate.core.edits.writes import insert_package_rows
from simrate.core.project import Project
from simrate.core.team.blind import blind_items
from simrate.core.team.package_file import PACKAGE_FORMAT
from simrate.core.team.teamdb import project_uuid, team_write
from simrate.install.locations import installed_version


@dataclass(frozen=True)
class PackageInfo:
    """What `make_package` wrote."""

    path: Path
    annotator: str
    package_id: str
    items: int
    checks: int
    own_ratings: int


# ----------------------------------------------------------------- choosing and writing
def choose_items(project: Project, annotator: str, dataset: str | None = None,
                 sample: int | None = None, seed: int = 0,
                 checks: int | None = None) -> tuple[list[str], int]:
    """(item ids in project order, how many are checks) for one annotator's package.

    The pool is the annotator's items in the stored assignment (all items when there is
    none), within `dataset` if given; `sample` draws that many of them with `seed`. Check
    items are then mixed in: all of them (within `dataset`), or `checks` drawn at random.
    """
    from simrate.core.team.assignment import stored_assignment
    from simrate.core.team.quality import check_scores

    items = project.items()
    if dataset is not None:
        items = items[items["dataset"] == dataset]
        if items.empty:
            raise SimrateError(f"no items in dataset {dataset!r}", project.path)
    ids = items["item_id"].tolist()
    known = check_scores(project)
    plan = stored_assignment(project)
    if plan and annotator not in plan:
        raise SimrateError(f"{annotator!r} is not in the project's assignment "
                           f"({', '.join(plan)}); check the name or assign again", project.path)
    allowed = set(plan[annotator]) if plan else None
    regular = [i for i in ids if i not in known and (allowed is None or i in allowed)]
    if sample is not None:
        if not 1 <= sample <= len(regular):
            raise SimrateError(f"--sample must be 1 to {len(regular)} (the items available "
                               f"to {annotator!r}), not {sample}", project.path)
        regular = random.Random(seed).sample(regular, sample)
    check_pool = _draw_checks(project, [i for i in ids if i in known], checks, seed, dataset)
    chosen = set(regular) | set(check_pool)
    if not chosen:
        raise SimrateError(f"no items to package for {annotator!r}", project.path)
    return [i for i in ids if i in chosen], len(check_pool)


def _draw_checks(project: Project, pool: list[str], checks: int | None, seed: int,
                 dataset: str | None) -> list[str]:
    """All check items of the pool, or `checks` of them drawn with `seed`."""
    if checks is None:
        return pool
    if checks < 0:
        raise SimrateError(f"the number of check items cannot be negative ({checks})")
    if checks > len(pool):
        where = f" in dataset {dataset!r}" if dataset is not None else ""
        have = (f"has only {len(pool)} check items{where}" if pool else
                f"has no check items{where}: mark some first (simrate checks)")
        raise SimrateError(f"--checks {checks}: the project {have}", project.path)
    return random.Random(f"checks:{seed}").sample(pool, min(checks, len(pool)))


def _package_frames(project: Project, annotator: str,
                    item_ids: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(item table for the package, this annotator's own ratings of those items)."""
    wanted = set(item_ids)
    items = project.items()
    items = items[items["item_id"].isin(wanted)]
    # no reference and no meta for any item: either could reveal a known score (blind.py)
    frame = blind_items(items)
    ratings = project.ratings()
    own = ratings[(ratings["annotator"] == annotator) & ratings["item_id"].isin(wanted)]
    return frame, own


def _own_rows(own: pd.DataFrame, ords: dict[str, int], aid: int) -> list[tuple]:
    """The annotator's ratings as rows of the package's ratings table."""
    columns = ("item_id", "code", "note", "skipped", "seconds", "updated_at")
    return [(ords[item_id], aid, None if pd.isna(code) else int(code), note, int(skipped),
             None if pd.isna(seconds) else float(seconds), float(updated_at))
            for item_id, code, note, skipped, seconds, updated_at
            in zip(*(own[name].tolist() for name in columns), strict=True)]


def _fill_package(path: Path, annotator: str, origin_id: str, own: pd.DataFrame) -> str:
    """Write the package meta keys and the annotator's own ratings; returns the package id."""
    conn, meta = open_store(path)
    try:
        rows = {"package_of": origin_id, "package_annotator": annotator,
                "package_created": str(time.time()), "package_format": str(PACKAGE_FORMAT),
                "package_app_version": installed_version()}
        with transaction(conn, path):
            meta_table.set_package(conn, rows)
            if not own.empty:
                aid = writes.insert_rater(conn, annotator, HUMAN)
                ords = dict(conn.execute("SELECT id, ord FROM items"))
                insert_package_rows(conn, _own_rows(own, ords, aid))  # app/core/edits/writes.py
        return meta["project_uuid"]  # the package's own id, made by Project.create
    finally:
        conn.close()  # the last connection to close folds the WAL into the file


def _check_package_target(out: Path, annotator: str) -> None:
    """SimrateError for a bad annotator name, an existing `out` or a missing folder."""
    problem = name_problem(annotator)
    if problem:
        raise SimrateError(problem.replace("an annotator needs a name",
                                           "a package needs an annotator name"))
    if out.exists() or out.is_symlink():
        raise SimrateError("already exists; choose another name", out)
    folder = out.parent if str(out.parent) else Path(".")
    if not folder.is_dir():
        raise SimrateError(f"folder {str(folder)!r} does not exist", out)


def _package_write_error(exc: Exception, partial: Path, out: Path) -> SimrateError:
    """A failure while building the package, told about `out`: the temporary file it is
    built in is ours, not the user's (a full disk gives the standard line)."""
    if isinstance(exc, SimrateError) and exc.path not in (None, str(partial)):
        return exc  # about another file (the project itself): as it is
    text = exc.message if isinstance(exc, SimrateError) else str(exc)
    if "full" in text.lower() or getattr(exc, "errno", None) == errno.ENOSPC:
        return SimrateError("cannot write the package: the disk is full; nothing was "
                            "written", out)
    if isinstance(exc, OSError):
        return SimrateError(f"cannot write the package: {exc.strerror or exc}", out)
    return SimrateError(f"cannot write the package: {text.split(': ', 1)[-1]}", out)


def _write_package(project: Project, out: Path, annotator: str, origin_id: str,
                   frame: pd.DataFrame, own: pd.DataFrame) -> str:
    """Build the package under a temporary name beside `out`, then rename it to `out`
    (never over an existing file); returns the package's id."""
    partial = out.with_name(fit_name(out.name, f".{uuid.uuid4().hex[:8]}.partial",
                                     NAME_MAX - len("-journal")))
    try:
        try:
            package = Project.create(partial, scale=project.scale, title=project.title)
            try:
                package.import_items(frame, source="package")
            finally:
                package.close()
            package_id = _fill_package(partial, annotator, origin_id, own)
        except (SimrateError, sqlite3.Error, OSError) as exc:
            raise _package_write_error(exc, partial, out) from None
        if out.exists() or out.is_symlink():  # a link (even a dangling one) is not replaced
            raise SimrateError("already exists; choose another name", out)
        os.replace(partial, out)
    except SimrateError as exc:
        if exc.path != str(partial):
            raise
        full = "full" in exc.message.lower()
        raise SimrateError("cannot write the package: the disk is full; nothing was written"
                           if full else f"cannot write the package: {exc.message}",
                           out) from None
    except OSError as exc:
        raise SimrateError(f"cannot write the package: {exc.strerror or exc}", out) from None
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):  # a read-only folder: nothing was made there
                Path(str(partial) + suffix).unlink(missing_ok=True)
    return package_id


def make_package(project: Project, out: str | Path, annotator: str,
                 dataset: str | None = None, sample: int | None = None, seed: int = 0,
                 checks: int | None = None, by: str = "") -> PackageInfo:
    """Write a standalone project at `out` for one annotator (see choose_items); logged.

    The file appears complete or not at all: it is built under a temporary name beside
    `out` and renamed at the end. An existing `out` is never overwritten.
    """
    if str(out).endswith(("/", os.sep)) and not Path(out).is_dir():
        raise SimrateError("ends with a slash, so it names a folder, and there is none; "
                           "give a file name without the slash", out)
    out, annotator = Path(out), nfc(annotator.strip())
    check_name_length(out, spare=len("-journal"))  # SQLite's files beside it
    _check_package_target(out, annotator)
    annotator = project.roster.name_of(annotator)  # `ANA` is the person `ana`
    held = project.roster.kinds().get(annotator, HUMAN)
    if held != HUMAN:
        raise SimrateError(kind_clash(annotator, held, HUMAN), project.path)
    item_ids, n_checks = choose_items(project, annotator, dataset, sample, seed, checks)
    origin_id = project_uuid(project)
    frame, own = _package_frames(project, annotator, item_ids)
    package_id = _write_package(project, out, annotator, origin_id, frame, own)
    with team_write(project) as write:
        write.step(log_change, "package", who=by, annotator=annotator,
                   new={"package": package_id, "items": len(item_ids), "checks": n_checks,
                        "path": str(out)})
    return PackageInfo(out, annotator, package_id, len(item_ids), n_checks, len(own))


def package_meta(project: Project) -> dict[str, str] | None:
    """For a project that is a package: its origin, annotator and creation time; else None."""
    origin = project.meta("package_of")
    if origin is None:
        return None
    return {"package_of": origin, "package_annotator": project.meta("package_annotator") or "",
            "package_created": project.meta("package_created") or ""}
