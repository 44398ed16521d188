"""The sample project: the pairs of sample_data/pairs.tsv on the STS scale, built once.

It shows what simrate is for: three raters (ana, ben and chloe) have rated every pair, with
the kind of disagreement real raters show (ben a little generous, chloe a little strict, a
few pairs read differently), so the dashboard has agreement to show, the queue has flagged
items, and one of them (news-04) has already been adjudicated by the organizer, "lead".

`python -m simrate.gui.base.sample` builds it if needed and prints its path, for the README's
run command: `simrate "$(python -m simrate.gui.base.sample)" --annotator YOUR_NAME`.

The file name carries SAMPLE_VERSION: a user who ran an older simrate keeps their old
sample file untouched (a window may have it open) and gets the new one beside it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.install.locations import sample_data_folder

SAMPLE_PAIRS = sample_data_folder() / "pairs.tsv"
#: Raised whenever what the sample holds changes, so that the new sample is built.
SAMPLE_VERSION = 2
SAMPLE_NAME = f"sample-v{SAMPLE_VERSION}.simrate"
SAMPLE_SCALE = "sts"
SAMPLE_TITLE = "Sample: twenty sentence pairs"
#: Who made the sample's adjudication; `--sample --organizer` opens the sample as them.
SAMPLE_ORGANIZER = "lead"
SAMPLE_RATERS = ("ana", "ben", "chloe")

#: Each pair's scores by ana, ben and chloe (STS: 5 the same meaning, 0 unrelated), written
#: for simrate. Spreads of a point or more (flagged): news-04, reviews-04, travel-05,
#: science-01 and science-03.
SAMPLE_SCORES = {
    "news-01": (4.5, 5.0, 4.25),
    "news-02": (4.0, 3.5, 4.25),
    "news-03": (1.5, 2.0, 1.25),
    "news-04": (3.5, 4.5, 3.0),
    "news-05": (0.0, 0.25, 0.0),
    "reviews-01": (4.0, 4.5, 3.75),
    "reviews-02": (3.25, 2.5, 3.0),
    "reviews-03": (4.5, 4.75, 4.25),
    "reviews-04": (1.0, 2.25, 0.75),
    "reviews-05": (3.75, 4.25, 3.5),
    "travel-01": (5.0, 5.0, 4.75),
    "travel-02": (4.25, 4.5, 3.75),
    "travel-03": (0.5, 1.0, 0.25),
    "travel-04": (5.0, 4.75, 4.5),
    "travel-05": (2.5, 3.5, 2.25),
    "science-01": (3.0, 3.25, 2.0),
    "science-02": (4.5, 4.75, 4.0),
    "science-03": (2.75, 3.0, 1.75),
    "science-04": (0.0, 0.0, 0.25),
    "science-05": (3.75, 3.0, 3.5),
}
#: Notes the raters left, by (item, rater).
SAMPLE_NOTES = {
    ("reviews-04", "ben"): "both are about the same book",
    ("travel-05", "ben"): "both mention the kitchen",
    ("science-01", "chloe"): "the dance and the sun angle are not the same claim",
}
#: The adjudication already made: item, score, note.
SAMPLE_ADJUDICATION = ("news-04", 4.0, "the mountain road is the pass; only the second day "
                       "is missing")


def sample_folder() -> Path:
    """The user's data folder for simrate (QStandardPaths' AppDataLocation)."""
    from PySide6.QtCore import QStandardPaths

    from simrate.gui.base.settings import set_application_names

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
    from simrate.formats.readers.detect import read_items

    frame = read_items(source, "auto")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SimrateError(f"cannot create the folder for the sample: {exc.strerror}",
                           folder) from None
    # Built under a temporary name and renamed: a half-built sample never exists.
    try:
        handle, temporary = tempfile.mkstemp(prefix=".sample-", suffix=".simrate", dir=folder)
    except OSError as exc:  # a read-only folder (or a full disk)
        raise SimrateError(f"cannot write in the folder for the sample: {exc.strerror}",
                           folder) from None
    os.close(handle)
    os.unlink(temporary)
    try:
        with Project.create(temporary, scale=SAMPLE_SCALE, title=SAMPLE_TITLE) as project:
            project.import_items(frame, source=source.name)
            rate_the_sample(project)
        _publish_once(Path(temporary), target)
    finally:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                Path(temporary + suffix).unlink(missing_ok=True)
    return target


def rate_the_sample(project: Project) -> None:
    """The three raters' ratings, in the order they would have rated, and the adjudication.

    Item by item, the three raters side by side as in a real study, each rating with its
    seconds (the same every build), so the annotator report and the agreement over time have
    something to show.
    """
    for row, (item_id, scores) in enumerate(SAMPLE_SCORES.items()):
        for column, rater in enumerate(SAMPLE_RATERS):
            seconds = 7.0 + (row * 5 + column * 3) % 14
            project.rate(item_id, rater, scores[column],
                         note=SAMPLE_NOTES.get((item_id, rater)), seconds=seconds)
    item_id, score, note = SAMPLE_ADJUDICATION
    project.adjudicate(item_id, score, note=note, by=SAMPLE_ORGANIZER)


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
