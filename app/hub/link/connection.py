"""Connecting to a hub: libpq URLs without passwords, one-line errors, the hub's identity.

Passwords never pass through simrate: libpq finds them itself, in the password file
(~/.pgpass, or the file PGPASSFILE names), the service file, or PGPASSWORD. A window may
ask for one and hand it to libpq for that connection only (`password=` argument), never
storing it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from simrate.core.base.errors import SimrateError, cut, hide_secrets_of
from simrate.core.data.values import host_name
from simrate.hub.schema import HUB_SCHEMA_VERSION
from simrate.install.locations import install_hint

#: Seconds libpq waits for the server before the hub counts as unreachable.
CONNECT_TIMEOUT = 5


#: HubError kinds -> the `hub` value of `team sync --json` (DESIGN.md): which it is.
HUB_STATES = {
    "unreachable": "unreachable",   # no answer: server down, wrong host or port, network
    "full": "full",                 # the server, database or login has no connection left
    "password": "wrong_password",   # the password is wrong (or libpq had none to give)
    "database": "no_database",      # the server answers, but has no such database
    "removed": "removed",           # the organizer removed this person from the hub
    "refused": "refused",           # the login may not do this (or not connect from here)
    "newer": "newer",               # the hub's schema comes from a newer simrate
    "project": "other_project",     # the hub holds another project than this file
    "error": "error",               # anything else the server said
}


class HubError(SimrateError):
    """The hub cannot be reached, refuses the login, or is not one we can use (exit 2)."""

    def __init__(self, message: str, kind: str = "error"):
        super().__init__(message)
        #: a key of HUB_STATES: what the window and `team sync --json` show
        self.kind = kind

    @property
    def state(self) -> str:
        """The `hub` value of `team sync --json` for this failure."""
        return HUB_STATES.get(self.kind, "error")


def _psycopg():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - psycopg is a dependency
        raise HubError(f"team work needs psycopg: {install_hint(None, 'psycopg[binary]')}") from None
    return psycopg


def parse_url(url: str) -> dict[str, str]:
    """The parts of a libpq URL or connection string; HubError if bad or holding a password."""
    psycopg = _psycopg()
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        said = hide_secrets_of(first_line(exc), url)  # libpq quotes the URL, password and all
        raise HubError(f"not a PostgreSQL URL or connection string: {cut(said, 200)}") from None
    if parts.get("password"):
        raise HubError("the URL holds a password; keep it out of commands and files: put it "
                       "in ~/.pgpass or PGPASSWORD instead")
    parts = {k: str(v) for k, v in parts.items()}
    for host in parts.get("host", "").split(","):
        if host and not host.startswith(("/", "@")):  # "/": a socket folder; "@": abstract
            try:
                host_name(host, "the hub URL")
            except SimrateError as exc:
                raise HubError(exc.message) from None
    return parts


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
            # libpq wraps the server's words: "connection failed: connection to server at
            # ... failed: FATAL:  <what the server said>"; keep what the server said
            line = line.rsplit("FATAL:", 1)[-1]
            return line.removeprefix("FATAL:").removeprefix("ERROR:").strip()
    return type(exc).__name__


#: SQLSTATE codes (PostgreSQL's appendix A) -> HubError kinds.
SQLSTATE_KINDS = {
    "28P01": "password",      # invalid_password
    "3D000": "database",      # invalid_catalog_name
    "53300": "full",          # too_many_connections
    "53100": "full",          # disk_full (the server's disk)
    "53200": "full",          # out_of_memory
    "28000": "refused",       # invalid_authorization_specification (NOLOGIN: removed)
    "42501": "refused",       # insufficient_privilege
    "57P01": "unreachable",   # admin_shutdown
    "57P02": "unreachable",   # crash_shutdown
    "57P03": "unreachable",   # cannot_connect_now (starting up, shutting down)
}

#: libpq reports a failed login as text only (no SQLSTATE reaches the client before a
#: connection exists): the server's message tells which SQLSTATE it raised.
SERVER_TEXTS = (
    ("password authentication failed", "28P01"),
    ("database \"", "3D000"),  # database "x" does not exist
    ("too many connections", "53300"),
    ("remaining connection slots are reserved", "53300"),
    ("too many clients already", "53300"),
    ("is not permitted to log in", "28000"),
    ("no pg_hba.conf entry", "28000"),
    ("the database system is starting up", "57P03"),
    ("the database system is shutting down", "57P03"),
    ("the database system is in recovery mode", "57P03"),
    # PgBouncer in front of the server says it in its own words (with SQLSTATE 08P01,
    # "protocol violation", for all of them)
    ("sasl authentication failed", "28P01"),      # the password is wrong
    ("no such user", "28P01"),                    # the server too says "password" then
    ("no more connections allowed", "53300"),     # the pooler's max_client_conn
    ("query_wait_timeout", "53300"),              # no server connection came free in time
)

#: The SQLSTATE PgBouncer gives every error of its own: its text tells which it is.
POOLER_SQLSTATE = "08P01"

#: What libpq says when no server answered at all.
UNREACHABLE_TEXTS = ("connection refused", "could not translate host name", "timeout expired",
                     "no route to host", "network is unreachable", "could not connect",
                     "server closed the connection unexpectedly", "connection timed out",
                     "no such file or directory", "connection reset", "ssl syscall error",
                     "name or service not known", "consuming input failed",
                     "the connection is closed", "connection is lost")


def sqlstate(exc: BaseException) -> str | None:
    """The SQLSTATE of a psycopg error: its own, or the one the server's text stands for."""
    own = getattr(exc, "sqlstate", None)
    if own and own != POOLER_SQLSTATE:
        return str(own)
    lower = str(exc).lower()
    for text, code in SERVER_TEXTS:
        if text in lower and (code != "3D000" or "does not exist" in lower):
            return code
    return str(own) if own else None


