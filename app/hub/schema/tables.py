"""The hub's tables, the functions that stamp, log and announce each write, and their
triggers (see the package's docstring); the one writer of the hub's own settings
(`simrate.hub`), the people, the secret, the replicas and the change log. The later-edit rule and the
doors of ratings and verdicts: later_wins.py."""

from __future__ import annotations

TABLES_SQL = """
CREATE TABLE IF NOT EXISTS simrate.hub (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE IF NOT EXISTS simrate.clock;
-- taken once: every stamp of this hub lies above it (a hub upgraded from stamps taken
-- under one lock keeps all of those below the first stamp taken without it)
INSERT INTO simrate.hub (key, value)
SELECT 'stamp_base', (SELECT last_value FROM simrate.clock)::text
ON CONFLICT (key) DO NOTHING;
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
-- machine raters travel as machines, so no replica counts them among the humans
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'human';
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
-- an annotator's pull of her own ratings (sync_round; row-level security on a direct
-- link) reads hers since her mark, not every rater's written since then
CREATE INDEX IF NOT EXISTS ratings_annotator_seq ON simrate.ratings (annotator, seq);
CREATE INDEX IF NOT EXISTS adjudications_seq ON simrate.adjudications (seq);
"""

FUNCTIONS_SQL = """
-- A write's stamp: the writing transaction's id in the high bits and a draw of the
-- sequence in the low ones, above the hub's base. Writers take no lock: two transactions
-- stamp in the order of their ids, and the rows of one transaction in the order it wrote
-- them (STAMP_BITS in names.py says how many writes that order holds).
-- (The hot path's small functions are PL/pgSQL: a session keeps their plans, where an SQL
-- function with its own search_path is planned again at every call, 8x the CPU.)
CREATE OR REPLACE FUNCTION simrate.next_stamp() RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN (SELECT value::bigint FROM simrate.hub WHERE key = 'stamp_base')
         + (pg_current_xact_id()::text::bigint << @stamp_bits)
         + (nextval('simrate.clock') & ((1::bigint << @stamp_bits) - 1));
END $$;
REVOKE ALL ON FUNCTION simrate.next_stamp() FROM PUBLIC;

-- Where a pull stops: below the first stamp any transaction still running (or any that
-- begins later) can take. Every row under it is committed or undone for good, so a
-- watermark never passes a row that would become visible afterwards.
-- (stamp_cap: for the owner's own functions, which call it with no switch of search_path;
-- pull_cap: the same for the clients' pulls, as the owner)
CREATE OR REPLACE FUNCTION simrate.stamp_cap() RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT value::bigint FROM simrate.hub WHERE key = 'stamp_base')
         + (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << @stamp_bits);
END $$;
REVOKE ALL ON FUNCTION simrate.stamp_cap() FROM PUBLIC;
CREATE OR REPLACE FUNCTION simrate.pull_cap() RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  RETURN simrate.stamp_cap();
END $$;
REVOKE ALL ON FUNCTION simrate.pull_cap() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.pull_cap() TO @annotators, @organizers;

-- One entry of the change log for an edit the later-edit rule refused (ratings,
-- adjudications, exclusions: tables.py and later_wins.py), with both values.
CREATE OR REPLACE FUNCTION simrate.log_refused(p_kind text, p_item text, p_annotator text,
                                               p_old jsonb, p_new jsonb) RETURNS void
LANGUAGE sql VOLATILE AS $$
  INSERT INTO simrate.changes (seq, login, kind, item_id, annotator, old, new)
  VALUES (simrate.next_stamp(), session_user, p_kind, p_item, p_annotator,
          p_old - 'login', p_new - 'seq' - 'login')
$$;
REVOKE ALL ON FUNCTION simrate.log_refused(text, text, text, jsonb, jsonb) FROM PUBLIC;

-- The one write of a replica's row (the direct push, exchange.py; the sync service,
-- `sync_round`): made on its first round under its login (the caller's unless p_login),
-- locked, raised to p_upto and seen now; returns its acknowledged id before and its login,
-- or no row when the caller may not see it (another login's, row-level security). With
-- the caller's rights.
CREATE OR REPLACE FUNCTION simrate.ack_replica(p_replica uuid, p_upto bigint,
                                               p_login text DEFAULT NULL)
RETURNS TABLE (acked bigint, login text) LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  FOR attempt IN 1..2 LOOP  -- a known replica: one statement; a new one: made, then raised
    RETURN QUERY
    WITH before AS (SELECT r.replica, r.acked, r.login FROM simrate.replicas r
                    WHERE r.replica = p_replica FOR UPDATE),
         raised AS (UPDATE simrate.replicas r SET acked = GREATEST(r.acked, p_upto),
                                                  last_seen = now()
                    FROM before b WHERE r.replica = b.replica RETURNING 1)
    SELECT b.acked, b.login FROM before b;
    EXIT WHEN FOUND OR attempt = 2;
    INSERT INTO simrate.replicas AS r (replica, login)
    VALUES (p_replica, coalesce(p_login, session_user)) ON CONFLICT (replica) DO NOTHING;
  END LOOP;
END $$;

CREATE OR REPLACE FUNCTION simrate.stamp() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  -- always a stamp of the hub's: no setting a client may SET changes it (an older client's
  -- "rehearsal" setting once gave rows a number below every watermark, never pulled)
  NEW.seq := simrate.next_stamp();
  NEW.login := session_user;
  RETURN NEW;
END $$;

-- (the entry's login is the row's own, which `stamp` and a sync round's `stamp_acting`
-- set: the login that made the change, so the entry needs no acting trigger of its own)
CREATE OR REPLACE FUNCTION simrate.log_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  new_row jsonb := to_jsonb(NEW) - 'seq' - 'login';
  old_row jsonb := CASE WHEN TG_OP = 'UPDATE' THEN to_jsonb(OLD) - 'login' END;
BEGIN
  INSERT INTO simrate.changes (seq, login, kind, item_id, annotator, old, new)
  VALUES (NEW.seq, NEW.login, TG_TABLE_NAME, new_row ->> 'item_id',
          COALESCE(new_row ->> 'annotator', new_row ->> 'name'), old_row, new_row);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION simrate.channel_for(whom text) RETURNS text
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT 'simrate_' || substr(md5(key || ':' || whom), 1, 24)
          FROM simrate.secret LIMIT 1);
END $$;

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
-- (the news of ratings named by their raters; serve calls it after the commits of its
-- quiet calls, web_rate_show and sync_round: web.py grants it to the web role)
CREATE OR REPLACE FUNCTION simrate.announce_writes(p_names text[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM pg_notify(simrate.channel_for('*organizers'), 'ratings');
  PERFORM pg_notify(simrate.channel_for(p.login), 'ratings')
  FROM simrate.people p WHERE p.annotator = ANY (coalesce(p_names, '{}'));
END $$;
REVOKE ALL ON FUNCTION simrate.announce_writes(text[]) FROM PUBLIC;

CREATE OR REPLACE FUNCTION simrate.announce_ratings() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM simrate.announce_writes(ARRAY(SELECT DISTINCT annotator FROM changed_rows));
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

DROP FUNCTION IF EXISTS simrate.add_person(text, text, text, text);
-- person_key: the name's identity key (hub/schema/raters.py); a person is a human rater
CREATE OR REPLACE FUNCTION simrate.add_person(person text, person_login text, person_kind text,
                                              verifier text, person_key text DEFAULT NULL)
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
  -- one namespace: the rater of the name's key (`ANA` is `ana`); refused, naming the
  -- kind, when a crowd worker or machine rater holds it
  person := simrate.claim_rater(person, person_key, 'human');
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


#: When a statement's NOTIFY is sent in its own transaction: always, unless the hub's own
#: code (running as the owner role: sync_round, web_rate_show) set `simrate.announce_later`
#: for it, and serve then announces the writes after the commit (app/web/announcer.py). A
#: notifying commit holds a database-wide lock over its wait for the disk. A client's own
#: writes run as its login, so no setting of a client's keeps them unannounced.
ANNOUNCE_NOW = ("WHEN (current_user::text <> @owner_lit OR "
                "coalesce(current_setting('simrate.announce_later', true), '') <> 'on')")


def triggers_sql() -> str:
    """Triggers: a sequence stamp on every write, the change log, NOTIFY per statement
    (a template for `fill`)."""
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
  FOR EACH STATEMENT @announce_now EXECUTE FUNCTION simrate.announce_ratings();
DROP TRIGGER IF EXISTS announce_update ON simrate.ratings;
CREATE TRIGGER announce_update AFTER UPDATE ON simrate.ratings
  REFERENCING NEW TABLE AS changed_rows
  FOR EACH STATEMENT @announce_now EXECUTE FUNCTION simrate.announce_ratings();""")
        else:
            when = "@announce_now " if table in ("annotators", "adjudications") else ""
            parts.append(f"""
CREATE TRIGGER announce AFTER INSERT OR UPDATE ON simrate.{table}
  FOR EACH STATEMENT {when}EXECUTE FUNCTION simrate.announce();""")
    for table in LOGGED:
        parts.append(f"""
DROP TRIGGER IF EXISTS log_change ON simrate.{table};
CREATE TRIGGER log_change AFTER INSERT OR UPDATE ON simrate.{table}
  FOR EACH ROW EXECUTE FUNCTION simrate.log_change();""")
    return "\n".join(parts).replace("@announce_now", ANNOUNCE_NOW)


#: The one statement that sets the hub's own settings (`simrate.hub`: version, roles,
#: project id, the fold table's version), key and value as parameters.
PUT_HUB_META = ("INSERT INTO simrate.hub (key, value) VALUES (%s, %s) "
                "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
