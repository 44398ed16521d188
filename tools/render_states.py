"""The dialogs of simrate in their other states: notes shown, long names, errors.

tools/render_views.py pictures each view as it first opens; a dialog that grows a note or an
error line later must fit as well. `render_states` brings each state up over the main window
and shows it to an observer (the layout test looks at its widgets there); with a folder it
also saves the screen pictures, to look at:

    QT_QPA_PLATFORM=offscreen python tools/render_states.py --out FOLDER [--size 1366x768]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tools"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

#: A name longer than any a dialog was laid out for.
LONG_NAME = "Maria-Fernanda de los Santos Villanueva (second shift)"


def who_is_rating_new(renderer):
    """A new name typed: the note that it will be added appears."""
    from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog

    dialog = AnnotatorDialog(["ann", "bob"], "", renderer.window)
    dialog.show()
    dialog.name_box.setCurrentText(LONG_NAME)
    return dialog


def who_is_rating_organizer(renderer):
    """Organizer mode, a long offered name and a new one typed: both notes."""
    from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog

    dialog = AnnotatorDialog([LONG_NAME, "bob"], LONG_NAME, renderer.window, organizer=True)
    dialog.show()
    dialog.name_box.setCurrentText("zoe")
    return dialog


def new_project_error(renderer):
    """A missing file named by a long path: the problem line under the form."""
    from simrate.gui.dialogs.new_project_dialog import NewProjectDialog

    dialog = NewProjectDialog(str(renderer.folder), renderer.window)
    missing = renderer.folder / "a folder with a long name" / "pairs-from-the-second-round.tsv"
    dialog.source_edit.setText(str(missing))
    dialog.name_edit.setText(LONG_NAME)
    dialog.show()
    dialog._accept_if_valid()
    return dialog


def new_project_no_name(renderer):
    """Everything filled in but the name: the line asking for it."""
    from simrate.gui.base.sample import SAMPLE_PAIRS
    from simrate.gui.dialogs.new_project_dialog import NewProjectDialog

    dialog = NewProjectDialog(str(renderer.folder), renderer.window)
    dialog.source_edit.setText(str(SAMPLE_PAIRS))
    dialog.show()
    dialog._accept_if_valid()
    return dialog


def join_error(renderer):
    """Join pressed with nothing filled in: the error line."""
    from simrate.gui.dialogs.join_dialog import JoinDialog

    dialog = JoinDialog(str(renderer.folder), renderer.window)
    dialog.show()
    dialog.join()
    return dialog


def import_ratings_error(renderer):
    """A ratings file that is not there: the error in the summary."""
    from simrate.gui.dialogs.ratings_import_dialog import RatingsImportDialog

    renderer.ensure_project()
    project = renderer.window.context.project
    dialog = RatingsImportDialog(project.path, LONG_NAME, str(renderer.folder),
                                 parent=renderer.window)
    dialog.path_edit.setText(str(renderer.folder / "no such ratings file from a long study.csv"))
    dialog.show()
    dialog.start_preview()
    return dialog


def export_error(renderer):
    """An export whose ending says no format: the error line."""
    from simrate.core.base.errors import SimrateError
    from simrate.gui.dialogs.export_dialog import ExportDialog

    renderer.ensure_project()
    project = renderer.window.context.project
    dialog = ExportDialog(project.path, project.scale, str(renderer.folder),
                          parent=renderer.window)
    dialog.show()
    dialog._on_failed(SimrateError("cannot tell the export format from the name (known "
                                   "endings: .csv, .gs, .jsonl, .label, .ndjson, .output, "
                                   ".sts, .tab, .tsv, .txt, .xlsx); give --format",
                                   renderer.folder / "gold.unknown"))
    return dialog


def export_progress(renderer):
    """A long export under way: the bar counts rows, with the rate and the time left."""
    from simrate.gui.dialogs.export_dialog import ExportDialog

    renderer.ensure_project()
    project = renderer.window.context.project
    dialog = ExportDialog(project.path, project.scale, str(renderer.folder),
                          parent=renderer.window)
    dialog.show()
    dialog.progress.setVisible(True)
    dialog.progress.started -= 3.0  # three seconds in: the rate and the time left show
    dialog.progress.show_count(60_000, 200_000)
    return dialog


def import_progress(renderer):
    """A long import writing its items: the bar counts them, with the rate and time left."""
    from simrate.gui.dialogs.import_dialog import ImportProgressDialog

    dialog = ImportProgressDialog("Import: pairs of a long study.tsv", renderer.window)
    dialog.show()
    dialog.set_stage("Writing 200,000 items to the project\u2026", cancellable=False)
    dialog.bar.started -= 3.0  # three seconds in: the rate and the time left show
    dialog.show_count(60_000, 200_000)
    return dialog


def web_study_error(renderer):
    """The new web study form with a long name and the line saying what is wrong."""
    from simrate.gui.organizer.study_dialog import StudyDialog

    dialog = StudyDialog(None, 0, True, lambda settings, new: None, renderer.window)
    dialog.show()
    dialog.name_edit.setText("second-round-of-the-pilot-with-longer-pairs")
    dialog.checks_spin.setValue(2)
    dialog._check()
    return dialog


def add_person_existing(renderer):
    """Add a person: a long name that is already a person of the hub, reset ticked."""
    from simrate.gui.organizer.team_panel import AddPersonDialog
    from simrate.hub.team.people import Person

    people = [Person(LONG_NAME, "hub_maria", "annotator", True, False, 0, None)]
    dialog = AddPersonDialog(renderer.window, people)
    dialog.show()
    dialog.name_edit.setText(LONG_NAME.upper())
    dialog.reset_box.setChecked(True)
    dialog._check()
    return dialog


def evaluation_error(renderer):
    """An evaluation whose files do not pair up: the error line."""
    from simrate.core.base.errors import SimrateError
    from simrate.gui.dialogs.evaluation_window import EvaluationWindow

    window = EvaluationWindow(str(renderer.folder), parent=renderer.window)
    width, height = renderer.size
    window.resize(min(1100, width - 120), min(700, height - 100))
    window.show()
    window._on_failed(SimrateError("line 3: 'x' is not a number", "system-run-of-a-long-name.txt"))
    return window


def rating_long_name(renderer):
    """The rating view of an annotator with a long name (the status bar says who rates)."""
    from render_views import settle

    window = renderer.window
    window.context.close_project()
    window.open_project(str(renderer.sample), annotator=LONG_NAME)
    window.resize(*renderer.size)
    settle(0.5)
    return window


STATES = {
    "who-is-rating-new-name": who_is_rating_new,
    "who-is-rating-organizer": who_is_rating_organizer,
    "new-project-error": new_project_error,
    "new-project-no-name": new_project_no_name,
    "join-error": join_error,
    "import-ratings-error": import_ratings_error,
    "export-error": export_error,
    "export-progress": export_progress,
    "import-progress": import_progress,
    "web-study-error": web_study_error,
    "add-person-existing": add_person_existing,
    "evaluation-error": evaluation_error,
    "rating-long-name": rating_long_name,
}


def render_states(out: Path | None, size=(1366, 768), observer=None) -> list[Path]:
    """Bring each state up over the window at `size`; `observer(name, windows)` looks at
    it; with `out`, its screen picture is saved there. Returns the files written."""
    from render_views import Renderer, settle

    from simrate.gui.base.sample import ensure_sample_project
    from simrate.gui.shell.main import create_application

    create_application()
    written = []
    with tempfile.TemporaryDirectory(prefix="simrate-states-") as temporary:
        folder = Path(temporary)
        sample = ensure_sample_project(folder / "sample")
        renderer = Renderer(sample, folder, size)
        renderer.ensure_project = lambda: (renderer.window.context.project is not None
                                           or renderer.open_as_rater())
        for name, make in STATES.items():
            shown = make(renderer)
            settle(0.6)
            over = None if shown is renderer.window else shown
            if observer is not None:
                observer(name, [renderer.window] + ([over] if over else []))
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                path = out / f"{name}-{size[0]}x{size[1]}.png"
                from render_views import screen_picture

                screen_picture(renderer.window, over).save(str(path), "PNG")
                written.append(path)
            if over is not None:
                over.close()
                over.deleteLater()
            settle(0.05)
        renderer.close()
    return written


def main(argv: list[str] | None = None) -> int:
    from render_views import parse_size

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="pictures", help="folder for the PNG files")
    parser.add_argument("--size", type=parse_size, default=(1366, 768), help="WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    for path in render_states(Path(args.out), args.size):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
