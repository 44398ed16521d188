"""croissant.json: Croissant 1.0 metadata (MLCommons) of a dataset folder.

One FileObject per data file (path relative to the folder, JSON Lines, SHA-256) and one
RecordSet per configuration (gold, ratings), each field read from the column of the same
name. The `@context` is the one the Croissant 1.0 specification fixes for its vocabulary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from simrate.formats.dataset_files import ENCODING, TYPES, Field, WrittenFile
from simrate.formats.dataset_folder import NO_LICENSE, license_urls

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
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


def _file_object(config: str, written: WrittenFile) -> dict:
    return {"@type": "cr:FileObject", "@id": f"{config}-file", "name": f"{config}-file",
            "description": f"The {config} configuration, one JSON object per line.",
            "contentUrl": written.path, "contentSize": f"{written.size} B",
            "encodingFormat": ENCODING, "sha256": written.sha256}


def _record_set(config: str, description: str, fields: Sequence[Field]) -> dict:
    return {"@type": "cr:RecordSet", "@id": config, "name": config,
            "description": description,
            "field": [{"@type": "cr:Field", "@id": f"{config}/{f.name}", "name": f.name,
                       "description": f.description, "dataType": TYPES[f.type][1],
                       "source": {"fileObject": {"@id": f"{config}-file"},
                                  "extract": {"column": f.name}}}
                      for f in fields]}


RECORD_SETS = {
    "gold": "One record per item: the two texts, the gold score and how it was settled.",
    "ratings": "One record per rating or skip: item, rater (pseudonym), kind, score, time.",
}


def croissant_document(facts: Mapping, files: Mapping[str, tuple[WrittenFile, list[Field]]]
                       ) -> dict:
    """The Croissant metadata of a folder as a JSON-ready dict."""
    licence = facts["license"]
    document = {
        "@context": context(), "@type": "sc:Dataset", "conformsTo": CONFORMS_TO,
        "name": facts["title"],
        "description": (f"Graded similarity ratings of text pairs on the scale "
                        f"{facts['scale']['title'] or facts['scale']['name']} "
                        f"({facts['scale']['low']:g} to {facts['scale']['high']:g}, step "
                        f"{facts['scale']['step']:g}), with a gold score per pair. "
                        "README.md (the data card) gives the agreement and review record."),
        "url": "README.md", "datePublished": facts["date"], "version": "1.0.0",
        "inLanguage": facts["language"],
        "citeAs": facts["title"],
        "keywords": ["semantic textual similarity", "inter-annotator agreement"],
        "distribution": [_file_object(name, written) for name, (written, _) in files.items()],
        "recordSet": [_record_set(name, RECORD_SETS[name], fields)
                      for name, (_, fields) in files.items()],
    }
    if licence not in NO_LICENSE:  # each licence's SPDX page (the expression without one)
        urls = license_urls(licence)
        document["license"] = (urls[0] if len(urls) == 1 else urls) if urls else licence
    return document


def croissant_json(facts: Mapping, files: Mapping[str, tuple[WrittenFile, list[Field]]]
                   ) -> str:
    """croissant.json's text: indented, non-ASCII kept, a final newline."""
    return json.dumps(croissant_document(facts, files), ensure_ascii=False, indent=2) + "\n"
