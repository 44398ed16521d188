"""StartPage: recent projects, a new project from a file, another project, the sample."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFont, QPainter
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from simrate.gui.base.context import ApplicationContext

PathRole = Qt.ItemDataRole.UserRole + 1
MissingRole = Qt.ItemDataRole.UserRole + 2


class RecentProjectDelegate(QStyledItemDelegate):
    """Draws a recent project as its name in bold over its path in a quieter colour."""

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        """Two lines of text with some air around them."""
        line = option.fontMetrics.height()
        return QSize(200, int(line * 2.6) + 8)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        """Background as usual, then the two lines."""
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter,
                              option.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        main = palette.highlightedText() if selected else palette.text()
        quiet = main if selected else palette.placeholderText()
        rect = option.rect.adjusted(10, 4, -10, -4)
        half = rect.height() // 2
        name = QFont(option.font)
        name.setBold(True)
        painter.save()
        painter.setFont(name)
        painter.setPen(main.color())
        title = index.data(Qt.ItemDataRole.DisplayRole)
        if index.data(MissingRole):
            title += "  (missing)"
        painter.drawText(QRect(rect.left(), rect.top(), rect.width(), half),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, title)
        painter.setFont(option.font)
        painter.setPen(quiet.color())
        path = option.fontMetrics.elidedText(index.data(PathRole), Qt.TextElideMode.ElideMiddle,
                                             rect.width())
        painter.drawText(QRect(rect.left(), rect.top() + half, rect.width(), half),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, path)
        painter.restore()


class StartPage(QWidget):
    """What `simrate` shows with no project: pick or make one."""

    open_path = Signal(str)
    new_from_file = Signal()
    open_other = Signal()
    open_sample = Signal()
    open_sample_as_organizer = Signal()
    join_hub = Signal()

    def __init__(self, context: ApplicationContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        title = QLabel("simrate")
        font = QFont(title.font())
        font.setPointSizeF(font.pointSizeF() * 2.6)
        font.setBold(True)
        title.setFont(font)
        subtitle = QLabel("Rate pairs of texts on a graded similarity scale, at the speed "
                          "of the keyboard.")
        subtitle.setWordWrap(True)
        columns = QHBoxLayout()
        columns.addLayout(self._build_recent(), 3)
        columns.addSpacing(24)
        columns.addLayout(self._build_actions(), 2)
        card = QFrame()
        card.setObjectName("startCard")
        card.setMaximumWidth(1000)
        inner = QVBoxLayout(card)
        inner.addWidget(title)
        inner.addWidget(subtitle)
        inner.addSpacing(18)
        inner.addLayout(columns, 1)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(24, 24, 24, 24)
        outer.addStretch(1)
        outer.addWidget(card, 8)
        outer.addStretch(1)
        self.refresh()

    def _build_recent(self) -> QVBoxLayout:
        self.recent_list = QListWidget()
        self.recent_list.setObjectName("recentProjects")
        self.recent_list.setItemDelegate(RecentProjectDelegate(self.recent_list))
        self.recent_list.itemActivated.connect(self._on_recent_activated)
        self.empty_label = QLabel("No recent projects yet.")
        self.empty_label.setEnabled(False)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.open_hint = QLabel("Double-click a project, or press Enter, to open it.")
        self.open_hint.setObjectName("startHint")
        recent = QVBoxLayout()
        recent.addWidget(QLabel("<b>Recent projects</b>"))
        recent.addWidget(self.empty_label, 1)
        recent.addWidget(self.recent_list, 1)
        recent.addWidget(self.open_hint)
        return recent

    def _build_actions(self) -> QVBoxLayout:
        self.new_button = QPushButton("New project from a file\u2026")
        self.open_button = QPushButton("Open a project\u2026")
        self.sample_button = QPushButton("Rate the sample")
        self.sample_organizer_button = QPushButton("Open the sample as organizer")
        self.join_button = QPushButton("Join a team hub\u2026")
        self.join_button.clicked.connect(self.join_hub)
        self.new_button.clicked.connect(self.new_from_file)
        self.open_button.clicked.connect(self.open_other)
        self.sample_button.clicked.connect(self.open_sample)
        self.sample_organizer_button.clicked.connect(self.open_sample_as_organizer)
        hint = QLabel("New here? Rate the sample to try the keys: type the score (3 . 2 5 "
                      "is 3.25), + and \u2212 move it by a quarter, Enter saves and moves "
                      "on. Open it as organizer to see how three raters compare, the pairs "
                      "they differ on, and one already settled.")
        hint.setWordWrap(True)
        hint.setObjectName("startHint")
        actions = QVBoxLayout()
        for button in (self.new_button, self.open_button, self.sample_button,
                       self.sample_organizer_button, self.join_button):
            button.setMinimumHeight(button.sizeHint().height() + 12)
            button.setAutoDefault(True)  # Enter presses the focused button, as Space does
            actions.addWidget(button)
        actions.addSpacing(12)
        actions.addWidget(hint)
        actions.addStretch(1)
        return actions

    def refresh(self) -> None:
        """Re-read the recent projects from the settings."""
        self.recent_list.clear()
        for path in self.context.settings.recent_projects():
            exists = Path(path).is_file()
            item = QListWidgetItem(Path(path).stem)
            item.setData(PathRole, path)
            item.setData(MissingRole, not exists)
            item.setToolTip(path)
            if not exists:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
            self.recent_list.addItem(item)
        has_recent = self.recent_list.count() > 0
        self.recent_list.setVisible(has_recent)
        self.open_hint.setVisible(has_recent)
        self.empty_label.setVisible(not has_recent)
        if has_recent:
            self.recent_list.setCurrentRow(0)
        self.focus_default()

    def focus_default(self) -> None:
        """Keyboard on the first recent project; on a first start, on the sample button
        (Enter opens it: the quickest way to try the keys)."""
        if self.recent_list.count():
            self.recent_list.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            self.sample_button.setFocus(Qt.FocusReason.OtherFocusReason)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Whenever the page appears, put the keyboard where Enter does the likely thing."""
        super().showEvent(event)
        QTimer.singleShot(0, self.focus_default)

    def _on_recent_activated(self, item: QListWidgetItem) -> None:
        self.open_path.emit(item.data(PathRole))
