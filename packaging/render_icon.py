"""Render resources/icons/simrate.svg to the PNG the window and the desktop entry use.

Run after changing the SVG: `python packaging/render_icon.py` (needs only PySide6).
"""

from __future__ import annotations

import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (256,)


def render(size: int) -> Path:
    """Draw the SVG at `size` pixels square and save it as simrate-<size>.png."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(ICONS / "simrate.svg"))
    if not renderer.isValid():
        raise SystemExit("render_icon: simrate.svg is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    target = ICONS / f"simrate-{size}.png"
    if not image.save(str(target)):
        raise SystemExit(f"render_icon: cannot write {target}")
    return target


def main() -> int:
    """Render every size and print the files written."""
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - Qt needs one
    for size in SIZES:
        print(render(size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
