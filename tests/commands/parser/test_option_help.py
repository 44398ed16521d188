"""Help where the user is: every argument of every command is described by `--help` itself,
and the site's reference prints the same text (one source: app/commands/parser/option_help.py)."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from simrate.cli import build_gui_parser, build_parser
from simrate.commands.parser.option_help import undescribed

ROOT = Path(__file__).resolve().parents[3]


def leaves(parser: argparse.ArgumentParser, path: str = "simrate"):
    """(path, parser) of every command that runs something (`simrate team add`, ...)."""
    children = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not children:
        yield path, parser
    for action in children:
        for name, child in action.choices.items():
            yield from leaves(child, f"{path} {name}")


def test_every_argument_of_every_command_has_a_description():
    assert undescribed(build_parser()) == []
    assert undescribed(build_gui_parser(), "simrate (window)") == []


def test_an_argument_without_a_description_is_caught():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["export"].add_argument("--colour")
    assert undescribed(parser) == ["simrate export --colour"]


@pytest.mark.parametrize("command", [["export"], ["crowd", "study"], ["agreement"], []])
def test_help_in_the_terminal_describes_the_options(command):
    done = subprocess.run([sys.executable, "-m", "simrate", *command, "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    printed = " ".join(done.stdout.split())
    parser = dict(leaves(build_parser())).get(" ".join(["simrate", *command]),
                                               build_gui_parser())
    formatter = parser._get_formatter()
    for action in parser._actions:
        text = " ".join(formatter._expand_help(action).split())
        assert text and text in printed, f"{command} {action.dest}: {text!r}"
    if command == ["export"]:
        assert "auto" not in done.stdout  # export has no auto format
        assert ".sts" in done.stdout


def test_the_site_reference_prints_the_help_text():
    sys.path.insert(0, str(ROOT / "tools"))
    from docs_hooks import cli_reference

    reference = cli_reference()
    for path, parser in [("simrate", build_gui_parser()), *leaves(build_parser())]:
        formatter = parser._get_formatter()
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            text = formatter._expand_help(action).replace("|", "\\|")
            assert text in reference, f"{path} {action.dest}: {text!r}"


def test_the_synopsis_of_the_cli_page_lists_every_command():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    synopsis = re.search(r"^```\n(.*?)^```", page, flags=re.S | re.M).group(1)
    lines = [line.strip() + " " for line in synopsis.splitlines()]
    for path, _parser in leaves(build_parser()):
        assert any(line.startswith(path + " ") for line in lines), \
            f"docs/cli.md's synopsis leaves out {path}"
