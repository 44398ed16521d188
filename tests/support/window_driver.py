"""A real simrate window in its own process, driven through its keyboard from stdin.

    python -m tests.support.window_driver PROJECT ANNOTATOR SETTINGS_INI

Prints `ready` once the window shows the project. Each line `key DIGIT` on stdin types the
digit and Enter into the focused widget, as an annotator would, and prints `saved ID SCORE`
once the window's project holds the rating; `quit` ends the process. The tests kill it with
SIGKILL at will and look at /proc/PID/fd for files deleted under it.
"""

from __future__ import annotations

import queue
import sys
import threading


def main() -> int:
    project_path, annotator, ini = sys.argv[1:4]
    from PySide6.QtCore import QSettings, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import Settings
    from simrate.gui.shell.main_window import MainWindow

    app = QApplication([sys.argv[0]])
    context = ApplicationContext(Settings(QSettings(ini, QSettings.Format.IniFormat)))
    window = MainWindow(context)
    window.resize(1000, 700)
    window.show()
    context.open_project(project_path, annotator)
    window.activateWindow()
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in sys.stdin], daemon=True).start()

    def step() -> None:
        try:
            line = lines.get_nowait().split()
        except queue.Empty:
            return
        if not line or line[0] == "quit":
            app.exit(0)
            return
        item = context.session.current_id()
        window.rating_panel.focus_scale()
        target = QApplication.focusWidget() or window.rating_panel.scale_widget
        QTest.keyClick(target, getattr(Qt.Key, f"Key_{line[1]}"))
        QTest.keyClick(target, Qt.Key.Key_Return)
        score = context.project.rating(item, annotator)  # read back from the connection
        print(f"saved {item} {score}", flush=True)

    timer = QTimer()
    timer.timeout.connect(step)
    timer.start(20)
    QTimer.singleShot(0, lambda: print("ready", flush=True))
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
