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


def press_ok(dialog):
    from PySide6.QtWidgets import QDialogButtonBox

    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok).click()


def test_a_study_made_in_the_window_is_the_one_the_command_makes(qtbot, tmp_path):
    """Every setting of `crowd study` set from the form, on one file; the command with the
    same options on a copy: the two studies agree in all but their random secret."""
    import shutil

    from simrate.cli import main

    path = make_project(tmp_path / "p.simrate", items=20, checks=2)
    shutil.copy(path, tmp_path / "cli.simrate")
    (tmp_path / "how.md").write_text("# Rate\nHow alike are the two texts?\n", "utf-8")
    (tmp_path / "ok.md").write_text("I agree.\n", "utf-8")
    url = "https://app.prolific.com/submissions/complete?cc={code}"
    assert main(["crowd", "study", str(tmp_path / "cli.simrate"), "pilot", "--per-task", "4",
                 "--checks", "1", "--per-item", "2", "--lease-minutes", "30",
                 "--completion-url", url, "--completion-code", "C0DE1", "--partial-code",
                 "PART1", "--code-per-task", "--prolific-study", "abc123", "--instructions",
                 str(tmp_path / "how.md"), "--consent", str(tmp_path / "ok.md"),
                 "--allow-frame-from", "https://www.mturk.com", "--redirect-seconds", "5",
                 "--by", "organizer"]) == 0
    with Project.open(path) as project:
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        form = panel.new_study()
        form.name_edit.setText("pilot")
        for spin, value in ((form.per_task_spin, 4), (form.checks_spin, 1),
                            (form.per_item_spin, 2), (form.lease_spin, 30),
                            (form.redirect_spin, 5)):
            spin.setValue(value)
        for edit, text in ((form.url_edit, url), (form.code_edit, "C0DE1"),
                           (form.partial_edit, "PART1"), (form.prolific_edit, "abc123"),
                           (form.instructions_edit, str(tmp_path / "how.md")),
                           (form.consent_edit, str(tmp_path / "ok.md")),
                           (form.frame_edit, "https://www.mturk.com")):
            edit.setText(text)
        form.per_task_code_box.setChecked(True)
        press_ok(form)
        assert not form.isVisible()
        made = web.get_study(project, "pilot")
        assert panel.selected_name() == "pilot"
        assert panel.message.text() == "Study pilot created: 10 tasks left, open."
        panel.timer.stop()
    with Project.open(tmp_path / "cli.simrate") as project:
        wanted = web.get_study(project, "pilot")
    assert (made.per_task, made.checks, made.per_item, made.lease_minutes, made.code,
            made.completion_url, made.open) == (4, 1, 2, 30.0, "C0DE1", url, True)
    assert made.options == wanted.options and made.options["instructions"].startswith("# Rate")
    assert made.secret != wanted.secret
    assert made == wanted.__class__(**{**wanted.__dict__, "secret": made.secret})


def test_the_form_refuses_what_the_command_refuses_and_stays_open(qtbot, tmp_path):
    path = make_project(tmp_path / "p.simrate", items=6, checks=1)
    (tmp_path / "bad.md").write_bytes(b"fine\n\xff\xfe broken\n")
    with Project.open(path) as project:
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        form = panel.new_study()
        press_ok(form)
        assert form.isVisible() and "needs a name" in form.error_label.text()
        form.name_edit.setText("s1")
        form.checks_spin.setValue(2)
        press_ok(form)
        assert "the project has 1" in form.error_label.text()
        form.checks_spin.setValue(0)
        form.code_edit.setText("no spaces")
        press_ok(form)
        assert "--completion-code may hold only" in form.error_label.text()
        form.code_edit.setText("")
        form.instructions_edit.setText(str(tmp_path / "bad.md"))
        press_ok(form)
        assert form.error_label.text() == f"{tmp_path / 'bad.md'}:2: not UTF-8 text"
        assert web.studies(project) == []
        form.instructions_edit.setText("")
        press_ok(form)
        assert not form.isVisible() and web.get_study(project, "s1").open
        again = panel.new_study()
        again.name_edit.setText("s1")
        press_ok(again)
        assert "exists already" in again.error_label.text()
        again.reject()
        panel.timer.stop()


def test_settings_change_a_closed_study_without_opening_it(qtbot, tmp_path):
    path = make_project(tmp_path / "p.simrate", items=6, checks=0)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, per_item=1, completion_code="KEEP1")
        web.set_study(project, "s", close=True)
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        form = panel.change_study()
        assert not form.name_edit.isEnabled() and form.code_edit.text() == "KEEP1"
        assert form.per_task_spin.value() == 3
        form.per_item_spin.setValue(4)
        press_ok(form)
        study = web.get_study(project, "s")
        assert (study.per_item, study.open, study.code) == (4, False, "KEEP1")
        assert panel.message.text() == ("Study s saved: 8 tasks left, closed (Open study "
                                        "serves it).")
        panel.timer.stop()


def test_a_study_with_nothing_to_hand_out_says_so(qtbot, tmp_path):
    path = make_project(tmp_path / "p.simrate", items=2, checks=0)
    with Project.open(path) as project:
        web.set_study(project, "full", per_task=1, per_item=1)
        rate_task(project, "full", "W1", "2")
        rate_task(project, "full", "W2", "2")
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        form = panel.change_study()
        press_ok(form)
        assert panel.message.text() == ("Study full saved: 0 tasks left, open. No task can be "
                                        "handed out: every item has its web ratings or is a "
                                        "check item.")
        panel.timer.stop()


def test_review_and_bonus_totals_are_the_commands(qtbot, tmp_path, capsys):
    """The panel's Review line: the counts `crowd review --json` gives and the total
    `crowd bonus --per-hour --top-up-to --json` gives, on a simulated study."""
    import json

    from tests.cli.helpers import simrate
    from tests.core.team.crowdweb.simulated import simulate

    path = tmp_path / "p.simrate"
    simulate(path, workers=20, timed_out=2)
    counts = json.loads(simrate(capsys, "crowd", "review", path, "s", "--json").out)["counts"]
    paid = json.loads(simrate(capsys, "crowd", "bonus", path, "s", "--per-hour", "9.5",
                              "--top-up-to", "12", "--json").out)
    with Project.open(path) as project:
        panel = WebStudiesPanel(project)
        qtbot.addWidget(panel)
        box = panel.review_box
        box.review_button.click()
        text = box.result_label.text()
        assert text.startswith(f"s: {sum(counts.values())} workers (")
        assert f"{counts['approve']} to approve" in text
        assert "Bonus" not in text
        box.rate_edit.setText("9.5")
        box.top_up_edit.setText("12")
        box.review_button.click()
        text = box.result_label.text()
        assert f" Bonus: {paid['total']} in all to {paid['workers']} approved workers " in text
        box.rate_edit.setText("nine")
        box.review_button.click()
        assert box.result_label.text() == "rate per hour: 'nine' is not an amount"
        panel.timer.stop()


def test_the_refresh_runs_only_while_the_panel_is_shown(qtbot, tmp_path):
    """A panel never shown, or hidden, reads nothing on its timer: one left over after its
    project closed must not read the closed file (it did, in every later test's event
    loop, before)."""
    from PySide6.QtWidgets import QDialog

    path = make_project(tmp_path / "p.simrate")
    with Project.open(path) as project:
        holder = QDialog()
        qtbot.addWidget(holder)
        panel = WebStudiesPanel(project, holder)
        assert not panel.timer.isActive()
        holder.show()
        qtbot.waitExposed(holder)
        assert panel.timer.isActive()
        holder.hide()
        assert not panel.timer.isActive()
