"""Machine scores at the extremes: correlations of any finite size, `evaluate` on huge and tiny
scores, a system file with foreign digits."""

from __future__ import annotations

import json
import random

import pytest

from simrate.core.machine.evaluation import least_squares_fit, pearson, spearman
from tests.support.helpers import one_line_error, run_cli


# ---------------------------------------------------------------- evaluate
@pytest.mark.parametrize("size", [1e-200, 1e-300, 1e-310, 1e200, 1e300, 1.5e308])
def test_correlations_of_any_finite_size(size):
    rng = random.Random(3)
    gold = [rng.uniform(0, 5) for _ in range(40)]
    system = [(g - 2.5) / 2.5 * size for g in gold]  # a perfectly correlated system
    assert pearson(gold, system).value == pytest.approx(1.0, abs=1e-12)
    assert pearson(system, gold).value == pytest.approx(1.0, abs=1e-12)
    assert spearman(gold, system).value == 1.0
    assert least_squares_fit(gold, system) == pytest.approx(gold, rel=1e-9)
    anti = [-s for s in system]
    assert pearson(gold, anti).value == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize("size", [1e-200, 1e200, 1.5e308])
def test_evaluate_command_with_extreme_scores(tmp_path, size):
    rng = random.Random(5)
    gold = [rng.uniform(0, 5) for _ in range(30)]
    (tmp_path / "gold.txt").write_text("".join(f"{g!r}\n" for g in gold))
    (tmp_path / "sys.txt").write_text("".join(f"{(g - 2.5) / 2.5 * size!r}\n" for g in gold))
    result = run_cli("evaluate", "--task", "sts", tmp_path / "gold.txt", tmp_path / "sys.txt",
                     "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no numpy warnings
    figures = json.loads(result.stdout)
    assert figures["datasets"]["gold"]["pearson"] == pytest.approx(1.0, abs=1e-12)
    assert figures["all"] == pytest.approx(1.0, abs=1e-12)
    assert figures["allnrm"] == pytest.approx(1.0, abs=1e-12)


def test_a_system_file_with_foreign_digits(tmp_path):
    (tmp_path / "gold.txt").write_text("1\n2\n3\n")
    (tmp_path / "sys.txt").write_text("1\n２\n3\n", encoding="utf-8")
    result = run_cli("evaluate", "--task", "sts", tmp_path / "gold.txt", tmp_path / "sys.txt")
    assert result.returncode == 2
    one_line_error(result.stderr, "sys.txt:2:", "U+FF12")
