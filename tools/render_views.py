"""Render every main view and dialog of simrate, on the sample project, to PNG pictures.

    QT_QPA_PLATFORM=offscreen python tools/render_views.py [--out FOLDER] [--size WxH ...]

Each picture is a whole screen at the given size (1366x768 and 1920x1080 unless told): the
window filling it, and a dialog or second window over the window where the view is one.
The documentation uses these pictures, so they are made from the program itself and never
go stale. The sample is built in a temporary folder and the window's settings live there
too: the user's sample, settings and recent projects are never touched.

Pictures, by name (NAME-WIDTHxHEIGHT.png): start, rating, items, agreement, queue, export,
team, crowd (the Annotators report, which also lists crowd workers), new-project, evaluation,
and the other dialogs and panels: new-pyramid-project, join, who-is-rating, import-ratings,
agreement-dock (the Agreement dock beside the rating view).

The pictures the README and the documentation show are committed files in docs/images, so
they render in a clone and on a code host. `--docs` makes them again, in 256 colours (a
screen of flat colours loses nothing visible and the PNG is a quarter of the size):

    QT_QPA_PLATFORM=offscreen python tools/render_views.py --docs

tests/docs/test_pictures.py renders them afresh and fails when a committed one has drifted.
"""

from __future__ import annotations

import argparse
import faulthandler
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SIZES = ((1366, 768), (1920, 1080))
VIEWS = ("start", "rating", "items", "agreement", "queue", "export", "team", "crowd",
         "new-project", "evaluation",
         # and the other dialogs, for the layout test as much as for the documentation
         "new-pyramid-project", "join", "who-is-rating", "import-ratings", "agreement-dock")
#: The pictures the README and docs/*.md show, committed in docs/images at 1366x768.
DOCS_PICTURES = ("start", "rating", "agreement", "queue", "team", "crowd", "new-project",
                 "evaluation")
DOCS_IMAGES = ROOT / "docs" / "images"
DOCS_SIZE = (1366, 768)
#: The newcomer who rates the sample in the rating pictures.
RATER = "dana"


def settle(seconds: float = 0.3) -> None:
    """Let timers, background jobs and their deliveries run for a while (and widgets deleted
    later go), then paint."""
    from PySide6.QtCore import QCoreApplication, QEvent, QThreadPool
    from PySide6.QtWidgets import QApplication

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QApplication.processEvents()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QThreadPool.globalInstance().waitForDone(20)
    QApplication.processEvents()


#: Height of the title bar drawn over a dialog (the offscreen platform draws no frames).
TITLE_BAR = 28


