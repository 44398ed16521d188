"""One rater identity on the hub: every rater (person, crowd worker, machine rater) is a row
of `simrate.annotators` with a unique identity key, whatever its kind, and the hub computes
and checks it itself, since replicas lag behind it.

The key is `simrate.core.base.names.rater_key`: each character in NFKC, case folded, and,
outside ASCII, as the letter it looks like (core/base/lookalike.py: Cyrillic `сое` is
`coe`). PostgreSQL has `normalize()` but no case folding before PostgreSQL 18 and no
confusables, and `lower` follows the database's locale; so the hub lowers printable ASCII
itself (in the C collation: a Turkish locale would lower `I` to `ı`) and folds every other
character through `simrate.rater_fold`, the table of `lookalike.fold_table()` the publisher
ships (`ship_fold`, at every `team publish` whose definition is newer than the hub's). The
key a client sends is ignored once the table is there; a hub published before it takes
a client's key for names that are not ASCII until it is published again, and refuses a
row without one. `simrate.claim_rater` is the one way a rater is added: it takes the
rater of the key when its kind matches and refuses another kind with one line naming it.
A rater's kind never changes, and rows are never deleted on the hub, so a name, once a
rater's, stays theirs.

This module is the one writer of `simrate.annotators` and `simrate.rater_fold`: raters
are added by `claim_rater`, exclusions set by `put_exclusion`, the publish's upload of a
file's raters is UPLOAD_RATERS, and the keys of older rows are filled here.
"""

from __future__ import annotations

from simrate.core.base import rules
from simrate.hub.schema.names import fill, quote_literal
from simrate.hub.schema.rules_sql import kind_case, pattern, render
from simrate.hub.schema.tables import PUT_HUB_META

#: Advisory lock class of rater claims (two-key locks: one key per identity).
RATER_LOCK = 7305822

