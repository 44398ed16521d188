"""Custom scale files: every hostile definition is refused by `new` with one line.

Infinite or huge ends, steps that give billions of grid points, text where a number
belongs, a missing step, a key named twice, an empty name: none may crash `new`, nor
produce a project that `info` or an import cannot handle.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.base.scale import MAX_SCALE_POINTS, Scale
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, one_line_error


@pytest.mark.parametrize(("body", "needle"), [
    ('{"name": "x", "low": 0, "high": Infinity, "step": 1}', "high inf must be a finite"),
    ('{"name": "x", "low": -Infinity, "high": 1, "step": 1}', "low -inf must be a finite"),
    ('{"name": "x", "low": 0, "high": 1, "step": NaN}', "step nan must be a finite"),
    ('{"name": "x", "low": 0, "high": 1e400, "step": 1}', "high inf must be a finite"),
    ('{"name": "x", "low": -1e308, "high": 1e308, "step": 1e307}',
     "high - low is beyond the largest number"),
    ('{"name": "x", "low": 0, "high": 1, "step": 1e-300}', f"at most {MAX_SCALE_POINTS:,}"),
    ('{"name": "x", "low": 0, "high": 10000, "step": 1}', f"at most {MAX_SCALE_POINTS:,}"),
    ('{"name": "x", "low": 0, "high": 1, "step": "0.5"}', "step '0.5' must be a number"),
    ('{"name": "x", "low": 0, "high": 1, "step": true}', "step True must be a number"),
    ('{"name": "x", "low": "0", "high": 1, "step": 0.5}', "low '0' must be a number"),
    ('{"name": "x", "low": 0, "high": 1}', "no 'step'"),
    ('{"name": "x", "high": 1, "step": 0.5}', "no 'low'"),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "step": 0.25}',
     "the key 'step' appears twice"),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "points": [{"value": 1, "label": "a",'
     ' "label": "b"}]}', "the key 'label' appears twice"),
    ('{"name": "", "low": 0, "high": 1, "step": 0.5}', '"name" is empty'),
    ('{"name": "   ", "low": 0, "high": 1, "step": 0.5}', '"name" is empty'),
    ('{"name": 5, "low": 0, "high": 1, "step": 0.5}', '"name" is empty or not text'),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "points": [3]}',
     'needs a "value" and a "label"'),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "points": [{"value": NaN, "label": "a"}]}',
     "point value nan must be a finite"),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "points": {"value": 1}}',
     '"points" must be a list'),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "a": ' + "[" * 100_000 + "]" * 100_000
     + "}", "nested too deeply"),
    ('{"name": "x", "low": 0, "high": 1, "step": 0.5, "a": ' + "9" * 5000 + "}",
     "not a scale file"),
])
def test_new_refuses_a_bad_scale_file_with_one_line(capsys, tmp_path, body, needle):
    scale = tmp_path / "scale.json"
    scale.write_text(body, encoding="utf-8")
    project = tmp_path / "p.simrate"
    result = simrate(capsys, "new", project, "--scale", scale)
    assert result.status == 2
    one_line_error(result.err, f"{scale}:", needle)
    assert not project.exists()


def test_a_fine_scale_at_the_point_limit_still_works(capsys, tmp_path):
    scale = tmp_path / "fine.json"
    scale.write_text('{"name": "fine", "low": 0, "high": 9.999, "step": 0.001}',
                     encoding="utf-8")
    project = tmp_path / "p.simrate"
    assert simrate(capsys, "new", project, "--scale", scale).status == 0
    info = simrate(capsys, "info", project, "--json")
    assert info.status == 0, info.err
    assert info.json()["scale"]["step"] == 0.001


def test_scale_object_checks_its_ends_whatever_builds_it():
    """The GUI's New project dialog builds Scale directly: the same rules hold there."""
    for low, high, step in ((0, float("inf"), 1), (-1e308, 1e308, 1e307), (0, 1, 1e-300),
                            (float("nan"), 1, 1), (0, 1, float("nan"))):
        with pytest.raises(SimrateError):
            Scale("x", low, high, step)


def test_a_scale_read_from_a_device_is_bounded(tmp_path):
    """In a child with capped memory: a regression fails the test, not the machine."""
    project = tmp_path / "p.simrate"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    cap = 3 * 2**30
    result = subprocess.run(
        [sys.executable, "-m", "simrate", "new", str(project), "--scale", "/dev/zero"], env=env,
        capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
    assert result.returncode == 2, result.stderr
    one_line_error(result.stderr, "/dev/zero:")
    assert not project.exists()
