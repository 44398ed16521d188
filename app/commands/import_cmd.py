"""simrate import PROJECT FILE... [--format ...] [--annotator NAME] [--dataset NAME]
                 [--machine NAME] [--annotator-column COLUMN]"""

from __future__ import annotations

import argparse

from simrate.commands.terminal import note as terminal_note
from simrate.core.base.errors import SimrateError
from simrate.core.data.open_files import refuse_if_open
from simrate.core.data.values import quoted, whole
from simrate.core.project import Project
from simrate.formats.textio import reference_note

#: import options -> the formats they apply to (elsewhere they would be ignored: refused)
OPTION_FORMATS = {
    "annotator": ("ratings",), "annotator_column": ("ratings",),
    "dataset": ("pairs", "sts", "pit", "clss"),
    "negatives": ("pyramid",), "test": ("pyramid",), "seed": ("pyramid",),
    "resolve": ("project",),
}
#: what --by and the options of --machine and --undo apply to
BY_USE = "--by names who made a change for the log: give it with --machine or --undo"
MACHINE_OPTIONS = ("dataset", "by")


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def _given(args: argparse.Namespace, options) -> list[str]:
    """The options of `options` that were given on the command line."""
    return [o for o in options if getattr(args, o, None) is not None]


def _check_options(path: str, chosen: str, args: argparse.Namespace) -> None:
    """Refuse an option that a file of this format would silently ignore."""
    for option in _given(args, OPTION_FORMATS):
        formats = OPTION_FORMATS[option]
        if chosen not in formats:
            kinds = " or ".join(formats)
            raise SimrateError(f"{_flag(option)} applies to {kinds} files only; this file "
                               f"is read as {chosen!r}, so leave {_flag(option)} out", path)
    if args.by is not None:
        raise SimrateError(BY_USE)


def _formats(args: argparse.Namespace) -> list[str]:
    """Each file's format (detected or as given), options checked against all of them
    before anything is imported."""
    from simrate.formats.detect import detect_format

    chosen = []
    for path in args.files:
        refuse_if_open(path, args.project)  # never read the project by another route
        fmt = detect_format(path) if args.format == "auto" else args.format
        if args.format == "auto":
            terminal_note(f"{path}: detected format '{fmt}'")
        _check_options(path, fmt, args)
        chosen.append(fmt)
    return chosen


def _read(path: str, chosen: str, args: argparse.Namespace):
    """Read one file into ('items'|'ratings', frame, chosen format)."""
    from simrate.formats.detect import read_items
    from simrate.formats.ratings import read_ratings
    from simrate.formats.xlsx_read import is_xlsx, xlsx_sheet_note

    note = xlsx_sheet_note(path) if is_xlsx(path) else None
    if note:
        terminal_note(f"{path}: {note}")
    if chosen == "ratings":
        return "ratings", read_ratings(path, annotator=args.annotator,
                                       annotator_column=args.annotator_column), chosen
    if chosen == "turk":
        from simrate.formats.turk import read_turk

        return "turk", read_turk(path), chosen
    if chosen == "project":
        return "project", None, chosen
    options = {}
    if args.dataset:
        options["dataset"] = args.dataset
    if chosen == "pyramid":
        from simrate.formats.pyramid_project import parse_negatives

        options = {"negatives": parse_negatives(args.negatives), "seed": args.seed or 0,
                   "test": args.test or "binary"}
    return "items", read_items(path, chosen, **options), chosen


def _pyramid_note(frame) -> str:
    """`: 88 paraphrases, 88 non-paraphrases` for a pyramid import (what was drawn)."""
    metas = [m for m in frame["meta"] if isinstance(m, dict) and m.get("source") == "pyramid"]
    if not metas:
        return ""
    if metas[0].get("test") == "ranking":
        return f": {len({m['question_id'] for m in metas})} ranking questions x 4 candidates"
    positive = sum(m["label"] for m in metas)
    return f": {positive} paraphrases, {len(metas) - positive} non-paraphrases"


def _check_machine_options(args: argparse.Namespace) -> None:
    """--machine NAME takes --dataset, --format and --by; refuse what it would ignore."""
    for option in _given(args, OPTION_FORMATS):
        if option not in MACHINE_OPTIONS:
            raise SimrateError(f"{_flag(option)} does not apply to --machine (the machine "
                               f"rater is named by --machine); leave {_flag(option)} out")