RATERS_SQL = r"""
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS key text;

CREATE TABLE IF NOT EXISTS simrate.rater_fold (ch text PRIMARY KEY, fold text NOT NULL);

-- the key of a name: ASCII lowered here, every other character folded by the shipped table
-- (a hub without it takes the client's key for such names)
-- (PL/pgSQL, whose plans a session keeps: a web task's start asks for several keys)
CREATE OR REPLACE FUNCTION simrate.rater_key(p_name text, p_key text) RETURNS text
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF p_name ~ @pattern:PLAIN_KEY_NAME THEN
    RETURN lower(regexp_replace(btrim(p_name), ' +', ' ', 'g') COLLATE "C");
  END IF;
  IF NOT EXISTS (SELECT 1 FROM simrate.rater_fold) THEN
    RETURN p_key;
  END IF;
  RETURN (SELECT regexp_replace(btrim(normalize(string_agg(CASE WHEN t.c ~ @pattern:PLAIN_KEY_CHAR
                 THEN lower(t.c COLLATE "C") ELSE coalesce(f.fold, t.c) END, '' ORDER BY t.n),
                 NFC), ' '), ' +', ' ', 'g')
          FROM regexp_split_to_table(normalize(p_name, NFC), '') WITH ORDINALITY t(c, n)
          LEFT JOIN simrate.rater_fold f ON f.ch = t.c);
END $$;

CREATE OR REPLACE FUNCTION simrate.kind_words(p_kind text) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
  SELECT @kind_words
$$;

CREATE OR REPLACE FUNCTION simrate.keep_key() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF (TG_OP = 'INSERT' OR NEW.name IS DISTINCT FROM OLD.name)
      AND char_length(NEW.name) > @number:MAX_RATER_CHARS THEN
    RAISE EXCEPTION USING MESSAGE = format(@too_long, char_length(NEW.name));
  END IF;
  IF (TG_OP = 'INSERT' OR NEW.name IS DISTINCT FROM OLD.name)
      AND NEW.name ~ @text:ASCII_CONTROL THEN
    RAISE EXCEPTION USING MESSAGE = format(@hidden, 'U+' || upper(lpad(to_hex(ascii(
      substring(NEW.name FROM @text:ASCII_CONTROL))), 4, '0')));
  END IF;
  NEW.key := simrate.rater_key(NEW.name, NEW.key);
  IF NEW.key IS NULL THEN
    RAISE EXCEPTION 'the rater name % is not ASCII and came without its identity key; '
      'use a simrate that sends it', quote_literal(NEW.name);
  END IF;
  RETURN NEW;
END $$;

-- keys of the rows written before this rule: ASCII names here (the first of two names
-- with one key keeps it), others by the publisher (publish.py, fill_keys)
UPDATE simrate.annotators a SET key = k.key FROM (
  SELECT name, simrate.rater_key(name, NULL) AS key,
         row_number() OVER (PARTITION BY simrate.rater_key(name, NULL) ORDER BY seq) AS n
  FROM simrate.annotators WHERE key IS NULL AND name ~ @pattern:PLAIN_KEY_NAME) k
WHERE a.name = k.name AND k.n = 1
  AND NOT EXISTS (SELECT 1 FROM simrate.annotators b WHERE b.key = k.key);
CREATE UNIQUE INDEX IF NOT EXISTS annotators_key ON simrate.annotators (key);
DROP TRIGGER IF EXISTS keep_key ON simrate.annotators;
CREATE TRIGGER keep_key BEFORE INSERT OR UPDATE OF name, key ON simrate.annotators
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_key();

-- a rater's kind never changes: a crowd worker never becomes a machine rater or a person
CREATE OR REPLACE FUNCTION simrate.keep_kind() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NEW.kind IS DISTINCT FROM OLD.kind THEN
    RAISE EXCEPTION USING ERRCODE = 'SR403', MESSAGE = format(@kind_clash,
      quote_literal(OLD.name), simrate.kind_words(OLD.kind),
      (SELECT @kind_ratings FROM (SELECT NEW.kind AS p_kind) k));
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS keep_kind ON simrate.annotators;
CREATE TRIGGER keep_kind BEFORE UPDATE OF kind ON simrate.annotators
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_kind();

-- a rating pushed under another spelling of a rater's name (`ANA` from a replica that had
-- not pulled `ana` yet) goes under the rater's name: one rater, one set of ratings
CREATE OR REPLACE FUNCTION simrate.rating_rater() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  held text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM simrate.annotators a WHERE a.name = NEW.annotator) THEN
    SELECT a.name INTO held FROM simrate.annotators a
    WHERE a.key = simrate.rater_key(NEW.annotator, NULL);
    NEW.annotator := coalesce(held, NEW.annotator);
  END IF;
  RETURN NEW;
END $$;
DROP TRIGGER IF EXISTS rating_rater ON simrate.ratings;
CREATE TRIGGER rating_rater BEFORE INSERT ON simrate.ratings
  FOR EACH ROW EXECUTE FUNCTION simrate.rating_rater();

-- the rater `p_name` names (its key: `ANA` is `ana`), added with kind `p_kind` when no
-- rater has the key; another kind's is refused, naming that kind (SQLSTATE SR403)
CREATE OR REPLACE FUNCTION simrate.claim_rater(p_name text, p_key text, p_kind text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  k text := simrate.rater_key(p_name, p_key);
  held simrate.annotators;
BEGIN
  IF k IS NULL THEN
    RAISE EXCEPTION 'the rater name % came without its identity key', quote_literal(p_name);
  END IF;
  PERFORM pg_advisory_xact_lock(@rater_lock, hashtext(k));
  SELECT * INTO held FROM simrate.annotators a WHERE a.key = k;
  IF NOT FOUND THEN
    SELECT * INTO held FROM simrate.annotators a WHERE a.name = p_name;
  END IF;
  IF FOUND THEN
    IF held.kind IS DISTINCT FROM p_kind THEN
      RAISE EXCEPTION USING ERRCODE = 'SR403', MESSAGE = format(@kind_clash,
        quote_literal(held.name), simrate.kind_words(held.kind), @kind_ratings);
    END IF;
    RETURN held.name;
  END IF;
  INSERT INTO simrate.annotators (name, kind, key) VALUES (p_name, p_kind, k);
  RETURN p_name;
END $$;

-- an exclusion set or taken back (the direct push, hub/link/push_others.py), on the rater
-- of the name's key, added first when the hub lacks it; an undo only over the value this
-- machine saw (p_seen). With the caller's rights; returns how many rows it changed.
CREATE OR REPLACE FUNCTION simrate.put_exclusion(p_name text, p_key text, p_excluded boolean,
    p_at double precision, p_undo boolean DEFAULT false, p_seen boolean DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  written integer;
BEGIN
  INSERT INTO simrate.annotators (name, excluded, excluded_at, key)
  VALUES (p_name, p_excluded, p_at, p_key) ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS written = ROW_COUNT;
  IF written > 0 THEN
    RETURN written;
  END IF;
  UPDATE simrate.annotators a SET excluded = p_excluded, excluded_at = p_at
  WHERE (a.key = p_key OR a.name = p_name) AND a.excluded IS DISTINCT FROM p_excluded
    AND (NOT coalesce(p_undo, false) OR a.excluded IS NOT DISTINCT FROM p_seen);
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;
REVOKE ALL ON FUNCTION simrate.put_exclusion(text, text, boolean, double precision, boolean,
  boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.put_exclusion(text, text, boolean, double precision,
  boolean, boolean) TO @organizers;
REVOKE ALL ON FUNCTION simrate.claim_rater(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION simrate.claim_rater(text, text, text) TO @organizers;
GRANT EXECUTE ON FUNCTION simrate.rater_key(text, text), simrate.kind_words(text)
  TO @organizers, @annotators;
GRANT SELECT ON simrate.rater_fold TO @organizers, @annotators;
"""


