"""The hub's schema in PostgreSQL: tables, roles, row-level security, sequence stamps, NOTIFY.

Everything lives in the schema `simrate` of the hub database. Its tables belong to a role
that cannot log in (the owner), so no client ever connects as the owner, which would
bypass row-level security. People log in as roles of their own, each a member of one of
two group roles, annotators or organizers; the server decides what each may read and
write:

- annotators read items, settings and their own ratings, and write only their own
  ratings (a policy compares the row's annotator with the login's name in `people`);
- organizers read and write everything except the change log, which they only read;
- nobody deletes: a cleared rating or a withdrawn adjudication is a row whose code is
  NULL, so that every replica learns of it.

Every write gets a stamp (`seq`) made of its transaction's id and a draw of one sequence
(`next_stamp`), with no lock: writers never wait for each other. A pull reads only below
`pull_cap()`, the first stamp that a transaction still running could hold, so a replica
that has seen everything up to `seq` = N never later meets a committed row below N: its
watermark can never skip a row. A trigger copies each rating, adjudication, exclusion and
setting, old and new value, into the change log, and statement triggers send NOTIFY
(payload: the table's name, never a value).

What annotators must not learn (blind.py holds the rule for packages and replicas alike):

- items: an annotator's role may read only the columns a package carries (id, texts,
  dataset, genre, order and sequence number), never `reference` (gold keys, known scores
  of check items), `meta` (which can hold labels, votes or paths), `source` (the
  organizer's file) or `login`; settings likewise without `login`;
- notifications: anyone may LISTEN on any channel, so writes of ratings, adjudications and
  exclusions are announced only on channels named from a secret the roles cannot read:
  one for the organizers, one per annotator for their own ratings. Items and settings,
  which everyone reads, are announced on the plain channel `simrate`;
- people: `simrate.people_list()` returns the caller's own row to an annotator and
  everyone to an organizer;
- PostgreSQL's own statistics, role lists and lock views: HARDEN_SQL closes them in the
  hub's database when a superuser publishes or runs `simrate team harden`.

What an annotator's login still sees, and why: the sequence numbers (and the transaction
ids, `xmin`) of their own ratings, whose gaps tell how many writes the whole hub took
between two of theirs (not whose or which): a replica pulls by that number, and numbers of
one's own would change the sync protocol; that a guessed role name exists (PostgreSQL
answers `'name'::regrole` for everyone); the planner's row estimates in `pg_class`; the
login of an organizer who changed one of their ratings (`ratings.login`); NOTIFY on the
plain channel when the organizer adds items. Without `team harden` (a publisher that is
no superuser) the statistics, `pg_stat_activity` rows (who is connected), `pg_roles` (every
login) and `pg_locks` stay readable as PostgreSQL ships them.

The package holds the SQL in parts: `names` (constants, role names, quoting, `fill`),
`tables` (tables, stamps, change log, NOTIFY), `later_wins` (the later-edit rule, the
doors of ratings and verdicts), `access` (roles,
privileges, row-level security, hardening, connection limits), `raters` (one rater
identity: unique keys across kinds, `claim_rater`) and `web` (web studies).
"""

from __future__ import annotations

from simrate.hub.schema.access import HARDEN_SQL, LIMITS_SQL, ROLES_SQL, SECURITY_SQL
from simrate.hub.schema.later_wins import later_sql
from simrate.hub.schema.names import (
    ANNOTATOR_CONNECTION_LIMIT,
    CHANNEL,
    HUB_SCHEMA_VERSION,
    MAX_CLOCK_LEAD,
    PULLED_TABLES,
    STAMP_BITS,
    fill,
    login_name,
    quote_ident,
    quote_literal,
    role_names,
)
from simrate.hub.schema.raters import RATER_LOCK, fill_keys, raters_sql
from simrate.hub.schema.service import service_statements
from simrate.hub.schema.tables import (
    FUNCTIONS_SQL,
    LOGGED,
    PUT_HUB_META,
    STAMPED,
    TABLES_SQL,
    triggers_sql,
)
from simrate.hub.schema.web import (
    WEB_FUNCTIONS_SQL,
    WEB_LOCK,
    WEB_TABLES_SQL,
    web_role_names,
    web_statements,
)

__all__ = [
    "ANNOTATOR_CONNECTION_LIMIT", "CHANNEL", "FUNCTIONS_SQL", "HARDEN_SQL",
    "HUB_SCHEMA_VERSION", "LIMITS_SQL", "LOGGED", "MAX_CLOCK_LEAD",
    "PULLED_TABLES", "PUT_HUB_META", "RATER_LOCK", "ROLES_SQL", "SECURITY_SQL", "STAMPED", "STAMP_BITS", "TABLES_SQL", "WEB_FUNCTIONS_SQL",
    "WEB_LOCK", "WEB_TABLES_SQL", "fill", "fill_keys", "login_name", "quote_ident", "quote_literal",
    "raters_sql", "role_names", "schema_statements", "triggers_sql", "web_role_names", "web_statements",
]


def schema_statements(roles: dict[str, str]) -> list[str]:
    """The SQL that creates (or brings up to date) the schema, run as the owner role."""
    return [fill(TABLES_SQL, roles), fill(FUNCTIONS_SQL, roles), fill(triggers_sql(), roles),
            fill(SECURITY_SQL, roles), fill(later_sql(), roles), fill(LIMITS_SQL, roles),
            raters_sql(roles), *web_statements(roles),
            *service_statements(roles, web_role_names(roles))]

