"""Agreement of one annotator against the rest follows --min-overlap."""

from __future__ import annotations

import json
import random

from tests.support.helpers import run_cli


# ---------------------------------------------------------------- r vs rest
def _sparse_ratings(path):
    rng = random.Random(2)
    rows = ["item_id,annotator,score"]
    for i in range(30):
        rows += [f"i{i},a,{rng.randint(0, 5)}", f"i{i},b,{rng.randint(0, 5)}"]
    rows += ["i0,c,0", "i1,c,3"]  # c shares two items with the others
    path.write_text("\n".join(rows) + "\n")


def test_vs_rest_follows_min_overlap(tmp_path):
    source = tmp_path / "r.csv"
    _sparse_ratings(source)
    report = json.loads(run_cli("agreement", "--ratings", source, "--json").stdout)
    assert report["pearson"]["c"]["a"] is None
    assert report["pearson_vs_rest"]["c"] is None
    assert report["pearson_vs_rest"]["a"] is not None
    text = run_cli("agreement", "--ratings", source).stdout
    row = next(line for line in text.splitlines() if line.strip().startswith("c "))
    assert row.split()[-2:] == ["n/a", "[1]"] and "1.000    1.000" not in row
    # --min-overlap 2 cannot give a figure over two items: r would be +1 or -1 whatever
    # the scores (never fewer than three shared items)
    loose = json.loads(run_cli("agreement", "--ratings", source, "--min-overlap", "2",
                               "--json").stdout)
    assert loose["pearson_vs_rest"]["c"] is None and loose["pearson"]["c"]["b"] is None
    assert "only two common items" in run_cli("agreement", "--ratings", source,
                                              "--min-overlap", "2").stdout
    source.write_text(source.read_text() + "i2,c,4\n")  # a third shared item
    third = json.loads(run_cli("agreement", "--ratings", source, "--min-overlap", "3",
                               "--json").stdout)
    assert third["pearson_vs_rest"]["c"] is not None
    assert third["pearson"]["c"]["b"] is not None
