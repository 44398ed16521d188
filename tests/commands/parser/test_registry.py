"""One registry of commands (app/commands/parser/registry.py): adding a command is one module with
`add_parser` and `run`, and one line in COMMANDS; the parser, the dispatch, the window's
help and the site's reference all follow it."""

from __future__ import annotations

import argparse
import inspect
import subprocess
import sys
from pathlib import Path

from simrate.cli import build_gui_parser, build_parser
from simrate.commands.parser.registry import COMMANDS, FOLDERS, command_module
from tests.cli.helpers import simrate

COMMANDS_DIR = Path(__file__).resolve().parents[3] / "app" / "commands"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_module_is_registered_with_add_parser_and_run():
    modules = sorted(p.stem.removesuffix("_cmd") for p in COMMANDS_DIR.rglob("*_cmd.py"))
    assert sorted(COMMANDS) == modules
    for path in COMMANDS_DIR.rglob("*_cmd.py"):  # each in the folder the registry names
        assert path.parent.name == FOLDERS[path.stem.removesuffix("_cmd")], path
    assert len(set(COMMANDS)) == len(COMMANDS)
    for name in COMMANDS:
        module = command_module(name)
        assert list(inspect.signature(module.add_parser).parameters) == ["sub"], name
        assert list(inspect.signature(module.run).parameters) == ["args"], name


def test_the_parser_holds_the_registry_in_its_order():
    assert list(subcommands(build_parser())) == list(COMMANDS)
    assert ", ".join(COMMANDS) in build_gui_parser().description


def test_a_command_alone_parses_as_in_the_whole_parser():
    # `simrate COMMAND ...` builds only its own command's parser: the same help, word for word
    whole = subcommands(build_parser())
    for name in COMMANDS:
        alone = subcommands(build_parser([name]))
        assert list(alone) == [name]
        assert alone[name].format_help() == whole[name].format_help(), name


def test_running_a_command_imports_only_its_own_module(tmp_path):
    project = tmp_path / "p.simrate"
    code = ("import sys; from simrate.cli import main; status = main(sys.argv[1:]); "
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules "
            "if m.startswith('simrate.commands.') and m.endswith('_cmd'))); "
            "raise SystemExit(status)")
    done = subprocess.run([sys.executable, "-c", code, "new", str(project), "--scale", "sts"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['new_cmd']"
    assert project.exists()


def test_an_unknown_option_names_the_command_whose_help_to_read(capsys, tmp_path):
    done = simrate(capsys, "crowd", "status", tmp_path / "p.simrate", "--colour")
    assert done.status == 2
    assert done.err == ("simrate: error: unrecognized arguments: --colour ('simrate crowd status "
                        "--help' shows the usage)\n")


def test_every_format_the_registries_list_is_one_the_commands_take(sample_data, tmp_path,
                                                                    capsys):
    # --format's choices are the formats' own lists; each listed format is written for real
    from simrate.formats.output import writers
    from simrate.formats.readers import detect

    parser = subcommands(build_parser(["import", "export"]))
    choices = {name: next(a.choices for a in parser[name]._actions if a.dest == "format")
               for name in ("import", "export")}
    assert choices["import"] == ("auto", *detect.FORMATS)
    assert set(detect.ITEM_READERS) <= set(detect.FORMATS)
    assert choices["export"] == writers.FORMATS
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", "sts").status == 0
    assert simrate(capsys, "import", project, sample_data / "pairs.tsv").status == 0
    assert simrate(capsys, "import", project, sample_data / "ratings_long.csv").status == 0
    assert simrate(capsys, "import", project, sample_data / "D9901.pyr").status == 0
    for fmt in writers.FORMATS:
        out = tmp_path / f"gold-{fmt}"
        done = simrate(capsys, "export", project, out, "--format", fmt, "--allow-unresolved")
        assert done.status == 0, (fmt, done.err)
        assert out.exists(), fmt
