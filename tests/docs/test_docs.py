"""The documentation site builds strictly, its commands parse, its tutorial runs.

These need the `docs` extra (MkDocs, Material, mkdocstrings). Without it they are skipped
on a developer's machine and fail when CI is set: CI installs the extra.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simrate.cli import build_gui_parser, build_parser
from simrate.commands.parser.registry import COMMANDS
from simrate.core.base.errors import SimrateError

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]


def need(module: str) -> None:
    try:
        __import__(module)
    except ImportError:
        message = f"{module} is missing: pip install -e '.[docs]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def blocks(path: Path, language: str) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.S | re.M)


def simrate_lines(path: Path) -> list[str]:
    lines = []
    for block in blocks(path, "sh"):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("simrate "):
                lines.append(line)
    return lines


def test_the_site_builds_strictly(tmp_path):
    need("mkdocs")
    need("material")
    need("mkdocstrings")
    # as the README runs it: the `mkdocs` script of the environment, no PYTHONPATH (the
    # script's folder, first on sys.path, also holds the `simrate` script griffe must not take)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env.update(QT_QPA_PLATFORM="offscreen", NO_MKDOCS_2_WARNING="1")
    script = Path(sys.executable).parent / "mkdocs"
    assert script.is_file(), "the docs extra installs the mkdocs script beside python"
    done = subprocess.run([str(script), "build", "--strict",
                           "--site-dir", str(tmp_path / "site")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    cli = (tmp_path / "site" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in COMMANDS:  # the reference lists every subcommand
        assert f"simrate {command}" in cli
    schema = (tmp_path / "site" / "schema" / "index.html").read_text(encoding="utf-8")
    for table in ("import_replaced", "adjudications", "check_items"):  # core and team tables
        assert table in schema


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_simrate_command_in_the_docs_parses(page):
    for line in simrate_lines(page):
        words = shlex.split(line, comments=True)[1:]
        parser = build_parser() if words and words[0] in COMMANDS else build_gui_parser()
        try:
            parser.parse_args(words)
        except SimrateError as exc:
            pytest.fail(f"{page.name}: {line!r} does not parse: {exc}")
        except SystemExit as exc:  # --help and --version exit
            assert exc.code == 0, line


def synopsis() -> list[str]:
    """The lines of the synopsis at the top of docs/cli.md, continuations joined."""
    lines: list[str] = []
    for line in blocks(DOCS / "cli.md", "")[0].splitlines():
        if line.startswith("simrate "):
            lines.append(line)
        elif lines and line.startswith(" "):
            lines[-1] += " " + line.strip()
    return lines


def test_the_synopsis_follows_the_command_registry():
    # the hand-written synopsis names the registry's commands, in its order, and the
    # --format choices its parsers take (each from the formats' own registry)
    named = [line.split()[1] for line in synopsis() if not line.split()[1].startswith("[")]
    assert list(dict.fromkeys(named)) == list(COMMANDS)
    parser = build_parser(["import", "export"])
    sub = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("import", "export"):
        choices = next(a.choices for a in sub[name]._actions if a.dest == "format")
        listed = [re.search(r"--format \{([^}]*)\}", line) for line in synopsis()
                  if line.startswith(f"simrate {name} ")]
        assert [m.group(1).split(",") for m in listed if m] == [list(choices)], name


def test_the_commands_are_found():
    assert len(simrate_lines(DOCS / "tutorial.md")) >= 8


def test_the_tutorial_runs_against_the_sample(tmp_path):
    shutil.copytree(ROOT / "sample_data", tmp_path / "sample_data")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_QPA_PLATFORM": "offscreen",
           "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf")}  # `datasets` neither downloads nor leaves a cache
    tutorial = DOCS / "tutorial.md"
    commands = [line for line in simrate_lines(tutorial)
                if not re.match(r"simrate (--sample|demo\.simrate)", line)]  # the window
    assert commands
    for line in commands:
        words = shlex.split(line, comments=True)[1:]
        done = subprocess.run([sys.executable, "-m", "simrate", *words], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{line}: {done.stderr}"
    python = blocks(tutorial, "python")
    assert python
    for code in python:
        done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{code}\n{done.stderr}"
        assert "Traceback" not in done.stderr
    assert (tmp_path / "gold.xlsx").stat().st_size > 0
    # the tutorial ends with a dataset folder that `datasets` loaded in the last block
    assert sorted(p.name for p in (tmp_path / "demo-dataset").iterdir()) == [
        "README.md", "croissant.json", "data"]
    assert "20 items; news-04 3.0 adjudicated" in done.stdout


def test_the_readme_stays_short():
    """The README is the way in (at most 300 lines); the rest lives in docs/."""
    lines = (Path(__file__).resolve().parents[2] / "README.md").read_text(
        encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines: move detail to docs/"


def test_every_file_the_docs_name_exists():
    # a path to the code or a test in the README or a page must still be there after a move
    named = {(page.name, path) for page in PAGES
             for path in re.findall(r"\b((?:app|tests|tools)/[\w/]+\.py)\b", page.read_text())}
    missing = sorted(f"{page}: {path}" for page, path in named if not (ROOT / path).exists())
    assert not missing, "\n".join(missing)
