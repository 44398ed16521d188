"""The form that creates or changes a web study: every setting of `simrate crowd study`.

The left column holds the tasks (items per task, check items, web ratings per item, lease
minutes), the right one what the worker's page shows and where it sends her (completion
URL and codes, Prolific's study id, instructions and consent files, framing, redirect).
The dialog only gathers and checks the values; the panel hands them to the same
`set_study` the command calls (web_studies.py), so a study made here is the command's.
An empty text field takes a setting away; an empty file field keeps the text the study has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from simrate.core.base.errors import SimrateError
from simrate.core.base.inputs import MAX_MARKDOWN_BYTES, mib, read_bounded
from simrate.core.base.rules import MAX_COUNT, MAX_LEASE_MINUTES, MAX_REDIRECT_SECONDS
from simrate.core.team.web_study import DEFAULT_LEASE_MINUTES, DEFAULT_PER_ITEM, Study
from simrate.gui.kit.accessible import name_form_fields
from simrate.gui.kit.closing import close_keys
from simrate.gui.kit.file_dialogs import get_open_file_name
from simrate.gui.kit.fitting import WrappedLabel

#: Items per task a new study starts with (the command has no default: it must be given).
DEFAULT_PER_TASK = 10


@dataclass
class StudySettings:
    """What the form gathered, in the words of `set_study`'s parameters."""

    name: str
    per_task: int
    checks: int
    per_item: int
    lease_minutes: float
    completion_url: str
    completion_code: str | None
    options: dict = field(default_factory=dict)
    new_web_password: bool = False


