"""The later-edit rule on the hub, one trigger function for every edited table, and the one
door through which each of `simrate.ratings` and `simrate.adjudications` is written.

The rule: every edit carries the time it was made (a rating `updated_at`, a verdict `at`,
an exclusion `annotators.excluded_at`, added here). An update whose edit time is not after
the stored one is refused on every route a client has, plain UPDATE included, and logged
(`ratings_refused`, `adjudications_refused`, `exclusions_refused`) with both values; a
stamp more than a minute ahead of the hub's clock is replaced by the hub's time.
`simrate.keep_later` is that rule, written once; each table's trigger names its columns
(EDITED below). A rating or a verdict is one row: a refused update leaves the row alone.
An exclusion is two columns of a rater's row: a refused one is taken back and the rest of
the update goes ahead; an update that leaves the exclusion alone is no edit; and one that
changes it without a new stamp (a client made before exclusions were stamped) counts as
made now.

The doors: `simrate.put_rating` and `simrate.put_verdict` are the only statements that
write those tables. The direct push (hub/link/push_others.py), the sync service
(service.py, `sync_round`), the web page (web_rate.py) and the organizer's publish all
call them. They run with the caller's rights (no SECURITY DEFINER), so a login's
privileges and row-level security decide as for a plain INSERT, and every trigger (the
scale, this rule, one rater name, the stamps, the change log) fires as before. A value
equal to the hub's is left alone (no stamp, nothing pulled again); an undo (`p_undo`) is
written only over the value the machine last saw on the hub (`p_seen_*`). Each returns
how many rows it changed.
"""

from __future__ import annotations

#: table -> (edit time's column, edited columns, key columns, whole row?, refused kind)
EDITED = {
    "ratings": ("updated_at", "code note skipped", "item_id annotator", "row",
                "ratings_refused"),
    "adjudications": ("at", "code note", "item_id", "row", "adjudications_refused"),
    "annotators": ("excluded_at", "excluded", "", "columns", "exclusions_refused"),
}
#: Each table's trigger keeps its name: BEFORE triggers run in name order (check_scale,
#: keep_later_*, rating_rater, stamp, stamp_acting). It fires on every update; a second
#: one, `<name>_ahead`, on an insert only when the edit time is ahead of the hub's clock
#: (the one thing the rule does to a new row), so a new row calls no function for it.
TRIGGERS = {"ratings": "keep_later_edit", "adjudications": "keep_later_verdict",
            "annotators": "keep_later_exclusion"}

#: An edit time ahead of the hub's clock by more than the allowance (`{stamp}`: the edit
#: time's expression), in the rule and in the insert trigger's WHEN.
AHEAD = "{stamp} > extract(epoch FROM clock_timestamp()) + @max_lead"

RULE_SQL = """
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS excluded_at double precision
    NOT NULL DEFAULT 0;

-- TG_ARGV: the edit time's column, the edited columns and the key columns (space
-- separated), 'row' or 'columns', the change log's kind of a refused edit
CREATE OR REPLACE FUNCTION simrate.keep_later() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  stamp text := TG_ARGV[0];
  hub_now double precision := extract(epoch FROM clock_timestamp());
  n jsonb := to_jsonb(NEW);
  o jsonb;
  k text;
  changed boolean := false;
BEGIN
  IF @ahead THEN
    n := jsonb_set(n, ARRAY[stamp], to_jsonb(hub_now));
    NEW := jsonb_populate_record(NEW, n);
  END IF;
  IF TG_OP <> 'UPDATE' THEN
    RETURN NEW;
  END IF;
  o := to_jsonb(OLD);
  -- (loops of plain expressions, no query: this runs for every write of the three tables)
  FOREACH k IN ARRAY string_to_array(TG_ARGV[2], ' ') LOOP
    IF n -> k IS DISTINCT FROM o -> k THEN
      RETURN NEW;  -- another row's key: not an edit of this one
    END IF;
  END LOOP;
  FOREACH k IN ARRAY string_to_array(TG_ARGV[1], ' ') LOOP
    changed := changed OR n -> k IS DISTINCT FROM o -> k;
  END LOOP;
  IF TG_ARGV[3] = 'columns' THEN
    IF NOT changed THEN
      RETURN NEW;  -- the edited columns are left alone: no edit
    ELSIF n -> stamp = o -> stamp THEN  -- changed without a stamp of its own: made now
      RETURN jsonb_populate_record(NEW, jsonb_set(n, ARRAY[stamp], to_jsonb(hub_now)));
    END IF;
  END IF;
  IF (n ->> stamp)::float8 > (o ->> stamp)::float8 THEN
    RETURN NEW;  -- made later: it wins
  END IF;
  IF changed THEN
    PERFORM simrate.log_refused(TG_ARGV[4], o ->> 'item_id',
                                coalesce(o ->> 'annotator', o ->> 'name'), o, n);
  END IF;
  IF TG_ARGV[3] = 'row' THEN
    RETURN NULL;
  END IF;
  FOREACH k IN ARRAY string_to_array(TG_ARGV[1], ' ') || stamp LOOP
    n := jsonb_set(n, ARRAY[k], o -> k);  -- the edit taken back, the rest goes ahead
  END LOOP;
  IF n = o THEN
    RETURN NULL;
  END IF;
  RETURN jsonb_populate_record(NEW, n);
END $$;
REVOKE ALL ON FUNCTION simrate.keep_later() FROM PUBLIC;
@triggers
DROP FUNCTION IF EXISTS simrate.keep_later_edit();
DROP FUNCTION IF EXISTS simrate.keep_later_verdict();
DROP FUNCTION IF EXISTS simrate.keep_later_exclusion();
"""

