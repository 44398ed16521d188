"""The file's replica mode: a plain project, an organizer's replica of a team hub, or an
annotator's replica, as one value resolved from the file's meta table.

The meta keys of the link live here and nowhere else (tests/core/test_replica_mode.py
holds every other module to that): `hub_url` (the hub's libpq URL without a password, or
the address of the sync service an annotator joined through), `hub_kind` (organizer or
annotator), `hub_name` (the annotator's name at the hub), `hub_replica` (this file's id at
the hub; it outlives an unlink, so a relinked file is the same replica) and `hub_token`
(the person's token at the sync service). `Project.mode` holds the value; `Project.relink`
is the one way to change it.

The hub adapter's own bookkeeping (what was pushed and pulled) is app/hub/link/replica.py's.
"""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.data import meta as meta_table

URL_KEY, KIND_KEY, NAME_KEY = "hub_url", "hub_kind", "hub_name"
REPLICA_KEY, TOKEN_KEY = "hub_replica", "hub_token"
#: The keys a link writes and an unlink removes (the replica's id stays: see above).
LINK_KEYS = (URL_KEY, KIND_KEY, NAME_KEY, TOKEN_KEY)
MODE_KEYS = (*LINK_KEYS, REPLICA_KEY)
#: The mode's role and name as SQL expressions, for the triggers that must tell an
#: annotator's replica apart inside a write (hub/link/replica.py).
ROLE_SQL = f"(SELECT value FROM meta WHERE key = '{KIND_KEY}')"
NAME_SQL = f"(SELECT value FROM meta WHERE key = '{NAME_KEY}')"


class Role(enum.Enum):
    """What a project file is to a team hub."""

    PLAIN = "plain"
    ORGANIZER = "organizer"
    ANNOTATOR = "annotator"


def is_service_url(url: str) -> bool:
    """True for the address of a sync service (http or https), not a libpq URL."""
    return url.lower().startswith(("http://", "https://"))


@dataclass(frozen=True)
class ReplicaMode:
    """A file's link to a team hub (none for a plain project)."""

    role: Role = Role.PLAIN
    url: str = ""
    replica: str = ""
    name: str | None = None
    token: str = field(default="", repr=False)

    @classmethod
    def from_meta(cls, meta: Mapping[str, str | None]) -> ReplicaMode:
        """The mode the meta keys record; a file with a hub URL and no known role is an
        annotator's replica (the role that may do less)."""
        url = meta.get(URL_KEY) or ""
        replica = meta.get(REPLICA_KEY) or ""
        if not url:
            return cls(replica=replica)
        role = Role.ORGANIZER if meta.get(KIND_KEY) == Role.ORGANIZER.value else Role.ANNOTATOR
        return cls(role, url, replica, meta.get(NAME_KEY) or None, meta.get(TOKEN_KEY) or "")

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> ReplicaMode:
        """The mode as the file (or the open transaction on `conn`) holds it now."""
        marks = ", ".join("?" * len(MODE_KEYS))
        return cls.from_meta(dict(conn.execute(
            f"SELECT key, value FROM meta WHERE key IN ({marks})", MODE_KEYS).fetchall()))

    @property
    def plain(self) -> bool:
        """True for a project linked to no hub."""
        return self.role is Role.PLAIN

    @property
    def organizer(self) -> bool:
        """True for an organizer's replica (it holds everything)."""
        return self.role is Role.ORGANIZER

    @property
    def annotator(self) -> bool:
        """True for an annotator's replica (it holds that person's own ratings only)."""
        return self.role is Role.ANNOTATOR

    @property
    def service(self) -> str:
        """The sync service's address when the replica syncs through `simrate serve`,
        else "" (a direct libpq link, or no link)."""
        return self.url if is_service_url(self.url) else ""

    def unlinked(self) -> ReplicaMode:
        """The plain mode this file has once its link is removed (same replica id)."""
        return ReplicaMode(replica=self.replica)

    def require_link(self, path: Path | str) -> ReplicaMode:
        """This mode; SimrateError naming `path` for a plain project."""
        if self.plain:
            raise SimrateError("not linked to a hub: publish it (simrate team publish) or "
                               "join one (simrate team join)", path)
        return self

    def write(self, conn: sqlite3.Connection) -> None:
        """Record this mode in the file (inside a write transaction; see Project.relink)."""
        values: dict[str, str] = {}
        if self.plain:
            meta_table.drop_hub_keys(conn, LINK_KEYS)
        else:
            values = {URL_KEY: self.url, KIND_KEY: self.role.value,
                      NAME_KEY: self.name or "", TOKEN_KEY: self.token}
        if self.replica:
            values[REPLICA_KEY] = self.replica
        meta_table.set_hub_keys(conn, values)
