"""The command line: parse, call the core, print. Each command is app/commands/<name>_cmd.py,
listed once in app/commands/parser/registry.py (its parser and its run)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from simrate.commands.base.terminal import escape_what_cannot_be_shown, one_line
from simrate.commands.parser.argv_text import refuse_undecodable
from simrate.commands.parser.command_help import describe_commands
from simrate.commands.parser.dispatch import check_name_options, run_command
from simrate.commands.parser.option_help import describe_options
from simrate.commands.parser.registry import COMMANDS, INTERMIXED, add_parsers
from simrate.core.base.errors import SimrateError, bounded_line, cut
from simrate.install.locations import installed_version


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors follow our one-line error format (exit 2)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        """One line, no usage block: the line says where the usage is shown instead."""
        if message.endswith("expected one argument"):  # `--threshold -1e308`: read as an option
            message += " (a value that starts with '-' is given as --OPTION=VALUE)"
        raise SimrateError(f"{message} ('{self.prog} --help' shows the usage)")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> object:
        """`--title=--` is the text `--`: argparse before 3.12 drops a `--` given this way
        (the end of options, in a positional's place) and hands the option an empty list."""
        if action.option_strings and "--" in arg_strings:
            values = [self._get_value(action, text) for text in arg_strings]
            for value in values:
                self._check_value(action, value)
            return values[0] if action.nargs in (None, argparse.OPTIONAL) else values
        return super()._get_values(action, arg_strings)


class _VersionAction(argparse._VersionAction):
    """--version, the installed version looked up only when asked (the lookup imports
    importlib.metadata: a tenth of a second that no other option needs)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        self.version = f"simrate {installed_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser(names: Iterable[str] = COMMANDS) -> argparse.ArgumentParser:
    """The parser of the subcommands (all of them, or those named), each added by its
    module in app/commands (registry.py)."""
    parser = _Parser(prog="simrate", description="Rate text pairs, watch agreement, export gold.")
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    add_parsers(sub, names)
    describe_options(parser)
    describe_commands(parser)
    return parser


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
    describe_commands(parser, "window")
    return parser


def _parse_command(argv: list[str]) -> argparse.Namespace:
    """Parse a subcommand; item ids may come before or after options (`checks P --remove X`)."""
    parser = build_parser([argv[0]])  # the one command's parser: its module alone imported
    refuse_undecodable(argv, parser)  # every argument is UTF-8 text, before anything runs
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
    gui_parser = build_gui_parser()
    refuse_undecodable(argv, gui_parser)
    args = gui_parser.parse_args(argv)
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
        print(f"simrate: error: {one_line(bounded_line(str(exc)))}", file=sys.stderr)
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

        print(f"simrate: error: {one_line(bounded_line(str(os_error(exc))))}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        if os.environ.get("SIMRATE_DEBUG"):
            raise
        print(f"simrate: error: {one_line(bounded_line(f'{type(exc).__name__}: {exc}'))}",
              file=sys.stderr)
        return 1