DOORS_SQL = """
CREATE OR REPLACE FUNCTION simrate.put_rating(
    p_item text, p_annotator text, p_code integer, p_note text, p_skipped boolean,
    p_seconds double precision, p_at double precision, p_undo boolean DEFAULT false,
    p_seen_code integer DEFAULT NULL, p_seen_note text DEFAULT NULL,
    p_seen_skipped boolean DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  written integer;
BEGIN
  INSERT INTO simrate.ratings AS r (item_id, annotator, code, note, skipped, seconds,
                                    updated_at)
  VALUES (p_item, p_annotator, p_code, p_note, p_skipped, p_seconds, p_at)
  ON CONFLICT (item_id, annotator) DO UPDATE SET code = EXCLUDED.code,
    note = EXCLUDED.note, skipped = EXCLUDED.skipped, seconds = EXCLUDED.seconds,
    updated_at = EXCLUDED.updated_at
  WHERE (r.code, r.note, r.skipped) IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.note,
                                                      EXCLUDED.skipped)
    AND (NOT coalesce(p_undo, false) OR (r.code, r.note, r.skipped) IS NOT DISTINCT FROM
         (p_seen_code, p_seen_note, p_seen_skipped));
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;

CREATE OR REPLACE FUNCTION simrate.put_verdict(
    p_item text, p_code integer, p_note text, p_by text, p_at double precision,
    p_undo boolean DEFAULT false, p_seen_code integer DEFAULT NULL,
    p_seen_note text DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  written integer;
BEGIN
  INSERT INTO simrate.adjudications AS a (item_id, code, note, by, at)
  VALUES (p_item, p_code, p_note, p_by, p_at)
  ON CONFLICT (item_id) DO UPDATE SET code = EXCLUDED.code, note = EXCLUDED.note,
    by = EXCLUDED.by, at = EXCLUDED.at
  WHERE (a.code, a.note) IS DISTINCT FROM (EXCLUDED.code, EXCLUDED.note)
    AND (NOT coalesce(p_undo, false)
         OR (a.code, a.note) IS NOT DISTINCT FROM (p_seen_code, p_seen_note));
  GET DIAGNOSTICS written = ROW_COUNT;
  RETURN written;
END $$;
REVOKE ALL ON FUNCTION @rating_sig, @verdict_sig FROM PUBLIC;
GRANT EXECUTE ON FUNCTION @rating_sig TO @annotators, @organizers;
GRANT EXECUTE ON FUNCTION @verdict_sig TO @organizers;
"""

RATING_SIGNATURE = ("simrate.put_rating(text, text, integer, text, boolean, double precision, "
                    "double precision, boolean, integer, text, boolean)")
VERDICT_SIGNATURE = ("simrate.put_verdict(text, integer, text, text, double precision, "
                     "boolean, integer, text)")


def _trigger(table: str) -> str:
    name, args = TRIGGERS[table], ", ".join(f"'{a}'" for a in EDITED[table])
    ahead = AHEAD.format(stamp=f"NEW.{EDITED[table][0]}")
    return (f"DROP TRIGGER IF EXISTS {name} ON simrate.{table};\n"
            f"CREATE TRIGGER {name} BEFORE UPDATE ON simrate.{table}\n"
            f"  FOR EACH ROW EXECUTE FUNCTION simrate.keep_later({args});\n"
            f"DROP TRIGGER IF EXISTS {name}_ahead ON simrate.{table};\n"
            f"CREATE TRIGGER {name}_ahead BEFORE INSERT ON simrate.{table}\n"
            f"  FOR EACH ROW WHEN ({ahead}) EXECUTE FUNCTION simrate.keep_later({args});")


def later_sql() -> str:
    """The rule's function, its trigger on each edited table, and the doors of ratings
    and verdicts (a template for `fill`: run as the owner role, after the tables)."""
    rule = (RULE_SQL.replace("@ahead", AHEAD.format(stamp="(n ->> stamp)::float8"))
            .replace("@triggers", "\n".join(_trigger(t) for t in EDITED)))
    doors = (DOORS_SQL.replace("@rating_sig", RATING_SIGNATURE)
             .replace("@verdict_sig", VERDICT_SIGNATURE))
    return rule + doors
