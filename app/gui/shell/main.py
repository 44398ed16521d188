"""Start the GUI: check the platform, create the QApplication, open the window.

On Linux, Qt's xcb platform plugin needs system libraries that minimal installations lack;
without them Qt aborts with a long message. We look for them first and name the missing
ones and the packages that provide them.
"""

from __future__ import annotations

import ctypes
import os
import sys

#: Libraries the xcb platform plugin loads (soname, Debian/Ubuntu package).
XCB_LIBRARIES = (
    ("libxcb-cursor.so.0", "libxcb-cursor0"),
    ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"),
    ("libxcb-icccm.so.4", "libxcb-icccm4"),
    ("libxcb-image.so.0", "libxcb-image0"),
    ("libxcb-keysyms.so.1", "libxcb-keysyms1"),
    ("libxcb-randr.so.0", "libxcb-randr0"),
    ("libxcb-render-util.so.0", "libxcb-render-util0"),
    ("libxcb-shape.so.0", "libxcb-shape0"),
    ("libxcb-xkb.so.1", "libxcb-xkb1"),
    ("libEGL.so.1", "libegl1"),
    ("libGL.so.1", "libgl1"),
    ("libfontconfig.so.1", "libfontconfig1"),
    ("libdbus-1.so.3", "libdbus-1-3"),
)


def missing_libraries(libraries=XCB_LIBRARIES) -> list[tuple[str, str]]:
    """The (soname, package) pairs that the dynamic loader cannot find."""
    missing = []
    for soname, package in libraries:
        try:
            ctypes.CDLL(soname)
        except OSError:
            missing.append((soname, package))
    return missing


def platform_problem(environ=os.environ, platform: str = sys.platform) -> str | None:
    """Why Qt could not open a window here, or None when it should work."""
    if not platform.startswith("linux"):
        return None
    qpa = environ.get("QT_QPA_PLATFORM", "")
    wanted = qpa.split(":")[0].split(";")[0]
    if wanted and wanted != "xcb":
        return None  # offscreen, wayland, vnc...: not ours to second-guess
    if not wanted and environ.get("WAYLAND_DISPLAY"):
        return None  # Qt will use Wayland
    if not environ.get("DISPLAY"):
        return ("no display to open a window on (DISPLAY is not set); run simrate on a "
                "desktop, or under Xvfb (xvfb-run simrate ...)")
    missing = missing_libraries()
    if not missing:
        return display_problem(environ["DISPLAY"])
    names = ", ".join(soname for soname, _ in missing)
    packages = " ".join(package for _, package in missing)
    return (f"the Qt window system plugin (xcb) needs system libraries that are missing: "
            f"{names}. On Debian or Ubuntu: sudo apt-get install {packages}")


def display_problem(display: str) -> str | None:
    """Why the X display cannot be reached, or None when it can (or we cannot tell).

    Qt aborts on an unreachable display with advice about xcb-cursor, which misleads; so we
    try to connect first, through libxcb, which the plugin loads anyway.
    """
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("xcb")
    if name is None:
        return None
    try:
        xcb = ctypes.CDLL(name)
    except OSError:
        return None
    xcb.xcb_connect.restype = ctypes.c_void_p
    xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
    xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
    xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
    connection = xcb.xcb_connect(display.encode(), None)
    failed = bool(xcb.xcb_connection_has_error(connection))
    xcb.xcb_disconnect(connection)
    if failed:
        return (f"cannot connect to the X display {display!r} (DISPLAY); is the desktop "
                "session or Xvfb running?")
    return None


def create_application():
    """The QApplication, created once, with our names and the Fusion style."""
    from PySide6.QtWidgets import QApplication

    from simrate.gui.base.settings import set_application_names

    set_application_names()
    running = QApplication.instance()
    app = running if isinstance(running, QApplication) else \
        QApplication([sys.argv[0] if sys.argv else "simrate"])
    app.setApplicationDisplayName("simrate")
    app.setStyle("Fusion")
    set_application_icon(app)
    return app


