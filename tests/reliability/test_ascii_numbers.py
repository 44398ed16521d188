"""Numbers typed on the command line or read from text are ASCII: int() and float() also
read fullwidth (３), Arabic-Indic (٣) and other digits, 1_000 and padded text."""

from __future__ import annotations

import argparse
import sqlite3
from pathlib import Path

import pytest

from simrate.cli import build_parser
from simrate.core.base.errors import SimrateError
from simrate.core.team.package_file import read_package
from simrate.core.team.packages import make_package
from simrate.formats.pyramids.pyramid_project import parse_negatives
from simrate.formats.readers.pit import parse_label
from simrate.formats.readers.turk import _slots
from simrate.hub.link.backoff import WAIT_VARIABLE, total_wait
from tests.support.helpers import new_project, one_line_error, run_cli

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


@pytest.mark.parametrize("given", ["３", "٣", "1_0"])
def test_negatives_takes_ascii_digits(given):
    with pytest.raises(SimrateError, match="--negatives must be 'all' or a whole number"):
        parse_negatives(given)
    assert parse_negatives(" 3 ") == 3 and parse_negatives("ALL") == "all"


@pytest.mark.parametrize("given", ["３０", "٣", "3_0"])
def test_hub_wait_variable_takes_ascii_digits(monkeypatch, given):
    monkeypatch.setenv(WAIT_VARIABLE, given)
    with pytest.raises(SimrateError, match=WAIT_VARIABLE):
        total_wait()
    monkeypatch.setenv(WAIT_VARIABLE, " 2.5 ")
    assert total_wait() == 2.5


@pytest.mark.parametrize("label", ["３", "(３, 2)", "(3, ٢)"])
def test_pit_labels_take_ascii_digits(label):
    with pytest.raises(SimrateError, match="neither"):
        parse_label(label, Path("train.data"), 4)
    assert parse_label("3", Path("train.data"), 4)[0] == 3.0
    assert parse_label("(3, 2)", Path("train.data"), 4)[0] == 3.0


def test_pit_gold_labels_take_ascii_digits(tmp_path):
    gold = tmp_path / "test.label"
    gold.write_text("1\t2\t3\t4\t３\t6\t7\n", encoding="utf-8")
    result = run_cli("evaluate", "--task", "pit", gold, gold)
    assert result.returncode == 2
    one_line_error(result.stderr, f"{gold}:1:", "Label")


def test_turk_slots_are_ascii_numbers():
    with pytest.raises(SimrateError, match="no item answers found"):
        _slots(["Input.id１", "Answer.score１"], Path("batch.csv"))
    assert set(_slots(["Input.id1", "Answer.score1"], Path("batch.csv"))) == {"1"}


# ---------------------------------------------------------------- numbers kept in a file
def set_meta(path: Path, key: str, value: str, sql: str = "") -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))
    if sql:
        conn.execute(sql)
    conn.commit()
    conn.close()


@pytest.mark.parametrize("given", ["１.５", "1_0"])
def test_a_stored_threshold_in_other_digits_is_damage(tmp_path, given):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    set_meta(path, "threshold", given)
    result = run_cli("info", path)
    assert result.returncode == 2
    one_line_error(result.stderr, "damaged project", f"threshold is {given!r}")


def test_check_reads_a_schema_version_in_other_digits(tmp_path):
    path = tmp_path / "p.simrate"
    new_project(path).close()
    set_meta(path, "schema_version", "²", "ALTER TABLE annotators DROP COLUMN kind")
    result = run_cli("check", path)
    assert result.returncode == 2
    assert "schema_version is '²', not a whole number" in result.stdout
    assert "table annotators has no column kind" in result.stdout
    one_line_error(result.stderr, "damaged project")


def test_a_package_format_in_other_digits_is_unreadable(tmp_path):
    origin = new_project(tmp_path / "p.simrate")
    package = tmp_path / "ann.simrate"
    make_package(origin, package, "ann")
    origin.close()
    set_meta(package, "package_format", "１")
    with pytest.raises(SimrateError, match="unreadable package format '１'"):
        read_package(package)
