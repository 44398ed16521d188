"""Stable pseudonyms for the raters and adjudicators of a published dataset.

People are `rater-01`, `rater-02`, ...; crowd workers `crowd-0001`, ...; machine raters
`machine-01`, ... (a machine's name is usually a model's, but an organizer may have named it
after a person or a login, so it is hidden too); adjudicators who are not raters of the
project `adjudicator-01`, .... Numbers follow the order raters joined the project, which
never changes (ids are never reused), so exporting the same project again gives each rater
the same pseudonym. The width grows when there are more raters than the digits hold.
With `keep_names` every name is kept as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from simrate.core.data.store import CROWD, HUMAN, MACHINE

#: The kind of a rater as the dataset names it.
KIND_WORDS = {HUMAN: "person", CROWD: "crowd", MACHINE: "machine"}
_PREFIX = {HUMAN: ("rater", 2), CROWD: ("crowd", 4), MACHINE: ("machine", 2)}


def _numbered(prefix: str, width: int, names: Sequence[str]) -> dict[str, str]:
    width = max(width, len(str(len(names))))
    return {name: f"{prefix}-{n:0{width}d}" for n, name in enumerate(names, start=1)}


class Pseudonyms:
    """{real name: published name} for the raters of a project and its adjudicators."""

    def __init__(self, names: Sequence[str], kinds: Mapping[str, str],
                 adjudicators: Iterable[str] = (), keep_names: bool = False):
        self.kind = {name: KIND_WORDS.get(kinds.get(name, HUMAN), "person") for name in names}
        self.keep_names = keep_names
        self.names: dict[str, str] = {}
        for kind, (prefix, width) in _PREFIX.items():
            members = [n for n in names if kinds.get(n, HUMAN) == kind]
            self.names.update({n: n for n in members} if keep_names
                              else _numbered(prefix, width, members))
        others = sorted({a for a in adjudicators if a and a not in self.names})
        self.names.update({a: a for a in others} if keep_names
                          else _numbered("adjudicator", 2, others))

    def __getitem__(self, name: str) -> str:
        return self.names[name]

    def of(self, name: str | None) -> str | None:
        """The published name, None for no name."""
        return self.names.get(name) if name else None

    def rename_keys(self, mapping: Mapping[str, object] | None) -> dict | None:
        """A dict with its rater-name keys published (values untouched)."""
        if mapping is None:
            return None
        return {self.names.get(k, k): v for k, v in mapping.items()}
