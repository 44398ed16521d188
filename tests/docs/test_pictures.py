"""The pictures the README and the documentation show are committed files (docs/images), so
they render in a clone and on a code host; rendered again from the program they still have
their size and, seen from afar, their content: a picture that has drifted from the window
fails here (make them again with `python tools/render_views.py --docs`)."""

from __future__ import annotations

import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from render_views import DOCS_IMAGES, DOCS_PICTURES, DOCS_SIZE, render_docs  # noqa: E402

PAGES = sorted((ROOT / "docs").glob("*.md"))
#: Most the committed pictures may weigh together (they are 256-colour PNGs).
MOST_BYTES = 400_000
#: Largest share of the points of a committed picture, seen at 1/16 of its size, that are
#: more than 32 grey levels off the fresh one: a word changed stays under it; a view that
#: moved, a dialog that grew, came or went (a dialog over the start page is 4.5%) does not.
MOST_CHANGED = 0.015


def shown_pictures() -> dict[str, list[str]]:
    """{picture file: the pages showing it} for every picture the README and docs show."""
    shown: dict[str, list[str]] = {}
    for page in [ROOT / "README.md", *PAGES]:
        prefix = "docs/images/" if page.name == "README.md" else "images/"
        for name in re.findall(rf"\]\({re.escape(prefix)}([^)]+\.png)\)",
                               page.read_text(encoding="utf-8")):
            shown.setdefault(name, []).append(page.name)
    return shown


def size_of(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def test_every_picture_shown_is_a_committed_file_the_script_makes():
    shown = shown_pictures()
    assert "agreement-1366x768.png" in shown and "README.md" in shown["agreement-1366x768.png"]
    made = {f"{name}-{DOCS_SIZE[0]}x{DOCS_SIZE[1]}.png" for name in DOCS_PICTURES}
    assert set(shown) == made, "a page shows a picture the script does not make, or not"
    committed = {p.name for p in DOCS_IMAGES.glob("*.png")}
    assert committed == made, "docs/images holds a picture no page shows, or lacks one"
    assert sum((DOCS_IMAGES / name).stat().st_size for name in made) <= MOST_BYTES
    for name in made:
        assert size_of(DOCS_IMAGES / name) == DOCS_SIZE, name


def greys(path: Path):
    """The picture at 1/16 of its size, as grey levels."""
    import numpy as np
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage

    image = QImage(str(path)).convertToFormat(QImage.Format.Format_Grayscale8)
    small = image.scaled(image.width() // 16, image.height() // 16,
                         Qt.AspectRatioMode.IgnoreAspectRatio,
                         Qt.TransformationMode.SmoothTransformation)
    line = small.bytesPerLine()
    data = np.frombuffer(small.constBits(), np.uint8, line * small.height())
    return data.reshape(small.height(), line)[:, :small.width()].astype(float)


def test_the_committed_pictures_are_what_the_script_makes_now(tmp_path):
    fresh = {p.name: p for p in render_docs(tmp_path)}
    assert set(fresh) == {p.name for p in DOCS_IMAGES.glob("*.png")}
    drifted = []
    for name, path in sorted(fresh.items()):
        committed = DOCS_IMAGES / name
        if size_of(path) != size_of(committed):
            drifted.append(f"{name}: {size_of(committed)} committed, {size_of(path)} now")
            continue
        changed = (abs(greys(path) - greys(committed)) > 32).mean()
        if changed > MOST_CHANGED:
            drifted.append(f"{name}: {changed:.1%} of it changed")
    assert drifted == [], ("pictures out of date (python tools/render_views.py --docs): "
                           + "; ".join(drifted))
