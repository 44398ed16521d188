"""The flag rule (app/core/base/flagrule.py): one rule, three renderings (vectorised, per
item, SQL) that agree; planted crowds where the range rule grows with the crowd and the
uncertain rule does not; the rule stored, logged and used by every reader of flags."""

from __future__ import annotations

import itertools
import json
import math
import sqlite3
import statistics

import numpy as np
import pandas as pd
import pytest

from simrate.core.base.errors import RuleError, SimrateError
from simrate.core.base.flagrule import FlagRule
from simrate.core.base.frames import item_frame
from simrate.core.data.counts import summary
from simrate.core.project import Project
from simrate.services.exports.export import export_project

STEP = 0.25


def _mask(rule: FlagRule, codes: np.ndarray, step: float = STEP) -> np.ndarray:
    """The rule over an items x k matrix of codes (every item rated k times)."""
    code_rule = rule.in_codes(step)
    n = np.full(len(codes), codes.shape[1])
    return code_rule.mask(n, codes.max(1) - codes.min(1), codes.sum(1), (codes ** 2).sum(1))


# ------------------------------------------------------------------ the rule, by hand
def test_worked_example_by_hand():
    # ratings 1, 2, 2, 4 (0.25 steps): mean 2.25, sample SD sqrt(4.75 / 3) = 1.258
    rule = FlagRule("uncertain", 1.0, 1.25)
    codes = [4, 8, 8, 16]
    assert statistics.stdev([1, 2, 2, 4]) == pytest.approx(1.2583, abs=1e-4)
    assert rule.in_codes(STEP).one(codes)
    assert not FlagRule("uncertain", 1.0, 1.26).in_codes(STEP).one(codes)
    # auto: four ratings follow the SD; the same item with three follows the range
    assert FlagRule("auto", 1.0, 1.25).in_codes(STEP).one(codes)
    assert not FlagRule("auto", 1.0, 1.3).in_codes(STEP).one(codes)
    assert FlagRule("auto", 1.0, 1.3).in_codes(STEP).one([4, 8, 8])  # spread 1 point
    # a threshold typed as a decimal: 0.3 points is 2.999... codes of 0.1
    assert FlagRule("range", 0.3).in_codes(0.1).one([0, 3])
    assert not FlagRule("uncertain", 1.0, 0.3).in_codes(0.1).one([5])  # one rating


def test_three_renderings_agree_on_random_items():
    rng = np.random.default_rng(5)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE ratings (item INTEGER, code INTEGER)")
    items = []
    for item in range(600):
        k = int(rng.integers(0, 9))
        codes = [int(c) for c in rng.integers(0, 21, size=k)]
        if k and rng.random() < 0.2:
            codes[0] = None  # a skip: no code, not counted
        items.append([c for c in codes if c is not None])
        conn.executemany("INSERT INTO ratings VALUES (?, ?)", [(item, c) for c in codes])
    for rule in (FlagRule("range", 1.0), FlagRule("range", 0.5), FlagRule("uncertain", 1, 0.8),
                 FlagRule("auto", 1.0, 0.6), FlagRule("auto", 2.0, 1.1)):
        code_rule = rule.in_codes(STEP)
        one = [code_rule.one(codes) for codes in items]
        n = np.array([len(c) for c in items])
        spread = np.array([max(c) - min(c) if c else 0 for c in items])
        total = np.array([sum(c) for c in items])
        squares = np.array([sum(x * x for x in c) for c in items])
        vectorised = code_rule.mask(n, spread, total, squares).tolist()
        sql = {row[0] for row in conn.execute(
            f"SELECT item FROM ratings GROUP BY item HAVING {code_rule.sql_having()}")}
        assert vectorised == one, rule
        assert sql == {i for i, flagged in enumerate(one) if flagged}, rule
        assert any(one), rule


def test_unknown_rule_is_refused():
    with pytest.raises(SimrateError, match="no flag rule"):
        FlagRule("loose")


