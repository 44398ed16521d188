"""The later-edit rule on the hub for adjudications and exclusions (ratings: tables.py).

An adjudication carries the time its verdict was made (`at`); an exclusion the time it
was set or taken back (`annotators.excluded_at`, added here). An update whose edit time is
not after the stored one is refused on every route a client has, plain UPDATE included,
and logged (`adjudications_refused`, `exclusions_refused`) with both values; a stamp more
than a minute ahead of the hub's clock is replaced by the hub's time. An update of an
annotator that does not touch the exclusion (a hub made before exclusions were stamped
sets `excluded` alone: its edit counts as made now) is left alone.
"""

from __future__ import annotations

LATER_OTHERS_SQL = """
ALTER TABLE simrate.annotators ADD COLUMN IF NOT EXISTS excluded_at double precision
    NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION simrate.keep_later_verdict() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  hub_now double precision := extract(epoch FROM clock_timestamp());
BEGIN
  IF NEW.at > hub_now + @max_lead THEN
    NEW.at := hub_now;
  END IF;
  IF TG_OP = 'UPDATE' AND NEW.at <= OLD.at AND NEW.item_id = OLD.item_id THEN
    IF (NEW.code, NEW.note) IS DISTINCT FROM (OLD.code, OLD.note) THEN
      PERFORM simrate.log_refused('adjudications_refused', OLD.item_id, NULL,
                                  to_jsonb(OLD), to_jsonb(NEW));
    END IF;
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION simrate.keep_later_verdict() FROM PUBLIC;
DROP TRIGGER IF EXISTS keep_later_verdict ON simrate.adjudications;
CREATE TRIGGER keep_later_verdict BEFORE INSERT OR UPDATE ON simrate.adjudications
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_later_verdict();

CREATE OR REPLACE FUNCTION simrate.keep_later_exclusion() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  hub_now double precision := extract(epoch FROM clock_timestamp());
BEGIN
  IF NEW.excluded_at > hub_now + @max_lead THEN
    NEW.excluded_at := hub_now;
  END IF;
  IF TG_OP <> 'UPDATE' OR NEW.excluded IS NOT DISTINCT FROM OLD.excluded THEN
    RETURN NEW;
  END IF;
  IF NEW.excluded_at IS NOT DISTINCT FROM OLD.excluded_at THEN
    NEW.excluded_at := hub_now;  -- a client that does not stamp: made now
  ELSIF NEW.excluded_at <= OLD.excluded_at THEN
    PERFORM simrate.log_refused('exclusions_refused', NULL, OLD.name, to_jsonb(OLD),
                                to_jsonb(NEW));
    NEW.excluded := OLD.excluded;
    NEW.excluded_at := OLD.excluded_at;
    IF to_jsonb(NEW) = to_jsonb(OLD) THEN
      RETURN NULL;
    END IF;
  END IF;
  RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION simrate.keep_later_exclusion() FROM PUBLIC;
DROP TRIGGER IF EXISTS keep_later_exclusion ON simrate.annotators;
CREATE TRIGGER keep_later_exclusion BEFORE INSERT OR UPDATE ON simrate.annotators
  FOR EACH ROW EXECUTE FUNCTION simrate.keep_later_exclusion();
"""
