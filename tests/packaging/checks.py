"""What an installed simrate must do from any folder: the checks both packaging tests share."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from tests.packaging.tools import project_version, sample_files

#: Runs the installed `simrate` with arguments in the work folder; returns the finished process.
Simrate = Callable[..., subprocess.CompletedProcess]

SAMPLE_TITLE = "Sample: twenty sentence pairs"


def check_version(simrate: Simrate) -> None:
    """`simrate --version` prints pyproject.toml's version (from the package metadata)."""
    assert simrate("--version").stdout.strip() == f"simrate {project_version()}"


def check_builtin_scales(simrate: Simrate, work: Path) -> None:
    """`simrate new` works on both built-in scales, whose ranges come from resources/."""
    for name, high in (("sts", 5.0), ("clss", 4.0)):
        simrate("new", f"{name}.simrate", "--scale", name)
        info = json.loads(simrate("info", f"{name}.simrate", "--json").stdout)
        assert (info["scale"]["low"], info["scale"]["high"]) == (0.0, high)
        assert (work / f"{name}.simrate").is_file()
    assert "no such scale" in simrate("new", "x.simrate", "--scale", "sts5", expect=2).stderr


def check_sample_imports(simrate: Simrate, samples: Path) -> None:
    """Every file of sample_data/ is installed and imports (a gold key comes with its input)."""
    assert sorted(p.name for p in samples.iterdir()
                  if p.is_file() and p.suffix != ".py") == sample_files()
    simrate("new", "all.simrate", "--scale", "sts")
    added = {"items": 0, "ratings": 0}
    for name in sample_files():
        if ".gs." in name:
            refused = simrate("import", "all.simrate", samples / name, expect=2)
            assert "gold key" in refused.stderr and "Traceback" not in refused.stderr
            continue
        done = simrate("import", "all.simrate", samples / name)
        counts = re.findall(r"([\d,]+) (items|ratings) added", done.stdout)
        assert counts, done.stdout
        for number, what in counts:
            added[what] += int(number.replace(",", ""))
    info = json.loads(simrate("info", "all.simrate", "--json").stdout)
    # what the imports said they added is what the project holds
    assert (info["items"], info["ratings"]) == (added["items"], added["ratings"])
    assert info["items"] > 100 and info["ratings"] > 50
    assert info["annotators"] == ["ana", "ben", "chloe"]
    # a name in another script that looks like one already there is that rater: the
    # confusables table the keys are made with is installed (it is read as data)
    item = json.loads(simrate("gold", "all.simrate", "--json").stdout)["items"][0]["item_id"]
    table = Path(tempfile.mkdtemp()) / "lookalike.csv"
    table.write_text(f"item_id,annotator,score\n{item},\u0430n\u0430,2\n", encoding="utf-8")
    simrate("import", "all.simrate", table)
    info = json.loads(simrate("info", "all.simrate", "--json").stdout)
    assert info["annotators"] == ["ana", "ben", "chloe"]  # Cyrillic a: the rater ana


def check_window_on_sample(simrate: Simrate) -> None:
    """The window opens (offscreen) on the sample project, which is built on first use."""
    shown = simrate("--sample", "--annotator", "smoke", "--quit-when-shown")
    assert shown.stdout.strip() == f"window shown: {SAMPLE_TITLE} \u2013 simrate"


def check_sample_project(simrate: Simrate, path: Path) -> None:
    """The sample project built from the installed sample pairs: twenty items on the STS scale,
    rated by three raters, four items flagged and one adjudicated."""
    info = json.loads(simrate("info", path, "--json").stdout)
    assert (info["items"], info["title"], info["scale"]["high"]) == (20, SAMPLE_TITLE, 5.0)
    assert (info["annotators"], info["ratings"], info["flagged"], info["adjudicated"]) == (
        ["ana", "ben", "chloe"], 60, 4, 1)
