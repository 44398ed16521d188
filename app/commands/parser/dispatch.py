"""Running a parsed subcommand: the options checked by their one rule, the command's
module called, its notes printed only when it succeeds, a damaged project told as such."""

from __future__ import annotations

import argparse

from simrate.commands.base.terminal import flush_notes
from simrate.commands.parser.registry import command_module
from simrate.core.base.errors import SimrateError


def check_name_options(args: argparse.Namespace) -> None:
    """Datasets and rater names of the options, each by its one rule (core/base/names.py)."""
    from simrate.commands.base.option_types import check_rater_options

    if getattr(args, "dataset", None) is not None:
        from simrate.core.base.names import check_dataset

        args.dataset = check_dataset(args.dataset)
    check_rater_options(args)


def run_command(args: argparse.Namespace) -> int:
    """Run a parsed subcommand: notes on stderr only when it succeeds, a damaged project
    told as such."""
    check_name_options(args)  # one rule for every --dataset, one for every rater name
    module = command_module(args.command)
    status = 1
    try:
        status = int(module.run(args) or 0)
        return status
    except SimrateError as exc:
        from simrate.core.check.integrity import with_way_out

        raise with_way_out(exc, getattr(args, "project", None)) from None
    except (KeyboardInterrupt, BrokenPipeError, MemoryError):
        raise
    except Exception as exc:
        error = damaged_project(exc, args)
        if error is None:
            raise
        raise error from None
    finally:
        flush_notes(status == 0)


def damaged_project(exc: Exception, args: argparse.Namespace) -> SimrateError | None:
    """The "damaged project" error when a command failed on a damaged project file."""
    from simrate.core.check.integrity import damage_error

    paths = [getattr(args, "project", None)]
    paths += [f for f in getattr(args, "files", None) or [] if str(f).endswith(".simrate")]
    return damage_error(exc, [p for p in paths if p])
