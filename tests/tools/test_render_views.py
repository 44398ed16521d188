"""tools/render_views.py renders every view and dialog on the sample, at both sizes, to PNG
pictures that are neither blank nor of the wrong size."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from render_views import SIZES, VIEWS  # noqa: E402


def distinct_colours(image: QImage, step: int = 7) -> tuple[int, float]:
    """How many colours a grid of pixels holds, and the share of the commonest."""
    counts: dict[int, int] = {}
    for y in range(0, image.height(), step):
        for x in range(0, image.width(), step):
            rgb = image.pixel(x, y)
            counts[rgb] = counts.get(rgb, 0) + 1
    return len(counts), max(counts.values()) / sum(counts.values())


def test_every_view_is_rendered_at_both_sizes(tmp_path):
    out = tmp_path / "pictures"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT),
               XDG_DATA_HOME=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "config"))
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "render_views.py"),
                           "--out", str(out)], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = {f"{view}-{w}x{h}.png" for view in VIEWS for (w, h) in SIZES}
    assert {p.name for p in out.iterdir()} == expected
    assert sorted(Path(line).name for line in done.stdout.split()) == sorted(expected)
    for name in sorted(expected):
        image = QImage(str(out / name))
        assert not image.isNull(), name
        width, height = (int(n) for n in name.rsplit("-", 1)[1][:-4].split("x"))
        assert (image.width(), image.height()) == (width, height), name
        colours, commonest = distinct_colours(image)
        assert colours >= 8 and commonest < 0.97, (name, colours, commonest)
    # the sample and the settings were the script's own: nothing in the user's folders
    assert not (tmp_path / "data").exists() and not (tmp_path / "config").exists()
