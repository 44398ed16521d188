"""The docs list exactly the formats of the registry (app/formats/catalog/registry.py): the
import page's table and synopsis, the export section's table and its endings, the command
reference's --format choices."""

from __future__ import annotations

import re
from pathlib import Path

from simrate.formats.catalog.registry import WRITE, names

DOCS = Path(__file__).resolve().parents[2] / "docs"


def table_names(page: str, header: str) -> list[str]:
    """The backticked names in the first column of the table under `header`, in order."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    start = lines.index(header) + 2  # the header, then its |---| line
    found = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        found += re.findall(r"`([a-z]+)`", line.split("|")[1])
    return found


def synopsis_choices(page: str, command: str) -> tuple[str, ...]:
    """The --format choices a synopsis line of `simrate <command>` lists."""
    text = (DOCS / page).read_text(encoding="utf-8")
    match = re.search(rf"^`?simrate {command} .*?--format \{{?([a-z|,]+)\}}?\]", text, re.M)
    assert match, f"{page}: no --format in the synopsis of {command}"
    return tuple(re.split(r"[|,]", match.group(1)))


def test_the_import_page_lists_the_formats_read():
    assert sorted(table_names("formats.md", "| format | recognised by | example |")) == sorted(
        names("read"))
    assert sorted(synopsis_choices("formats.md", "import")) == sorted(("auto", *names("read")))


def test_the_export_section_lists_the_formats_written_and_their_endings():
    assert sorted(table_names("review.md", "| format | content |")) == sorted(names("write"))
    text = (DOCS / "review.md").read_text(encoding="utf-8")
    sentence = text[text.index("The format comes from `--format`"):].split(". ")[0]
    said = {ending: name for endings, name in re.findall(r"((?:`\.\w+`/?)+) (\w+)", sentence)
            for ending in re.findall(r"`(\.\w+)`", endings)}
    assert said == {ending: fmt.name for fmt in WRITE for ending in fmt.chooses}


def test_the_command_reference_offers_the_registrys_choices():
    assert synopsis_choices("cli.md", "import") == ("auto", *names("read"))
    assert synopsis_choices("cli.md", "export") == names("write")
