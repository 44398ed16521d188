"""The source files' columns in a published dataset folder: which go out, under what name
and type (the rules are app/services/dataset/dataset_privacy.py's).

The extra fields a pair file carried (each item's metadata) become `meta_<key>` columns
only when named with `--keep-column`; a kept field whose values are all JSON numbers keeps
its type (whole numbers as int, others as float), a field of text stays text. The safe
`dataset` and `genre` columns have their path-, address- and host-like values written as
null unless they too are named with `--keep-column`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from simrate.formats.dataset.dataset_files import Field
from simrate.formats.dataset.dataset_folder import meta_columns, meta_texts
from simrate.services.dataset.dataset_privacy import SCREENED_COLUMNS, left_out_fields, screened

META_DESCRIPTION = "A field the source file carried with the item (kept with --keep-column)."


def _number_type(values: Sequence[object]) -> str | None:
    """int or float when every present value is a JSON number (bool is not one), else None."""
    present = [v for v in values if v is not None]
    if not present or any(isinstance(v, bool) or not isinstance(v, int | float)
                          for v in present):
        return None
    return "int" if all(isinstance(v, int) for v in present) else "float"


def _typed(raw: list[object], texts: list[str | None]) -> tuple[str, np.ndarray]:
    """A kept field's type and column: numbers as numbers, anything else as its text."""
    kind = _number_type(raw)
    if kind == "int":
        return kind, np.asarray(raw, dtype=object)
    if kind == "float":
        return kind, np.asarray([np.nan if v is None else v for v in raw], dtype="float64")
    return "string", np.asarray(texts, dtype=object)


def source_columns(metas: list[dict], rows: dict[str, np.ndarray], people: Iterable[str],
                   keep: Iterable[str], keep_names: bool, with_notes: bool
                   ) -> tuple[list[Field], list[str]]:
    """Add the kept extra fields to `rows` (and screen `dataset` and `genre` there); their
    fields, and what was left out ("field: why", values as "column: n kind(s)")."""
    keep = set(keep)
    left_out = _screen(rows, keep)
    texts = meta_texts(metas)
    dropped = left_out_fields(texts, people, keep, keep_names, with_notes)
    kept = {key: values for key, values in texts.items() if key not in dropped}
    names = meta_columns(kept, set(rows))
    fields = []
    for (name, values), key in zip(names.items(), kept, strict=True):
        kind, column = _typed([meta.get(key) for meta in metas], values)
        rows[name] = column
        fields.append(Field(name, kind, META_DESCRIPTION))
    return fields, left_out + list(dropped.values())


def _screen(rows: dict[str, np.ndarray], keep: set[str]) -> list[str]:
    """Null the private-looking values of the screened columns not kept; what was nulled."""
    told = []
    for column in SCREENED_COLUMNS:
        if column in keep:
            continue
        values, counts = screened(rows[column].tolist())
        if counts:
            rows[column] = np.asarray(values, dtype=object)
            what = ", ".join(f"{n} {kind}{'es' * (n > 1 and kind.endswith('s'))}"
                             f"{'s' * (n > 1 and not kind.endswith('s'))}"
                             for kind, n in sorted(counts.items()))
            told.append(f"{column} (values written as null): {what} "
                        f"(--keep-column {column})")
    return told
