"""A new project from a file: the dialog, the import in the background, the project opened.

The New project dialog asks who is rating along with the file, so the project it creates
always opens, as that person, with no second question to cancel; it is put in Recent
projects as soon as it exists, before it opens (so it is listed even if opening fails).
"""

from __future__ import annotations

from pathlib import Path

from simrate.gui.base.settings import LAST_ANNOTATOR, LAST_FOLDER, LAST_SCALE
from simrate.gui.dialogs.new_project_dialog import NewProjectDialog
from simrate.services.imports.file_import import ImportResult


class ProjectCreation:
    """New projects of one window, from the dialog to the project opened."""

    def __init__(self, window):
        self.window = window
        #: Who opens each project being created, by its path.
        self.creators: dict[str, str] = {}

    def ask(self) -> None:
        """Ask for a pairs file, a scale, where to save and who rates; start the import."""
        settings = self.window.context.settings
        dialog = NewProjectDialog(settings.get(LAST_FOLDER), self.window,
                                  settings.get(LAST_SCALE), settings.get(LAST_ANNOTATOR))
        if dialog.exec() != NewProjectDialog.DialogCode.Accepted:
            return
        if dialog.generic_scale():
            settings.set(LAST_SCALE, dialog.generic_scale())
        request = dialog.request()
        self.creators[str(request.project_path)] = dialog.annotator()
        self.window.imports.start(request)

    def open_created(self, result: ImportResult) -> bool:
        """After an import: when it created a project, list it and open it as the person
        who created it; False for an import into an open project."""
        if result.request.new_scale is None:
            return False
        path = str(result.request.project_path)
        self.window.context.settings.add_recent_project(str(Path(path).resolve()))
        self.window.open_project(path, annotator=self.creators.pop(path, None) or None)
        return True