def classify(exc: BaseException) -> str:
    """The HubError kind of a psycopg error: by SQLSTATE, else by what libpq said."""
    code = sqlstate(exc)
    lower = str(exc).lower()
    if code is not None and code in SQLSTATE_KINDS:
        if code == "28000" and "is not permitted to log in" in lower:
            return "removed"  # `team remove` takes the login away (NOLOGIN)
        return SQLSTATE_KINDS[code]
    if code is not None and code[:2] == "08":
        return "unreachable"  # connection_exception
    if "no password supplied" in lower or "fe_sendauth" in lower:
        return "password"
    if any(text in lower for text in UNREACHABLE_TEXTS):
        return "unreachable"
    if "role" in lower and "does not exist" in lower:
        return "refused"
    if code is None and type(exc).__name__ == "OperationalError":
        return "unreachable"  # libpq gave up without a word we know: no answer to rely on
    return "error"


def _limit_reached(text: str) -> str:
    """Which connection limit was reached, in the server's own terms."""
    lower = text.lower()
    if "max_client_conn" in lower:
        return f"the connection pooler takes no more clients ({text}: its max_client_conn)"
    if "query_wait_timeout" in lower:
        return ("the connection pooler had no server connection free in time "
                f"({text}: its pool is too small for the load)")
    if "for role" in lower:
        return f"this login's connection limit is reached ({text})"
    if "for database" in lower:
        return f"the hub database's connection limit is reached ({text})"
    return ("the server's max_connections is reached: every connection slot is taken "
            f"({text})")


def explain(exc: BaseException, url: str = "") -> HubError:
    """A one-line HubError for a psycopg error, saying which it is: unreachable, full,
    wrong password, no such database, removed, or not allowed."""
    if isinstance(exc, HubError):
        return exc
    text = first_line(exc)
    where = _where(url)
    kind = classify(exc)
    lower = str(exc).lower()
    if kind == "password":
        if "no password supplied" in lower or "fe_sendauth" in lower:
            return HubError(f"wrong password: the hub {where} asks for a password and none "
                            "was given: put it in ~/.pgpass or PGPASSWORD", "password")
        return HubError(f"wrong password for the hub {where} ({text}): correct the line in "
                        "~/.pgpass (or PGPASSWORD), or ask the organizer to set a new one",
                        "password")
    if kind == "database":
        dbname = _parts(url).get("dbname", "")
        return HubError(f"no such database {dbname!r} on the hub's server {where}: check the "
                        "database name in the URL", "database")
    if kind == "full":
        if sqlstate(exc) == "53300":
            return HubError(f"hub full {where}: {_limit_reached(text)}; close other simrate "
                            "windows or ask the organizer to raise the limit, then try again",
                            "full")
        return HubError(f"hub full {where}: the server is out of resources ({text}); ask "
                        "its administrator", "full")
    if kind == "removed":
        return removed(url, text)
    if kind == "unreachable":
        return HubError(f"hub unreachable {where}: {text}", "unreachable")
    if getattr(exc, "sqlstate", None):  # a statement the hub refused: in our own words
        from simrate.hub.link.hub_errors import refused_statement

        said, line = refused_statement(exc, where)
        return HubError(line, said)
    if kind == "refused":
        return HubError(f"role not allowed on the hub {where}: {text}", "refused")
    return HubError(f"the hub refused: {text}", "error")


def removed(url: str, text: str) -> HubError:
    """The HubError of a login the organizer removed from the team."""
    from simrate.hub.link.hub_errors import removed_advice

    return HubError(f"removed from the hub {_where(url)}: the organizer took this login's "
                    f"access away ({text}){removed_advice()}", "removed")


