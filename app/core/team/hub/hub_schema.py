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

Every write gets a number from one sequence (`seq`), taken under a transaction-scoped
advisory lock that is held until commit. Writers therefore commit in sequence order, and
a replica that has seen everything up to `seq` = N never later meets a row below N: its
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
"""

from __future__ import annotations

import hashlib
import re

#: Version of the hub schema; a hub made by a newer simrate is refused with a clear line.
HUB_SCHEMA_VERSION = 2
#: NOTIFY channel for items and settings, which every role reads (notifications are per
#: database); other writes go to secret channels (`simrate.my_channel()`).
CHANNEL = "simrate"
#: Connections one annotator's login may hold at once (`CONNECTION LIMIT`): a window
#: holds one only during a round, `team sync` one, so two machines of one person fit;
#: organizers have no limit, so annotators can never take their slots.
ANNOTATOR_CONNECTION_LIMIT = 2
#: Advisory lock key that serializes sequence stamps (per database).
CLOCK_LOCK = 7305820
#: Tables a replica pulls from, in the order it applies them.
PULLED_TABLES = ("settings", "items", "annotators", "ratings", "adjudications")


def quote_ident(name: str) -> str:
    """A PostgreSQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(text: str) -> str:
    """A PostgreSQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def role_names(dbname: str) -> dict[str, str]:
    """The owner and group role names of the hub in database `dbname`.

    Role names are shared by the whole server, so they carry the database's name and a
    short hash of it (two databases whose names differ only in punctuation stay apart).
    """
    slug = re.sub(r"[^a-z0-9]+", "_", dbname.lower()).strip("_")[:20] or "db"
    tag = hashlib.sha1(dbname.encode("utf-8")).hexdigest()[:6]
    prefix = f"simrate_{slug}_{tag}"
    return {"owner": f"{prefix}_owner", "annotators": f"{prefix}_annotators",
            "organizers": f"{prefix}_organizers"}


def login_name(person: str) -> str:
    """A login role name for a person: lower case letters, digits and underscores."""
    slug = re.sub(r"[^a-z0-9]+", "_", person.lower()).strip("_")[:40]
    if not slug:
        slug = "person_" + hashlib.sha1(person.encode("utf-8")).hexdigest()[:8]
    return slug if slug[0].isalpha() else "p_" + slug


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

TABLES_SQL = """
CREATE TABLE IF NOT EXISTS simrate.hub (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE IF NOT EXISTS simrate.clock;
CREATE TABLE IF NOT EXISTS simrate.settings (
    key text PRIMARY KEY, value text NOT NULL,
    seq bigint NOT NULL DEFAULT 0, login text NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS simrate.items (
    ord integer PRIMARY KEY, id text NOT NULL UNIQUE, "left" text NOT NULL,
    "right" text NOT NULL, dataset text NOT NULL DEFAULT '', genre text NOT NULL DEFAULT '',
    reference double precision, meta text, source text NOT NULL DEFAULT '',
    seq bigint NOT NULL DEFAULT 0, login text NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS simrate.people (
    login text PRIMARY KEY, annotator text NOT NULL UNIQUE,
    kind text NOT NULL CHECK (kind IN ('annotator', 'organizer')),
    added_at timestamptz NOT NULL DEFAULT now(), removed_at timestamptz);
CREATE TABLE IF NOT EXISTS simrate.annotators (
    name text PRIMARY KEY, excluded boolean NOT NULL DEFAULT false,
    seq bigint NOT NULL DEFAULT 0, login text NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS simrate.ratings (
    item_id text NOT NULL REFERENCES simrate.items (id), annotator text NOT NULL,
    code integer, note text NOT NULL DEFAULT '', skipped boolean NOT NULL DEFAULT false,
    seconds double precision, updated_at double precision NOT NULL,
    seq bigint NOT NULL DEFAULT 0, login text NOT NULL DEFAULT '',
    PRIMARY KEY (item_id, annotator));
CREATE TABLE IF NOT EXISTS simrate.adjudications (
    item_id text PRIMARY KEY REFERENCES simrate.items (id), code integer,
    note text NOT NULL DEFAULT '', by text NOT NULL DEFAULT '', at double precision NOT NULL,
    seq bigint NOT NULL DEFAULT 0, login text NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS simrate.changes (
    seq bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), login text NOT NULL,
    kind text NOT NULL, item_id text, annotator text, old jsonb, new jsonb);
CREATE TABLE IF NOT EXISTS simrate.secret (key text NOT NULL);
INSERT INTO simrate.secret (key) SELECT md5(gen_random_uuid()::text || clock_timestamp()::text)
WHERE NOT EXISTS (SELECT 1 FROM simrate.secret);
CREATE TABLE IF NOT EXISTS simrate.replicas (
    replica uuid PRIMARY KEY, login text NOT NULL DEFAULT session_user,
    acked bigint NOT NULL DEFAULT 0, last_seen timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS settings_seq ON simrate.settings (seq);
CREATE INDEX IF NOT EXISTS items_seq ON simrate.items (seq);
CREATE INDEX IF NOT EXISTS annotators_seq ON simrate.annotators (seq);
CREATE INDEX IF NOT EXISTS ratings_seq ON simrate.ratings (seq);
CREATE INDEX IF NOT EXISTS adjudications_seq ON simrate.adjudications (seq);
"""

FUNCTIONS_SQL = """
CREATE OR REPLACE FUNCTION simrate.stamp() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF current_setting('simrate.rehearsal', true) = 'on' THEN
    -- a rehearsal (exchange.py), undone before commit: no lock, and a number below every
    -- watermark, so that no replica would ever pull the row
    NEW.seq := -nextval('simrate.clock');
  ELSE
    -- held until commit: writers commit in the order of their sequence numbers
    PERFORM pg_advisory_xact_lock(@clock_lock);
    NEW.seq := nextval('simrate.clock');
  END IF;
  NEW.login := session_user;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION simrate.log_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  new_row jsonb := to_jsonb(NEW) - 'seq' - 'login';
  old_row jsonb := CASE WHEN TG_OP = 'UPDATE' THEN to_jsonb(OLD) - 'login' END;
BEGIN
  INSERT INTO simrate.changes (seq, login, kind, item_id, annotator, old, new)
  VALUES (NEW.seq, session_user, TG_TABLE_NAME, new_row ->> 'item_id',
          COALESCE(new_row ->> 'annotator', new_row ->> 'name'), old_row, new_row);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION simrate.channel_for(whom text) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT 'simrate_' || substr(md5(key || ':' || whom), 1, 24) FROM simrate.secret LIMIT 1
$$;

-- items and settings: every role reads them, so everyone may hear of them
CREATE OR REPLACE FUNCTION simrate.announce() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF TG_TABLE_NAME IN ('items', 'settings') THEN
    PERFORM pg_notify(@channel, TG_TABLE_NAME);
  END IF;
  PERFORM pg_notify(simrate.channel_for('*organizers'), TG_TABLE_NAME);
  RETURN NULL;
END $$;

-- ratings: the organizers, and the annotators whose ratings these are, each on their own
CREATE OR REPLACE FUNCTION simrate.announce_ratings() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM pg_notify(simrate.channel_for('*organizers'), TG_TABLE_NAME);
  PERFORM pg_notify(simrate.channel_for(p.login), TG_TABLE_NAME)
  FROM (SELECT DISTINCT annotator FROM changed_rows) c
  JOIN simrate.people p ON p.annotator = c.annotator;
  RETURN NULL;
END $$;


CREATE OR REPLACE FUNCTION simrate.my_name() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT annotator FROM simrate.people WHERE login = session_user AND removed_at IS NULL
$$;

CREATE OR REPLACE FUNCTION simrate.my_kind() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE
    WHEN (SELECT rolsuper FROM pg_roles WHERE rolname = session_user) THEN 'organizer'
    WHEN pg_has_role(session_user, @organizers_lit, 'MEMBER') THEN 'organizer'
    WHEN pg_has_role(session_user, @annotators_lit, 'MEMBER') THEN 'annotator'
  END
$$;

CREATE OR REPLACE FUNCTION simrate.my_channel() RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT CASE simrate.my_kind()
    WHEN 'organizer' THEN simrate.channel_for('*organizers')
    WHEN 'annotator' THEN simrate.channel_for(session_user)
  END
$$;

-- the people an annotator may know of: themselves; organizers know everyone
CREATE OR REPLACE FUNCTION simrate.people_list()
RETURNS TABLE (login text, annotator text, kind text, added_at timestamptz,
               removed_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT p.login, p.annotator, p.kind, p.added_at, p.removed_at FROM simrate.people p
  WHERE simrate.my_kind() = 'organizer' OR p.login = session_user
  ORDER BY p.kind DESC, p.annotator
$$;

CREATE OR REPLACE FUNCTION simrate.add_person(person text, person_login text, person_kind text,
                                              verifier text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  wanted text := CASE person_kind WHEN 'annotator' THEN @annotators_lit
                                  WHEN 'organizer' THEN @organizers_lit END;
  other text := CASE person_kind WHEN 'annotator' THEN @organizers_lit
                                 ELSE @annotators_lit END;
BEGIN
  IF wanted IS NULL THEN
    RAISE EXCEPTION 'a role is annotator or organizer, not %', person_kind;
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.people WHERE annotator = person AND login <> person_login
             AND removed_at IS NULL) THEN
    RAISE EXCEPTION '% is already on this hub under another login', person;
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.people WHERE login = person_login AND annotator <> person)
  THEN
    RAISE EXCEPTION 'the login % is another person''s on this hub', person_login;
  END IF;
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = person_login) THEN
    IF NOT EXISTS (SELECT 1 FROM simrate.people WHERE login = person_login) THEN
      RAISE EXCEPTION 'a PostgreSQL role named % exists and is not one of this hub''s people',
        person_login;
    END IF;
    EXECUTE format('ALTER ROLE %I LOGIN', person_login);
  ELSE
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT',
                   person_login);
  END IF;
  IF pg_has_role(person_login, other, 'MEMBER') THEN
    EXECUTE format('REVOKE %I FROM %I', other, person_login);
  END IF;
  EXECUTE format('GRANT %I TO %I', wanted, person_login);
  -- annotators can never take the last slots: a few connections each (a window holds
  -- none between rounds); organizers are not limited
  EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', person_login,
                 CASE person_kind WHEN 'annotator' THEN @annotator_limit ELSE -1 END);
  IF verifier IS NOT NULL THEN
    EXECUTE format('ALTER ROLE %I PASSWORD %L', person_login, verifier);
  END IF;
  INSERT INTO simrate.people (login, annotator, kind) VALUES (person_login, person, person_kind)
  ON CONFLICT (login) DO UPDATE SET annotator = EXCLUDED.annotator, kind = EXCLUDED.kind,
                                    removed_at = NULL;
END $$;

CREATE OR REPLACE FUNCTION simrate.remove_person(person text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found_login text;
BEGIN
  SELECT login INTO found_login FROM simrate.people WHERE annotator = person
    AND removed_at IS NULL;
  IF found_login IS NULL THEN
    RAISE EXCEPTION '% is not one of this hub''s people', person;
  END IF;
  IF pg_has_role(found_login, @annotators_lit, 'MEMBER') THEN
    EXECUTE format('REVOKE %I FROM %I', @annotators_lit, found_login);
  END IF;
  IF pg_has_role(found_login, @organizers_lit, 'MEMBER') THEN
    EXECUTE format('REVOKE %I FROM %I', @organizers_lit, found_login);
  END IF;
  EXECUTE format('ALTER ROLE %I NOLOGIN', found_login);
  UPDATE simrate.people SET removed_at = now() WHERE login = found_login;
  RETURN found_login;
END $$;
"""

STAMPED = ("settings", "items", "annotators", "ratings", "adjudications")
LOGGED = ("settings", "annotators", "ratings", "adjudications")


def triggers_sql() -> str:
    """Triggers: a sequence stamp on every write, the change log, NOTIFY per statement."""
    parts = []
    for table in STAMPED:
        parts.append(f"""
DROP TRIGGER IF EXISTS stamp ON simrate.{table};
CREATE TRIGGER stamp BEFORE INSERT OR UPDATE ON simrate.{table}
  FOR EACH ROW EXECUTE FUNCTION simrate.stamp();
DROP TRIGGER IF EXISTS announce ON simrate.{table};""")
        if table == "ratings":  # whose ratings changed: from the statement's new rows
            parts.append("""
DROP TRIGGER IF EXISTS announce_insert ON simrate.ratings;
CREATE TRIGGER announce_insert AFTER INSERT ON simrate.ratings
  REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION simrate.announce_ratings();
DROP TRIGGER IF EXISTS announce_update ON simrate.ratings;
CREATE TRIGGER announce_update AFTER UPDATE ON simrate.ratings
  REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT EXECUTE FUNCTION simrate.announce_ratings();""")
        else:
            parts.append(f"""
CREATE TRIGGER announce AFTER INSERT OR UPDATE ON simrate.{table}
  FOR EACH STATEMENT EXECUTE FUNCTION simrate.announce();""")
    for table in LOGGED:
        parts.append(f"""
DROP TRIGGER IF EXISTS log_change ON simrate.{table};
CREATE TRIGGER log_change AFTER INSERT OR UPDATE ON simrate.{table}
  FOR EACH ROW EXECUTE FUNCTION simrate.log_change();""")
    return "\n".join(parts)


SECURITY_SQL = """
REVOKE ALL ON SCHEMA simrate FROM PUBLIC;
GRANT USAGE ON SCHEMA simrate TO @annotators, @organizers;
REVOKE ALL ON ALL TABLES IN SCHEMA simrate FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA simrate FROM PUBLIC;
GRANT SELECT ON simrate.hub TO @annotators, @organizers;
GRANT SELECT ON simrate.settings, simrate.items TO @organizers;
-- annotators: no reference score, item metadata, source path or login (see blind.py)
REVOKE ALL ON simrate.items, simrate.settings FROM @annotators;
GRANT SELECT (ord, id, "left", "right", dataset, genre, seq) ON simrate.items TO @annotators;
GRANT SELECT (key, value, seq) ON simrate.settings TO @annotators;
GRANT SELECT, INSERT, UPDATE ON simrate.ratings, simrate.replicas TO @annotators, @organizers;
GRANT INSERT, UPDATE ON simrate.settings, simrate.items TO @organizers;
GRANT SELECT, INSERT, UPDATE ON simrate.annotators, simrate.adjudications TO @organizers;
GRANT SELECT ON simrate.people, simrate.changes TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.my_name(), simrate.my_kind(), simrate.my_channel(),
                          simrate.people_list() TO @annotators, @organizers;
GRANT EXECUTE ON FUNCTION simrate.add_person(text, text, text, text),
                          simrate.remove_person(text) TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.announce(), simrate.announce_ratings()
  TO @annotators, @organizers;

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

# PostgreSQL shows every login of a database its statistics (write counts per table, who
# is connected), the role list, the lock table, the advisory locks that time our writes
# and the server's transaction counter (how many writes happen, whoever makes them). All are granted to PUBLIC by catalog objects only a superuser may change, and
# only in this database: run by a superuser, this closes them to everyone but the
# organizers (and the owner, which needs the role list and the sequence lock).
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


#: Seconds a rating's edit time may lie ahead of the hub's clock; a later stamp (a machine
#: whose clock is far ahead) is replaced by the hub's time.
MAX_CLOCK_LEAD = 60

#: The edit made later wins, whatever order replicas push in: an update of a rating whose
#: edit time is not after the stored one is refused (and, when its value differs, logged as
#: `ratings_refused` with both values), on every route a client has, plain UPDATE included.
LATER_EDIT_SQL = """
CREATE OR REPLACE FUNCTION simrate.keep_later_edit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  hub_now double precision := extract(epoch FROM clock_timestamp());
BEGIN
  IF NEW.updated_at > hub_now + @max_lead THEN
    NEW.updated_at := hub_now;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.updated_at <= OLD.updated_at
     AND (NEW.item_id, NEW.annotator) = (OLD.item_id, OLD.annotator) THEN
    IF (NEW.code, NEW.note, NEW.skipped) IS DISTINCT FROM (OLD.code, OLD.note, OLD.skipped)
       AND current_setting('simrate.rehearsal', true) IS DISTINCT FROM 'on' THEN
      PERFORM pg_advisory_xact_lock(@clock_lock);
      INSERT INTO simrate.changes (seq, login, kind, item_id, annotator, old, new)
      VALUES (nextval('simrate.clock'), session_user, 'ratings_refused', OLD.item_id,
              OLD.annotator, to_jsonb(OLD) - 'login', to_jsonb(NEW) - 'seq' - 'login');
    END IF;
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION simrate.keep_later_edit() FROM PUBLIC;
-- machine raters travel as machines, so no replica counts them among the humans
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'human';
DROP TRIGGER IF EXISTS keep_later_edit ON simrate.ratings;
CREATE TRIGGER keep_later_edit BEFORE INSERT OR UPDATE ON simrate.ratings
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_later_edit();
"""


def fill(template: str, roles: dict[str, str]) -> str:
    """The template with role names, the channel and the lock key put in."""
    text = template
    for key, name in roles.items():
        text = text.replace(f"@{key}_lit", quote_literal(name))
        text = text.replace(f"@{key}", quote_ident(name))
    text = text.replace("@channel", quote_literal(CHANNEL))
    text = text.replace("@max_lead", str(MAX_CLOCK_LEAD))
    text = text.replace("@annotator_limit", str(ANNOTATOR_CONNECTION_LIMIT))
    return text.replace("@clock_lock", str(CLOCK_LOCK))


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


def schema_statements(roles: dict[str, str]) -> list[str]:
    """The SQL that creates (or brings up to date) the schema, run as the owner role."""
    return [fill(TABLES_SQL, roles), fill(FUNCTIONS_SQL, roles), triggers_sql(),
            fill(SECURITY_SQL, roles), fill(LATER_EDIT_SQL, roles), fill(LIMITS_SQL, roles),
            *web_statements(roles)]


# ----------------------------------------------------------------- web studies (issue 24)
# `simrate serve` on an organizer's replica talks to the hub as a login of the web group
# role (`<prefix>_web`), which has no privilege on any table: it may only call the four
# functions below, which lease tasks (`FOR UPDATE SKIP LOCKED`: concurrent leases never
# take one pool row twice, and a row's count is checked again once it is locked, so no
# item gets more than R web ratings) and insert ratings for the worker of the task whose
# secret cookie and token the request carries. Crowd workers are annotators of kind
# `crowd`; their ratings go into `ratings` with the usual stamps, so they reach the
# organizers' replicas (and no annotator's: row-level security) by the usual pull.
# Refusals carry SQLSTATEs `SR4xx` whose last three digits are the HTTP status.

#: The name of the web group role and of the web login, from the owner role's name.
def web_role_names(roles: dict[str, str]) -> dict[str, str]:
    """{'web': group role, 'weblogin': the login `simrate serve` uses} of a hub."""
    prefix = roles["owner"].removesuffix("_owner")
    return {"web": f"{prefix}_web", "weblogin": f"{prefix}_webserver"}


WEB_TABLES_SQL = """
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @web_lit) THEN
    CREATE ROLE @web NOLOGIN;
  END IF;
END $$;
GRANT USAGE ON SCHEMA simrate TO @web;
CREATE TABLE IF NOT EXISTS simrate.web_studies (
    name text PRIMARY KEY, per_task integer NOT NULL, checks integer NOT NULL,
    per_item integer NOT NULL, lease_minutes double precision NOT NULL,
    completion_url text NOT NULL DEFAULT '', code text NOT NULL, secret text NOT NULL,
    open boolean NOT NULL DEFAULT true, created_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS simrate.web_pool (
    study text NOT NULL REFERENCES simrate.web_studies (name),
    item_id text NOT NULL REFERENCES simrate.items (id),
    is_check boolean NOT NULL DEFAULT false, used integer NOT NULL DEFAULT 0,
    rank integer NOT NULL, PRIMARY KEY (study, item_id));
CREATE INDEX IF NOT EXISTS web_pool_next ON simrate.web_pool (study, used, rank)
  WHERE NOT is_check;
CREATE SEQUENCE IF NOT EXISTS simrate.web_task_numbers;
CREATE TABLE IF NOT EXISTS simrate.web_tasks (
    study text NOT NULL REFERENCES simrate.web_studies (name), task text NOT NULL,
    worker text NOT NULL, session text NOT NULL DEFAULT '', cookie text NOT NULL UNIQUE,
    token text NOT NULL, state text NOT NULL CHECK (state IN ('leased', 'done', 'expired')),
    leased_at double precision NOT NULL, expires_at double precision NOT NULL,
    done_at double precision, PRIMARY KEY (study, task));
-- one live task per worker and study, whatever number of servers lease at once
CREATE UNIQUE INDEX IF NOT EXISTS web_tasks_one_live ON simrate.web_tasks (study, worker)
  WHERE state = 'leased';
CREATE INDEX IF NOT EXISTS web_tasks_worker ON simrate.web_tasks (worker, state);
CREATE INDEX IF NOT EXISTS web_tasks_expiry ON simrate.web_tasks (study, expires_at)
  WHERE state = 'leased';
CREATE TABLE IF NOT EXISTS simrate.web_slots (
    study text NOT NULL, task text NOT NULL, slot integer NOT NULL,
    item_id text NOT NULL REFERENCES simrate.items (id), is_check boolean NOT NULL,
    rated_at double precision, seconds double precision,
    PRIMARY KEY (study, task, slot),
    FOREIGN KEY (study, task) REFERENCES simrate.web_tasks (study, task));
CREATE INDEX IF NOT EXISTS web_slots_item ON simrate.web_slots (study, item_id);
"""

WEB_FUNCTIONS_SQL = r"""
-- the settings of a study (the server computes the landing page's start token from them)
CREATE OR REPLACE FUNCTION simrate.web_study(p_name text)
RETURNS TABLE (name text, per_task integer, checks integer, per_item integer,
               lease_minutes double precision, completion_url text, code text, secret text,
               open boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT s.name, s.per_task, s.checks, s.per_item, s.lease_minutes, s.completion_url,
         s.code, s.secret, s.open FROM simrate.web_studies s WHERE s.name = p_name
$$;

CREATE OR REPLACE FUNCTION simrate.web_lease_row(p_study text, p_task text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT t.task, t.worker, t.cookie, t.token, t.state,
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task),
         (SELECT count(*)::integer FROM simrate.web_slots s
          WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NOT NULL),
         t.expires_at
  FROM simrate.web_tasks t WHERE t.study = p_study AND t.task = p_task
$$;

-- leases past their time go back to the pool: their unrated slots stop counting (the
-- ratings they got stay). p_worker NULL: any worker's, skipping tasks another
-- transaction holds; else that worker's, waiting for them.
CREATE OR REPLACE FUNCTION simrate.web_expire(p_study text, p_worker text,
                                              p_now double precision)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  tasks_ text[];
  ids text[];
  counts integer[];
BEGIN
  IF p_worker IS NULL THEN
    SELECT array_agg(l.task) INTO tasks_ FROM (
      SELECT t.task FROM simrate.web_tasks t
      WHERE t.study = p_study AND t.state = 'leased' AND t.expires_at <= p_now
      FOR UPDATE SKIP LOCKED) l;
  ELSE
    SELECT array_agg(l.task) INTO tasks_ FROM (
      SELECT t.task FROM simrate.web_tasks t
      WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'leased'
        AND t.expires_at <= p_now FOR UPDATE) l;
  END IF;
  IF tasks_ IS NULL THEN
    RETURN;
  END IF;
  UPDATE simrate.web_tasks t SET state = 'expired'
  WHERE t.study = p_study AND t.task = ANY (tasks_) AND t.state = 'leased';
  SELECT array_agg(q.item_id ORDER BY q.item_id), array_agg(q.n ORDER BY q.item_id)
  INTO ids, counts FROM (
    SELECT s.item_id, count(*)::integer AS n FROM simrate.web_slots s
    WHERE s.study = p_study AND s.task = ANY (tasks_) AND NOT s.is_check
      AND s.rated_at IS NULL GROUP BY s.item_id) q;
  IF ids IS NULL THEN
    RETURN;
  END IF;
  -- rows locked in one order by every expiring transaction: no deadlock between them
  PERFORM 1 FROM simrate.web_pool p WHERE p.study = p_study AND p.item_id = ANY (ids)
  ORDER BY p.item_id FOR UPDATE;
  UPDATE simrate.web_pool p SET used = p.used - u.n
  FROM unnest(ids, counts) AS u(item_id, n)
  WHERE p.study = p_study AND p.item_id = u.item_id;
END $$;

CREATE OR REPLACE FUNCTION simrate.web_refuse(message text, status integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING MESSAGE = message, ERRCODE = 'SR' || status::text;
END $$;

CREATE OR REPLACE FUNCTION simrate.web_open_study(p_study text)
RETURNS simrate.web_studies
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  st simrate.web_studies;
BEGIN
  SELECT * INTO st FROM simrate.web_studies WHERE name = p_study;
  IF NOT FOUND THEN
    PERFORM simrate.web_refuse('no such study', 404);
  END IF;
  IF NOT st.open THEN
    PERFORM simrate.web_refuse('this study is closed', 410);
  END IF;
  RETURN st;
END $$;

-- the worker's live task in the study, or a new one of K items and C check items
CREATE OR REPLACE FUNCTION simrate.web_lease(p_study text, p_worker text, p_session text,
                                             p_cookie text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
#variable_conflict use_column
DECLARE
  st simrate.web_studies;
  now_ double precision := extract(epoch FROM clock_timestamp());
  live simrate.web_tasks;
  picked text[];
  checks_ text[];
  slot_items text[];
  slot_checks boolean[];
  one text;
  pos integer;
  new_task text;
BEGIN
  st := simrate.web_open_study(p_study);
  IF p_worker IS NULL OR p_worker !~ '^[A-Za-z0-9][A-Za-z0-9_.@:-]{0,99}$' THEN
    PERFORM simrate.web_refuse('the link lacks a valid worker id (PROLIFIC_PID or worker)',
                               400);
  END IF;
  p_session := CASE WHEN coalesce(p_session, '') ~ '^[A-Za-z0-9_.:-]{0,100}$'
                    THEN coalesce(p_session, '') ELSE '' END;
  -- one worker's leases one at a time (two tabs pressing Start at once get one task)
  PERFORM pg_advisory_xact_lock(@web_lock, hashtext(p_study || '|' || p_worker));
  PERFORM simrate.web_expire(p_study, NULL, now_);
  PERFORM simrate.web_expire(p_study, p_worker, now_);
  SELECT * INTO live FROM simrate.web_tasks t
  WHERE t.study = p_study AND t.worker = p_worker AND t.state = 'leased';
  IF FOUND THEN
    IF (coalesce(p_cookie, '') <> '' AND live.cookie = p_cookie)
       OR (p_session <> '' AND live.session = p_session) THEN
      RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, live.task);
      RETURN;
    END IF;
    PERFORM simrate.web_refuse('this worker already has a task open in another browser; '
                               'go back to it, or wait until it times out', 409);
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = p_worker AND a.kind <> 'crowd')
     OR EXISTS (SELECT 1 FROM simrate.people p WHERE p.annotator = p_worker) THEN
    PERFORM simrate.web_refuse('this worker id cannot be used for this study', 403);
  END IF;
  SELECT array_agg(q.item_id ORDER BY q.used, q.rank) INTO picked FROM (
    SELECT p.item_id, p.used, p.rank FROM simrate.web_pool p
    WHERE p.study = p_study AND NOT p.is_check AND p.used < st.per_item
      AND NOT EXISTS (SELECT 1 FROM simrate.ratings r
                      WHERE r.item_id = p.item_id AND r.annotator = p_worker)
      AND NOT EXISTS (SELECT 1 FROM simrate.web_slots s JOIN simrate.web_tasks t
                      ON t.study = s.study AND t.task = s.task
                      WHERE t.worker = p_worker AND t.state = 'leased'
                        AND s.item_id = p.item_id)
    ORDER BY p.used, p.rank LIMIT st.per_task
    FOR UPDATE OF p SKIP LOCKED) q;
  IF picked IS NULL THEN
    PERFORM simrate.web_refuse('there is no task left in this study for you; thank you', 410);
  END IF;
  IF st.checks > 0 THEN
    SELECT array_agg(q.item_id) INTO checks_ FROM (
      SELECT p.item_id FROM simrate.web_pool p
      WHERE p.study = p_study AND p.is_check
        AND NOT EXISTS (SELECT 1 FROM simrate.ratings r
                        WHERE r.item_id = p.item_id AND r.annotator = p_worker)
      ORDER BY random() LIMIT st.checks) q;
  END IF;
  slot_items := picked;
  slot_checks := array_fill(false, ARRAY[cardinality(picked)]);
  FOREACH one IN ARRAY coalesce(checks_, '{}'::text[]) LOOP
    pos := floor(random() * (cardinality(slot_items) + 1))::integer;
    slot_items := slot_items[1:pos] || one || slot_items[pos + 1:];
    slot_checks := slot_checks[1:pos] || true || slot_checks[pos + 1:];
  END LOOP;
  IF NOT EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = p_worker) THEN
    INSERT INTO simrate.annotators (name, kind) VALUES (p_worker, 'crowd')
    ON CONFLICT (name) DO NOTHING;
  END IF;
  new_task := 'w' || lpad(nextval('simrate.web_task_numbers')::text, 6, '0');
  INSERT INTO simrate.web_tasks (study, task, worker, session, cookie, token, state,
                                 leased_at, expires_at)
  VALUES (p_study, new_task, p_worker, p_session,
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          replace(gen_random_uuid()::text, '-', '') || replace(gen_random_uuid()::text, '-', ''),
          'leased', now_, now_ + st.lease_minutes * 60);
  INSERT INTO simrate.web_slots (study, task, slot, item_id, is_check)
  SELECT p_study, new_task, n, slot_items[n], slot_checks[n]
  FROM generate_subscripts(slot_items, 1) AS n;
  UPDATE simrate.web_pool p SET used = p.used + 1
  WHERE p.study = p_study AND p.item_id = ANY (picked);
  RETURN QUERY SELECT * FROM simrate.web_lease_row(p_study, new_task);
END $$;

-- the task a cookie names, with its first unrated slot and that item's texts
CREATE OR REPLACE FUNCTION simrate.web_task(p_study text, p_cookie text)
RETURNS TABLE (task text, worker text, cookie text, token text, state text, size integer,
               rated integer, expires_at double precision, slot integer, item_left text,
               item_right text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT l.*, n.slot, n."left", n."right"
  FROM simrate.web_tasks t
  CROSS JOIN LATERAL simrate.web_lease_row(t.study, t.task) l
  LEFT JOIN LATERAL (
    SELECT s.slot, i."left", i."right" FROM simrate.web_slots s
    JOIN simrate.items i ON i.id = s.item_id
    WHERE s.study = t.study AND s.task = t.task AND s.rated_at IS NULL
    ORDER BY s.slot LIMIT 1) n ON true
  WHERE t.study = p_study AND t.cookie = p_cookie
$$;

-- one rating for the worker of the task that the cookie and token name: 'saved', or
-- 'again' for a slot rated already (a resent form: nothing doubled), or 'done'
CREATE OR REPLACE FUNCTION simrate.web_rate(p_study text, p_cookie text, p_token text,
                                            p_slot integer, p_code integer)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  t simrate.web_tasks;
  s simrate.web_slots;
  now_ double precision := extract(epoch FROM clock_timestamp());
  took double precision;
BEGIN
  SELECT * INTO t FROM simrate.web_tasks w
  WHERE w.study = p_study AND w.cookie = p_cookie FOR UPDATE;
  IF NOT FOUND OR t.token IS DISTINCT FROM p_token THEN
    PERFORM simrate.web_refuse('this page has expired; open your study link again', 403);
  END IF;
  PERFORM simrate.web_open_study(p_study);
  IF t.state = 'done' THEN
    RETURN 'done';
  END IF;
  IF t.state <> 'leased' OR t.expires_at <= now_ THEN
    PERFORM simrate.web_refuse('the time for this task ran out; open your study link again '
                               'for a new one', 409);
  END IF;
  SELECT * INTO s FROM simrate.web_slots w
  WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
  IF NOT FOUND THEN
    PERFORM simrate.web_refuse('no such item in this task', 400);
  END IF;
  IF s.rated_at IS NOT NULL THEN
    RETURN 'again';
  END IF;
  IF p_code IS NULL THEN
    PERFORM simrate.web_refuse('the score must be a value of the scale', 400);
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = t.worker AND a.kind <> 'crowd')
  THEN
    PERFORM simrate.web_refuse('this worker id cannot be used for this study', 403);
  END IF;
  IF EXISTS (SELECT 1 FROM simrate.ratings r WHERE r.item_id = s.item_id
             AND r.annotator = t.worker) THEN
    PERFORM simrate.web_refuse('this item was rated already', 409);
  END IF;
  took := round(greatest(0, now_ - greatest(t.leased_at, coalesce(
    (SELECT max(w.rated_at) FROM simrate.web_slots w
     WHERE w.study = p_study AND w.task = t.task), t.leased_at)))::numeric, 3);
  INSERT INTO simrate.ratings (item_id, annotator, code, note, skipped, seconds, updated_at)
  VALUES (s.item_id, t.worker, p_code, '', false, took, now_);
  UPDATE simrate.web_slots w SET rated_at = now_, seconds = took
  WHERE w.study = p_study AND w.task = t.task AND w.slot = p_slot;
  IF NOT EXISTS (SELECT 1 FROM simrate.web_slots w WHERE w.study = p_study
                 AND w.task = t.task AND w.rated_at IS NULL) THEN
    UPDATE simrate.web_tasks w SET state = 'done', done_at = now_
    WHERE w.study = p_study AND w.task = t.task;
    RETURN 'done';
  END IF;
  RETURN 'saved';
END $$;

-- organizers: create, change or close a study; its pool is every item of the hub but the
-- check items named (which go in as check items); re-running adds items added since
CREATE OR REPLACE FUNCTION simrate.web_set_study(
    p_name text, p_per_task integer, p_checks integer, p_per_item integer,
    p_lease_minutes double precision, p_completion_url text, p_open boolean,
    p_check_ids text[], p_code text, p_secret text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  INSERT INTO simrate.web_studies AS w (name, per_task, checks, per_item, lease_minutes,
                                        completion_url, code, secret, open)
  VALUES (p_name, p_per_task, p_checks, p_per_item, p_lease_minutes, p_completion_url,
          p_code, p_secret, p_open)
  ON CONFLICT (name) DO UPDATE SET per_task = EXCLUDED.per_task, checks = EXCLUDED.checks,
    per_item = EXCLUDED.per_item, lease_minutes = EXCLUDED.lease_minutes,
    completion_url = EXCLUDED.completion_url, open = EXCLUDED.open;
  IF p_open THEN
    INSERT INTO simrate.web_pool (study, item_id, is_check, used, rank)
    SELECT p_name, i.id, i.id = ANY (p_check_ids), 0, (random() * 2000000000)::integer
    FROM simrate.items i
    ON CONFLICT (study, item_id) DO UPDATE SET is_check = EXCLUDED.is_check
    WHERE simrate.web_pool.is_check IS DISTINCT FROM EXCLUDED.is_check;
    -- the planner learns the pool's size now, not at autovacuum's next look: the lease's
    -- pick takes half the time with it (9 against 17 ms at 200,000 pairs)
    ANALYZE simrate.web_pool;
  END IF;
END $$;

-- organizers: make (or give a new password to) the login simrate serve uses
CREATE OR REPLACE FUNCTION simrate.web_login(verifier text) RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = @weblogin_lit) THEN
    EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE INHERIT',
                   @weblogin_lit);
  END IF;
  EXECUTE format('GRANT %I TO %I', @web_lit, @weblogin_lit);
  EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', @weblogin_lit, verifier);
  RETURN @weblogin_lit;
END $$;

REVOKE ALL ON simrate.web_studies, simrate.web_pool, simrate.web_tasks, simrate.web_slots
  FROM PUBLIC;
REVOKE ALL ON SEQUENCE simrate.web_task_numbers FROM PUBLIC;
GRANT SELECT ON simrate.web_studies, simrate.web_pool, simrate.web_tasks, simrate.web_slots
  TO @organizers;
REVOKE ALL ON FUNCTION simrate.web_study(text), simrate.web_lease_row(text, text),
  simrate.web_expire(text, text, double precision), simrate.web_refuse(text, integer),
  simrate.web_open_study(text), simrate.web_lease(text, text, text, text),
  simrate.web_task(text, text), simrate.web_rate(text, text, text, integer, integer),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text),
  simrate.web_login(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.web_study(text), simrate.web_lease(text, text, text, text),
  simrate.web_task(text, text), simrate.web_rate(text, text, text, integer, integer)
  TO @web;
GRANT EXECUTE ON FUNCTION simrate.web_study(text),
  simrate.web_set_study(text, integer, integer, integer, double precision, text, boolean,
                        text[], text, text),
  simrate.web_login(text) TO @organizers;
"""

#: Advisory lock class of web leases (two-key locks: apart from the sequence stamp's).
WEB_LOCK = 7305821


def web_statements(roles: dict[str, str]) -> list[str]:
    """The web studies' tables, functions and privileges (run as the owner role)."""
    web = web_role_names(roles)
    # longer keys first: `@web` is the start of `@weblogin`
    names = {"weblogin": web["weblogin"], **roles, "web": web["web"]}
    return [fill(text.replace("@web_lock", str(WEB_LOCK)), names)
            for text in (WEB_TABLES_SQL, WEB_FUNCTIONS_SQL)]
