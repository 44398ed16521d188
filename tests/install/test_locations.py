"""Install hints: one helper (simrate.install.locations.install_hint) decides, from how
simrate was installed, the command every "install X" line prints (the wheel and pipx cases run in
tests/packaging/test_wheel.py, on a real installed wheel)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HINT = "from simrate.install.locations import install_hint as h; print(h('web')); print(h(None, 'psycopg'))"


def hints_from(folder: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-c", HINT], cwd=folder, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_checkout_is_told_to_install_editable(tmp_path):
    # this suite runs on an editable install of the checkout: `pip install 'simrate[web]'`
    # would look for simrate on the package index and fail
    assert hints_from(ROOT) == ["pip install -e '.[web]'", "pip install -e ."]
    assert hints_from(tmp_path) == [f"pip install -e '{ROOT}[web]'", f"pip install -e {ROOT}"]


def test_no_install_command_is_written_outside_the_helper():
    written = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        if path.name == "locations.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\b(pip|pipx) (install|inject)\b", line):
                written.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not written, "use simrate.install.locations.install_hint:\n" + "\n".join(written)
