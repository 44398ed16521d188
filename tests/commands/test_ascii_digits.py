"""Numbers typed on the command line are ASCII: every numeric option of the parser and `import
--undo` refuse fullwidth (３), Arabic-Indic (٣) and other digits, 1_000 and padded text, in
one line."""

from __future__ import annotations

import argparse

import pytest

from simrate.cli import build_parser
from tests.support.helpers import one_line_error, run_cli

FOREIGN = ["３", "٣", "३", "1_0", " 3", "１.５", "+-3"]


def typed_options(parser: argparse.ArgumentParser, path: str = "simrate"):
    """(command path, option, type) of every option with a type, in every subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from typed_options(sub, f"{path} {name}")
        elif getattr(action.type, "__name__", "") in ("count", "whole_number", "finite_float"):
            yield path, "/".join(action.option_strings) or action.dest, action.type


OPTIONS = list(typed_options(build_parser()))


def test_the_parser_has_numeric_options():
    names = {f"{path} {option}" for path, option, _ in OPTIONS}
    assert {"simrate crowd study --per-task", "simrate serve --port",
            "simrate machine --epsilon", "simrate team sync --wait"} <= names


@pytest.mark.parametrize(("path", "option", "kind"), OPTIONS,
                         ids=[f"{p} {o}" for p, o, _ in OPTIONS])
def test_every_numeric_option_takes_ascii_digits_only(path, option, kind):
    assert kind("3") == 3  # the usual spelling still reads
    if kind.__name__ == "count":  # counts and seeds: 0 or more
        with pytest.raises(argparse.ArgumentTypeError, match="0 or more"):
            kind("-2")
    else:
        try:
            assert kind("-2") == -2
        except argparse.ArgumentTypeError as refused:  # minutes, seconds, rates: a range
            assert "must be from" in str(refused)
    for text in FOREIGN:
        with pytest.raises((argparse.ArgumentTypeError, ValueError)):
            kind(text)


@pytest.mark.parametrize(("argv", "option"), [
    (["crowd", "study", "{p}", "s", "--per-task", "３"], "--per-task"),
    (["serve", "{p}", "--port", "٨٠٠٠"], "--port"),
    (["machine", "{p}", "--epsilon", "０.２"], "--epsilon"),
    (["agreement", "{p}", "--min-overlap", "1_0"], "--min-overlap"),
])
def test_a_foreign_digit_is_one_line_error(tmp_path, argv, option):
    project = tmp_path / "p.simrate"
    assert run_cli("new", project, "--scale", "clss").returncode == 0
    result = run_cli(*[a.replace("{p}", str(project)) for a in argv])
    assert result.returncode == 2
    one_line_error(result.stderr, option, "not a")
    status = run_cli("crowd", "status", project, "--json")
    assert status.returncode == 0 and '"s"' not in status.stdout  # no study was made


@pytest.mark.parametrize("given", ["３", "²"])
def test_undo_of_an_import_takes_ascii_digits(tmp_path, given):
    project = tmp_path / "p.simrate"
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("id\tleft\tright\na\tone\ttwo\n", encoding="utf-8")
    assert run_cli("new", project, "--scale", "clss").returncode == 0
    for _ in range(3):  # imports 1-3 of the change log exist, so 3 would be undone
        assert run_cli("import", project, pairs).returncode == 0
    result = run_cli("import", project, "--undo", given)
    assert result.returncode == 2
    one_line_error(result.stderr, "--undo takes an import's change-log id", repr(given))
