"""Writing a dataset folder's files: each split's data files, then the card and the
Croissant metadata that describe every split (those of an earlier export too, with --add).

The rows of the whole project are computed once (app/services/dataset/dataset_export.py); each
split takes its items' gold rows and the ratings of those items. With `--columns hf` the
gold configuration's texts and score take the names sentence-transformers' STS-B and the
MTEB STS sets use: sentence1, sentence2, score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from simrate.core.base.errors import SimrateError
from simrate.formats.dataset.croissant import bibtex, croissant_json
from simrate.formats.dataset.dataset_card import card_text
from simrate.formats.dataset.dataset_files import Field, WrittenFile, write_data_file
from simrate.formats.dataset.dataset_folder import folder_writer
from simrate.formats.dataset.dataset_previous import Previous
from simrate.formats.output.export import Progress
from simrate.services.dataset.dataset_facts import size_category
from simrate.services.dataset.dataset_splits import Split

#: The gold configuration's columns under the field's usual names (--columns hf).
HF_NAMES = {"left": "sentence1", "right": "sentence2", "gold": "score"}
COLUMN_STYLES = ("simrate", "hf")
Config = tuple[dict[str, np.ndarray], list[Field]]


def renamed(config: Config, style: str) -> Config:
    """The gold configuration with its columns named in `style` (simrate or hf)."""
    if style == "simrate":
        return config
    rows, fields = config
    return ({HF_NAMES.get(k, k): v for k, v in rows.items()},
            [replace(f, name=HF_NAMES.get(f.name, f.name)) for f in fields])


def _part(progress: Progress | None, before: int, total: int) -> Progress | None:
    """Progress of one file told as progress of all rows (those of earlier files done)."""
    if progress is None:
        return None
    return lambda done, _: progress(before + done, total)


def _taken(rows: dict[str, np.ndarray], picked: np.ndarray | slice) -> dict[str, np.ndarray]:
    return {key: np.asarray(values)[picked] for key, values in rows.items()}


def _parts(gold: Config, ratings: Config, plan: Sequence[Split]
           ) -> list[tuple[str, dict, dict]]:
    """(split, its gold rows, its ratings rows) of each split."""
    n = len(gold[0]["item_id"])
    parts = []
    for split in plan:
        if len(split.items) == n:  # every item, in order: no copy
            parts.append((split.name, gold[0], ratings[0]))
            continue
        ids = np.asarray(gold[0]["item_id"])[split.items]
        mine = np.isin(np.asarray(ratings[0]["item_id"], dtype=object), ids)
        parts.append((split.name, _taken(gold[0], split.items), _taken(ratings[0], mine)))
    return parts


def _check_same_fields(previous: Previous, configs: dict[str, Config]) -> None:
    for name, (_, fields) in configs.items():
        had = previous.fields.get(name)
        if had is not None and had != [f.name for f in fields]:
            raise SimrateError(f"--add: the folder's `{name}` fields differ from this "
                               f"export's ({', '.join(had)}); use the same options as "
                               "before (--columns, --keep-column, --with-notes), or export "
                               "all splits again")


def write_folder(target: Path, facts: dict, gold: Config, ratings: Config,
                 plan: Sequence[Split], previous: Previous | None, add: bool,
                 progress: Progress | None) -> None:
    """The splits' data files, then README.md and croissant.json describing them all."""
    configs = {"gold": gold, "ratings": ratings}
    files: dict[str, dict[str, WrittenFile]] = {"gold": {}, "ratings": {}}
    replaces: list[str] = []
    if previous is not None and add:
        _check_same_fields(previous, configs)
        files = {name: dict(previous.files.get(name, {})) for name in files}
    elif previous is not None:
        replaces = [w.path for splits in previous.files.values() for w in splits.values()]
    parts = _parts(gold, ratings, plan)
    total = sum(len(g["item_id"]) + len(r["item_id"]) for _, g, r in parts)
    with folder_writer(target, replaces) as folder:
        done = 0
        for split, *rows in parts:
            for name, part in zip(configs, rows, strict=True):
                count = len(part["item_id"])
                if count:  # `datasets` refuses a split without rows: none, no file
                    files[name][split] = write_data_file(
                        folder, f"data/{name}-{split}.jsonl", part, configs[name][1],
                        _part(progress, done, total))
                done += count
        described = {name: (files[name], configs[name][1]) for name in configs if files[name]}
        n_items = sum(w.rows for w in files["gold"].values())
        facts = facts | {"size_category": size_category(n_items), "items": n_items}
        facts["bibtex"] = bibtex(facts)
        for name, text in (("README.md", card_text(facts, described)),
                           ("croissant.json", croissant_json(facts, described))):
            (folder / name).write_text(text, encoding="utf-8", newline="")
