"""The data files of a dataset folder: JSON Lines, one object per row, typed by a field list.

Each configuration (gold, ratings) is a list of `Field`s, (name, type, description), and its
rows a column per field (plain object arrays: pandas' string columns cost a conversion). A row is one JSON object with every field in the
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
from collections.abc import Mapping, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from simrate.formats.output.export import Progress, encode_json_text, number_texts, row_chunks

#: Field types, with their `datasets` dtype and Croissant dataType.
TYPES = {
    "string": ("string", "sc:Text"),
    "float": ("float64", "sc:Float"),
    "int": ("int64", "sc:Integer"),
    "bool": ("bool", "sc:Boolean"),
}
ENCODING = "application/jsonlines"
#: Rows as columns: {field name: a column (array, list or Series)}, or a DataFrame.
Rows = Mapping[str, Sized] | pd.DataFrame


@dataclass(frozen=True)
class Field:
    """One column of a configuration: its name, type (a key of TYPES) and meaning."""

    name: str
    type: str
    description: str
    #: False for a text column whose values are (nearly) all different, such as the item's
    #: texts: they are encoded one by one instead of looked up among the distinct ones.
    repeats: bool = True


@dataclass(frozen=True)
class WrittenFile:
    """A data file as written: its path inside the folder, rows, bytes and SHA-256."""

    path: str
    rows: int
    size: int
    sha256: str


#: A folder's data files: {configuration: ({split: its data file}, its fields)}.
Files = Mapping[str, tuple[Mapping[str, WrittenFile], Sequence[Field]]]


#: Adjacent fields are joined into one piece of text while their value combinations
#: number at most this many: each distinct piece is then built once, not once per row.
JOINED_COMBINATIONS = 1 << 16


def _coded(values: object, field: Field) -> tuple[np.ndarray, np.ndarray]:
    """(each row's code, the distinct `"name": value` texts) of one field (a column)."""
    if field.type == "string" and not field.repeats:
        texts = ["null" if v is None or v != v else encode_json_text(str(v))
                 for v in np.asarray(values, dtype=object).tolist()]
        codes = np.arange(len(texts))
    elif field.type == "string":
        codes, distinct = pd.factorize(np.asarray(values, dtype=object), use_na_sentinel=True)
        texts = [encode_json_text(str(v)) for v in distinct.tolist()] + ["null"]
        codes = np.where(codes < 0, len(texts) - 1, codes)
    elif field.type == "bool":
        codes, texts = np.asarray(values, dtype=bool).astype(np.int64), ["false", "true"]
    elif field.type == "int":  # a kept source column may miss values: nullable
        missing = pd.isna(np.asarray(values, dtype=object)).reshape(-1)
        whole = np.where(missing, 0, np.asarray(values, dtype=object)).astype(np.int64)
        distinct, codes = np.unique(whole, return_inverse=True)
        texts = [str(int(v)) for v in distinct.tolist()] + ["null"]
        codes = np.where(missing, len(texts) - 1, codes.reshape(-1))
    else:
        numbers = np.asarray(values, dtype="float64")
        distinct, codes = np.unique(numbers, return_inverse=True)  # NaNs fold into one
        texts = [t or "null" for t in number_texts(distinct)]
    key = encode_json_text(field.name) + ": "
    return codes.reshape(-1).astype(np.int64), np.array([key + t for t in texts], dtype=object)


def _joined(left: tuple[np.ndarray, np.ndarray], right: tuple[np.ndarray, np.ndarray]
            ) -> tuple[np.ndarray, np.ndarray]:
    """Two adjacent coded fields as one: the texts of the combinations that occur."""
    (codes_a, texts_a), (codes_b, texts_b) = left, right
    width = len(texts_b)
    distinct, codes = np.unique(codes_a * width + codes_b, return_inverse=True)
    texts = [texts_a[d // width] + ", " + texts_b[d % width] for d in distinct.tolist()]
    return codes.reshape(-1), np.array(texts, dtype=object)


def _pieces(rows: Rows, fields: Sequence[Field]) -> list[tuple[np.ndarray, np.ndarray]]:
    """The fields coded, runs of few-valued adjacent fields joined (see JOINED_COMBINATIONS)."""
    pieces: list[tuple[np.ndarray, np.ndarray]] = []
    for field in fields:
        coded = _coded(rows[field.name], field)
        if pieces and len(pieces[-1][1]) * len(coded[1]) <= JOINED_COMBINATIONS:
            pieces[-1] = _joined(pieces[-1], coded)
        else:
            pieces.append(coded)
    return pieces


def write_rows(rows: Rows, fields: Sequence[Field], handle: IO[str] | _HashingWriter,
               progress: Progress | None = None) -> None:
    """Every row as one JSON object per line, in the fields' order."""
    pieces = _pieces(rows, fields)
    total = len(rows[fields[0].name]) if fields else 0
    for start, stop in row_chunks(total):
        line = None
        for codes, texts in pieces:  # element-wise concatenation of object arrays
            piece = texts[codes[start:stop]]
            line = "{" + piece if line is None else line + ", " + piece
        if line is not None:
            handle.write("".join((line + "}\n").tolist()))
        if progress:
            progress(stop, total)


def write_data_file(folder: Path, relative: str, rows: Rows, fields: Sequence[Field],
                    progress: Progress | None = None) -> WrittenFile:
    """Write `rows` to folder/relative (a new file in a fresh folder); what was written.
    The SHA-256 is taken of the bytes on their way to the file."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with open(path, "wb") as raw:
        sink = _HashingWriter(raw, digest)
        write_rows(rows, fields, sink, progress)
    count = len(rows[fields[0].name]) if fields else 0
    return WrittenFile(relative, count, sink.size, digest.hexdigest())


class _HashingWriter:
    """A text sink that writes UTF-8 bytes to a file and feeds them to a hash."""

    def __init__(self, raw: IO[bytes], digest: hashlib._Hash):
        self.raw, self.digest, self.size = raw, digest, 0

    def write(self, text: str) -> None:  # noqa: D102 - the file protocol
        data = text.encode("utf-8")
        self.digest.update(data)
        self.raw.write(data)
        self.size += len(data)


def features(fields: Sequence[Field]) -> list[dict]:
    """The `features` of a config in the card's `dataset_info` (datasets' YAML form)."""
    return [{"name": f.name, "dtype": TYPES[f.type][0]} for f in fields]
