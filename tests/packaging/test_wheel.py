"""The wheel, built as a release would be (sdist, then a wheel from the sdist), installed into a
fresh virtual environment outside the checkout, works from any folder."""

from __future__ import annotations

import importlib.util
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.packaging import checks
from tests.packaging.tools import (
    ROOT,
    clean_copy,
    clean_env,
    python_can_make_venvs,
    require,
    run,
)

pytestmark = pytest.mark.packaging

SHOW_INSTALLED = """
import json
from simrate.core.base.scale import load_scale
from simrate.install.locations import icon_path, resource_folder, sample_data_folder
from PySide6.QtGui import QGuiApplication, QImage
application = QGuiApplication([])
print(json.dumps({
    "resources": str(resource_folder()),
    "samples": str(sample_data_folder()),
    "icon_width": QImage(str(icon_path())).width(),
    "guidelines": {name: {str(float(p.value)): p.guideline for p in load_scale(name).points}
                   for name in ("sts", "clss")},
}))
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    """Build the sdist and the wheel, and install the wheel into a new virtual environment."""
    require(importlib.util.find_spec("build") is not None,
            "the 'build' package is not installed (pip install -e '.[test]')")
    require(python_can_make_venvs(), f"{sys.executable} cannot make virtual environments")
    base = tmp_path_factory.mktemp("wheel")
    dist = base / "dist"
    source = clean_copy(base / "source")
    run([sys.executable, "-m", "build", "--outdir", dist, source], cwd=base, timeout=600)
    run([sys.executable, "-m", "venv", base / "venv"], cwd=base)
    wheel = next(dist.glob("simrate-*.whl"))
    run([base / "venv" / "bin" / "python", "-m", "pip", "install", "--quiet", wheel],
        cwd=base, timeout=900)
    work = base / "work"
    work.mkdir()
    return {"base": base, "dist": dist, "bin": base / "venv" / "bin", "work": work}


@pytest.fixture
def simrate(installed):
    """Run the installed `simrate` in the work folder, with no virtual environment active."""
    env = clean_env(installed["base"] / "home")

    def call(*args: object, expect: int = 0):
        return run([installed["bin"] / "simrate", *args], cwd=installed["work"], env=env,
                   expect=expect)
    return call


def test_sdist_carries_the_data_folders(installed):
    sdist = next(installed["dist"].glob("simrate-*.tar.gz"))
    with tarfile.open(sdist) as archive:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in archive.getnames()}
    for name in checks.sample_files():
        assert f"sample_data/{name}" in names
    assert {"resources/scales/sts.json", "resources/scales/clss.json",
            "resources/icons/simrate-256.png", "setup.py"} <= names


def test_wheel_carries_the_web_pages_templates_and_assets(installed):
    wheel = next(installed["dist"].glob("simrate-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    # the folder app/ is installed as the package simrate
    pages = {"simrate/" + p.relative_to(ROOT / "app").as_posix()
             for p in (ROOT / "app" / "web").rglob("*") if p.suffix in (".html", ".js", ".css")}
    assert {"simrate/web/templates/item.html", "simrate/web/static/rate.js",
            "simrate/web/static/style.css"} <= pages <= names
    assert not any(name.startswith("app/") for name in names)


def test_version_and_scales(simrate, installed):
    checks.check_version(simrate)
    checks.check_builtin_scales(simrate, installed["work"])


def test_data_come_from_the_installation_not_the_checkout(installed):
    import json

    shown = json.loads(run([installed["bin"] / "python", "-c", SHOW_INSTALLED],
                           cwd=installed["work"], env=clean_env(installed["base"] / "home")
                           ).stdout)
    site = installed["base"] / "venv"
    assert Path(shown["resources"]).is_relative_to(site)
    assert Path(shown["samples"]).is_relative_to(site)
    assert shown["icon_width"] == 256
    # the guideline texts of both scales, as written in the checkout's resources/
    for name in ("sts", "clss"):
        written = json.loads((ROOT / "resources" / "scales" / f"{name}.json").read_text("utf-8"))
        texts = {str(float(p["value"])): p["guideline"] for p in written["points"]}
        assert shown["guidelines"][name] == texts and all(texts.values())


def test_sample_project_and_window(simrate, installed):
    env = clean_env(installed["base"] / "home")
    built = run([installed["bin"] / "python", "-m", "simrate.gui.base.sample"], cwd=installed["work"],
                env=env).stdout.strip()
    assert Path(built).is_relative_to(installed["base"] / "home")
    checks.check_sample_project(simrate, Path(built))
    checks.check_window_on_sample(simrate)


def test_every_sample_file_imports(simrate, installed):
    samples = run([installed["bin"] / "python", "-c",
                   "from simrate.install.locations import sample_data_folder; print(sample_data_folder())"],
                  cwd=installed["work"], env=clean_env(installed["base"] / "home")).stdout
    checks.check_sample_imports(simrate, Path(samples.strip()))


def test_install_hints_fit_a_wheel_and_pipx(simrate, installed):
    # the wheel is installed without the web extra: `serve` names the command that adds it
    # to this installation, not a checkout's `pip install -e`
    (installed["work"] / "hint.simrate").unlink(missing_ok=True)
    simrate("new", "hint.simrate", "--scale", "sts")
    refused = simrate("serve", "hint.simrate", expect=2)
    assert "the web page needs the web extra: pip install 'simrate[web]'" in refused.stderr
    marker = installed["base"] / "venv" / "pipx_metadata.json"  # what pipx leaves in its venvs
    marker.write_text("{}", encoding="utf-8")
    try:
        refused = simrate("serve", "hint.simrate", expect=2)
    finally:
        marker.unlink()
    assert "pipx inject simrate 'starlette>=0.37' 'uvicorn>=0.29'" in refused.stderr