# ------------------------------------------------------------------ planted crowds
def _crowd(seed: int, n_items: int = 3000, pool: int = 19) -> tuple[np.ndarray, np.ndarray]:
    """Ratings on a 0-5 grid of 0.25 from a pool of raters per item; each item has a planted
    disagreement (its raters' SD), log-normal around 0.45 point."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(0.5, 4.5, n_items)
    disagreement = np.exp(rng.normal(math.log(0.45), 0.5, n_items))
    scores = truth[:, None] + rng.normal(0, 1, (n_items, pool)) * disagreement[:, None]
    codes = np.clip(np.rint(scores / STEP), 0, 20).astype(np.int64)
    return codes, disagreement


def _draw(codes: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    chosen = np.argsort(rng.random(codes.shape), axis=1)[:, :k]
    return np.take_along_axis(codes, chosen, axis=1)


def _share_and_precision(rule: FlagRule, codes: np.ndarray, disputed: np.ndarray, k: int,
                         seed: int) -> tuple[float, float]:
    """The share of items flagged and the share of flags among the planted most disputed
    tenth, over five draws of k raters per item."""
    rng = np.random.default_rng(seed)
    shares, precisions = [], []
    for _ in range(5):
        flagged = _mask(rule, _draw(codes, k, rng))
        shares.append(flagged.mean())
        precisions.append(disputed[flagged].mean())
    return float(np.mean(shares)), float(np.mean(precisions))


def test_the_uncertain_rule_keeps_its_share_as_the_crowd_grows():
    codes, disagreement = _crowd(11)
    disputed = disagreement >= np.quantile(disagreement, 0.9)
    share = {}
    for name in ("range", "uncertain", "auto"):
        for k in range(2, 9):
            share[name, k] = _share_and_precision(FlagRule(name), codes, disputed, k, k)
    uncertain = [share["uncertain", k][0] for k in range(3, 9)]
    assert max(uncertain) - min(uncertain) <= 0.05
    auto = [share["auto", k][0] for k in range(4, 9)]
    assert max(auto) - min(auto) <= 0.05
    assert share["auto", 3] == share["range", 3]  # up to 3 raters, auto is the range rule
    # the range rule grows with the crowd (the failure this rule answers)
    assert share["range", 8][0] - share["range", 3][0] > 0.25
    # at 5 raters, the default rule's flags are the disputed items at least twice as often
    assert share["auto", 5][1] >= 2 * share["range", 5][1]


@pytest.mark.realdata
def test_on_ustsu_the_sd_rule_keeps_its_share_and_the_range_rule_grows(realdata):
    pairs = json.loads((realdata / "ustsu" / "dev.json").read_text(encoding="utf-8"))
    codes = np.rint(np.array([p["raw_annotation"] for p in pairs.values()]) * 10).astype(int)
    assert codes.shape == (2000, 4)
    spread_of_all = codes.std(axis=1)
    disputed = spread_of_all >= np.quantile(spread_of_all, 0.9)

    def share(rule: FlagRule, k: int) -> tuple[float, float]:
        draws = [_mask(rule, codes[:, list(c)], 0.1)
                 for c in itertools.combinations(range(4), k)]
        return (float(np.mean([d.mean() for d in draws])),
                float(np.mean([disputed[d].mean() for d in draws])))

    # USTS-U's raters agree closely (median SD 0.33): an SD threshold of 0.5 suits it
    sd_rule, range_rule = FlagRule("uncertain", 1.0, 0.5), FlagRule("range", 1.0)
    sd_shares = [share(sd_rule, k)[0] for k in (2, 3, 4)]
    range_shares = [share(range_rule, k)[0] for k in (2, 3, 4)]
    assert max(sd_shares) - min(sd_shares) <= 0.05
    assert range_shares[2] - range_shares[0] > 0.15


# ------------------------------------------------------------------ the rule in a project
def _crowd_project(path, raters: int = 5) -> Project:
    project = Project.create(path, scale="sts")
    ids = [f"c:{i}" for i in range(6)]
    project.import_items(item_frame({
        "item_id": ids, "left": ["a"] * 6, "right": ["b"] * 6, "dataset": ["c"] * 6,
        "genre": [""] * 6, "reference": [float("nan")] * 6, "meta": [{}] * 6,
        "line": list(range(1, 7))}))
    table = {  # every item has a spread of at least 1 point: the range rule flags all
        "c:0": [3, 3, 3, 3, 4], "c:1": [1, 2, 1, 2, 1], "c:2": [0, 5, 1, 4, 2],
        "c:3": [2, 3.5, 2, 3, 2], "c:4": [4, 5, 4, 5, 4], "c:5": [0, 2.5, 3, 0.5, 4]}
    for item, scores in table.items():
        for j, score in enumerate(scores[:raters]):
            project.rate(item, f"w{j}", score)
    return project


def test_set_rule_is_stored_logged_and_used_everywhere(tmp_path):
    path = tmp_path / "crowd.simrate"
    with _crowd_project(path) as project:
        assert project.flag_rule == FlagRule("auto", 1.0, 0.8)
        assert project.flagged_ids() == {"c:2", "c:5"}  # SD 2.07 and 1.75; the rest < 0.8
        project.set_flag_rule("range")
        assert project.flagged_ids() == {f"c:{i}" for i in range(6)}
        project.set_flag_rule("uncertain", 0.5)
        assert project.flagged_ids() == {"c:1", "c:2", "c:3", "c:4", "c:5"}
        gold = project.gold()
        assert set(gold.loc[gold["flagged"], "item_id"]) == project.flagged_ids()
        assert project.counts()["flagged"] == 5
        logged = project.changes()
        assert list(logged["kind"]).count("flag_rule") == 2
        assert logged["new"].iloc[-1]["rule"] == "uncertain"
        assert logged["new"].iloc[-1]["uncertain_threshold"] == 0.5
        project.set_flag_rule("uncertain", 0.5)  # no change: nothing logged
        assert list(project.changes()["kind"]).count("flag_rule") == 2
        with pytest.raises(SimrateError, match="no flag rule"):
            project.set_flag_rule("strict")
        with pytest.raises(SimrateError, match="positive number"):
            project.set_flag_rule("uncertain", -1)
    assert summary(path)["flagged"] == 5
    assert summary(path)["flag_rule"]["rule"] == "uncertain"
    with Project.open(path) as project:  # kept in the file
        assert project.flag_rule == FlagRule("uncertain", 1.0, 0.5)
        assert project.flagged_ids() == {"c:1", "c:2", "c:3", "c:4", "c:5"}


def test_uncertain_flags_do_not_stop_an_export_range_flags_do(tmp_path):
    with _crowd_project(tmp_path / "crowd.simrate") as project:
        done = export_project(project, tmp_path / "gold.tsv")  # auto: 5 ratings -> SD
        assert done.items == 6
        written = pd.read_csv(tmp_path / "gold.tsv", sep="\t", dtype=str, keep_default_na=False)
        assert written.loc[written["flagged"] == "true", "item_id"].tolist() == ["c:2", "c:5"]
        project.set_flag_rule("range")
        with pytest.raises(RuleError, match="6 flagged items not adjudicated"):
            export_project(project, tmp_path / "refused.tsv")
    with _crowd_project(tmp_path / "experts.simrate", raters=3) as experts:
        assert experts.flag_rule.name == "auto"  # three raters: the range rule decides
        with pytest.raises(RuleError, match="flagged items not adjudicated"):
            export_project(experts, tmp_path / "experts.tsv")


def test_a_damaged_rule_in_the_file_is_named(tmp_path):
    path = tmp_path / "p.simrate"
    Project.create(path, scale="clss").close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT OR REPLACE INTO meta VALUES ('flag_rule', 'sloppy')")
    conn.commit()
    conn.close()
    with pytest.raises(SimrateError, match="damaged project: flag_rule is 'sloppy'"):
        Project.open(path)