def _claim(project: Project, names, kind: str) -> None:
    """On an organizer's hub replica, the new raters are claimed on the hub first: a name
    it holds as another kind is refused before anything is written (hub/claims.py)."""
    if project.mode.organizer:
        from simrate.hub.team.claims import claim_new_raters

        claim_new_raters(project, names, kind)


def _import_machine(project: Project, args: argparse.Namespace) -> None:
    from simrate.commands import login_name
    from simrate.services.machine_import import import_machine

    _claim(project, [args.machine], "machine")  # an organizer's replica: hub first
    for path in args.files:
        done = import_machine(project, path, args.machine, args.format, args.dataset,
                              by=args.by or login_name())
        rounded = (f"; {done.rounded} scores rounded to the scale's grid" if done.rounded
                   else "")
        print(f"{path}: machine rater {done.name!r}: {done.counts['added']} ratings added, "
              f"{done.counts['changed']} changed, {done.counts['unchanged']} unchanged{rounded}")


def _import_turk(project: Project, path: str, frame) -> None:
    from simrate.services.crowd_import import import_crowd_results

    done = import_crowd_results(project, frame, path)
    items = f", {done.items_added} items added" if done.items_added else ""
    print(f"{path}: {done.ratings['added']} ratings added, {done.ratings['changed']} changed, "
          f"{done.ratings['unchanged']} unchanged from {done.workers} workers{items}")


def _undo(args: argparse.Namespace) -> int:
    """Undo one bulk import: its rows go, the rows it replaced come back."""
    if args.files:
        raise SimrateError("give files to import or --undo, not both")
    if args.undo != "last" and not (args.undo.isascii() and args.undo.isdigit()):
        raise SimrateError(f"--undo takes an import's change-log id, not {quoted(args.undo)}")
    undo = None if args.undo == "last" else whole(args.undo, "--undo")
    extra = _given(args, [*OPTION_FORMATS, "machine"])
    if args.format != "auto":
        extra.insert(0, "format")
    if extra:
        raise SimrateError(f"--undo takes no other import option ({_flag(extra[0])} given); "
                           "it undoes the import as it was made")
    from simrate.commands import login_name

    with Project.open(args.project) as project:
        done = project.undo_import(undo,
                                   by=args.by or login_name())
    what = "items" if done["kind"] == "import_items" else "ratings"
    restored = f", {done['restored']} earlier ratings restored" if done["restored"] else ""
    items = f", {done['items_removed']} items removed" if done.get("items_removed") else ""
    people = (f", {done['annotators_removed']} annotators it added removed"
              if done.get("annotators_removed") else "")
    print(f"undid import {done['batch']} ({done['source'] or 'no source'}): "
          f"{done['removed']} {what} removed{restored}{items}{people}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Import each file in turn; each file is all or nothing."""
    if args.machine is not None and args.annotator_column is not None:
        raise SimrateError("give either --machine NAME or --annotator-column COLUMN")
    if args.undo is not None:
        return _undo(args)
    if not args.files:
        raise SimrateError("give at least one FILE to import (or --undo)")
    if args.machine is not None:
        _check_machine_options(args)
        with Project.open(args.project) as project:
            _import_machine(project, args)
        return 0
    formats = _formats(args)
    with Project.open(args.project) as project:
        for path, fmt in zip(args.files, formats, strict=True):
            _import_file(project, path, fmt, args)
    return 0


def _import_file(project: Project, path: str, fmt: str, args: argparse.Namespace) -> None:
    """Import one file (all or nothing) and print what it did."""
    kind, frame, chosen = _read(path, fmt, args)
    if frame is not None and frame.attrs.get("encoding") == "cp1252":
        terminal_note(f"{path}: no line is UTF-8 beyond ASCII; read as Windows-1252 (cp1252)")
    for warning in (frame.attrs.get("warnings", []) if frame is not None else []):
        terminal_note(f"{path}: warning: {warning}")
    if kind == "items":
        added, present = project.import_items(frame, source=path)
        note = f", {present} already present" if present else ""
        print(f"{path}: {added} items added{note} ({chosen}{_pyramid_note(frame)})"
              f"{reference_note(frame)}")
    elif kind == "turk":
        _claim(project, frame["annotator"].unique(), "crowd")
        _import_turk(project, path, frame)
    elif kind == "ratings":
        _claim(project, frame["annotator"].unique(), "human")
        counts = project.import_ratings(frame, source=path)
        print(f"{path}: {counts['added']} ratings added, {counts['changed']} changed, "
              f"{counts['unchanged']} unchanged")
    else:
        from simrate.core.team.package_merge import merge_package

        report = merge_package(project, path, resolve=args.resolve)
        print(report.summary())
