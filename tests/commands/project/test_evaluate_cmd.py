"""simrate evaluate: tables, --json keys, exit codes and one-line errors; published figures."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from simrate.cli import main


def write(folder: Path, name: str, values) -> Path:
    path = folder / name
    path.write_text("".join(f"{v}\n" for v in values), encoding="utf-8")
    return path


def run_json(capsys, *args) -> dict:
    code = main(["evaluate", *map(str, args), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def run_error(capsys, *args) -> str:
    code = main(["evaluate", *map(str, args)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("simrate: error: ") and err.count("\n") == 1
    assert "Traceback" not in err
    return err


GOLD_A = [0, 1.5, 2, 3.25, 4, 5, 0.75]
SYSTEM_A = [0.2, 1.1, 2.5, 2.8, 4.4, 4.1, 1.9]
GOLD_B = [1, 2, 3, 4, 5]
SYSTEM_B = [10, 30, 20, 50, 40]


def test_sts_json_per_dataset_and_totals(tmp_path, capsys):
    files = [write(tmp_path, "STS.gs.A.txt", GOLD_A), write(tmp_path, "a.out", SYSTEM_A),
             write(tmp_path, "STS.gs.B.txt", GOLD_B), write(tmp_path, "b.out", SYSTEM_B)]
    out = run_json(capsys, "--task", "sts", *files)
    assert set(out) >= {"datasets", "all", "allnrm", "mean"}
    a, b = out["datasets"]["A"], out["datasets"]["B"]
    assert a["n"] == 7 and b["n"] == 5
    assert a["pearson"] == pytest.approx(stats.pearsonr(GOLD_A, SYSTEM_A)[0])
    assert a["spearman"] == pytest.approx(stats.spearmanr(GOLD_A, SYSTEM_A)[0])
    assert b["pearson"] == pytest.approx(0.8)  # a scaled copy of (1, 3, 2, 5, 4)
    assert out["all"] == pytest.approx(stats.pearsonr(GOLD_A + GOLD_B, SYSTEM_A + SYSTEM_B)[0])
    fitted = [np.polyval(np.polyfit(s, g, 1), s) for g, s in
              ((GOLD_A, SYSTEM_A), (GOLD_B, SYSTEM_B))]
    assert out["allnrm"] == pytest.approx(
        stats.pearsonr(GOLD_A + GOLD_B, np.concatenate(fitted))[0])
    assert out["mean"] == pytest.approx((7 * a["pearson"] + 5 * 0.8) / 12)


def test_clss_json_sum_of_pearson(tmp_path, capsys):
    files = [write(tmp_path, "paragraph2sentence.test.gs.tsv", [0, 1, 2.5, 4]),
             write(tmp_path, "p2s.out", ["0.1\t90", "0.3\t80", "0.2\t70", "0.9\t60"]),
             write(tmp_path, "phrase2word.test.gs.tsv", [4, 3, 2, 1.25]),
             write(tmp_path, "p2w.out", [0.8, 0.7, 0.1, 0.3])]
    out = run_json(capsys, "--task", "clss", *files)
    p2s = stats.pearsonr([0, 1, 2.5, 4], [0.1, 0.3, 0.2, 0.9])[0]
    p2w = stats.pearsonr([4, 3, 2, 1.25], [0.8, 0.7, 0.1, 0.3])[0]
    assert out["datasets"]["paragraph2sentence"]["pearson"] == pytest.approx(p2s)
    assert out["datasets"]["phrase2word"]["spearman"] == pytest.approx(0.8)
    assert out["sum_pearson"] == pytest.approx(p2s + p2w)


def test_constant_output_is_null_with_a_reason_not_a_crash(tmp_path, capsys):
    gold, system = write(tmp_path, "g.txt", [1, 2, 3]), write(tmp_path, "s.txt", [2.5] * 3)
    out = run_json(capsys, "--task", "sts", gold, system)
    assert out["datasets"]["g"]["pearson"] is None
    assert out["datasets"]["g"]["reasons"]["pearson"] == "system scores are constant"
    assert out["all"] is None and out["mean"] is None
    assert main(["evaluate", "--task", "sts", str(gold), str(system)]) == 0
    text, err = capsys.readouterr()
    assert "n/a (system scores are constant)" in text and err == ""


def test_human_table(tmp_path, capsys):
    files = [write(tmp_path, "STS.gs.A.txt", GOLD_A), write(tmp_path, "a.out", SYSTEM_A)]
    assert main(["evaluate", "--task", "sts", *map(str, files)]) == 0
    text = capsys.readouterr().out
    r = stats.pearsonr(GOLD_A, SYSTEM_A)[0]
    lines = text.splitlines()
    assert "A: a.out against STS.gs.A.txt" in lines
    assert f"  Pearson   {r:.4f}" in lines and "  pairs     7" in lines
    for total in ("ALL", "ALLnrm", "Mean"):
        assert any(line.split()[:2] == [total, f"{r:.4f}"] for line in lines)


def test_human_table_pit_binary_only_run(tmp_path, capsys):
    gold = write(tmp_path, "test.label", PIT_GOLD)
    system = write(tmp_path, "s.output", ["false\t0.0000", "true\t0.0000", "true\t0.0000",
                                          "false\t0.0000", "false\t0.0000"])
    assert main(["evaluate", "--task", "pit", str(gold), str(system)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # decided: tp 1 (line 2), fn 1 (line 4), tn 2 -> P 1, R 0.5, F1 2/3
    assert "  F1               0.6667" in lines
    assert "  max F1           n/a (no degreed scores: every score is 0)" in lines


PIT_GOLD = ["false\t0.2000", "true\t0.8000", "----\t0.6000", "true\t1.0000", "false\t0.0000"]


def test_pit_json(tmp_path, capsys):
    gold = write(tmp_path, "test.label", PIT_GOLD)
    system = write(tmp_path, "PIT2015_X_01_run.output",
                   ["true\t0.6000", "true\t0.9000", "false\t0.3000", "false\t0.4000",
                    "false\t0.1000"])
    out = run_json(capsys, "--task", "pit", gold, system)
    # decided items: tp 1 (line 2), fp 1 (line 1), fn 1 (line 4)
    assert out["precision"] == 0.5 and out["recall"] == 0.5 and out["f1"] == 0.5
    assert out["pearson"] == pytest.approx(
        stats.pearsonr([0.2, 0.8, 0.6, 1.0, 0.0], [0.6, 0.9, 0.3, 0.4, 0.1])[0])
    # cut >= 0.4 keeps 0.9 T, 0.6 F, 0.4 T: P 2/3, R 1 -> F1 0.8 (best)
    assert out["max_f1"] == pytest.approx(0.8)
    assert out["datasets"]["test"]["n"] == 5 and out["datasets"]["test"]["n_binary"] == 4


def test_odd_number_of_files(tmp_path, capsys):
    err = run_error(capsys, "--task", "sts", write(tmp_path, "g.txt", [1, 2]))
    assert "GOLD SYSTEM pairs" in err


@pytest.mark.parametrize("system, where", [
    ([1, 2], "s.txt:3:"),
    ([1, 2, 3, 4], "s.txt:4:"),
    ([1, "", 3], "s.txt:2:"),
    ([1, "NaN", 3], "s.txt:2:"),
    ([1, "x", 3], "s.txt:2:"),
])
def test_bad_system_files_give_file_and_line(tmp_path, capsys, system, where):
    gold = write(tmp_path, "g.txt", [1, 2, 3])
    assert where in run_error(capsys, "--task", "sts", gold, write(tmp_path, "s.txt", system))


def test_pit_output_label_other_than_true_false(tmp_path, capsys):
    gold = write(tmp_path, "test.label", PIT_GOLD[:2])
    system = write(tmp_path, "s.output", ["true\t0.6000", "----\t0.9000"])
    assert "s.output:2:" in run_error(capsys, "--task", "pit", gold, system)


def test_wrong_task_files(tmp_path, capsys):
    label = write(tmp_path, "test.label", PIT_GOLD[:2])
    key = write(tmp_path, "k.txt", [1, 2])
    assert "use --task pit" in run_error(capsys, "--task", "sts", label, key)
    assert "--task sts or --task clss" in run_error(capsys, "--task", "pit", key, label)
    sts = write(tmp_path, "STS.gs.X.txt", [1, 2])
    assert "use --task sts" in run_error(capsys, "--task", "clss", sts, key)


def test_missing_file(tmp_path, capsys):
    err = run_error(capsys, "--task", "sts", tmp_path / "none.txt", tmp_path / "s.txt")
    assert "none.txt: no such file" in err


# ---------------------------------------------------------------- real files


def word_overlap_cosine(left: str, right: str) -> float:
    """The STS 2012 baseline: binary vectors of whitespace tokens, cosine similarity."""
    a, b = set(left.split()), set(right.split())
    return len(a & b) / math.sqrt(len(a) * len(b))


@pytest.mark.realdata
def test_sts2012_token_overlap_baseline_on_msrvid_matches_the_published_figure(
        realdata, tmp_path, capsys):
    folder = realdata / "sts2012"
    pairs = (line.split("\t") for line in
             (folder / "STS.input.MSRvid.txt").read_text(encoding="utf-8").splitlines())
    system = write(tmp_path, "STS.output.MSRvid.txt",
                   [f"{word_overlap_cosine(a, b):.6f}" for a, b in pairs])
    out = run_json(capsys, "--task", "sts", folder / "STS.gs.MSRvid.txt", system)
    # Agirre et al. (2012), Table 1, row baseline/task6-baseline, column MSRvid: .2996
    assert round(out["datasets"]["MSRvid"]["pearson"], 4) == 0.2996
    assert out["datasets"]["MSRvid"]["n"] == 750


def longest_common_substring(a: str, b: str) -> int:
    best, previous = 0, [0] * (len(b) + 1)
    for char in a:
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, start=1):
            if char == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


@pytest.mark.realdata
def test_clss_trial_data_with_an_lcs_system_agrees_with_scipy(realdata, tmp_path, capsys):
    folder = realdata / "clss2014" / "trial"
    files, expected = [], {}
    for level in ("paragraph2sentence", "sentence2phrase", "phrase2word", "word2sense"):
        rows = [line.split("\t") for line in
                (folder / f"{level}.trial.input.tsv").read_text(encoding="utf-8").splitlines()]
        scores = [longest_common_substring(r[0].lower(), r[1].lower()) / max(1, len(r[1]))
                  for r in rows]
        gold = [float(x) for x in (folder / f"{level}.trial.gs.tsv").read_text().split()]
        expected[level] = (stats.pearsonr(gold, scores)[0], stats.spearmanr(gold, scores)[0])
        files += [folder / f"{level}.trial.gs.tsv", write(tmp_path, f"{level}.out", scores)]
    out = run_json(capsys, "--task", "clss", *files)
    for level, (r, rho) in expected.items():
        assert out["datasets"][level]["pearson"] == pytest.approx(r)
        assert out["datasets"][level]["spearman"] == pytest.approx(rho)
    assert out["sum_pearson"] == pytest.approx(sum(r for r, _ in expected.values()))


@pytest.mark.realdata
def test_pit_sample_test_file_as_gold(realdata, tmp_path, capsys):
    # gold digits 1 4 1 1 5 2 4 2 2 5: true on lines 2, 5, 7, 10; none debatable
    system = write(tmp_path, "PIT2015_X_01_run.output", [
        "true\t0.9000", "false\t0.1000", "true\t0.7000", "true\t0.8000", "false\t0.4000",
        "false\t0.2000", "true\t0.6000", "false\t0.3000", "false\t0.5000", "true\t0.9500"])
    out = run_json(capsys, "--task", "pit", realdata / "pit2015" / "sampletest.data", system)
    # tp lines 7, 10; fp 1, 3, 4; fn 2, 5 -> P 2/5, R 2/4, F1 4/9
    assert out["precision"] == pytest.approx(0.4) and out["recall"] == pytest.approx(0.5)
    assert out["f1"] == pytest.approx(4 / 9)
    # best cut keeps every item: P 4/10, R 1 -> F1 4/7
    assert out["max_f1"] == pytest.approx(4 / 7)
    gold = [0.2, 0.8, 0.2, 0.2, 1.0, 0.4, 0.8, 0.4, 0.4, 1.0]
    scores = [0.9, 0.1, 0.7, 0.8, 0.4, 0.2, 0.6, 0.3, 0.5, 0.95]
    assert out["pearson"] == pytest.approx(stats.pearsonr(gold, scores)[0])
    assert list(out["datasets"]) == ["sampletest"]
