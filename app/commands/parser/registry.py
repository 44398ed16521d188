"""The one list of subcommands: each name is a module `app/commands/<folder>/<name>_cmd.py`
with `add_parser(subparsers)` and `run(args) -> int`.

app/cli.py builds its parser and dispatches from this list alone, and the site's command
reference (tools/docs_hooks.py) is generated from that parser, in this order. Adding a
command is one module and one line here (tests/commands/parser/test_registry.py holds it).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterable
from types import ModuleType

#: Every subcommand, in DESIGN.md's order (that of `simrate --help` and the reference), with
#: the folder of app/commands that holds its module (the area it serves).
FOLDERS = {
    "new": "project", "import": "project", "info": "project", "agreement": "review",
    "flagged": "review", "gold": "review", "adjudicate": "review", "export": "project",
    "pyramid": "project", "evaluate": "project", "package": "team", "annotators": "review",
    "assign": "team", "checks": "review", "team": "team", "crowd": "team", "machine": "review",
    "check": "project", "serve": "team",
}
COMMANDS = tuple(FOLDERS)
#: Commands whose positional arguments may follow their options.
INTERMIXED = ("checks",)


def command_module(name: str) -> ModuleType:
    """The module of one subcommand, imported when first asked for."""
    if name not in COMMANDS:
        raise KeyError(name)
    return importlib.import_module(f"simrate.commands.{FOLDERS[name]}.{name}_cmd")


def add_parsers(subparsers: argparse._SubParsersAction,
                names: Iterable[str] = COMMANDS) -> None:
    """Each named command's parser, added by its own module."""
    for name in names:
        command_module(name).add_parser(subparsers)
