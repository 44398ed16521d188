"""MkDocs hooks: the reference pages are written from the code at build time.

A page holds a marker such as `<!-- generated: cli -->`; the hook replaces it with text made
from the running code, so the reference cannot drift from the program:
- `cli`: every subcommand and option, from the argparse parsers of app/cli.py, with the
  descriptions `--help` prints (app/commands/parser/option_help.py);
- `schema`: the tables of a project file, from the schema strings in app/core;
- `change-kinds`: the kinds of change-log entry, from app/core/data/changelog.py's CHANGE_KINDS;
- `reliability`: the guarantee table, from README.md's Reliability section;
- `value-rules`: which rule of app/core/data/values.py each typed option follows, from the parsers;
- `floors`: the floors of the code, from the import contracts of pyproject.toml (the ones
  lint-imports checks) and the docstrings of the folders and modules they name.
Pictures of the window are committed files in docs/images (tools/render_views.py --docs
makes them; tests/docs/test_pictures.py keeps them current), not made at build time.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

MARKER = re.compile(r"<!-- generated: ([a-z-]+) -->")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps no public list of its subcommands
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {choice.dest: choice.help or "" for choice in action._choices_actions}
    return {}


def _option_rows(parser: argparse.ArgumentParser) -> list[str]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(f"`{o}`" for o in action.option_strings)
            if action.nargs != 0:
                name += f" `{action.metavar or action.dest.upper()}`"
        else:
            name = f"`{action.metavar or action.dest.upper()}`"
        # The text `--help` prints (app/commands/parser/option_help.py fills what cli.py leaves out).
        notes = [parser._get_formatter()._expand_help(action) if action.help else ""]
        if action.choices and not isinstance(action.choices, dict):
            notes.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
        if action.required and action.option_strings:
            notes.append("required")
        if (action.default not in (None, False, [], "", argparse.SUPPRESS) and action.nargs != 0
                and "default" not in notes[0]):
            notes.append(f"default `{action.default}`")
        text = "; ".join(n for n in notes if n).replace("|", "\\|")
        rows.append(f"| {name} | {text} |")
    return rows


def _command_section(path: str, parser: argparse.ArgumentParser, help_text: str) -> list[str]:
    usage = " ".join(parser.format_usage().split())
    usage = usage.removeprefix("usage: ")
    out = [f"### `{path}`", ""]
    if parser.description:  # the paragraph `--help` prints (app/commands/parser/command_help.py)
        out += [parser.description, ""]
    elif help_text:
        out += [help_text[:1].upper() + help_text[1:] + ".", ""]
    out += ["```", usage, "```", ""]
    rows = _option_rows(parser)
    if rows:
        out += ["| argument | meaning |", "|---|---|", *rows, ""]
    examples = (parser.epilog or "").splitlines()
    if examples[:1] == ["examples:"]:  # the examples `--help` ends with
        out += ["Examples:", "", "```sh", *(line.strip() for line in examples[1:]), "```", ""]
    helps = _helps(parser)
    for name, child in _subparsers(parser).items():
        out += _command_section(f"{path} {name}", child, helps.get(name, ""))
    return out


def cli_reference() -> str:
    from simrate.cli import build_gui_parser, build_parser

    out = ["## The window", ""]
    out += _command_section("simrate", build_gui_parser(), "open the window")[2:]
    out += ["## Commands", ""]
    parser = build_parser()
    helps = _helps(parser)
    for name, child in _subparsers(parser).items():
        out += _command_section(f"simrate {name}", child, helps.get(name, ""))
    return "\n".join(out)


def _schemas() -> list[tuple[str, str]]:
    """(module, SQL) of every *SCHEMA string of app/core that creates SQLite tables."""
    import simrate.core

    found = []
    for info in pkgutil.walk_packages(simrate.core.__path__, "simrate.core."):
        if ".hub" in info.name:
            continue  # the hub is PostgreSQL: see its own page
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if name.endswith("SCHEMA") and isinstance(value, str) and "CREATE TABLE" in value:
                found.append((f"{info.name}.{name}", value.strip()))
    return found


def schema_reference() -> str:
    from simrate.core.data.store import SCHEMA_VERSION

    out = [f"Schema version {SCHEMA_VERSION} (`PRAGMA application_id` 0x53524154, \"SRAT\").",
           ""]
    for where, sql in _schemas():
        out += [f"### `{where}`", "", "```sql", sql, "```", ""]
    return "\n".join(out)


def change_kinds_reference() -> str:
    from simrate.core.data.changelog import CHANGE_KINDS

    rows = [f"| `{kind}` | {text} |" for kind, text in CHANGE_KINDS.items()]
    return "\n".join(["| kind | what the entry records |", "|---|---|", *rows])


def reliability_reference() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Reliability")
    end = text.find("\n## ", start + 5)
    section = text[start:end if end > 0 else len(text)].strip().split("\n", 1)[1]
    return re.sub(r"\]\(#([^)]+)\)", r"](index.md)", section)


#: The rules of app/core/data/values.py, by the name of the option type that applies each.
RULE_NAMES = {
    "count": "whole number, 0 or more, within 64 bits, ASCII digits",
    "whole_number": "whole number within 64 bits, ASCII digits, one optional sign",
    "finite_float": "finite number, ASCII (no nan, inf, `_`, padding)",
    "host_name": "host name (letters, digits, `-` between dots) or IP address",
    "web_address": "`http:` or `https:` address with a valid host, no control characters",
}


def _typed_options(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _typed_options(sub, f"{path} {name}")
        elif getattr(action.type, "__name__", "") in RULE_NAMES:
            yield path, action.option_strings[-1], RULE_NAMES[action.type.__name__]


def value_rules_reference() -> str:
    from simrate.cli import build_parser

    rows = [f"| `{path} {option}` | {rule} |"
            for path, option, rule in _typed_options(build_parser(), "simrate")]
    return "\n".join(["| option | rule |", "|---|---|", *rows])


def _contracts() -> list[dict]:
    try:
        import tomllib
    except ImportError:  # Python 3.10: import-linter's own dependency reads TOML there
        import tomli as tomllib
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["importlinter"]["contracts"]


def _summary(module: str) -> str:
    """The first sentence of a folder's or module's docstring, on one line."""
    doc = " ".join((importlib.import_module(module).__doc__ or "").split())
    return re.split(r"(?<=\.)\s", doc, maxsplit=1)[0].rstrip(".")


def floors_reference() -> str:
    out = []
    for contract in _contracts():
        if contract["type"] == "layers":
            for container in contract["containers"]:
                out += [f"### `{container}`", "", contract["name"][0].upper()
                        + contract["name"][1:] + ", from the top floor down.", "",
                        "| floor | folder or module | what lives there |", "|---|---|---|"]
                for floor, layer in enumerate(contract["layers"], 1):
                    for part in (name.strip() for name in layer.split("|")):
                        out.append(f"| {floor} | `{container}.{part}` | "
                                   f"{_summary(f'{container}.{part}')} |")
                out.append("")
        else:
            rule = ", ".join(f"`{m}`" for m in contract.get("forbidden_modules", [])) or \
                "a loop between any two folders"
            out.append(f"- {contract['name'][0].upper() + contract['name'][1:]} "
                       f"({contract['type']}: {rule}).")
    return "\n".join(out)


GENERATORS = {
    "floors": floors_reference,
    "cli": cli_reference,
    "schema": schema_reference,
    "change-kinds": change_kinds_reference,
    "reliability": reliability_reference,
    "value-rules": value_rules_reference,
}


def on_page_markdown(markdown: str, page, config, files) -> str:
    def generate(match: re.Match) -> str:
        return GENERATORS[match.group(1)]()

    return MARKER.sub(generate, markdown)