def _login_taken_away(conn: Any) -> bool:
    """True when the connection's login may no longer log in (`team remove`): a connection
    made before, such as one a pooler keeps open to the server, outlives the login."""
    try:
        row = conn.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = session_user"
                           ).fetchone()
    except Exception:  # noqa: BLE001 - no answer: say what the first error said
        return False
    return row is not None and not row[0]


def _parts(url: str) -> dict[str, str]:
    try:
        return parse_url(url) if url else {}
    except HubError:
        return {}


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
    """An open psycopg connection to the hub; HubError (one line) when that fails.

    No server-side prepared statements (`prepare_threshold=None`): behind PgBouncer in
    transaction mode, consecutive transactions may run on different server connections,
    where a statement prepared on another one does not exist.
    """
    psycopg = _psycopg()
    parse_url(url)
    passfile = os.environ.get("PGPASSFILE")  # libpq would print a warning line of its own
    if passfile and os.path.exists(passfile) and not os.path.isfile(passfile):
        raise HubError(f"PGPASSFILE names {cut(repr(passfile), 80)}, which is not a file: "
                       "point it at a password file, or unset it")
    extra: dict[str, Any] = {"connect_timeout": CONNECT_TIMEOUT,
                             "application_name": "simrate"}
    if password:
        extra["password"] = password
    try:
        return psycopg.connect(url, autocommit=autocommit, prepare_threshold=None, **extra)
    except psycopg.Error as exc:
        raise explain(exc, url) from None


@dataclass
class Result:
    """What one statement of a Batch gave: rows changed (or returned), rows returned."""

    rowcount: int
    rows: list[tuple]


class Batch:
    """Statements sent to the hub as one message (the simple query protocol), their
    parameters bound here: the server holds all of them before it runs the first, and
    runs them in order, skipping the rest after an error."""

    def __init__(self, conn: Any):
        import psycopg

        self.cursor = psycopg.ClientCursor(conn)
        self.statements: list[str] = []

    def add(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> int:
        """Add a statement; returns the index of its Result."""
        self.statements.append(self.cursor.mogrify(sql, params) if params is not None
                               else sql)
        return len(self.statements) - 1

    def run(self) -> list[Result]:
        """Send the statements, wait for every answer; a psycopg error for the first that
        failed."""
        cur = self.cursor
        cur.execute("\n;\n".join(self.statements))
        results = []
        while True:
            rows = [tuple(r) for r in cur.fetchall()] if cur.description else []
            results.append(Result(max(cur.rowcount, 0), rows))
            if not cur.nextset():
                return results


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
    try:  # one message: the hub's identity and the login's role
        batch = Batch(conn)
        batch.add(HUB_META_SQL)
        batch.add(WHOAMI_SQL)
        meta_rows, whoami = batch.run()
    except psycopg.Error as exc:
        if not (sqlstate(exc) or "").startswith("42"):  # the hub is full, gone, ...
            raise explain(exc, url) from None
        # no hub here, or a login that may not read it: ask step by step, to say which
        if conn.info.transaction_status == 3:  # in a failed transaction: end it first
            conn.rollback()
    else:
        meta = dict(meta_rows.rows)
        check_version(int(meta.get("hub_schema", "0")))
        return _info(meta, *whoami.rows[0])
    try:
        found = conn.execute("SELECT to_regclass('simrate.hub') IS NOT NULL").fetchone()[0]
        if not found:
            raise HubError(f"no simrate hub in this database {_where(url)}; the organizer "
                           "publishes one with `simrate team publish`", "project")
        meta = dict(conn.execute(HUB_META_SQL).fetchall())
        check_version(int(meta.get("hub_schema", "0")))
        kind, name, login = conn.execute(WHOAMI_SQL).fetchone()
    except psycopg.Error as exc:
        if sqlstate(exc) == "42501" and _login_taken_away(conn):
            raise removed(url, first_line(exc)) from None
        raise explain(exc, url) from None
    return _info(meta, kind, name, login)


HUB_META_SQL = "SELECT key, value FROM simrate.hub"
WHOAMI_SQL = "SELECT simrate.my_kind(), simrate.my_name(), session_user"


def _info(meta: dict[str, str], kind: str | None, name: str | None, login: str) -> HubInfo:
    if kind is None:
        raise HubError(f"role not allowed: {login} is not one of this hub's people", "refused")
    return HubInfo(meta["project_uuid"], int(meta["hub_schema"]), kind, name, login)


def check_version(version: int) -> None:
    """HubError when the hub's schema comes from a newer simrate."""
    if version > HUB_SCHEMA_VERSION:
        raise HubError(f"the hub's schema comes from a newer simrate (hub schema {version}, "
                       f"this version knows up to {HUB_SCHEMA_VERSION}); please upgrade "
                       "simrate", "newer")
