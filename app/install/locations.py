"""Where the installed program finds its data files and its version.

`resources/` and `sample_data/` sit at the top of the checkout; setup.py installs them as the
data packages `simrate._resources` and `simrate._sample_data`. Asking the import system for them
(through importlib.resources) finds them in a wheel, in an editable install and in the
frozen bundle alike, whatever the current folder is.
"""

from __future__ import annotations

from pathlib import Path

DISTRIBUTION = "simrate"


def _package_folder(package: str) -> Path:
    """The folder of a data package on disk (simrate is never installed zipped)."""
    from importlib import resources  # imported when first needed: not every command does

    return Path(str(resources.files(package)))


def resource_folder() -> Path:
    """The folder of scale definitions, guideline texts and icons."""
    return _package_folder("simrate._resources")


def sample_data_folder() -> Path:
    """The folder of the sample files (pairs, ratings, one file per supported format)."""
    return _package_folder("simrate._sample_data")


def icon_path() -> Path:
    """The application icon as a 256-pixel PNG."""
    return resource_folder() / "icons" / "simrate-256.png"


def installed_version() -> str:
    """The version in the installed package's metadata (pyproject.toml's `version`)."""
    from importlib import metadata  # a tenth of a second: imported only when asked

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        # Run from a bare checkout (PYTHONPATH=.) with nothing installed: say so, not crash.
        return "0+unknown"


def installation() -> tuple[str, Path | None]:
    """How this simrate was installed: ("bundle" | "pipx" | "checkout" | "pip", the checkout).

    The checkout is the folder of an editable install or of a bare checkout run with
    PYTHONPATH; the other kinds have none.
    """
    import sys

    if getattr(sys, "frozen", False):  # the PyInstaller bundle
        return "bundle", None
    if (Path(sys.prefix) / "pipx_metadata.json").is_file():  # pipx writes it in its venvs
        return "pipx", None
    checkout = _checkout_folder()
    return ("checkout", checkout) if checkout else ("pip", None)


def _checkout_folder() -> Path | None:
    # Installed from a wheel, this file sits in site-packages/simrate/install/; editable (pip
    # install -e) or on PYTHONPATH, in the checkout's app/install/, app/ beside pyproject.toml.
    # (Asking the package metadata instead would read the checkout's simrate.egg-info there.)
    top = Path(__file__).resolve().parents[2]
    return top if (top / "pyproject.toml").is_file() and (top / "app").is_dir() else None


def extra_requirements(extra: str) -> list[str]:
    """The packages simrate's optional extra names in the installed metadata, without markers."""
    from importlib import metadata

    try:
        listed = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return []
    marker = f'extra == "{extra}"'
    return [line.split(";")[0].strip() for line in listed if marker in line]


def install_hint(extra: str | None = None, requirement: str | None = None) -> str:
    """The command that adds simrate's optional `extra` (or one missing `requirement`), right
    for how this simrate was installed: every "install X" line the program prints is this."""
    import shlex

    kind, checkout = installation()
    wanted = f"simrate[{extra}]" if extra else (requirement or "simrate")
    if kind == "checkout" and checkout is not None:
        here = "." if checkout == Path.cwd().resolve() else str(checkout)
        return f"pip install -e {shlex.quote(f'{here}[{extra}]' if extra else here)}"
    if kind == "pipx":
        packages = extra_requirements(extra) if extra else [requirement or "simrate"]
        return "pipx inject simrate " + " ".join(shlex.quote(p) for p in packages or [wanted])
    if kind == "bundle":
        return (f"the standalone bundle takes no added packages; install simrate with pipx "
                f"instead: pipx install {shlex.quote(wanted)}")
    return f"pip install {shlex.quote(wanted)}"