def set_application_icon(application) -> None:
    """Our icon on every window, and the desktop entry's name for Wayland to match it."""
    from PySide6.QtGui import QIcon

    from simrate.install.locations import icon_path

    application.setWindowIcon(QIcon(str(icon_path())))
    application.setDesktopFileName("simrate")


def check_launch(project: str | None, annotator: str | None, organizer: bool, sample: bool,
                 quit_when_shown: bool) -> None:
    """SimrateError, before any window, for a project that cannot be opened as asked."""
    if project is not None:
        from simrate.core.project import Project

        with Project.open(project) as probe:  # a bad path is a one-line error, display or not
            if organizer:
                from simrate.core.team.blind import check_organizer_mode

                check_organizer_mode(probe)  # never on an annotator's replica of a hub


def unattended_name() -> str:
    """Who a check run (--quit-when-shown without --annotator) opens a project as: the
    login name, else `check`. The run answers no "Who is rating?" question (nobody would,
    offscreen) and rates nothing, so the name is written nowhere but, in organizer mode,
    the change log's line that the project was opened in that mode."""
    import getpass

    try:
        return getpass.getuser() or "check"
    except (KeyError, OSError):  # no login name in some containers
        return "check"


def wind_down(window, quit_when_shown: bool) -> None:
    """After the event loop: let background jobs end, and close the project of a check run."""
    from PySide6.QtCore import QThreadPool

    # Background jobs (the item list's texts, intervals, an export) end before Python shuts
    # down: a job still running Python code while the interpreter is torn down can crash it.
    QThreadPool.globalInstance().waitForDone()
    if quit_when_shown and window.context.project is not None:
        # Only the project is closed (every rating is already committed): tearing the workspace
        # down straight after opening crashes Qt now and then, a known problem of its own.
        window.context.project.close()


def launch(project: str | None = None, annotator: str | None = None,
           organizer: bool = False, sample: bool = False, quit_when_shown: bool = False) -> int:
    """Open the window (on a project, the sample project, or the start page); returns the
    exit status."""
    check_launch(project, annotator, organizer, sample, quit_when_shown)
    if quit_when_shown and not annotator and (project is not None or sample):
        annotator = unattended_name()  # the check must not wait on "Who is rating?"
    problem = platform_problem()
    if problem:
        print(f"simrate: error: {problem}", file=sys.stderr)
        return 1
    if sample and project is None:
        from simrate.gui.base.sample import ensure_sample_project, sample_folder

        project = str(ensure_sample_project(sample_folder()))
    app = create_application()
    window = build_window(organizer)
    if project is not None and not window.open_project(project, annotator=annotator):
        window.close()
        return 0  # the user declined to say who is rating
    install_damage_hook(window)
    window.show()
    window.raise_()
    window.activateWindow()  # keyboard focus even where no window manager hands it out
    if quit_when_shown:
        quit_once_shown(app, window)
    status = app.exec()
    wind_down(window, quit_when_shown)
    return status


def install_damage_hook(window) -> None:
    """Errors that escape a view because the project file is damaged reach the user as the
    one "damaged project" message, not as a traceback on the console."""
    previous = sys.excepthook

    def hook(kind, exc, trace) -> None:
        try:
            if isinstance(exc, Exception) and window.report_damage(exc):
                return
        except Exception:  # noqa: BLE001 - never lose the original error
            pass
        previous(kind, exc, trace)

    sys.excepthook = hook


def quit_once_shown(app, window) -> None:
    """Once the event loop has shown and painted the window, print its title and stop it."""
    from PySide6.QtCore import QTimer

    def report_and_quit() -> None:
        print(f"window shown: {window.windowTitle()}", flush=True)
        app.exit(0)  # stops the loop only; quit() would also close the window inside it

    # A zero timer fires after the show and paint events already queued are handled.
    QTimer.singleShot(0, report_and_quit)


def build_window(organizer: bool = False, settings=None):
    """A MainWindow with its context; tests pass their own Settings."""
    from simrate.gui.base.context import ApplicationContext
    from simrate.gui.base.settings import Settings
    from simrate.gui.shell.main_window import MainWindow

    context = ApplicationContext(settings or Settings(), organizer=organizer)
    return MainWindow(context)
