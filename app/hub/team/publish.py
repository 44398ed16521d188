"""Publishing a project to a hub: create the schema and roles, upload what the file holds.

Publishing needs a login that may create roles (CREATEROLE, or a superuser) in a database
it may create schemas in. Re-running it is safe: the schema is brought up to date, rows the
hub lacks are added, rows it has are left alone (a later sync settles differences by the
usual rule), and a hub that holds another project is refused.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from simrate.core.base.names import rater_key
from simrate.core.base.scale import Scale
from simrate.core.data.replica_mode import Role
from simrate.core.project import Project
from simrate.core.team.blind import source_name
from simrate.core.team.teamdb import (
    items_after,
    last_change_id,
    last_item_ord,
    project_uuid,
    rater_rows,
    rating_rows,
    team_write,
    verdict_rows,
)
from simrate.hub.link import outbox as queue
from simrate.hub.link.backoff import patiently
from simrate.hub.link.connection import HubError, check_version, connect, explain, parse_url
from simrate.hub.link.exchange import RULE_SETTING, UPLOAD_ITEMS, UPLOAD_SETTING, rule_setting
from simrate.hub.link.replica import ensure_tables, link_replica
from simrate.hub.schema import (
    HARDEN_SQL,
    HUB_SCHEMA_VERSION,
    PUT_HUB_META,
    ROLES_SQL,
    fill,
    fill_keys,
    quote_ident,
    role_names,
    schema_statements,
)
from simrate.hub.schema.raters import UPLOAD_RATERS
from simrate.hub.team.scale_guard import enforce_scale
from simrate.hub.team.sync import SyncReport, sync_once


@dataclass(frozen=True)
class PublishReport:
    """What publishing did."""

    items: int
    ratings: int
    adjudications: int
    new_hub: bool
    sync: SyncReport
    #: True when PostgreSQL's statistics, role list and lock views were closed to the
    #: annotators (it takes a superuser: see `harden`)
    hardened: bool = False
    #: The hub's scores written before it refused off-scale ones (scale_guard.py): a count
    #: line, then the first few; empty when none
    off_scale: tuple[str, ...] = ()


def publish(project: Project, url: str, password: str | None = None, wait: float = 0.0
            ) -> PublishReport:
    """Create or update the hub at `url` from this project and link the file to it. While
    the hub is full or unreachable, each connection is tried again with backoff for up to
    `wait` seconds (publishing again is safe)."""
    parse_url(url)
    uuid = project_uuid(project)
    started = time.time()  # ratings edited from now on may have missed the upload
    counts, new_hub, hardened, marks, off_scale = patiently(
        lambda: _publish_once(project, url, password, uuid), wait)
    _link(project, url, uuid, marks, started)
    report = sync_once(project, password, wait=wait)
    return PublishReport(*counts, new_hub, report, hardened, off_scale)


def _publish_once(project: Project, url: str, password: str | None, uuid: str
                  ) -> tuple[tuple[int, int, int], bool, bool, dict[str, int], tuple[str, ...]]:
    """Install or update the schema and upload, in one transaction: (items, ratings and
    adjudications sent; a new hub; hardened; each table's mark; the off-scale report)."""
    import psycopg

    conn = connect(url, password, autocommit=False)
    try:
        with conn.transaction():
            roles, new_hub, off_scale = _install(conn, uuid, project.scale)
            hardened = _harden_if_allowed(conn, roles)
            counts = _upload(conn, project)
            marks = _marks(conn) if new_hub else {}
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()
    return counts, new_hub, hardened, marks, off_scale


def _harden_if_allowed(conn: Any, roles: dict[str, str]) -> bool:
    """Close PostgreSQL's statistics, role list and lock views to the annotators when we
    are a superuser (only a superuser may change catalog privileges); False otherwise."""
    superuser, open_to_all = conn.execute(
        "SELECT rolsuper, has_table_privilege('public', 'pg_catalog.pg_stat_user_tables', "
        "'SELECT') FROM pg_roles WHERE rolname = current_user").fetchone()
    if not superuser:
        return not open_to_all  # a superuser may have closed them before
    conn.execute(fill(HARDEN_SQL, roles))
    return True


def harden(url: str, password: str | None = None) -> None:
    """Close PostgreSQL's statistics, role list and lock views in the hub's database to
    everyone but its organizers; needs a superuser's login (`simrate team harden`)."""
    import psycopg

    parse_url(url)
    conn = connect(url, password, autocommit=False)
    try:
        with conn.transaction():
            meta = _existing_meta(conn)
            if not meta:
                raise HubError("no simrate hub in this database; publish one first "
                               "(simrate team publish)", "project")
            check_version(int(meta.get("hub_schema", "0")))
            roles = {k: meta[f"role_{k}"] for k in ("owner", "annotators", "organizers")}
            if not _harden_if_allowed(conn, roles):
                raise HubError("role not allowed: closing PostgreSQL's statistics views takes "
                               "a superuser's login (the catalog belongs to the superuser)",
                               "refused")
    except psycopg.Error as exc:
        raise explain(exc, url) from None
    finally:
        conn.close()


def _install(conn: Any, uuid: str, scale: Scale
             ) -> tuple[dict[str, str], bool, tuple[str, ...]]:
    """Roles, schema, policies, the scale's rules (`scale`: a new hub's); returns (role
    names, whether the hub is new, the report of scores an older hub let in)."""
    superuser, createrole, dbname = conn.execute(
        "SELECT rolsuper, rolcreaterole, current_database() FROM pg_roles "
        "WHERE rolname = current_user").fetchone()
    if not (superuser or createrole):
        raise HubError("role not allowed: publishing needs a login that may create roles "
                       "(CREATEROLE); ask the database's administrator", "refused")
    meta = _existing_meta(conn)
    if meta:
        check_version(int(meta.get("hub_schema", "0")))
        if meta.get("project_uuid") != uuid:
            raise HubError("the hub holds another project (its project id differs); publish "
                           "to another database", "project")
        roles = {k: meta[f"role_{k}"] for k in ("owner", "annotators", "organizers")}
    else:
        roles = role_names(dbname)
    conn.execute(fill(ROLES_SQL, roles))
    owner = quote_ident(roles["owner"])
    if not superuser:
        conn.execute(f"GRANT {owner} TO CURRENT_USER")
    conn.execute(f"CREATE SCHEMA IF NOT EXISTS simrate AUTHORIZATION {owner}")
    conn.execute(f"SET LOCAL ROLE {owner}")
    for statement in schema_statements(roles):
        conn.execute(statement)
    fill_keys(conn, rater_key)  # raters written before the identity rule (raters.py)
    off_scale = enforce_scale(conn, scale)
    values = {"project_uuid": uuid, "hub_schema": str(HUB_SCHEMA_VERSION),
              **{f"role_{k}": v for k, v in roles.items()}}
    conn.cursor().executemany(PUT_HUB_META, list(values.items()))
    conn.execute("RESET ROLE")
    conn.execute(f"GRANT {quote_ident(roles['organizers'])} TO CURRENT_USER")
    if not superuser:
        # The publisher keeps no membership of the owner: owners bypass row-level security.
        conn.execute(f"REVOKE {owner} FROM CURRENT_USER")
    return roles, not meta, off_scale


def _existing_meta(conn: Any) -> dict[str, str]:
    if not conn.execute("SELECT to_regclass('simrate.hub') IS NOT NULL").fetchone()[0]:
        return {}
    return dict(conn.execute("SELECT key, value FROM simrate.hub").fetchall())


def _upload(conn: Any, project: Project) -> tuple[int, int, int]:
    """Add what the hub lacks: settings, items, annotators, ratings, adjudications."""
    settings = {"scale": json.dumps(project.scale.to_dict(), ensure_ascii=False),
                "title": project.title, "threshold": str(project.threshold),
                RULE_SETTING: rule_setting(project.flag_rule)}
    conn.cursor().executemany(UPLOAD_SETTING, list(settings.items()))
    items = _copy_in(conn, "items", ("id", "left", "right", "dataset", "genre", "reference",
                                     "meta", "source", "ord"),
                     [(*r[:7], source_name(r[7]), r[8]) for r in items_after(project, -1)])
    conn.execute(UPLOAD_ITEMS)
    from simrate.hub.team.claims import refuse_kind_clashes

    raters = rater_rows(project)
    refuse_kind_clashes(conn, [(n, k) for n, _e, k in raters])  # one namespace (claims.py)
    conn.cursor().executemany(  # a rater the hub holds already (by name or key) stays
        UPLOAD_RATERS, [(n, bool(e), k, rater_key(n)) for n, e, k in raters])
    ratings = _copy_in(conn, "ratings", ("item_id", "annotator", "code", "note", "skipped",
                                         "seconds", "updated_at"), _local_ratings(project))
    conn.execute("""
        SELECT count(simrate.put_rating(item_id, annotator, code, note, skipped, seconds,
                                        updated_at))
        FROM upload_ratings u  -- through the ratings' one door (hub/schema/later_wins.py)
        WHERE NOT EXISTS (SELECT 1 FROM simrate.ratings h WHERE h.item_id = u.item_id
                          AND h.annotator = u.annotator)  -- unchecked: the hub's stays""")
    return items, ratings, _upload_adjudications(conn, project)


def _upload_adjudications(conn: Any, project: Project) -> int:
    """Add the adjudications the hub lacks; returns how many were sent."""
    adjudications = _copy_in(conn, "adjudications", ("item_id", "code", "note", "by", "at"),
                             verdict_rows(project))
    conn.execute("""
        SELECT count(simrate.put_verdict(item_id, code, note, by, at))
        FROM upload_adjudications u  -- through the verdicts' one door (later_wins.py)
        WHERE NOT EXISTS (SELECT 1 FROM simrate.adjudications h WHERE h.item_id = u.item_id)""")
    return adjudications


def _local_ratings(project: Project) -> list[tuple]:
    return [(i, a, c, n, bool(s), sec, at) for i, a, c, n, s, sec, at in rating_rows(project)]


def _copy_in(conn: Any, table: str, columns: tuple[str, ...], rows: list[tuple]) -> int:
    """COPY rows into a temporary table `upload_<table>` shaped like the hub's; returns
    the row count."""
    quoted = ", ".join(quote_ident(c) for c in columns)
    conn.execute(f"CREATE TEMP TABLE upload_{table} ON COMMIT DROP AS "
                 f"SELECT {quoted} FROM simrate.{table} WITH NO DATA")
    with conn.cursor() as cur, cur.copy(f"COPY upload_{table} ({quoted}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    return len(rows)


def _marks(conn: Any) -> dict[str, int]:
    """Each table's highest sequence number (a new hub holds only what we uploaded)."""
    from simrate.hub.schema import PULLED_TABLES

    return {t: conn.execute(f"SELECT COALESCE(max(seq), 0) FROM simrate.{t}").fetchone()[0]
            for t in PULLED_TABLES}


def _link(project: Project, url: str, uuid: str, marks: dict[str, int],
          started: float = 0.0) -> None:
    """Link the file; its values become its copies of the hub's (the hub's own values,
    where it had some, arrive with the next pull and win).

    A rating edited since `started` (the upload's start: another window or program may have
    written meanwhile) is not taken for uploaded: it has no copy, and its key is queued, so
    the sync that follows sends it (a value the hub has already is left alone there)."""
    already = project.mode.url == url
    link_replica(project, url, Role.ORGANIZER, None, uuid)
    if already:
        return  # a re-run: the file's pending changes go out with the sync that follows
    last_change, last_ord = last_change_id(project), last_item_ord(project)
    with team_write(project) as write:
        write.step(ensure_tables)
        write.step(queue.take_as_uploaded, started - 1.0)
        write.step(_copy_others)
        values: dict[str, object] = {"hub_pushed": last_change, "hub_item_ord": last_ord,
                                     "hub_threshold": str(project.threshold),
                                     "hub_flag_rule": rule_setting(project.flag_rule),
                                     "hub_published": time.time()}
        values.update({f"hub_wm_{t}": m for t, m in marks.items()})
        write.set_hub_keys(values)


def _copy_others(conn: sqlite3.Connection) -> None:
    """The file's adjudications and exclusions taken as the hub's copies (an upload)."""
    conn.execute("INSERT OR REPLACE INTO hub_adjudications SELECT i.id, d.code, d.note "
                 "FROM adjudications d JOIN items i ON i.ord = d.item_ord")
    conn.execute("INSERT OR REPLACE INTO hub_annotators SELECT name, excluded "
                 "FROM annotators")
