"""Connecting to a hub: libpq URLs without passwords, one-line errors, the hub's identity.

Passwords never pass through simrate: libpq finds them itself, in the password file
(~/.pgpass, or the file PGPASSFILE names), the service file, or PGPASSWORD. A window may
ask for one and hand it to libpq for that connection only (`password=` argument), never
storing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.core.errors import SimrateError
from app.core.team.hub.hub_schema import HUB_SCHEMA_VERSION

#: Seconds libpq waits for the server before the hub counts as unreachable.
CONNECT_TIMEOUT = 5


class HubError(SimrateError):
    """The hub cannot be reached, refuses the login, or is not one we can use (exit 2)."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        #: unreachable, password, refused, newer, project or error: what the window shows
        self.kind = kind


def _psycopg():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        raise HubError("team work needs the psycopg package (pip install 'psycopg[binary]')"
                       ) from None
    return psycopg


def parse_url(url: str) -> dict[str, str]:
    """The parts of a libpq URL or connection string; HubError if bad or holding a password."""
    psycopg = _psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise HubError(f"not a PostgreSQL URL or connection string: {first_line(exc)}") from None
    if parts.get("password"):
        raise HubError("the URL holds a password; keep it out of commands and files: put it "
                       "in ~/.pgpass or PGPASSWORD instead")
    return {k: str(v) for k, v in parts.items()}


def url_for(url: str, user: str) -> str:
    """The same hub's URL for another login."""
    parts = parse_url(url)
    host = parts.get("host", "localhost")
    port = parts.get("port", "5432")
    dbname = parts.get("dbname", user)
    host_part = f"[{host}]" if ":" in host else host
    if host.startswith("/"):  # a socket folder: URLs name it as a parameter
        return f"postgresql://{user}@/{dbname}?host={host}&port={port}"
    return f"postgresql://{user}@{host_part}:{port}/{dbname}"


def first_line(exc: BaseException) -> str:
    """The first non-empty line of an exception's message."""
    for line in str(exc).splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("FATAL:").removeprefix("ERROR:").strip()
    return type(exc).__name__


def explain(exc: BaseException, url: str = "") -> HubError:
    """A one-line HubError for a psycopg error (wrong password, unreachable, refused)."""
    psycopg = _psycopg()
    text = first_line(exc)
    lower = str(exc).lower()
    where = _where(url)
    if isinstance(exc, HubError):
        return exc
    if "password authentication failed" in lower:
        return HubError(f"wrong password for the hub {where} ({text})", "password")
    if "no password supplied" in lower or "fe_sendauth" in lower:
        return HubError(f"the hub {where} asks for a password: put it in ~/.pgpass or "
                        "PGPASSWORD", "password")
    if isinstance(exc, psycopg.errors.InsufficientPrivilege):
        return HubError(f"role not allowed: {text}", "refused")
    if isinstance(exc, psycopg.errors.InvalidAuthorizationSpecification) or \
            "role" in lower and "does not exist" in lower or "not permitted to log in" in lower:
        return HubError(f"role not allowed on the hub {where}: {text}", "refused")
    if isinstance(exc, psycopg.OperationalError):
        return HubError(f"hub unreachable {where}: {text}", "unreachable")
    return HubError(f"the hub refused: {text}", "error")


def _where(url: str) -> str:
    if not url:
        return ""
    try:
        parts = parse_url(url)
    except HubError:
        return ""
    host = parts.get("host", "localhost")
    return f"({host}:{parts.get('port', '5432')}/{parts.get('dbname', '')})"


def connect(url: str, password: str | None = None, autocommit: bool = True) -> Any:
    """An open psycopg connection to the hub; HubError (one line) when that fails."""
    psycopg = _psycopg()
    parse_url(url)
    extra: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT,
                             "application_name": "simrate"}
    if password:
        extra["password"] = password
    try:
        return psycopg.connect(url, autocommit=autocommit, **extra)
    except psycopg.Error as exc:
        raise explain(exc, url) from None


@dataclass(frozen=True)
class HubInfo:
    """What a client learns about the hub and itself when it connects."""

    project_uuid: str
    schema_version: int
    kind: str  # annotator or organizer
    name: str | None  # the login's annotator name; None for an organizer without one
    login: str


def hub_info(conn: Any, url: str = "") -> HubInfo:
    """Read the hub's identity and the login's role; HubError if it is no hub we can use."""
    psycopg = _psycopg()
    try:
        found = conn.execute("SELECT to_regclass('simrate.hub') IS NOT NULL").fetchone()[0]
        if not found:
            raise HubError(f"no simrate hub in this database {_where(url)}; the organizer "
                           "publishes one with `simrate team publish`", "project")
        meta = dict(conn.execute("SELECT key, value FROM simrate.hub").fetchall())
        check_version(int(meta.get("hub_schema", "0")))
        kind, name, login = conn.execute(
            "SELECT simrate.my_kind(), simrate.my_name(), session_user").fetchone()
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    if kind is None:
        raise HubError(f"role not allowed: {login} is not one of this hub's people", "refused")
    return HubInfo(meta["project_uuid"], int(meta["hub_schema"]), kind, name, login)


def check_version(version: int) -> None:
    """HubError when the hub's schema comes from a newer simrate."""
    if version > HUB_SCHEMA_VERSION:
        raise HubError(f"the hub's schema comes from a newer simrate (hub schema {version}, "
                       f"this version knows up to {HUB_SCHEMA_VERSION}); please upgrade "
                       "simrate", "newer")
