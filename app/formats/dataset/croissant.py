"""croissant.json: Croissant 1.1 metadata (MLCommons) of a dataset folder, with the
Responsible-AI fields of its RAI vocabulary (formats/dataset/croissant_rai.py).

One FileObject per data file (path relative to the folder, JSON Lines, SHA-256), one
FileSet per configuration (all its splits' files), a `splits` record set of the split
names, and one RecordSet per configuration (gold, ratings): each field read from the
column of the same name, the `split` field from the file's name. Records are keyed by
split and item (and rater, for ratings); `ratings.item_id` refers to `gold.item_id`.
The `@context` is the one the Croissant specification fixes for its vocabulary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from simrate.formats.dataset.croissant_rai import rai_fields
from simrate.formats.dataset.dataset_files import ENCODING, TYPES, Field, Files, WrittenFile
from simrate.formats.dataset.dataset_folder import NO_LICENSE, license_urls

CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
_CR = "cr:"
#: Terms of the Croissant vocabulary used in the `@context` (each maps to cr:<term>).
_CR_TERMS = ("citeAs", "column", "equivalentProperty", "extract", "field", "fileProperty",
             "fileObject", "fileSet", "format", "includes", "isLiveDataset", "jsonPath", "key",
             "md5", "parentField", "path", "recordSet", "references", "regex", "repeated",
             "replace", "samplingRate", "separator", "source", "subField", "transform")


def context() -> dict:
    """The JSON-LD context of Croissant 1.0 documents."""
    terms = {term: _CR + term for term in _CR_TERMS}
    return {
        "@language": "en", "@vocab": "https://schema.org/",
        "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
        "dct": "http://purl.org/dc/terms/", "sc": "https://schema.org/",
        "conformsTo": "dct:conformsTo",
        "data": {"@id": "cr:data", "@type": "@json"},
        "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
        "examples": {"@id": "cr:examples", "@type": "@json"},
        **terms,
    }


def _file_object(config: str, split: str, written: WrittenFile) -> dict:
    return {"@type": "cr:FileObject", "@id": f"{config}-{split}-file",
            "name": f"{config}-{split}-file",
            "description": f"The {config} configuration's {split} split, one JSON object per "
                           "line.",
            "contentUrl": written.path, "contentSize": f"{written.size} B",
            "encodingFormat": ENCODING, "sha256": written.sha256}


def _file_set(config: str) -> dict:
    """All splits' files of one configuration, read as one record set."""
    return {"@type": "cr:FileSet", "@id": f"{config}-files", "name": f"{config}-files",
            "description": f"The {config} configuration's files, one per split.",
            "encodingFormat": ENCODING, "includes": f"data/{config}-*.jsonl"}


def _split_field(config: str) -> dict:
    """The split of a record, read from its file's name: one of the `splits` record set's
    names (no `references` to it: mlcroissant 1.1 would apply the regex again to the
    joined value and warn for each record)."""
    return {"@type": "cr:Field", "@id": f"{config}/split", "name": "split",
            "description": "The split the record is in (from its file's name).",
            "dataType": "sc:Text",
            "source": {"fileSet": {"@id": f"{config}-files"},
                       "extract": {"fileProperty": "filename"},
                       "transform": {"regex": f"^{config}-(.*)\\.jsonl$"}}}


def _record_set(config: str, description: str, fields: Sequence[Field],
                key: Sequence[str], references: Mapping[str, str]) -> dict:
    out = [_split_field(config)]
    for f in fields:
        field = {"@type": "cr:Field", "@id": f"{config}/{f.name}", "name": f.name,
                 "description": f.description, "dataType": TYPES[f.type][1],
                 "source": {"fileSet": {"@id": f"{config}-files"},
                            "extract": {"column": f.name}}}
        if f.name in references:
            field["references"] = {"field": {"@id": references[f.name]}}
        out.append(field)
    return {"@type": "cr:RecordSet", "@id": config, "name": config,
            "description": description,
            "key": [{"@id": f"{config}/{name}"} for name in ("split", *key)], "field": out}


