"""The push of adjudications, exclusions and undone ratings, and what the hub answered.

Every kind of change follows the rule of ratings: the edit MADE later wins, whichever
replica pushes first (the hub's triggers refuse an older one, hub/schema/later_wins.py),
and the loser is told. So that the loser can be told, the push reads the hub's values of
the keys it sends before and after its writes, in the same transaction: a value the hub
kept (after differs from what was sent) lost here; a value it replaced that this machine
had never seen (before differs from the replica's copy) was another machine's, lost there
and counted here too. Ratings are read before their writes for the same reason (the
hub's answer for the ones it kept is exchange.REFUSED_RATINGS). An undo (core/edits/writes.py) is written only over the value this
machine last saw on the hub; otherwise the hub keeps its newer value and the undo is
reported as a conflict.
"""

from __future__ import annotations

from simrate.core.base.names import rater_key
from simrate.hub.link.connection import Batch

#: A rating pushed (exchange.py), through the hub's one door of ratings (hub/schema/
#: later_wins.py): written unless the hub holds the same value; returns rows changed.
PUT_RATING = "SELECT simrate.put_rating(%s, %s, %s, %s, %s, %s, %s)"
#: An undone rating: the same door, taken only over the hub's copy this machine saw.
UNDO_RATING = ("SELECT simrate.put_rating(%s, %s, %s, %s, %s, %s, %s, true, "
               "%s::integer, %s::text, %s::boolean)")
PUT_VERDICT = ("SELECT simrate.put_verdict(%s, %s, %s, %s, %s, %s, %s::integer, "
               "%s::text)")
#: An exclusion, on the rater of the name's key (whatever spelling the hub holds it under,
#: hub/schema/raters.py), added first when the hub lacks it.
PUT_EXCLUSION = ("SELECT simrate.put_exclusion(%(name)s, %(key)s, %(excluded)s, %(at)s, "
                 "%(undo)s, %(seen)s::boolean)")
VERDICTS_NOW = ("SELECT item_id, code, note, by, at FROM simrate.adjudications "
                "WHERE item_id = ANY(%s)")
EXCLUSIONS_NOW = ("SELECT name, excluded, (to_jsonb(a) ->> 'excluded_at')::float8 "
                  "FROM simrate.annotators a WHERE name = ANY(%s)")


def queue_undo_rating(batch: Batch, row: tuple) -> int:
    """Add an undone rating's write, taken only over the hub's copy (row[9:12])."""
    return batch.add(UNDO_RATING, (*row[:7], row[9], row[10], bool(row[11])))


def queue_others(batch: Batch, verdicts: list[tuple], exclusions: list[tuple]
                 ) -> dict[str, int]:
    """Add the writes of adjudications and exclusions, each between a read of the hub's
    values before and after; returns the indexes of those reads in the batch."""
    reads: dict[str, int] = {}
    if verdicts:
        keys = [v[0] for v in verdicts]
        reads["verdicts_before"] = batch.add(VERDICTS_NOW, (keys,))
        for v in verdicts:
            batch.add(PUT_VERDICT, (*v[:5], v[6], v[7], v[8] or ""))
        reads["verdicts_after"] = batch.add(VERDICTS_NOW, (keys,))
    if exclusions:
        keys = [e[0] for e in exclusions]
        read = EXCLUSIONS_NOW
        reads["exclusions_before"] = batch.add(read, (keys,))
        for e in exclusions:
            batch.add(PUT_EXCLUSION, {"name": e[0], "excluded": e[1], "at": e[2],
                                      "key": rater_key(e[0]), "undo": e[4], "seen": e[5]})
        reads["exclusions_after"] = batch.add(read, (keys,))
    return reads


def read_others(results: list, reads: dict[str, int]) -> dict[str, list[tuple]]:
    """The hub's values read around the writes, by the names of queue_others."""
    return {name: [tuple(r) for r in results[index].rows] for name, index in reads.items()}