def framed(widget):
    """A picture of a dialog or second window as a desktop shows it: a title bar with its
    title, a border and a shadow."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QPainter, QPixmap

    inner = widget.grab()
    shadow = 6
    picture = QPixmap(inner.width() + 2 + shadow, inner.height() + TITLE_BAR + 2 + shadow)
    picture.fill(Qt.GlobalColor.transparent)
    painter = QPainter(picture)
    painter.fillRect(QRect(shadow, shadow, inner.width() + 2, inner.height() + TITLE_BAR + 2),
                     QColor(0, 0, 0, 60))
    painter.fillRect(QRect(0, 0, inner.width() + 2, TITLE_BAR + 1), QColor("#3b4252"))
    painter.setPen(QColor("white"))
    font = QFont(widget.font())
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(QRect(10, 0, inner.width() - 20, TITLE_BAR),
                     Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                     widget.windowTitle())
    painter.drawPixmap(1, TITLE_BAR + 1, inner)
    painter.setPen(QColor("#3b4252"))
    painter.drawRect(0, 0, inner.width() + 1, inner.height() + TITLE_BAR + 1)
    painter.end()
    return picture


def screen_picture(window, over=None):
    """The window as a screen picture; `over` (a dialog or a second window) drawn centred,
    framed as a desktop would."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QPainter

    picture = window.grab()
    if over is not None:
        top = framed(over)
        painter = QPainter(picture)
        corner = QPoint(max(0, (picture.width() - top.width()) // 2),
                        max(0, (picture.height() - top.height()) // 2))
        painter.drawPixmap(corner, top)
        painter.end()
    return picture


class Renderer:
    """One window at one size; each method brings a view up and returns its picture."""

    def __init__(self, sample: Path, folder: Path, size: tuple[int, int], observer=None):
        from PySide6.QtCore import QSettings, Qt

        from simrate.gui.base.settings import Settings
        from simrate.gui.shell.main import build_window

        self.sample, self.folder, self.size = sample, folder, size
        #: Called with the windows on screen (the main window, then any dialog) before each
        #: picture is taken: the layout test looks at their widgets there.
        self.observer = observer
        ini = folder / f"settings-{size[0]}x{size[1]}.ini"
        ini.unlink(missing_ok=True)
        self.settings = Settings(QSettings(str(ini), QSettings.Format.IniFormat))
        self.window = build_window(settings=self.settings)
        self.window.setWindowState(Qt.WindowState.WindowNoState)
        self.window.resize(*size)
        self.window.show()
        settle()

    def shot(self, over=None):
        """The screen picture of the window (and `over`), shown first to the observer."""
        if self.observer is not None:
            self.observer([self.window] + ([over] if over is not None else []))
        return screen_picture(self.window, over)

    def fit(self) -> None:
        """The window at exactly the picture's size (opening a project may move docks)."""
        if (self.window.width(), self.window.height()) != self.size:
            self.window.resize(*self.size)
        settle(0.2)

    def dock(self, name: str):
        dock = next(d for d in self.window.project_docks if d.objectName() == name)
        dock.show()
        dock.raise_()
        return dock

    def start(self):
        self.fit()
        return self.shot()

    def new_project(self):
        from simrate.gui.base.sample import SAMPLE_PAIRS
        from simrate.gui.dialogs.new_project_dialog import NewProjectDialog

        dialog = NewProjectDialog(str(self.folder), self.window)
        dialog.source_edit.setText(str(SAMPLE_PAIRS))
        dialog.project_edit.setText(str(self.folder / "my-study.simrate"))
        dialog.name_edit.setText(RATER)
        dialog.show()
        settle()
        picture = self.shot(dialog)
        dialog.close()
        dialog.deleteLater()
        return picture

    def dialog_shot(self, dialog, seconds: float = 0.5):
        """Show a dialog over the window, take the picture, close it."""
        dialog.show()
        settle(seconds)
        picture = self.shot(dialog)
        dialog.close()
        dialog.deleteLater()
        settle(0.05)
        return picture

    def new_pyramid_project(self):
        from simrate.gui.dialogs.new_project_dialog import NewProjectDialog
        from simrate.install.locations import sample_data_folder

        dialog = NewProjectDialog(str(self.folder), self.window)
        dialog.source_edit.setText(f'"{sample_data_folder() / "D9901.pyr"}"')
        dialog.project_edit.setText(str(self.folder / "pyramids.simrate"))
        return self.dialog_shot(dialog, 1.0)  # the preview counts the pairs in the background

    def join(self):
        from simrate.gui.dialogs.join_dialog import JoinDialog

        return self.dialog_shot(JoinDialog(str(self.folder), self.window))

    def who_is_rating(self):
        from simrate.gui.base.sample import SAMPLE_RATERS
        from simrate.gui.dialogs.annotator_dialog import AnnotatorDialog

        return self.dialog_shot(AnnotatorDialog(list(SAMPLE_RATERS), "", self.window))

    def import_ratings(self):
        from simrate.gui.base.sample import SAMPLE_ORGANIZER
        from simrate.gui.dialogs.ratings_import_dialog import RatingsImportDialog
        from simrate.install.locations import sample_data_folder

        project = self.window.context.project
        dialog = RatingsImportDialog(project.path, SAMPLE_ORGANIZER, str(self.folder),
                                     parent=self.window)
        dialog.path_edit.setText(str(sample_data_folder() / "ratings_long.csv"))
        dialog.start_preview()
        return self.dialog_shot(dialog, 1.0)

    def open_as_rater(self) -> None:
        self.window.context.close_project()
        self.window.organizer.set_mode(False)
        self.window.open_project(str(self.sample), annotator=RATER)
        project, session = self.window.context.project, self.window.context.session
        if project.rating(project.item_ids()[0], RATER) is None:
            # The newcomer has rated the first three pairs (the sample is a temporary copy).
            for item_id, score in zip(project.item_ids()[:3], (4.5, 3.75, 1.5), strict=True):
                project.rate(item_id, RATER, score, seconds=12.0)
        session.go_first_unrated()
        self.fit()
        settle(0.5)

    def rating(self):
        self.open_as_rater()
        self.dock("dock_guidelines")
        self.window.rating_panel.focus_scale()
        self.fit()
        return self.shot()

    def items(self):
        self.dock("dock_items")
        settle(0.6)
        return self.shot()

    def open_as_organizer(self) -> None:
        from simrate.gui.base.sample import SAMPLE_ORGANIZER

        self.window.context.close_project()  # the mode changes with no project to warn about
        self.window.organizer.set_mode(True)
        self.window.open_project(str(self.sample), annotator=SAMPLE_ORGANIZER)
        self.fit()
        settle(2.0)  # the intervals are worked out in the background

    def agreement(self):
        """The full-window Agreement view (Ctrl+3)."""
        self.open_as_organizer()
        self.window.organizer.show_agreement()
        settle(2.5)  # agreement over time is worked out in the background
        picture = self.shot()
        self.window.organizer.show_rating()
        settle(0.2)
        return picture

    def agreement_dock(self):
        """The Agreement dock beside the rating view."""
        self.dock("dock_agreement")
        settle(0.5)
        return self.shot()

    def crowd(self):
        self.dock("dock_annotators")
        settle(0.5)
        return self.shot()

    def queue(self):
        self.dock("dock_agreement")
        self.window.organizer.show_queue()
        settle(0.5)
        picture = self.shot()
        self.window.organizer.show_rating()
        return picture

    def export(self):
        from simrate.gui.dialogs.export_dialog import ExportDialog

        project = self.window.context.project
        dialog = ExportDialog(project.path, project.scale, str(self.folder), parent=self.window)
        dialog.show()
        settle(0.8)
        picture = self.shot(dialog)
        dialog.close()
        dialog.deleteLater()
        return picture

    def team(self):
        from simrate.gui.organizer.team_panel import open_team_window

        dialog = open_team_window(self.window)
        settle(0.5)
        picture = self.shot(dialog)
        dialog.close()
        settle(0.2)
        return picture

    def evaluation(self):
        from simrate.gui.dialogs.evaluation_window import EvaluationWindow
        from simrate.install.locations import sample_data_folder

        gold = sample_data_folder() / "STS.gs.demo.txt"
        scores = [float(line) for line in gold.read_text().split()]
        # A made-up system: close to the gold key, off by a little that varies by pair.
        system = self.folder / "system-run.txt"
        system.write_text("".join(f"{max(0.0, min(5.0, s * 0.9 + 0.3 * ((i * 7) % 5 - 2)))}\n"
                                  for i, s in enumerate(scores)))
        window = EvaluationWindow(str(self.folder), parent=self.window)
        window.set_task("sts")
        window.add_pair(gold, system)
        width, height = self.size
        window.resize(min(1100, width - 120), min(700, height - 100))
        window.show()
        window.evaluate()
        settle(1.0)
        picture = self.shot(window)
        window.close()
        window.deleteLater()
        return picture

    def close(self) -> None:
        self.window.context.close_project()
        self.window.close()
        self.window.deleteLater()
        settle(0.1)


def save_picture(picture, path: Path, compact: bool = False) -> None:
    """Write a picture as PNG; `compact`: in at most 256 colours, without dithering."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    image = picture.toImage()
    if compact:
        image = image.convertToFormat(QImage.Format.Format_Indexed8,
                                      Qt.ImageConversionFlag.AvoidDither
                                      | Qt.ImageConversionFlag.ThresholdDither)
    if not image.save(str(path), "PNG", 9 if compact else -1):
        raise OSError(f"cannot write {path}")


def render_docs(out: Path = DOCS_IMAGES) -> list[Path]:
    """The pictures the documentation shows, compact, into `out` (docs/images)."""
    return render_all(out, (DOCS_SIZE,), names=DOCS_PICTURES, compact=True)


def render_all(out: Path | None, sizes=SIZES, observer=None, names=None,
               compact: bool = False) -> list[Path]:
    """Render every view at every size into `out` (None: show them only, to `observer`,
    called with the view's name, the size and the windows on screen); only the pictures
    in `names` are saved (default: all); the files written."""
    from simrate.gui.base.sample import ensure_sample_project
    from simrate.gui.shell.main import create_application

    create_application()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory(prefix="simrate-pictures-") as temporary:
        folder = Path(temporary)
        for size in sizes:
            # a fresh sample for each size: the rating pictures add the newcomer's ratings
            sample = ensure_sample_project(folder / f"sample-{size[0]}x{size[1]}")
            renderer = Renderer(sample, folder, size)
            # In this order: each step leaves the window where the next one starts.
            steps = [("start", renderer.start), ("new-project", renderer.new_project),
                     ("new-pyramid-project", renderer.new_pyramid_project),
                     ("join", renderer.join), ("who-is-rating", renderer.who_is_rating),
                     ("agreement", renderer.agreement),
                     ("agreement-dock", renderer.agreement_dock), ("crowd", renderer.crowd),
                     ("queue", renderer.queue), ("export", renderer.export),
                     ("import-ratings", renderer.import_ratings),
                     ("team", renderer.team), ("evaluation", renderer.evaluation),
                     ("rating", renderer.rating), ("items", renderer.items)]
            for name, step in steps:
                if observer is not None:
                    renderer.observer = (lambda windows, name=name, size=size:
                                         observer(name, size, windows))
                picture = step()
                if out is None or names is not None and name not in names:
                    continue
                path = out / f"{name}-{size[0]}x{size[1]}.png"
                save_picture(picture, path, compact)
                written.append(path)
            renderer.close()
    return written


def parse_size(text: str) -> tuple[int, int]:
    width, _, height = text.lower().partition("x")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="pictures", help="folder for the PNG files")
    parser.add_argument("--size", action="append", type=parse_size,
                        help="WIDTHxHEIGHT (repeatable; default 1366x768 and 1920x1080)")
    parser.add_argument("--docs", action="store_true",
                        help="make the documentation's committed pictures in docs/images")
    args = parser.parse_args(argv)
    faulthandler.enable()  # a crash in Qt names the Python line it came from
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    paths = (render_docs() if args.docs
             else render_all(Path(args.out), tuple(args.size or SIZES)))
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
