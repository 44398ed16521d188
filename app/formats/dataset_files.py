"""The data files of a dataset folder: JSON Lines, one object per row, typed by a field list.

Each configuration (gold, ratings) is a list of `Field`s, (name, type, description), and its
rows a DataFrame holding those columns. A row is one JSON object with every field in the
list's order; a missing value (NaN, None) is `null`; numbers are written in Python's
shortest exact form (the JSONL export's convention), so a reader gets the same float back.
The same field list gives the card's `dataset_info` features (so `datasets` types a column
that happens to be all null) and Croissant's fields, so the three never disagree.

JSON Lines rather than Parquet: the bytes do not depend on what else is installed (pyarrow
is no dependency of simrate), a person can read and diff them, and `datasets`, Croissant
and pandas read them as they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from simrate.formats.export import Progress, encode_json_text, number_texts, row_chunks

#: Field types, with their `datasets` dtype and Croissant dataType.
TYPES = {
    "string": ("string", "sc:Text"),
    "float": ("float64", "sc:Float"),
    "int": ("int64", "sc:Integer"),
    "bool": ("bool", "sc:Boolean"),
}
ENCODING = "application/jsonlines"


@dataclass(frozen=True)
class Field:
    """One column of a configuration: its name, type (a key of TYPES) and meaning."""

    name: str
    type: str
    description: str


@dataclass(frozen=True)
class WrittenFile:
    """A data file as written: its path inside the folder, rows, bytes and SHA-256."""

    path: str
    rows: int
    size: int
    sha256: str


def _strings(values: pd.Series) -> list[str]:
    """Text values as JSON strings; None/NaN as null."""
    return ["null" if v is None or v != v else encode_json_text(str(v))
            for v in values.astype(object).tolist()]


def _fragments(part: pd.DataFrame, field: Field) -> list[str]:
    """One column of some rows as JSON value texts."""
    values = part[field.name]
    if field.type == "string":
        return _strings(values)
    if field.type == "bool":
        return ["true" if v else "false" for v in values.to_numpy(dtype=bool)]
    if field.type == "int":
        return [str(int(v)) for v in values.to_numpy(dtype=np.int64)]
    return [t or "null" for t in number_texts(values.to_numpy(dtype="float64"))]


def _template(fields: Sequence[Field]) -> str:
    """A str.format template of one JSON object with each key written once."""
    keys = [encode_json_text(f.name).replace("{", "{{").replace("}", "}}") for f in fields]
    return "{{" + ", ".join(k + ": {}" for k in keys) + "}}"


def write_rows(rows: pd.DataFrame, fields: Sequence[Field], handle: IO[str],
               progress: Progress | None = None) -> None:
    """Every row as one JSON object per line, in the fields' order."""
    template = _template(fields)
    total = len(rows)
    for start, stop in row_chunks(total):
        part = rows.iloc[start:stop]
        columns = [_fragments(part, f) for f in fields]
        handle.write("".join(template.format(*row) + "\n" for row in zip(*columns, strict=True)))
        if progress:
            progress(stop, total)


def write_data_file(folder: Path, relative: str, rows: pd.DataFrame, fields: Sequence[Field],
                    progress: Progress | None = None) -> WrittenFile:
    """Write `rows` to folder/relative (a new file in a fresh folder); what was written."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        write_rows(rows, fields, handle, progress)
    digest = hashlib.sha256()
    with open(path, "rb") as written:
        for block in iter(lambda: written.read(1 << 20), b""):
            digest.update(block)
    return WrittenFile(relative, len(rows), path.stat().st_size, digest.hexdigest())


def features(fields: Sequence[Field]) -> list[dict]:
    """The `features` of a config in the card's `dataset_info` (datasets' YAML form)."""
    return [{"name": f.name, "dtype": TYPES[f.type][0]} for f in fields]
