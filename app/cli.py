"""The command line: parse, call the core, print. Handlers live in app/commands/<name>.py."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from simrate.commands.dispatch import check_name_options, run_command
from simrate.commands.option_help import describe_options
from simrate.commands.option_types import count, finite_float, host_name, whole_number
from simrate.commands.terminal import escape_what_cannot_be_shown, one_line
from simrate.core.base.errors import SimrateError, cut
from simrate.core.base.names import UNDISPUTED_NOTE
from simrate.locations import installed_version

COMMANDS = (
    "new", "import", "info", "agreement", "flagged", "adjudicate", "export",
    "pyramid", "evaluate", "package", "annotators", "assign", "checks", "team", "crowd",
    "machine", "check", "serve",
)
#: Commands whose positional arguments may follow their options.
INTERMIXED = ("checks",)
LEVELS = ("interval", "ordinal", "nominal", "ratio", "all")
IMPORT_FORMATS = ("auto", "pairs", "sts", "pit", "clss", "pyramid", "ratings", "project",
                  "turk")
EXPORT_FORMATS = ("tsv", "csv", "xlsx", "sts", "pit", "jsonl", "pyramid", "dataset")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors follow our one-line error format (exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """One line, no usage block: the line says where the usage is shown instead."""
        if message.endswith("expected one argument"):  # `--threshold -1e308`: read as an option
            message += " (a value that starts with '-' is given as --OPTION=VALUE)"
        raise SimrateError(f"{message} ('{self.prog} --help' shows the usage)")


class _VersionAction(argparse._VersionAction):
    """--version, the installed version looked up only when asked (the lookup imports
    importlib.metadata: a tenth of a second that no other option needs)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        self.version = f"simrate {installed_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    """The parser for every subcommand of DESIGN.md."""
    parser = _Parser(prog="simrate", description="Rate text pairs, watch agreement, export gold.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("new", help="create a project")
    p.add_argument("project")
    p.add_argument("--scale", required=True, help="clss, sts or a scale JSON file")
    p.add_argument("--title", default="")

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
    p.add_argument("--annotator-column", metavar="COLUMN",
                   help="ratings: the column naming the annotator (e.g. PROLIFIC_PID)")
    p.add_argument("--by", default=None, help="who is doing this, for the change log")

    p = sub.add_parser("info", help="summarize a project")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("agreement", help="Krippendorff's alpha and correlations",
                       description="Krippendorff's alpha over all items (the figure to "
                       "report), and over the undisputed ones. " + UNDISPUTED_NOTE + ".")
    p.add_argument("project", nargs="?")
    p.add_argument("--ratings", metavar="FILE")
    p.add_argument("--level", choices=LEVELS, default="interval")
    p.add_argument("--by", choices=("dataset", "genre"))
    p.add_argument("--ci", action="store_true")
    p.add_argument("--ci-method", choices=("units", "hayes"), default=None)
    p.add_argument("--min-overlap", type=count, default=10, metavar="K",
                   help="pairwise Pearson only for raters sharing at least K items (10; "
                   "never fewer than 3, over which r is always +1 or -1)")
    p.add_argument("--with-machines", action="store_true",
                   help="project: count machine raters in alpha and Pearson too")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("flagged", help="list items whose ratings disagree")
    p.add_argument("project")
    p.add_argument("--threshold", type=finite_float)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("adjudicate", help="set an item's adjudicated score")
    p.add_argument("project")
    p.add_argument("item_id", metavar="ITEM_ID")
    p.add_argument("score", metavar="SCORE", nargs="?", help="omit with --withdraw")
    p.add_argument("--note", default="")
    p.add_argument("--by", default=None)
    p.add_argument("--withdraw", action="store_true", help="withdraw the adjudication")

    p = sub.add_parser("export", help="export gold scores")
    p.add_argument("project")
    p.add_argument("out", metavar="OUT")
    p.add_argument("--format", choices=EXPORT_FORMATS, default=None)
    p.add_argument("--allow-unresolved", action="store_true")
    p.add_argument("--split", default=None, metavar="NAME",
                   help="dataset: the split of the data files (train)")
    p.add_argument("--license", default=None, metavar="SPDX",
                   help="dataset: the licence id for the card (unknown)")
    p.add_argument("--title", default=None, metavar="TEXT",
                   help="dataset: the card's title (the project's title)")
    p.add_argument("--language", default=None, metavar="CODE",
                   help="dataset: the texts' language for the card (en)")
    p.add_argument("--keep-rater-names", action="store_true",
                   help="dataset: raters under their names, not pseudonyms")
    p.add_argument("--with-notes", action="store_true",
                   help="dataset: include raters' and adjudicators' notes")

    p = sub.add_parser("pyramid", help="derive paraphrase pairs or questions from pyramids")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--out", required=True)
    p.add_argument("--test", choices=("binary", "ranking"), default="binary")
    p.add_argument("--seed", type=count, default=0)
    p.add_argument("--min-words", type=count, default=3)
    p.add_argument("--min-shared", type=count, default=4,
                   help="non-paraphrase pairs match on at least this many words (more than 3)")
    add_reading_options(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("evaluate", help="score system outputs against gold")
    p.add_argument("--task", choices=("clss", "sts", "pit"), required=True)
    p.add_argument("files", nargs="+", metavar="GOLD SYSTEM")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("package", help="write a standalone project for one annotator")
    p.add_argument("project")
    p.add_argument("out", metavar="OUT.simrate")
    p.add_argument("--annotator", required=True)
    p.add_argument("--dataset")
    p.add_argument("--sample", type=count)
    p.add_argument("--seed", type=count, default=None,
                   help="the draw of --sample and --checks (0)")
    p.add_argument("--checks", type=count, default=None, metavar="K",
                   help="mix in K check items (default: all)")

    p = sub.add_parser("annotators", help="per-annotator report")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    p.add_argument("--exclude", action="append", default=[], metavar="NAME",
                   help="leave NAME out of agreement and gold (reversible)")
    p.add_argument("--include", action="append", default=[], metavar="NAME",
                   help="take an excluded annotator back")
    p.add_argument("--by", default=None, help="who is doing this, for the change log")
    p.add_argument("--check-threshold", type=finite_float, default=None, metavar="R",
                   help="flag raters whose Pearson with check items is below R (0.5)")
    p.add_argument("--exclude-careless", action="store_true",
                   help="exclude, in one reversible action, every worker the check rule flags")
    p.add_argument("--restore-careless", action="store_true",
                   help="take back the workers the last --exclude-careless excluded")

    p = sub.add_parser("assign", help="split items among annotators, K per item")
    p.add_argument("project")
    p.add_argument("annotators", nargs="+", metavar="NAME")
    p.add_argument("--per-item", type=count, required=True, metavar="K")
    p.add_argument("--seed", type=count, default=0)
    p.add_argument("--dataset")
    p.add_argument("--by", default=None)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("checks", help="mark items of known score as check items")
    p.add_argument("project")
    p.add_argument("item_ids", nargs="*", metavar="ITEM_ID")
    p.add_argument("--from-reference", action="store_true")
    p.add_argument("--score", help="the known score, a value of the project's scale")
    p.add_argument("--remove", action="store_true")
    p.add_argument("--dataset")
    p.add_argument("--by", default=None)
    p.add_argument("--json", action="store_true")

    from simrate.commands.crowd_cmd import add_study_page_options
    from simrate.commands.team_cmd import add_parser as add_team_parser

    add_team_parser(sub)
    p = sub.add_parser("crowd", help="crowd batches for Turk-style platforms")
    crowd = p.add_subparsers(dest="crowd_command", metavar="ACTION", parser_class=_Parser)
    crowd.required = True
    q = crowd.add_parser("export", help="write one row per task: K items plus C checks")
    q.add_argument("project")
    q.add_argument("out", metavar="OUT.csv")
    q.add_argument("--per-task", type=count, required=True, metavar="K")
    q.add_argument("--checks", type=count, default=0, metavar="C")
    q.add_argument("--seed", type=count, default=0)
    q = crowd.add_parser("study", help="create, change or close a web study (simrate serve)")
    q.add_argument("project")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--per-task", type=count, default=None, metavar="K")
    q.add_argument("--checks", type=count, default=None, metavar="C")
    q.add_argument("--per-item", type=count, default=None, metavar="R")
    q.add_argument("--lease-minutes", type=finite_float, default=None, metavar="M")
    q.add_argument("--completion-url", default=None, metavar="URL")
    q.add_argument("--close", action="store_true")
    q.add_argument("--by", default=None)
    q.add_argument("--new-web-password", action="store_true",
                   help="on a hub: give the login simrate serve uses a new password")
    add_study_page_options(q)
    q = crowd.add_parser("status", help="tasks, ratings per item and workers of each study")
    q.add_argument("project")
    q.add_argument("--json", action="store_true")

    p = sub.add_parser("serve", help="serve the open web studies (needs simrate[web])")
    p.add_argument("project")
    p.add_argument("--host", type=host_name, default="127.0.0.1")
    p.add_argument("--port", type=whole_number, default=8000)
    p.add_argument("--starts-per-ip", type=finite_float, default=60.0, metavar="N",
                   help="tasks one client address may start a minute (per server process)")

    p.add_argument("--max-connections", type=whole_number, default=1000, metavar="N",
                   help="open connections this process serves at once (more wait or get 503)")

    p = sub.add_parser("check", help="integrity check of a project file: what is damaged, "
                       "and the way out")
    p.add_argument("project")
    p.add_argument("--json", action="store_true")
    p.add_argument("--salvage", metavar="NEW", default=None,
                   help="copy what can still be read into the new project file NEW (the "
                        "damaged file is only read)")

    p = sub.add_parser("machine", help="machine raters against the humans (the alt-test)")
    p.add_argument("project")
    p.add_argument("--epsilon", type=finite_float, default=None, metavar="E",
                   help="cost-benefit margin of the alt-test (0.2)")
    p.add_argument("--json", action="store_true")
    describe_options(parser)
    return parser


def add_reading_options(p: argparse.ArgumentParser) -> None:
    """The options choosing a reading of the pyramid benchmark's rules (README's table)."""
    p.add_argument("--shared-count", choices=("matched", "distinct", "tokens"),
                   default="matched", help="how --min-shared counts shared words")
    p.add_argument("--shared-words", choices=("all", "content"), default="all")
    p.add_argument("--tokens", choices=("words", "whitespace"), default="words")
    p.add_argument("--negative-summaries", choices=("different", "any"), default="different",
                   help="may two contributors of one model summary be a non-paraphrase")
    p.add_argument("--contributor-text", choices=("parts", "label"), default="parts")


def build_gui_parser() -> argparse.ArgumentParser:
    """The parser for `simrate [PROJECT] [--annotator NAME] [--organizer]`."""
    parser = _Parser(
        prog="simrate",
        description="Open the simrate window. Commands: " + ", ".join(COMMANDS)
        + " (simrate COMMAND --help).",
    )
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("project", nargs="?")
    parser.add_argument("--annotator")
    parser.add_argument("--organizer", action="store_true")
    parser.add_argument("--sample", action="store_true",
                        help="open the bundled sample project (built on first use)")
    parser.add_argument("--quit-when-shown", action="store_true",
                        help="quit as soon as the window is shown, printing its title: "
                        "checks that an installation works, offscreen too (it asks no "
                        "question: a project opens as --annotator, else the login name)")
    describe_options(parser, "window")
    return parser


def _parse_command(argv: list[str]) -> argparse.Namespace:
    """Parse a subcommand; item ids may come before or after options (`checks P --remove X`)."""
    parser = build_parser()
    if argv[0] not in INTERMIXED:
        args, extra = parser.parse_known_args(argv)
        if extra:  # named by the subcommand's parser, whose --help shows the options
            where = " ".join([argv[0]] + [getattr(args, dest) for dest in (
                "crowd_command", "team_command") if getattr(args, dest, None)])
            raise SimrateError(f"unrecognized arguments: {cut(' '.join(extra), 80)} "
                               f"('simrate {where} --help' shows the usage)")
        return args
    subparsers = next(a for a in parser._actions  # argparse keeps its subparsers here
                      if isinstance(a, argparse._SubParsersAction))
    args = subparsers.choices[argv[0]].parse_intermixed_args(argv[1:])
    args.command = argv[0]
    return args


def run(argv: Sequence[str]) -> int:
    """Parse `argv` and run the command; raises SimrateError for bad input."""
    argv = list(argv)
    if argv and argv[0] in COMMANDS:
        return run_command(_parse_command(argv))
    if argv and argv[0] in ("-h", "--help"):
        build_gui_parser().print_help()
        return 0
    args = build_gui_parser().parse_args(argv)
    check_name_options(args)
    from simrate.gui.shell.main import launch

    project = args.project
    if args.sample:
        if project:
            raise SimrateError("give either a PROJECT or --sample, not both")
        from simrate.gui.base.sample import SAMPLE_ORGANIZER, ensure_sample_project, sample_folder

        project = str(ensure_sample_project(sample_folder()))
        if args.organizer and not args.annotator:
            args.annotator = SAMPLE_ORGANIZER  # the sample's organizer: no dialog to answer
    return launch(project, annotator=args.annotator, organizer=args.organizer,
                  quit_when_shown=args.quit_when_shown)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: one-line errors, exit codes 0/1/2/3, never a traceback.

    Called as the program (no `argv`), it leaves the interpreter nothing to collect on the
    way out (see `skip_final_collection`).
    """
    try:
        return _main(argv)
    finally:
        if argv is None:
            skip_final_collection()


def skip_final_collection() -> None:
    """Let the process end without the garbage collector walking every object first.

    Once the command is done (for the window: every job finished, the project closed, the
    settings written), the interpreter's shutdown still ran the collector over every Qt
    wrapper, frame and array: 0.3-0.6 s of the exit on the sample (more on a big project).
    Frozen objects are never examined; files are flushed and exit handlers run as before.
    """
    import gc

    gc.disable()
    gc.freeze()


def _main(argv: Sequence[str] | None) -> int:
    if argv is None:
        escape_what_cannot_be_shown()
    try:
        return run(sys.argv[1:] if argv is None else argv)
    except SimrateError as exc:
        print(f"simrate: error: {one_line(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("simrate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path the system refused: a name too long, a loop, read-only
        if os.environ.get("SIMRATE_DEBUG"):
            raise
        from simrate.core.base.write_errors import os_error

        print(f"simrate: error: {one_line(str(os_error(exc)))}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("SIMRATE_DEBUG"):
            raise
        print(f"simrate: error: {one_line(f'{type(exc).__name__}: {exc}')}", file=sys.stderr)
        return 1

