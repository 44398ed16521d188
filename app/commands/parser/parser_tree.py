"""The walk over the command line's parsers that the help texts are written by: every
parser under its command path ('' or 'window' at the top, then `crowd study` and so on)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator


def parsers(parser: argparse.ArgumentParser, path: str = ""
            ) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """(path, parser) of `parser` and of every subcommand below it, parents first."""
    yield path, parser
    for action in parser._actions:  # argparse keeps no public list of its subcommands
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from parsers(child, f"{path} {name}".strip())


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a parser declares itself: not its subcommands, not --help."""
    return [action for action in parser._actions
            if not isinstance(action, (argparse._SubParsersAction, argparse._HelpAction))]