def _splits_record_set(splits: Sequence[str]) -> dict:
    return {"@type": "cr:RecordSet", "@id": "splits", "name": "splits",
            "description": "The splits of the dataset.", "dataType": "cr:Split",
            "key": {"@id": "splits/name"},
            "field": [{"@type": "cr:Field", "@id": "splits/name", "name": "name",
                       "description": "The split's name.", "dataType": "sc:Text"}],
            "data": [{"splits/name": name} for name in splits]}


RECORD_SETS = {
    "gold": "One record per item: the two texts, the gold score and how it was settled.",
    "ratings": "One record per rating or skip: item, rater (pseudonym), kind, score, time.",
}
#: Each configuration's key (besides the split).
KEYS = {"gold": ("item_id",), "ratings": ("item_id", "rater")}


def bibtex(facts: Mapping) -> str:
    """The citation: the BibTeX the organizer gave (--citation), else one made from the
    title, creators, year, version and url."""
    if facts.get("citation"):
        return str(facts["citation"]).strip()
    def clean(text: object) -> str:
        return " ".join(str(text).replace("{", "").replace("}", "").split())
    year = facts["date"][:4]
    key = re.sub(r"[^a-z0-9]+", "_", facts["title"].lower()).strip("_")[:40] or "dataset"
    entries = [("title", facts["title"])]
    entries += [("author", " and ".join(facts["creators"]))] if facts.get("creators") else []
    entries += [("year", year), ("version", facts["version"])]
    entries += [("url", facts["url"])] if facts.get("url") else []
    entries.append(("note", "Dataset folder written by simrate"))
    return (f"@misc{{{key}_{year},\n"
            + ",\n".join(f"  {name} = {{{clean(value)}}}" for name, value in entries)
            + "\n}")


def croissant_document(facts: Mapping, files: Files) -> dict:
    """The Croissant metadata of a folder as a JSON-ready dict."""
    licence = facts["license"]
    people = [{"@type": "sc:Person", "name": name} for name in facts.get("creators", ())]
    splits = list(dict.fromkeys(split for written, _ in files.values() for split in written))
    document = {
        "@context": context(), "@type": "sc:Dataset", "conformsTo": CONFORMS_TO,
        "name": facts["title"],
        "description": (f"Graded similarity ratings of text pairs on the scale "
                        f"{facts['scale']['title'] or facts['scale']['name']} "
                        f"({facts['scale']['low']:g} to {facts['scale']['high']:g}, step "
                        f"{facts['scale']['step']:g}), with a gold score per pair. "
                        "README.md (the data card) gives the agreement and review record."),
        **({"creator": people, "publisher": people} if people else {}),
        **({"url": facts["url"]} if facts.get("url") else {}),
        "datePublished": facts["date"], "version": facts.get("version", "1.0.0"),
        "inLanguage": facts["language"], "citeAs": bibtex(facts),
        "keywords": ["semantic textual similarity", "inter-annotator agreement"],
        "distribution": [_file_object(name, split, one)
                         for name, (written, _) in files.items()
                         for split, one in written.items()]
                        + [_file_set(name) for name in files],
        "recordSet": [_splits_record_set(splits)]
                     + [_record_set(name, RECORD_SETS[name], fields, KEYS[name],
                                    {"item_id": "gold/item_id"} if name != "gold" else {})
                        for name, (_, fields) in files.items()],
        **rai_fields(facts),
    }
    if licence not in NO_LICENSE:  # each licence's SPDX page (the expression without one)
        urls = license_urls(licence)
        document["license"] = (urls[0] if len(urls) == 1 else urls) if urls else licence
    return document


def croissant_json(facts: Mapping, files: Files) -> str:
    """croissant.json's text: indented, non-ASCII kept, a final newline."""
    return json.dumps(croissant_document(facts, files), ensure_ascii=False, indent=2) + "\n"
