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
