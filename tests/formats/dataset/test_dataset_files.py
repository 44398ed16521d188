"""The dataset folder's JSON Lines writer: every value as json.loads reads it back, keys in
the field order, null for missing values, whichever fields it joins to save time."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from simrate.formats.dataset import dataset_files
from simrate.formats.dataset.dataset_files import Field, write_rows
from tests.support.export_fixtures import TRICKY_TEXTS

FIELDS = [Field("id", "string", ""), Field("kind", "string", ""), Field("score", "float", ""),
          Field("n", "int", ""), Field("ok", "bool", ""), Field("text", "string", ""),
          Field("maybe", "float", ""), Field("who", "string", "")]


def frame(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    texts = (TRICKY_TEXTS * (n // len(TRICKY_TEXTS) + 1))[:n]
    return pd.DataFrame({
        "id": [f"i:{k}" for k in range(n)],
        "kind": rng.choice(["person", "crowd", None], n).tolist(),
        "score": rng.integers(0, 21, n) * 0.25 + np.where(rng.random(n) < .1, 0.1 + 0.2, 0),
        "n": rng.integers(0, 4, n), "ok": rng.random(n) < .5, "text": texts,
        "maybe": np.where(rng.random(n) < .5, np.nan, rng.random(n)),
        "who": [None] * n,
    })


def expected(rows: pd.DataFrame) -> list[dict]:
    """The obvious way: one dict per row, missing values as None."""
    out = []
    for record in rows.to_dict("records"):
        row = {}
        for field in FIELDS:
            value = record[field.name]
            if value is None or (isinstance(value, float) and math.isnan(value)):
                value = None
            elif field.type == "int":
                value = int(value)
            elif field.type == "bool":
                value = bool(value)
            row[field.name] = value
        out.append(row)
    return out


@pytest.mark.parametrize("limit", [1, 1 << 16])  # nothing joined / few-valued fields joined
def test_rows_read_back_exactly(monkeypatch, limit):
    monkeypatch.setattr(dataset_files, "JOINED_COMBINATIONS", limit)
    rows = frame(45_000)  # more than one chunk
    handle = io.StringIO()
    write_rows(rows, FIELDS, handle)
    lines = handle.getvalue().split("\n")
    assert lines[-1] == "" and len(lines) == len(rows) + 1
    parsed = [json.loads(line) for line in lines[:-1]]
    assert parsed == expected(rows)
    assert all(list(p) == [f.name for f in FIELDS] for p in parsed[:50])
    assert '"score": 0.30000000000000004' in handle.getvalue() or \
        not (rows["score"] == 0.30000000000000004).any()


def test_no_rows_write_nothing():
    handle = io.StringIO()
    write_rows(frame(0), FIELDS, handle)
    assert handle.getvalue() == ""


def test_texts_written_one_by_one_read_back_the_same(tmp_path):
    from simrate.formats.dataset.dataset_files import write_data_file

    rows = frame(3_000)
    fields = [Field(f.name, f.type, f.description, repeats=f.name != "text") for f in FIELDS]
    written = write_data_file(tmp_path, "data/x.jsonl", rows, fields)
    data = (tmp_path / "data" / "x.jsonl").read_bytes()
    assert [json.loads(line) for line in data.decode("utf-8").splitlines()] == expected(rows)
    import hashlib

    assert (written.rows, written.size) == (3_000, len(data))
    assert written.sha256 == hashlib.sha256(data).hexdigest()
