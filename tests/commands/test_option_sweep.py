"""Every subcommand and every option, generated from `simrate.cli.build_parser()`, fed the
hostile values of each class: a new option or subcommand is swept without anyone listing
it (only a new required positional needs a base value in BASE).

The rule: an option whose type is the rule of a class (whole numbers, finite numbers, host
names and addresses, paths) refuses that class's values with exit 2 and exactly one
`simrate: error:` line on stderr: no usage block, no class name, no warning text; and a
refused command leaves its folder and project as they were. Every other option may take a
value (exit 0) or refuse it (exit 2 or 3), but never with exit 1, a traceback or more than
one line.

Issue 43 added two classes every argument meets: bytes that are not UTF-8 (refused by all,
the line naming the option, file names too) and `--X=--` (the text `--`, or refused, never
a list); options of type text_option (titles, notes, codes) refuse the text class.

The cases run in-process, in two child interpreters at once (each case under an alarm, so
a command that would wait for ever fails the test instead of hanging it).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.helpers import simrate
from tests.support.helpers import ROOT

SAMPLES = ROOT / "sample_data"
#: Seconds one case may take before it counts as a hang.
CASE_SECONDS = 20
WORKERS = 2

#: The hostile values of each class. Paths are made in the case's folder ({D}).
CLASSES = {
    "whole": ["9" * 25, "9" * 5000, "-1", "1e3", "３", "0x10", ""],
    "finite": ["inf", "-inf", "nan", "1e400", "9" * 5000, "1_0"],
    "host": ["a..b", "-a.b", "a b", "javascript:alert(1)", "file:///etc/passwd",
             "http://a..b/", "http://x\x07y/"],
    "text": ["x\ny", "x\x07y", "x\u2028y", "\x1b[31mred", "x" * 100_000],
    "path": ["{D}/fifo", "/dev/zero", "{D}/loop", "{D}/" + "n" * 300 + ".simrate",
             "{D}/no-such-folder/x.simrate", "{D}"],
    # issue 43: bytes that are not UTF-8, as Python hands them over (surrogate escapes),
    # given to every argument, file names included; and `--X=--`, the form the usage
    # error recommends for a value that starts with '-' (once a list in the code)
    "undecodable": ["caf\udce9", "\udcff.simrate"],
    "dashes": ["--"],
}
#: Which option types are the rule of each class (by the type's name).
RULES = {"whole": {"count", "whole_number"}, "finite": {"finite_float"},
         "host": {"host_name", "web_address"}, "text": {"text_option", "service_address"},
         "path": set(), "undecodable": set(), "dashes": set()}
#: Classes every argument must refuse, whatever its type.
REFUSED_BY_ALL = {"path", "undecodable"}
#: Arguments that name files or folders: the path class is their rule.
PATH_DESTS = {"project", "files", "out", "local", "salvage", "ratings", "scale"}
#: Files read as data may be pipes (`<(zcat pairs.tsv.gz)`): a named pipe is read as its
#: writer writes, as `cat` reads it, so an unwritten FIFO is not swept there.
PIPE_READERS = {"files", "ratings", "scale"}
#: Exports may write into a device (`/dev/null`, `/dev/stdout`): allowed, never required.
DEVICE_WRITERS = {"out"}

#: Base values of positionals and required options: "command dest", else "dest".
BASE = {
    "project": "{P}", "import files": [str(SAMPLES / "pairs.tsv")],
    "pyramid files": [str(SAMPLES / "D9901.pyr")], "pyramid out": "{D}/pairs.tsv",
    "evaluate files": [str(SAMPLES / "STS.gs.demo.txt"), str(SAMPLES / "STS.gs.demo.txt")],
    "evaluate task": "sts", "new project": "{D}/new.simrate", "new scale": "clss",
    "export out": "{D}/gold.tsv", "package out": "{D}/ana.simrate", "package annotator": "ana",
    "crowd export out": "{D}/tasks.csv", "crowd export per_task": "3",
    "adjudicate item_id": "news-01", "adjudicate score": "2", "assign annotators": ["ana", "ben"],
    "assign per_item": "1", "crowd study name": "s1", "name": "bob", "team add role": "annotator",
    "crowd review study": "s1", "crowd bonus study": "s1",
    "url": "postgresql://u@127.0.0.1:9/db", "local": "{D}/local.simrate",
}
#: Commands left out of the sweep (none: the window's own parser, build_gui_parser, is not
#: part of build_parser, and its options are the names' rules).
SKIP: set[str] = set()


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(command path, its parser) of every leaf subcommand."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from commands(sub, (*path, name))


def _base(path: tuple[str, ...], action: argparse.Action) -> list[str] | None:
    key = " ".join(path)
    for name in (f"{key} {action.dest}", f"{path[0]} {action.dest}", action.dest):
        if name in BASE:
            value = BASE[name]
            return list(value) if isinstance(value, list) else [value]
    return None


def _takes_value(action: argparse.Action) -> bool:
    return action.nargs != 0 and not isinstance(action, (argparse._HelpAction,
                                                         argparse._VersionAction))


def base_argv(path: tuple[str, ...], parser: argparse.ArgumentParser,
              swept: argparse.Action | None = None, value: str = "") -> list[str]:
    """The arguments of a command that would run, with `value` given to `swept`."""
    positionals, options = [], []
    for action in parser._actions:
        if not _takes_value(action):
            continue
        if action is swept:
            if action.option_strings:
                options.append(f"{action.option_strings[-1]}={value}")
            else:
                positionals.append(value)
        elif not action.option_strings:
            given = _base(path, action)
            if given is None and action.nargs not in ("?", "*"):
                raise AssertionError(f"give the sweep a base value for {' '.join(path)} "
                                     f"{action.dest} (BASE in {__file__})")
            positionals += given or []
        elif action.required:
            given = _base(path, action)
            assert given, f"give the sweep a base value for {' '.join(path)} {action.dest}"
            options.append(f"{action.option_strings[-1]}={given[0]}")
    return [*path, *positionals, *options]


def _says(klass: str, action: argparse.Action) -> str | None:
    """What the error line must hold for this class (the option named), if anything."""
    if klass != "undecodable":
        return None
    return f"{action.option_strings[-1]}: not UTF-8" if action.option_strings \
        else "not UTF-8"


def _valid_by_its_own_rule(action: argparse.Action, value: str) -> bool:
    """True when the option's own type takes `value` (1e3 is a fine --wait): not hostile."""
    if action.type is None:
        return False
    try:
        action.type(value)
    except (argparse.ArgumentTypeError, TypeError, ValueError):
        return False
    return True


