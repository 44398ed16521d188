"""Who may do what on the hub: the group roles, the privileges and row-level security of
each, the hardening of PostgreSQL's own views, and annotators' connection limits."""

from __future__ import annotations

from simrate.core.base import rules
from simrate.hub.schema.names import quote_ident

ROLES_SQL = """
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @owner_lit) THEN
    CREATE ROLE @owner NOLOGIN CREATEROLE;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @annotators_lit) THEN
    CREATE ROLE @annotators NOLOGIN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @organizers_lit) THEN
    CREATE ROLE @organizers NOLOGIN;
  END IF;
END $$;
GRANT @annotators TO @owner WITH ADMIN OPTION;
GRANT @organizers TO @owner WITH ADMIN OPTION;
"""

SECURITY_SQL_TEMPLATE = """
REVOKE ALL ON SCHEMA simrate FROM PUBLIC;
GRANT USAGE ON SCHEMA simrate TO @annotators, @organizers;
REVOKE ALL ON ALL TABLES IN SCHEMA simrate FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA simrate FROM PUBLIC;
GRANT SELECT ON simrate.hub TO @annotators, @organizers;
GRANT SELECT ON simrate.settings, simrate.items TO @organizers;
-- annotators: no reference score, item metadata, source path or login (see blind.py)
REVOKE ALL ON simrate.items, simrate.settings FROM @annotators;
GRANT SELECT (@annotator_item_columns) ON simrate.items TO @annotators;
GRANT SELECT (key, value, seq) ON simrate.settings TO @annotators;
GRANT SELECT, INSERT, UPDATE ON simrate.ratings, simrate.replicas TO @annotators, @organizers;
GRANT INSERT, UPDATE ON simrate.settings, simrate.items TO @organizers;
GRANT SELECT, INSERT, UPDATE ON simrate.annotators, simrate.adjudications TO @organizers;
GRANT SELECT ON simrate.people, simrate.changes TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.my_name(), simrate.my_kind(), simrate.my_channel(),
                          simrate.people_list() TO @annotators, @organizers;
GRANT EXECUTE ON FUNCTION simrate.add_person(text, text, text, text, text),
                          simrate.remove_person(text) TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.announce(), simrate.announce_ratings(),
                          simrate.ack_replica(uuid, bigint, text) TO @annotators, @organizers;

ALTER TABLE simrate.ratings ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS organizers_all ON simrate.ratings;
CREATE POLICY organizers_all ON simrate.ratings TO @organizers USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS annotators_own ON simrate.ratings;
CREATE POLICY annotators_own ON simrate.ratings TO @annotators
  USING (annotator = (SELECT simrate.my_name()))
  WITH CHECK (annotator = (SELECT simrate.my_name()));

ALTER TABLE simrate.replicas ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS organizers_all ON simrate.replicas;
CREATE POLICY organizers_all ON simrate.replicas TO @organizers USING (true) WITH CHECK (true);
DROP POLICY IF EXISTS annotators_own ON simrate.replicas;
CREATE POLICY annotators_own ON simrate.replicas TO @annotators
  USING (login = session_user) WITH CHECK (login = session_user);
"""



def annotator_item_columns() -> str:
    """The columns of `simrate.items` an annotator's role may read: the ones an annotator's
    copy carries (rules.ANNOTATOR_ITEM_COLUMNS, the one list; the file's `item_id` is the
    hub's `id`), with the order and the sequence number a replica pulls by."""
    hub_names = {"item_id": "id"}
    columns = ("ord", *(hub_names.get(c, c) for c in rules.ANNOTATOR_ITEM_COLUMNS), "seq")
    return ", ".join(quote_ident(c) for c in columns)


SECURITY_SQL = SECURITY_SQL_TEMPLATE.replace("@annotator_item_columns",
                                             annotator_item_columns())

# PostgreSQL shows every login of a database its statistics (write counts per table, who
# is connected), the role list, the lock table, the advisory locks that time our writes
# and the server's transaction counter (how many writes happen, whoever makes them). All are granted to PUBLIC by catalog objects only a superuser may change, and
# only in this database: run by a superuser, this closes them to everyone but the
# organizers (and the owner, which needs the role list and the transaction ids of its stamps).
HARDEN_SQL = r"""
DO $$
DECLARE
  target text;
BEGIN
  FOR target IN
    SELECT format('%s.%I', 'pg_catalog', c.relname) FROM pg_class c
    WHERE c.relnamespace = 'pg_catalog'::regnamespace AND c.relkind = 'v'
      AND (c.relname LIKE 'pg\_stat\_%' OR c.relname LIKE 'pg\_statio\_%'
           OR c.relname IN ('pg_locks', 'pg_roles', 'pg_user', 'pg_group'))
    UNION ALL SELECT 'pg_catalog.pg_auth_members'
  LOOP
    EXECUTE format('REVOKE ALL ON %s FROM PUBLIC', target);
    EXECUTE format('GRANT SELECT ON %s TO %I, %I, pg_read_all_stats', target,
                   @organizers_lit, @owner_lit);
  END LOOP;
  FOR target IN
    SELECT p.oid::regprocedure::text FROM pg_proc p
    WHERE p.pronamespace = 'pg_catalog'::regnamespace
      AND (p.proname LIKE 'pg\_stat\_get\_%' OR p.proname LIKE '%advisory%'
           OR p.proname IN ('pg_lock_status', 'pg_blocking_pids',
                            'pg_safe_snapshot_blocking_pids', 'pg_relation_size',
                            'pg_table_size', 'pg_total_relation_size', 'pg_indexes_size',
                            'pg_database_size', 'txid_current', 'txid_current_if_assigned',
                            'txid_current_snapshot', 'pg_current_xact_id',
                            'pg_current_xact_id_if_assigned', 'pg_current_snapshot',
                            'pg_last_committed_xact', 'mxid_age')
           OR p.oid = 'pg_catalog.age(xid)'::regprocedure)
  LOOP
    EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', target);
    EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I, %I, pg_read_all_stats', target,
                   @organizers_lit, @owner_lit);
  END LOOP;
END $$;
"""

# Annotators added by an older simrate have no connection limit: publishing again gives
# them one (a limit an administrator set by hand is left alone).
LIMITS_SQL = """
DO $$
DECLARE
  person_login text;
BEGIN
  FOR person_login IN
    SELECT p.login FROM simrate.people p JOIN pg_roles r ON r.rolname = p.login
    WHERE p.kind = 'annotator' AND p.removed_at IS NULL AND r.rolconnlimit = -1
  LOOP
    EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', person_login, @annotator_limit);
  END LOOP;
END $$;
"""
