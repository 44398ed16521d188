"""The standalone bundle, built by packaging/build-bundle.sh, runs with no Python environment:
the command line, the sample files it carries, the window on the sample, the desktop entry."""

from __future__ import annotations

import os
import shutil
import sys
import tarfile
from pathlib import Path

import pytest

from simrate.gui.base.sample import SAMPLE_NAME
from tests.packaging import checks
from tests.packaging.tools import ROOT, clean_env, python_can_make_venvs, require, run

pytestmark = pytest.mark.packaging


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> dict[str, Path]:
    """Build the bundle into a temporary folder with the repository's own script."""
    require(sys.platform.startswith("linux"), "the bundle is built for Linux only")
    require(shutil.which("bash") is not None, "bash is not installed")
    require(python_can_make_venvs(), f"{sys.executable} cannot make virtual environments")
    base = tmp_path_factory.mktemp("bundle")
    env = {**os.environ, "PYTHON": sys.executable}
    built = run(["bash", ROOT / "packaging" / "build-bundle.sh", base / "out"], cwd=base,
                env=env, timeout=1800)
    folder = Path(built.stdout.strip().splitlines()[-1])
    assert folder == base / "out" / "simrate"
    work = base / "work"
    work.mkdir()
    return {"base": base, "folder": folder, "work": work, "home": base / "home"}


@pytest.fixture
def simrate(bundle):
    """Run the bundle's `simrate` with nothing on PATH and no Python variables set."""
    nothing = bundle["base"] / "empty-path"
    nothing.mkdir(exist_ok=True)
    env = clean_env(bundle["home"], path=str(nothing))

    def call(*args: object, expect: int = 0):
        return run([bundle["folder"] / "simrate", *args], cwd=bundle["work"], env=env,
                   expect=expect)
    return call


def test_command_line(simrate, bundle):
    checks.check_version(simrate)
    checks.check_builtin_scales(simrate, bundle["work"])
    checks.check_sample_imports(simrate, bundle["folder"] / "sample_data")


def test_window_on_the_sample(simrate, bundle):
    checks.check_window_on_sample(simrate)
    built = bundle["home"] / "share" / "simrate" / "simrate" / SAMPLE_NAME
    checks.check_sample_project(simrate, built)


def test_desktop_entry_installs(bundle):
    folder = bundle["folder"]
    assert (folder / "simrate.png").read_bytes() == (
        ROOT / "resources" / "icons" / "simrate-256.png").read_bytes()
    home = bundle["base"] / "desktop-home"
    run([folder / "install-desktop-entry.sh"], cwd=bundle["work"], env=clean_env(home))
    entry = (home / "share" / "applications" / "simrate.desktop").read_text(encoding="utf-8")
    assert f'Exec="{folder}/simrate" %f' in entry.splitlines()
    assert "Icon=simrate" in entry.splitlines()
    assert (home / "share" / "icons" / "hicolor" / "256x256" / "apps" / "simrate.png").is_file()
    assert (home / ".local" / "bin" / "simrate").resolve() == folder / "simrate"
    run([folder / "install-desktop-entry.sh", "--remove"], cwd=bundle["work"],
        env=clean_env(home))
    assert not (home / "share" / "applications" / "simrate.desktop").exists()


def test_archive_holds_the_folder(bundle):
    archives = list(bundle["folder"].parent.glob("simrate-*-linux-*.tar.gz"))
    assert len(archives) == 1
    with tarfile.open(archives[0]) as archive:
        names = set(archive.getnames())
    assert {"simrate/simrate", "simrate/simrate.desktop", "simrate/install-desktop-entry.sh",
            "simrate/sample_data/pairs.tsv"} <= names