def cases(klass: str) -> list[dict]:
    """Every (command, argument, hostile value) of a class, with whether it must refuse."""
    from simrate.cli import build_parser

    found = []
    for path, parser in commands(build_parser()):
        if " ".join(path) in SKIP:
            continue
        for action in parser._actions:
            if not _takes_value(action):
                continue
            if klass == "path" and action.dest not in PATH_DESTS:
                continue
            type_name = getattr(action.type, "__name__", "")
            strict = type_name in RULES[klass] or klass in REFUSED_BY_ALL or (
                action.choices is not None)
            for value in CLASSES[klass]:
                if not action.option_strings and value.startswith("-"):
                    continue  # an option to argparse, not this positional's value
                if (value == "{D}/fifo" and action.dest in PIPE_READERS) or (
                        value == "/dev/zero" and action.dest in DEVICE_WRITERS):
                    continue
                if not strict and _valid_by_its_own_rule(action, value):
                    continue
                arg = action.option_strings[-1] if action.option_strings else action.dest
                found.append({"argv": base_argv(path, parser, action, value),
                              "strict": strict, "arg": arg, "says": _says(klass, action)})
    return found


# ---------------------------------------------------------------- the child


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    found = {}
    for item in sorted(folder.rglob("*")):
        if item.is_symlink() or not item.is_file():
            found[str(item)] = (0, 0)
            continue
        found[str(item)] = (item.stat().st_size, hash(item.read_bytes()))
    return found


def _prepare(folder: Path, project: Path) -> None:
    import shutil

    folder.mkdir()
    shutil.copyfile(project, folder / "p.simrate")
    os.mkfifo(folder / "fifo")
    os.symlink(folder / "loop2", folder / "loop")
    os.symlink(folder / "loop", folder / "loop2")