def raters_sql(roles: dict[str, str]) -> str:
    """The identity rule's SQL (run as the owner role, after the tables)."""
    clash = rules.KIND_CLASH.format(name="%s", held="%s", wanted="%s")
    too_long = rules.RATER_TOO_LONG.format(what="annotator name", limit=rules.MAX_RATER_CHARS,
                                           given="%s")
    hidden = rules.RATER_HIDDEN.format(what="annotator name", char="%s")
    text = (RATERS_SQL.replace("@rater_lock", str(RATER_LOCK))
            .replace("@kind_words", kind_case("p_kind", rules.KIND_WORDS))
            .replace("@kind_ratings", kind_case("p_kind", rules.KIND_RATINGS))
            .replace("@kind_clash", quote_literal(clash))
            .replace("@too_long", quote_literal(too_long))
            .replace("@hidden", quote_literal(hidden)))
    return fill(render(text), roles)


#: The publish's upload of the file's raters: a rater the hub holds already (by name or
#: key) stays as the hub holds it; rows of (name, excluded, kind, key).
UPLOAD_RATERS = ("INSERT INTO simrate.annotators (name, excluded, kind, key) "
                 "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING")
#: The hub's meta key (table simrate.hub) of the fold table's version (lookalike.py).
FOLD_META = "rater_fold"
NOT_ASCII = f"name !~ {pattern(rules.PLAIN_KEY_NAME)}"


def ship_fold(conn) -> None:
    """Give the hub the fold table of this simrate's key definition, when the hub's is older
    or missing, and compute the keys of its raters whose names are not ASCII again (in the
    order they came: of two names with one key, the later keeps none and stays a rater of
    its own, found by its exact name). Run as the owner, inside the publish."""
    from simrate.core.base.lookalike import FOLD_VERSION, fold_table

    held = conn.execute("SELECT value FROM simrate.hub WHERE key = %s", (FOLD_META,)
                        ).fetchone()
    if held is not None and held[0] == FOLD_VERSION:
        return
    conn.execute("DELETE FROM simrate.rater_fold")
    with conn.cursor().copy("COPY simrate.rater_fold (ch, fold) FROM STDIN") as copy:
        for row in fold_table():
            copy.write_row(row)
    names = [r[0] for r in conn.execute(
        f"SELECT name FROM simrate.annotators WHERE {NOT_ASCII} ORDER BY seq").fetchall()]
    conn.execute("ALTER TABLE simrate.annotators DISABLE TRIGGER keep_key")
    conn.execute(f"UPDATE simrate.annotators SET key = NULL WHERE {NOT_ASCII}")
    for name in names:
        conn.execute("UPDATE simrate.annotators SET key = simrate.rater_key(name, NULL) "
                     "WHERE name = %s AND NOT EXISTS (SELECT 1 FROM simrate.annotators "
                     "WHERE key = simrate.rater_key(%s, NULL))", (name, name))
    conn.execute("ALTER TABLE simrate.annotators ENABLE TRIGGER keep_key")
    conn.execute(PUT_HUB_META, (FOLD_META, FOLD_VERSION))


def fill_keys(conn, key_of) -> None:
    """Give the hub its fold table (`ship_fold`), its raters written before the rule, whose
    names are not ASCII, their keys (`key_of`: simrate.core.base.names.rater_key), and every
    person of the hub a rater row; a key another rater holds already is left out (that row
    keeps no key)."""
    ship_fold(conn)
    rows = conn.execute("SELECT name FROM simrate.annotators WHERE key IS NULL").fetchall()
    for (name,) in rows:
        conn.execute("UPDATE simrate.annotators SET key = %s WHERE name = %s AND NOT EXISTS "
                     "(SELECT 1 FROM simrate.annotators WHERE key = %s)",
                     (key_of(name), name, key_of(name)))
    people = conn.execute("SELECT annotator FROM simrate.people p WHERE NOT EXISTS (SELECT 1 "
                          "FROM simrate.annotators a WHERE a.name = p.annotator)").fetchall()
    for (name,) in people:
        conn.execute("INSERT INTO simrate.annotators (name, kind, key) VALUES (%s, 'human', %s) "
                     "ON CONFLICT DO NOTHING", (name, key_of(name)))
