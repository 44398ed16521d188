"""simrate import PROJECT FILE... [--format ...] [--annotator NAME] [--dataset NAME]
                 [--machine NAME] [--annotator-column COLUMN]"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from simrate.commands.base.option_types import count, text_option
from simrate.commands.base.progress import TerminalProgress
from simrate.commands.base.terminal import note as terminal_note
from simrate.core.base.errors import SimrateError
from simrate.core.base.wording import counted
from simrate.core.data.open_files import refuse_if_open
from simrate.core.data.values import quoted, whole
from simrate.core.project import Project
from simrate.formats.catalog.registry import names
from simrate.services.imports.file_import import FileRead, ReadOptions, read_file, write_file

#: --format's choices: the formats the registry reads (formats/catalog/registry.py), or auto
IMPORT_FORMATS = ("auto", *names("read"))

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
    from simrate.formats.readers.detect import detect_format

    chosen = []
    for path in args.files:
        refuse_if_open(path, args.project)  # never read the project by another route
        fmt = detect_format(path) if args.format == "auto" else args.format
        if args.format == "auto":
            terminal_note(f"{path}: detected format '{fmt}'")
        _check_options(path, fmt, args)
        chosen.append(fmt)
    return chosen


def _read(path: str, chosen: str, args: argparse.Namespace) -> FileRead:
    """Read one file (services/imports/file_import.py, the window's pipeline too); its notes kept
    for stderr."""
    items: dict[str, object] = {}
    if args.dataset:
        items["dataset"] = args.dataset
    if chosen == "pyramid":
        from simrate.formats.pyramids.pyramid_project import parse_negatives

        items = {"negatives": parse_negatives(args.negatives), "seed": args.seed or 0,
                 "test": args.test or "binary"}
    read = read_file(path, chosen, ReadOptions(annotator=args.annotator,
                                               annotator_column=args.annotator_column,
                                               items=tuple(items.items())))
    for text in read.notes:
        terminal_note(f"{path}: {text}")
    return read


def _check_machine_options(args: argparse.Namespace) -> None:
    """--machine NAME takes --dataset, --format and --by; refuse what it would ignore."""
    for option in _given(args, OPTION_FORMATS):
        if option not in MACHINE_OPTIONS:
            raise SimrateError(f"{_flag(option)} does not apply to --machine (the machine "
                               f"rater is named by --machine); leave {_flag(option)} out")


def _claim(project: Project, names, kind: str) -> None:
    """On an organizer's hub replica, the new raters are claimed on the hub first: a name
    it holds as another kind is refused before anything is written (hub/team/claims.py)."""
    if project.mode.organizer:
        from simrate.hub.team.claims import claim_new_raters

        claim_new_raters(project, names, kind)


def _import_machine(project: Project, args: argparse.Namespace) -> None:
    from simrate.commands.base.option_types import login_name
    from simrate.services.imports.machine_import import import_machine

    _claim(project, [args.machine], "machine")  # an organizer's replica: hub first
    for path in args.files:
        done = import_machine(project, path, args.machine, args.format, args.dataset,
                              by=args.by or login_name())
        rounded = (f"; {done.rounded} scores rounded to the scale's grid" if done.rounded
                   else "")
        print(f"{path}: machine rater {done.name!r}: {counted(done.counts['added'], 'rating')} added, "
              f"{done.counts['changed']} changed, {done.counts['unchanged']} unchanged{rounded}")


def _undo(args: argparse.Namespace) -> int:
    """Undo one bulk import: its rows go, the rows it replaced come back."""
    if args.files:
        raise SimrateError("give files to import or --undo, not both")
    if args.keep_newer and args.undo is None:
        raise SimrateError("--keep-newer goes with --undo")
    if args.undo != "last" and not (args.undo.isascii() and args.undo.isdigit()):
        raise SimrateError(f"--undo takes an import's change-log id, not {quoted(args.undo)}")
    undo = None if args.undo == "last" else whole(args.undo, "--undo")
    extra = _given(args, [*OPTION_FORMATS, "machine"])
    if args.format != "auto":
        extra.insert(0, "format")
    if extra:
        raise SimrateError(f"--undo takes no other import option ({_flag(extra[0])} given); "
                           "it undoes the import as it was made")
    from simrate.commands.base.option_types import login_name

    with Project.open(args.project) as project:
        done = project.undo_import(undo, by=args.by or login_name(),
                                   keep_newer=args.keep_newer, over_adjudications=args.yes)
    what = "item" if done["kind"] == "import_items" else "rating"
    restored = (f", {counted(done['restored'], 'earlier rating')} restored"
                if done["restored"] else "")
    items = (f", {counted(done['items_removed'], 'item')} removed" if done.get("items_removed")
             else "")
    people = (f", {counted(done['annotators_removed'], 'annotator')} it added removed"
              if done.get("annotators_removed") else "")
    kept = (f", {counted(done['kept_newer'], 'newer rating')} kept"
            if done.get("kept_newer") else "")
    print(f"undid import {done['batch']} ({done['source'] or 'no source'}): "
          f"{counted(done['removed'], what)} removed{restored}{items}{people}{kept}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    """`simrate import`."""
    p = sub.add_parser("import", help="import pairs or ratings into a project")
    p.add_argument("project")
    p.add_argument("files", nargs="*", metavar="FILE")
    p.add_argument("--undo", nargs="?", const="last", metavar="ID",
                   help="undo the last import (or the one with this change-log id)")
    p.add_argument("--format", choices=IMPORT_FORMATS, default="auto")
    p.add_argument("--annotator")
    p.add_argument("--dataset")
    p.add_argument("--negatives", default=None,
                   help="pyramid: N non-paraphrase pairs per paraphrase (default 1), or 'all'")
    p.add_argument("--test", choices=("binary", "ranking"), default=None,
                   help="pyramid: binary pairs (default), or ranking questions as "
                   "question-candidate pairs")
    p.add_argument("--seed", type=count, default=None, help="pyramid: the draw of pairs (0)")
    p.add_argument("--resolve", choices=("keep", "theirs"), default=None,
                   help="project: how to settle conflicting ratings (default: refuse)")
    p.add_argument("--machine", metavar="NAME",
                   help="the file holds a machine rater's scores (never gold, never flags)")
    p.add_argument("--annotator-column", type=text_option, metavar="COLUMN",
                   help="ratings: the column naming the annotator (e.g. PROLIFIC_PID)")
    p.add_argument("--by", default=None)
    p.add_argument("--keep-newer", action="store_true",
                   help="with --undo: when ratings the import wrote were changed since, undo "
                        "the rest and keep those newer values (without it, such an undo is "
                        "refused and changes nothing)")
    p.add_argument("--yes", action="store_true",
                   help="with --undo: undo it even where adjudications rest on the ratings it "
                        "removes (without it, such an undo is refused and changes nothing)")


def run(args: argparse.Namespace) -> int:
    """Import each file in turn; each file is all or nothing."""
    if args.machine is not None and args.annotator_column is not None:
        raise SimrateError("give either --machine NAME or --annotator-column COLUMN")
    if args.yes and args.undo is None:
        raise SimrateError("--yes goes with --undo (it undoes an import over adjudications)")
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
    read = _read(path, fmt, args)
    with TerminalProgress(f"import {Path(path).name}", "pairs") as progress:  # terminal only
        done = write_file(project, read, resolve=args.resolve, claim=_claim, progress=progress)
    print(done.line)
    if done.kind in ("items", "ratings") and not (done.added or done.changed):
        last = project.import_to_undo()  # nothing written: this import left no entry
        then = (f"import {last['batch']} ({last['source'] or 'no source'})" if last
                else "nothing")
        print(f"{path}: nothing changed, so the change log has no entry for it; "
              f"import --undo would take back {then}, an earlier import", file=sys.stderr)
