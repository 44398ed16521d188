"""The sample project: the pairs of sample_data/pairs.tsv on the STS scale, built once.

`python -m app.gui.shell.sample` builds it if needed and prints its path, for the README's
run command: `simrate "$(python -m app.gui.shell.sample)" --annotator YOUR_NAME`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from app.core.errors import SimrateError
from app.core.project import Project
from app.locations import sample_data_folder

SAMPLE_PAIRS = sample_data_folder() / "pairs.tsv"
SAMPLE_NAME = "sample.simrate"
SAMPLE_SCALE = "sts"
SAMPLE_TITLE = "Sample: twenty sentence pairs"


def sample_folder() -> Path:
    """The user's data folder for simrate (QStandardPaths' AppDataLocation)."""
    from PySide6.QtCore import QStandardPaths

    from app.gui.shell.settings import set_application_names

    set_application_names()
    location = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.AppDataLocation)
    return Path(location or Path.home() / ".simrate")


def _publish_once(built: Path, target: Path) -> None:
    """Give the built sample its name unless another process got there first.

    A rename would replace a sample that another window may already have open (that window
    would go on writing into a file no longer in the folder); a hard link never replaces.
    """
    try:
        os.link(built, target)
    except FileExistsError:
        pass  # built meanwhile by another process: theirs is the one in use
    except OSError:
        if not target.exists():  # a file system without hard links
            os.replace(built, target)


def ensure_sample_project(folder: str | Path, source: Path = SAMPLE_PAIRS) -> Path:
    """The path of the sample project in `folder`, building it first if it is absent."""
    folder = Path(folder)
    target = folder / SAMPLE_NAME
    if target.is_file():
        return target
    if not source.is_file():
        raise SimrateError("the sample pairs are missing from this installation", source)
    from app.formats.detect import read_items

    frame = read_items(source, "auto")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimrateError(f"cannot create the folder for the sample: {exc.strerror}",
                           folder) from None
    # Built under a temporary name and renamed: a half-built sample never exists.
    handle, temporary = tempfile.mkstemp(prefix=".sample-", suffix=".simrate", dir=folder)
    os.close(handle)
    os.unlink(temporary)
    try:
        with Project.create(temporary, scale=SAMPLE_SCALE, title=SAMPLE_TITLE) as project:
            project.import_items(frame, source=source.name)
        _publish_once(Path(temporary), target)
    finally:
        for suffix in ("", "-wal", "-shm"):
            Path(temporary + suffix).unlink(missing_ok=True)
    return target


def main() -> int:
    """Build the sample project if needed and print its path."""
    try:
        print(ensure_sample_project(sample_folder()))
    except SimrateError as exc:
        print(f"simrate: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