def read_markdown(path: str) -> str | None:
    """The text of an instructions or consent file, or None for no file chosen;
    SimrateError (file and line) for one too large or not UTF-8: the command's rules."""
    if not path.strip():
        return None
    data = read_bounded(path.strip(), MAX_MARKDOWN_BYTES, pipes=False,
                        too_large=f"larger than {mib(MAX_MARKDOWN_BYTES)}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SimrateError("not UTF-8 text", path, data[:exc.start].count(b"\n") + 1) from None


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox(minimum=low, maximum=high, value=value)
    box.setGroupSeparatorShown(True)
    box.setToolTip(tip)
    return box


def _edit(text: str, tip: str, placeholder: str = "") -> QLineEdit:
    edit = QLineEdit(text, placeholderText=placeholder)
    edit.setToolTip(tip)
    return edit


class StudyDialog(QDialog):
    """New study (`study` None) or the settings of an existing one. OK hands the settings to
    `submit(settings, new)`; a SimrateError it raises is shown and the form stays open."""

    def __init__(self, study: Study | None, check_items: int, hub: bool,
                 submit: Callable[[StudySettings, bool], None], parent: QWidget | None = None):
        super().__init__(parent)
        close_keys(self)
        self.study = study
        self.submit = submit
        self.setWindowTitle("New web study" if study is None else f"Web study {study.name}")
        self.check_items = check_items
        self._task_fields(study, check_items)
        self._page_fields(study)
        self.password_box = QCheckBox("Give simrate serve's hub login a new password")
        self.password_box.setToolTip("crowd study --new-web-password")
        self.password_box.setVisible(hub)
        self.error_label = WrappedLabel()
        self.error_label.setStyleSheet("color: #b00020")
        self._lay_out()

    def _task_fields(self, study: Study | None, check_items: int) -> None:
        self.name_edit = _edit("" if study is None else study.name,
                               "Letters, digits, '.', '_' and '-': part of the worker link",
                               "for example pilot-1")
        self.name_edit.setEnabled(study is None)
        self.per_task_spin = _spin(1, MAX_COUNT, study.per_task if study else DEFAULT_PER_TASK,
                                   "Items a worker rates in one task (crowd study --per-task)")
        self.checks_spin = _spin(0, MAX_COUNT, study.checks if study else 0,
                                 f"Check items with known scores added to each task; the "
                                 f"project has {check_items:,} (crowd study --checks)")
        self.per_item_spin = _spin(1, MAX_COUNT, study.per_item if study else DEFAULT_PER_ITEM,
                                   "At most this many web ratings per item "
                                   "(crowd study --per-item)")
        self.lease_spin = QDoubleSpinBox(minimum=0.5, maximum=MAX_LEASE_MINUTES - 1,
                                         decimals=1, suffix=" min")
        self.lease_spin.setValue(study.lease_minutes if study else DEFAULT_LEASE_MINUTES)
        self.lease_spin.setToolTip("A task not finished in this time goes back to the pool "
                                   "(crowd study --lease-minutes)")

    def _page_fields(self, study: Study | None) -> None:
        option = study.option if study else (lambda _key, default=None: default)
        self.url_edit = _edit(study.completion_url if study else "",
                              "Where the worker is sent at the end; {code}, {worker} and "
                              "{session} are filled in (crowd study --completion-url)",
                              "https://app.prolific.com/submissions/complete?cc={code}")
        self.code_edit = _edit(study.code if study else "",
                               "The platform's completion code; empty: one made at random "
                               "(crowd study --completion-code)", "made at random")
        self.partial_edit = _edit(option("partial_code", ""), "Shown for a task that ran out "
                                  "or whose study closed (crowd study --partial-code)")
        self.per_task_code_box = QCheckBox("A code of its own per task")
        self.per_task_code_box.setChecked(bool(option("code_per_task", False)))
        self.per_task_code_box.setToolTip("crowd study --code-per-task")
        self.prolific_edit = _edit(option("prolific_study", ""), "Refuse a start whose "
                                   "STUDY_ID is another (crowd study --prolific-study)")
        self.instructions_edit, self.consent_edit = (
            _edit("", f"A Markdown file (crowd study --{flag}); empty: "
                  + ("keep the text the study has" if option(flag) else "none"),
                  "kept as it is" if option(flag) else "none")
            for flag in ("instructions", "consent"))
        self.frame_edit = _edit(option("frame_from", ""), "Let this origin show the page in a "
                                "frame, e.g. https://www.mturk.com (crowd study "
                                "--allow-frame-from)")
        self.redirect_spin = _spin(0, MAX_REDIRECT_SECONDS, int(option("redirect_seconds", 0)),
                                   "Send the worker to the completion URL this many seconds "
                                   "after the code; 0: she presses the button "
                                   "(crowd study --redirect-seconds)")
        self.redirect_spin.setSuffix(" s")
        self.redirect_spin.setSpecialValueText("never")

    def _file_row(self, edit: QLineEdit, caption: str) -> QWidget:
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(edit, 1)
        button = QPushButton("Browse\u2026")
        button.clicked.connect(lambda: self._browse(edit, caption))
        layout.addWidget(button)
        return row

    def _browse(self, edit: QLineEdit, caption: str) -> None:
        path, _ = get_open_file_name(self, caption, "", "Markdown (*.md *.txt);;All files (*)")
        if path:
            edit.setText(path)

    def _lay_out(self) -> None:
        tasks = QFormLayout()
        for label, widget in (("&Name", self.name_edit), ("Items per &task", self.per_task_spin),
                              ("&Check items per task", self.checks_spin),
                              ("Web ratings per &item", self.per_item_spin),
                              ("&Lease", self.lease_spin)):
            tasks.addRow(label, widget)
        page = QFormLayout()
        field: QWidget
        for label, field in (
                ("Completion &URL", self.url_edit), ("Completion c&ode", self.code_edit),
                ("&Partial code", self.partial_edit), ("", self.per_task_code_box),
                ("Prolific &study ID", self.prolific_edit),
                ("In&structions", self._file_row(self.instructions_edit, "Instructions")),
                ("Co&nsent", self._file_row(self.consent_edit, "Consent")),
                ("&Frame from", self.frame_edit), ("&Redirect after", self.redirect_spin)):
            page.addRow(label, field)
        name_form_fields(page)
        columns = QHBoxLayout()
        for title, form in (("Tasks", tasks), ("The worker's page", page)):
            box = QGroupBox(title)
            box.setLayout(form)
            columns.addWidget(box, 1 if title == "Tasks" else 2)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText(
            "Create study" if self.study is None else "Save")
        buttons.accepted.connect(self._check)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(columns)
        layout.addWidget(self.password_box)
        layout.addWidget(self.error_label)
        layout.addWidget(buttons)
        self.setMinimumWidth(760)

    def _check(self) -> None:
        """Accept when the form holds a study the command would take; else say why."""
        if not self.name_edit.text().strip():
            self.error_label.setText("A study needs a name: it is part of the worker link.")
        elif self.checks_spin.value() > self.check_items:
            self.error_label.setText(
                f"{self.checks_spin.value():,} check items per task asked for, but the "
                f"project has {self.check_items:,}: mark some first (simrate checks).")
        else:
            try:
                self.submit(self.settings(), self.study is None)
            except SimrateError as exc:
                self.error_label.setText(str(exc))
                return
            self.accept()

    def settings(self) -> StudySettings:
        """The form's values; SimrateError for an instructions or consent file that
        cannot be read."""
        options = {"partial_code": self.partial_edit.text().strip(),
                   "code_per_task": self.per_task_code_box.isChecked(),
                   "prolific_study": self.prolific_edit.text().strip(),
                   "instructions": read_markdown(self.instructions_edit.text()),
                   "consent": read_markdown(self.consent_edit.text()),
                   "frame_from": self.frame_edit.text().strip(),
                   "redirect_seconds": self.redirect_spin.value()}
        return StudySettings(
            self.name_edit.text().strip(), self.per_task_spin.value(), self.checks_spin.value(),
            self.per_item_spin.value(), self.lease_spin.value(), self.url_edit.text().strip(),
            self.code_edit.text().strip() or None, options, self.password_box.isChecked())
