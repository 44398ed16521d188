"""FlagRuleBox: the project's flag rule, shown and set above the adjudication queue.

A combo box picks the rule (auto, range, uncertain), a spin box its threshold in scale points
(the spread for `range`; the ratings' SD for `uncertain` and for `auto`, whose range part keeps
its own threshold), and a line below says the whole rule in words (`FlagRule.describe`). A
change is written at once by `Project.set_flag_rule`: one logged transaction whose
SettingsChanged event makes the queue read its items again. The box reads the rule back from
the project after every settings change, wherever it came from (this box, the command line
in another process, a reload).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QGridLayout, QLabel, QWidget

from simrate.core.base.errors import SimrateError
from simrate.core.base.events import Event, Reloaded, SettingsChanged
from simrate.core.base.flagrule import AUTO_RANGE_RATERS, RULES, FlagRule
from simrate.core.base.scale import fmt

#: Step of the SD threshold's spin box (the range threshold steps by the scale's step).
SD_STEP = 0.05
RULE_TIPS = {
    "range": "Flag an item when its largest and smallest ratings differ by at least the "
             "threshold: the rule for two or three experts (the range grows with every rater)",
    "uncertain": "Flag an item when the standard deviation of its ratings (sample SD) is at "
                 "least the threshold: the rule for crowds (the SD stays put as raters are "
                 "added)",
    "auto": f"The range rule for items with at most {AUTO_RANGE_RATERS} ratings, the "
            "uncertain rule (SD) for items with more; the threshold set here is the SD's",
}


def rule_in_words(rule: FlagRule) -> str:
    """What puts an item in the queue, for the queue's empty state and tooltips."""
    return f"the flag rule {rule.describe()}"


def empty_queue_text(rule: FlagRule, adjudicated: int) -> str:
    """The adjudication queue's empty state: nothing to adjudicate, and what would be."""
    done = f" ({adjudicated:,} adjudicated)" if adjudicated else ""
    return (f"<h3>No flagged items</h3><p>Every disagreement is resolved{done}. Items appear "
            f"here when {rule_in_words(rule)} flags them.</p>")


class FlagRuleBox(QWidget):
    """Rule, threshold and the rule in words; writes through `Project.set_flag_rule`."""

    #: A change was refused: the message.
    failed = Signal(str)
    #: The user set a new rule (written): the FlagRule now in force.
    rule_set = Signal(object)

    def __init__(self, project, bridge=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.project = project
        self.scale = project.scale
        self._showing = False
        self.combo = QComboBox()
        self.combo.addItems(RULES)
        self.combo.setAccessibleName("Flag rule")
        self.spin = QDoubleSpinBox()
        self.spin.setKeyboardTracking(False)  # a value is written on Enter, not per keystroke
        self.spin.setMaximum(self.scale.high - self.scale.low)
        self.spin.setDecimals(max(2, len(fmt(self.scale.step).partition(".")[2])))
        self.spin.setAccessibleName("Flag threshold")
        self.measure_label = QLabel()
        self.measure_label.setBuddy(self.spin)
        self.description = QLabel()
        self.description.setObjectName("flagRuleDescription")
        self.description.setWordWrap(True)
        self._lay_out()
        self.show_rule(project.flag_rule)
        self.combo.currentTextChanged.connect(self._on_rule)
        self.spin.valueChanged.connect(self._on_threshold)
        if bridge is not None:
            bridge.changed.connect(self._on_event)

    def _lay_out(self) -> None:
        title = QLabel("Flag rule:")
        title.setBuddy(self.combo)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 6)
        grid.setHorizontalSpacing(6)
        grid.addWidget(title, 0, 0)
        grid.addWidget(self.combo, 0, 1)
        grid.addWidget(self.measure_label, 0, 2)
        grid.addWidget(self.spin, 0, 3)
        grid.setColumnStretch(4, 1)
        grid.addWidget(self.description, 1, 0, 1, 5)

    # ------------------------------------------------------------------ showing
    def show_rule(self, rule: FlagRule) -> None:
        """Show `rule` without writing anything."""
        self._showing = True
        try:
            self.combo.setCurrentText(rule.name)
            by_range = rule.name == "range"
            self.measure_label.setText("spread \u2265" if by_range else "SD \u2265")
            step = self.scale.step if by_range else SD_STEP
            self.spin.setSingleStep(step)
            self.spin.setMinimum(step)
            self.spin.setValue(rule.threshold)
            self.description.setText(rule.describe())
            what = "spread (largest minus smallest rating)" if by_range else \
                "standard deviation of the ratings"
            self.spin.setToolTip(f"Flag an item when the {what} is at least this many scale "
                                 "points (Enter or the arrows apply it)")
            self.combo.setToolTip(RULE_TIPS[rule.name])
            self.description.setToolTip(RULE_TIPS[rule.name])
        finally:
            self._showing = False

    def _on_event(self, event: Event) -> None:
        if isinstance(event, (SettingsChanged, Reloaded)):
            self.show_rule(self.project.flag_rule)

    # ------------------------------------------------------------------ writing
    def _on_rule(self, name: str) -> None:
        if not self._showing:
            self._write(name, None)

    def _on_threshold(self, value: float) -> None:
        if not self._showing:
            self._write(self.combo.currentText(), value)

    def _write(self, name: str, threshold: float | None) -> None:
        try:
            rule = self.project.set_flag_rule(name, threshold)
        except SimrateError as exc:
            self.show_rule(self.project.flag_rule)
            self.failed.emit(str(exc))
            return
        self.show_rule(rule)
        self.rule_set.emit(rule)