def _one_case(case: dict, folder: Path, project: Path) -> str | None:
    """None, or what went wrong."""
    import contextlib
    import io
    import shutil

    from simrate.cli import main

    os.chdir(folder.parent)
    if folder.exists():
        shutil.rmtree(folder)
    _prepare(folder, project)
    os.chdir(folder)  # a relative name a command writes lands in the folder watched
    argv = [a.replace("{P}", str(folder / "p.simrate")).replace("{D}", str(folder))
            for a in case["argv"]]
    before = _snapshot(folder)
    out, err = io.StringIO(), io.StringIO()
    signal.alarm(CASE_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except SystemExit as exc:
        status = exc.code
    except _Hang:
        return f"still running after {CASE_SECONDS} s"
    finally:
        signal.alarm(0)
    return _verdict(case, status, err.getvalue(), before, _snapshot(folder))


def _verdict(case: dict, status: object, err: str, before: dict, after: dict) -> str | None:
    lines = err.strip().splitlines()
    if "Traceback" in err or "Warning:" in err or "usage:" in err:
        return f"exit {status}, stderr {err[-600:]!r}"
    if case["strict"] and status != 2:
        return f"exit {status} (must be 2), stderr {err[-300:]!r}"
    if status not in (0, 2, 3):
        return f"exit {status}, stderr {err[-300:]!r}"
    if status:
        if len(lines) != 1 or not lines[0].startswith("simrate: error: "):
            return f"exit {status} with {len(lines)} line(s): {err[-600:]!r}"
        message = lines[0].removeprefix("simrate: error: ")
        if case.get("says") and case["says"] not in message:
            return f"{case['says']!r} not in {lines[0]!r}"
        for word in ("Error:", "Exception", "Errno"):
            if word in message:
                return f"a class name in {lines[0]!r}"
        if before != after:
            changed = sorted(set(before.items()) ^ set(after.items()))
            return f"refused, yet the folder changed: {changed[:3]}"
    return None


class _Hang(BaseException):
    """A case ran past CASE_SECONDS."""


def _alarm(_signum, _frame):
    raise _Hang()


def run_share(klass: str, share: int, shares: int, project: str, folder: str) -> None:
    """The child: run every `shares`-th case of a class; print each failure as JSON."""
    import faulthandler
    import warnings

    # a C call that SIGALRM cannot interrupt (SQLite retries an open on EINTR): the stack
    # is dumped and the child ends, so the parent reports where it hung (set per case)
    warnings.simplefilter("always")  # a warning is printed every time it happens
    signal.signal(signal.SIGALRM, _alarm)
    os.environ["SIMRATE_HUB_WAIT"] = "0"
    for case in cases(klass)[share::shares]:
        faulthandler.dump_traceback_later(CASE_SECONDS * 3, exit=True)
        print(json.dumps({"running": [a[:80] for a in case["argv"]]}), flush=True)
        problem = _one_case(case, Path(folder) / "case", Path(project))
        if problem:
            print(json.dumps({"argv": [a[:80] for a in case["argv"]], "problem": problem}),
                  flush=True)


# ---------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The sample pairs, rated by ana, ben and cleo."""
    from simrate.cli import main

    path = tmp_path_factory.mktemp("sweep") / "p.simrate"
    assert main(["new", str(path), "--scale", "clss"]) == 0
    assert main(["import", str(path), str(SAMPLES / "pairs.tsv"),
                 str(SAMPLES / "ratings_long.csv")]) == 0
    return path


def test_every_subcommand_has_its_base_values():
    from simrate.cli import build_parser

    found = list(commands(build_parser()))
    assert len(found) >= 25  # the 16 commands, team's 7 and crowd's 3 actions
    for path, parser in found:
        base_argv(path, parser)  # fails naming a positional that has no base value


@pytest.mark.parametrize("klass", sorted(CLASSES))
def test_every_option_refuses_hostile_values_in_one_line(klass, project, tmp_path):
    assert cases(klass), klass
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SIMRATE_HUB_WAIT": "0"}
    env.pop("SIMRATE_DEBUG", None)
    children = []
    for share in range(WORKERS):
        folder = tmp_path / f"w{share}"
        folder.mkdir()
        code = ("from tests.commands.test_option_sweep import run_share; "
                f"run_share({klass!r}, {share}, {WORKERS}, {str(project)!r}, {str(folder)!r})")
        children.append(subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
    failures, errors = [], []
    for child in children:
        try:
            out, err = child.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        failures += [line for line in lines if "problem" in line]
        if child.returncode:
            running = [line["running"] for line in lines if "running" in line][-1:]
            errors.append(f"{running}: {err[-3000:]}")
    assert not errors, errors
    assert not failures, "\n".join(f"{f['argv']}: {f['problem']}" for f in failures[:30]) \
        + f"\n({len(failures)} in all)"


def test_an_argparse_error_is_one_line_that_says_where_the_usage_is(capsys, project):
    result = simrate(capsys, "agreement", project, "--level", "weird")
    assert result.status == 2
    assert result.err.count("\n") == 1 and "usage:" not in result.err
    assert "'simrate agreement --help' shows the usage" in result.err
    result = simrate(capsys, "flagged", project, "--threshold", "-1e308")
    assert result.err.count("\n") == 1 and "is given as --OPTION=VALUE" in result.err
    result = simrate(capsys, "crowd", "study", project, "s", "--no-such-option")
    assert result.err.count("\n") == 1
    assert "unrecognized arguments: --no-such-option ('simrate crowd study --help'" in result.err
