"""The organizer's web studies window and the crowd mark in the dashboard's rater table."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.gui.agreement.pearson_view import PearsonView
from simrate.gui.organizer.web_studies import WebStudiesPanel
from tests.web.projects import make_project


def rate_task(project, study, worker, score):
    lease = web.lease(project, study, worker)
    while (slot := web.next_slot(project, lease)) is not None:
        lease, _ = web.rate_slot(project, study, lease.cookie, lease.token, slot.slot, score)


def test_studies_show_progress_a_link_to_copy_and_open_or_close(qtbot, tmp_path):
    path = make_project(tmp_path / "p.simrate", items=12, checks=1)
    with Project.open(path) as project:
        web.set_study(project, "pilot", per_task=3, per_item=1)
        web.set_study(project, "main", per_task=4, checks=1, per_item=2)
        rate_task(project, "pilot", "W1", "2")
        web.lease(project, "pilot", "W2")
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        model = panel.model
        cells = [[model.index(r, c).data() for c in range(model.columnCount())]
                 for r in range(model.rowCount())]
        assert cells == [["main", "open", "0", "0", "6", "0", "0"],
                         ["pilot", "open", "1", "1", "2", "2", "3"]]
        panel.table.selectRow(1)
        panel.base_edit.setText("https://rate.example.org/")
        panel.copy_button.click()
        assert QGuiApplication.clipboard().text() == (
            "https://rate.example.org/study/pilot?PROLIFIC_PID={{%PROLIFIC_PID%}}"
            "&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}")
        assert panel.toggle_button.text() == "Close study"
        panel.toggle_button.click()
        assert not web.get_study(project, "pilot").open
        assert model.index(1, 1).data() == "closed" and panel.selected_name() == "pilot"
        assert panel.toggle_button.text() == "Open study"
        panel.toggle_button.click()
        assert web.get_study(project, "pilot").open
        panel.timer.stop()


def test_the_rater_table_marks_crowd_workers(qtbot, tmp_path):
    path = make_project(tmp_path / "p.simrate", items=12, checks=0)
    with Project.open(path) as project:
        project.rate("i002", "alice", 3.0)
        project.roster.add_machine("model")
        web.set_study(project, "s", per_task=12, per_item=2)
        rate_task(project, "s", "W1", "2")
        view = PearsonView(project)
        qtbot.addWidget(view)
        view.model.reload()
        kinds = {row.name: view.model.index(i, 1).data()
                 for i, row in enumerate(view.model.rows)}
        assert kinds == {"alice": "person", "W1": "crowd"}
