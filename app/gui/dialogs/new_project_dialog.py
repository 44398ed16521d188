"""NewProjectDialog: a project from a file of pairs (or several pyramid files), with the
choice of scale; for pyramid files also the test, non-paraphrases per paraphrase and seed.

It also asks who is rating, so the project it creates always opens (no second question to
cancel), and it proposes to save the project in the folder of the last project opened, or
else in the user's Documents folder: never beside the input by default, which may be a
download folder, a shared read-only data folder or the program's own sample data."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.names import text_problem
from simrate.core.base.scale import load_scale
from simrate.gui.dialogs.path_field import path_row
from simrate.gui.dialogs.pyramid_choice import PyramidChoiceBox, is_pyramid_file
from simrate.gui.kit.accessible import name_form_fields
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.file_dialogs import get_open_file_name, get_open_file_names, get_save_file_name
from simrate.gui.kit.fitting import WrappedLabel
from simrate.gui.kit.palette import ERROR_COLOUR, colour_style
from simrate.services.imports.file_import import ImportRequest

PAIR_FILES = ("Pairs (*.tsv *.csv *.txt *.xlsx *.xml *.pyr *.pan);;All files (*)")
_QUOTED = re.compile(r'"([^"]+)"')


def source_paths(text: str) -> tuple[Path, ...]:
    """The files named in the source field: one path, or several each in double quotes."""
    text = text.strip()
    if text.startswith('"'):
        return tuple(Path(p.strip()) for p in _QUOTED.findall(text) if p.strip())
    return (Path(text),) if text else ()


def quoted_paths(paths: list[str]) -> str:
    """Several paths as the source field shows them; one path as it is."""
    return paths[0] if len(paths) == 1 else " ".join(f'"{p}"' for p in paths)
OTHER_SCALE = "file"


#: The scale each format of shared-task data is rated on.
FORMAT_SCALES = {"sts": "sts", "pit": "sts", "clss": "clss"}


def implied_scale(source: Path) -> str | None:
    """The scale the file's format implies (STS and PIT: 0-5, CLSS: 0-4), or None for
    generic pairs (and pyramids), which any scale suits."""
    name = source.name.lower()
    if name.startswith("sts.") or name.endswith((".pit.tsv", ".data")) or "pit" in name:
        return "sts"
    if source.suffix.lower() == ".simrate" or not source.is_file():
        return None  # a project is never read but through SQLite
    from simrate.core.base.errors import SimrateError
    from simrate.formats.readers.detect import detect_format

    try:
        return FORMAT_SCALES.get(detect_format(source))
    except (SimrateError, OSError):
        return None


def guess_scale(source: Path, last: str = "") -> str:
    """The scale to offer for a file: the one its format implies, else the last one chosen
    for generic pairs, else STS (the general one: CLSS is for texts of different sizes)."""
    return implied_scale(source) or (last if last in ("clss", "sts") else "sts")


def default_target(source: Path, many: bool, folder: Path | None = None) -> Path | None:
    """The project file proposed for a source, in `folder` (default: beside the source), or
    None while the typed path cannot have one (a folder such as `/` or `..`, a name that is
    all suffix)."""
    try:
        beside = source.with_name("pyramids.simrate") if many else source.with_suffix(".simrate")
    except ValueError:
        return None
    return beside if folder is None else folder / beside.name


def project_folder(last_folder: str) -> Path:
    """Where a new project is saved unless the user says otherwise: the folder of the last
    project opened, unless that is the sample's (the program's own data folder); else the
    Documents folder; else the home folder."""
    from PySide6.QtCore import QStandardPaths

    from simrate.gui.base.sample import sample_folder

    last = Path(last_folder) if last_folder else None
    if last is not None and last.is_dir() and last.resolve() != sample_folder().resolve():
        return last
    documents = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation)
    return Path(documents) if documents and Path(documents).is_dir() else Path.home()


class NewProjectDialog(QDialog):
    """Choose the file of pairs, the scale, a title and where to save the project."""

    def __init__(self, start_folder: str = "", parent: QWidget | None = None,
                 last_scale: str = "", annotator: str = ""):
        super().__init__(parent)
        close_keys(self)  # Ctrl+W as well as Esc
        self.setWindowTitle("New project from a file")
        self.start_folder = start_folder
        self.project_folder = project_folder(start_folder)
        self.last_scale = last_scale  # the scale last chosen for generic pairs
        self.source_edit = QLineEdit()
        self.source_edit.setPlaceholderText("A file of pairs: TSV, CSV, XLSX, STS, CLSS, PIT\u2026 "
                                            "or several pyramid files (.pyr)")
        self.source_edit.textChanged.connect(self._on_source_changed)
        self.scale_box = QComboBox()
        for name in ("clss", "sts"):
            scale = load_scale(name)
            self.scale_box.addItem(f"{scale.title}", name)
        self.scale_box.addItem("A scale of my own (JSON file)\u2026", OTHER_SCALE)
        self.scale_file = ""
        self.scale_box.activated.connect(self._on_scale_chosen)
        self.title_edit = QLineEdit()
        self.project_edit = QLineEdit()
        self.project_edit.setPlaceholderText(f"Where to save the .simrate project file (in "
                                             f"{self.project_folder} unless you choose)")
        self.name_edit = QLineEdit(annotator)
        self.name_edit.setPlaceholderText("Who is rating: your ratings are saved under it")
        self._project_edited = False
        self._auto_title = ""
        self.project_edit.textEdited.connect(lambda _t: setattr(self, "_project_edited", True))
        self.problem_label = WrappedLabel()
        self.problem_label.setStyleSheet(colour_style(ERROR_COLOUR))
        self.pyramid_box = PyramidChoiceBox(self)
        self.pyramid_box.setVisible(False)
        self.pyramid_box.changed.connect(self._update_ok)
        self._lay_out()

    def _lay_out(self) -> None:
        """The form, the pyramid choices, the problem line and the buttons."""
        form = QFormLayout()
        form.addRow("Pairs file:", path_row(self.source_edit, self._browse_source))
        form.addRow("Scale:", self.scale_box)
        form.addRow("Title:", self.title_edit)
        form.addRow("Save project as:", path_row(self.project_edit, self._browse_project))
        form.addRow("Your name:", self.name_edit)
        name_form_fields(form)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create and import")
        self.buttons.accepted.connect(self._accept_if_valid)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        # never smaller than the contents: a problem line shown grows the dialog
        layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        layout.addLayout(form)
        layout.addWidget(self.pyramid_box)
        layout.addWidget(self.problem_label)
        layout.addWidget(self.buttons)
        # 600 wide to start with, not as a minimum: an explicit minimum would keep the layout
        # from widening the dialog when the pyramid choices appear (their combo box was cut).
        self.resize(max(600, self.sizeHint().width()), self.sizeHint().height())

    def _browse_source(self) -> None:
        paths, _ = get_open_file_names(self, "Pairs file, or several pyramid files",
                                                self.start_folder, PAIR_FILES)
        if paths:
            self.source_edit.setText(quoted_paths(paths))

    def sources(self) -> tuple[Path, ...]:
        """The files named in the source field."""
        return source_paths(self.source_edit.text())

    def is_pyramid(self) -> bool:
        """True when every file named is a pyramid file."""
        sources = self.sources()
        return bool(sources) and all(is_pyramid_file(p) for p in sources)

    def _update_ok(self) -> None:
        """Enable "Create and import" only once a pyramid preview is ready."""
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(not (self.is_pyramid() and self.pyramid_box.counting))
        if self.problem_label.text():
            self.problem_label.setText(self.problem())

    def _browse_project(self) -> None:
        path, _ = get_save_file_name(self, "Save project as", self.project_edit.text(),
                                              "simrate projects (*.simrate)")
        if path:
            self.project_edit.setText(path if path.endswith(".simrate") else path + ".simrate")
            self._project_edited = True

    def _on_source_changed(self, text: str) -> None:
        sources = source_paths(text)
        pyramid = self.is_pyramid()
        self.pyramid_box.setVisible(pyramid)
        existing = tuple(p for p in sources if p.is_file())
        self.pyramid_box.set_files(existing if pyramid and existing == sources else ())
        self._update_ok()
        if not sources:
            return
        source = sources[0]
        many = len(sources) > 1
        if not source.name:  # "/" or "~/..": a path being typed names no file yet
            return
        if not self._project_edited:
            target = default_target(source, many, self.project_folder)
            if target is not None:
                self.project_edit.setText(str(target))
        index = self.scale_box.findData(guess_scale(source, self.last_scale))
        if index >= 0 and self.scale_box.currentData() != OTHER_SCALE:
            self.scale_box.setCurrentIndex(index)
        if not self.title_edit.text() or self.title_edit.text() == self._auto_title:
            title = f"{source.stem} and {len(sources) - 1} more" if many else source.stem
            self.title_edit.setText(title)
            self._auto_title = title

    def _on_scale_chosen(self, index: int) -> None:
        if self.scale_box.itemData(index) != OTHER_SCALE:
            return
        path, _ = get_open_file_name(self, "Scale definition", self.start_folder,
                                              "Scale (*.json)")
        if path:
            self.scale_file = path
            self.scale_box.setItemText(index, f"Scale file: {Path(path).name}")
        else:
            self.scale_box.setCurrentIndex(0)

    def problem(self) -> str:
        """What stops the dialog from being accepted, or ''."""
        sources = self.sources()
        target = self.project_edit.text().strip()
        if not sources:
            return "Choose a file of pairs."
        for source in sources:
            if not source.is_file():
                return f"There is no file {source}."
        if len(sources) > 1 and not self.is_pyramid():
            return "Several files at once work for pyramid files (.pyr, .pan) only."
        if not target:
            return "Choose where to save the project."
        if Path(target).exists():
            return f"{target} already exists: choose another name, or open it instead."
        if self.scale_box.currentData() == OTHER_SCALE and not self.scale_file:
            return "Choose the scale file."
        return (self.pyramid_box.problem() if self.is_pyramid() else "") or self._name_problem()

    def _name_problem(self) -> str:
        if not self.annotator():
            return "Type your name: the new project opens with your ratings under it."
        problem = text_problem(self.annotator(), "name")
        return problem[:1].upper() + problem[1:] + "." if problem else ""

    def _accept_if_valid(self) -> None:
        problem = self.problem()
        self.problem_label.setText(problem)
        if not problem:
            self.accept()

    def annotator(self) -> str:
        """Who rates in the new project (it opens under this name)."""
        return self.name_edit.text().strip()

    def generic_scale(self) -> str | None:
        """The built-in scale chosen for generic pairs (to offer next time), or None when the
        file's format implies its scale or the scale is a file of one's own."""
        sources, scale = self.sources(), self.scale_box.currentData()
        if not sources or scale == OTHER_SCALE or self.is_pyramid():
            return None
        return scale if implied_scale(sources[0]) is None else None

    def request(self) -> ImportRequest:
        """The import that creates the project, from the dialog's fields."""
        scale = self.scale_box.currentData()
        target = self.project_edit.text().strip()
        if not target.endswith(".simrate"):
            target += ".simrate"
        sources = self.sources()
        pyramid = self.is_pyramid()
        return ImportRequest(
            source=sources[0],
            project_path=Path(target),
            fmt="pyramid" if pyramid else "auto",
            new_scale=self.scale_file if scale == OTHER_SCALE else scale,
            title=self.title_edit.text().strip(),
            more_sources=sources[1:],
            options=self.pyramid_box.options() if pyramid else (),
        )
