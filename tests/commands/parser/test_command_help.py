"""`--help` of every command: a paragraph on what it does, its defaults, its required options
marked, and examples that parse; the site's CLI reference is written from the same parsers."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

import pytest

from simrate.cli import build_gui_parser, build_parser
from simrate.commands.parser.command_help import EXAMPLES
from simrate.core.team.web_study import DEFAULT_LEASE_MINUTES, DEFAULT_PER_ITEM

ROOT = Path(__file__).resolve().parents[3]


def command_parsers() -> dict[str, argparse.ArgumentParser]:
    """{path: parser} for every command and subcommand, and 'window' for the window's."""
    found = {"window": build_gui_parser()}

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    found[f"{path} {name}".strip()] = child
                    walk(child, f"{path} {name}")
    walk(build_parser(), "")
    return found


PARSERS = command_parsers()


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_help_has_a_paragraph_and_examples_that_parse(path):
    parser = PARSERS[path]
    text = parser.format_help()
    assert parser.description and len(parser.description) >= 40, path
    assert parser.description.rstrip().endswith("."), path
    assert "examples:" in text, path
    assert 1 <= len(EXAMPLES[path]) <= 2
    for line in EXAMPLES[path]:
        words = shlex.split(line)[1:]
        prefix = [] if path == "window" else path.split()
        assert words[:len(prefix)] == prefix, line
        assert line in text
        (build_gui_parser() if path == "window" else build_parser()).parse_args(words)


@pytest.mark.parametrize("path", sorted(PARSERS))
def test_help_shows_defaults_and_required_options(path):
    parser = PARSERS[path]
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        shown = formatter._get_help_string(action) or ""
        if action.required and action.option_strings:
            assert "required" in shown, (path, action.dest)
        if action.default not in (None, False, [], "") and action.nargs != 0:
            assert "default" in shown, (path, action.dest)


def test_the_options_the_issue_named():
    study = PARSERS["crowd study"].format_help()
    assert "required for a new study" in " ".join(study.split())
    assert f"default for a new study: {DEFAULT_PER_ITEM};" in " ".join(study.split())
    assert f"default for a new study: {DEFAULT_LEASE_MINUTES:g};" in " ".join(study.split())
    serve = " ".join(PARSERS["serve"].format_help().split())
    assert "(default 60.0)" in serve and "(default 1000)" in serve
    assert "(default interval)" in " ".join(PARSERS["agreement"].format_help().split())


def test_the_site_reference_holds_the_same_paragraphs_and_examples():
    sys.path.insert(0, str(ROOT / "tools"))
    from docs_hooks import cli_reference

    reference = cli_reference()
    for path, parser in PARSERS.items():
        assert parser.description in reference, path
        for line in EXAMPLES[path]:
            assert line in reference, path
