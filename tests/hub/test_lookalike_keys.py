"""The hub computes rater keys itself (issue 42): its fold table, shipped at publish,
gives the key `simrate.core.base.names.rater_key` gives, for every character it maps, for
names of many scripts and for plain ASCII ones (the contract of the rater key: one case
list, run on both sides); a hub published before the table has its keys computed again
when published again."""

from __future__ import annotations

from simrate.core.base.lookalike import fold_table
from simrate.core.base.names import rater_key
from simrate.core.project import Project
from tests.hub.webhub import published_study

NAMES = ["coe", "\u0441\u043e\u0435", "ABE", "\u0391\u0392\u0395", "\uff21\uff2e\uff2e",
         "Zo\u00eb", "Zoe\u0308", "ZOE\u0308", "Stra\u00dfe", "\u0130stanbul", "J\u00fcrgen",
         "\u041e\u043b\u044c\u0433\u0430 \u0418\u0432\u0430\u043d\u043e\u0432\u0430",
         "\u1f08\u03bb\u03ad\u03be\u03b1\u03bd\u03b4\u03c1\u03bf\u03c2", "\u5c71\u7530 \u306f\u306a",
         "Ann\u00a0 Lee", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "\ufb01ona", "\u2167 rex"]
#: Names of printable ASCII alone (rules.PLAIN_KEY_NAME): keyed on both sides without the
#: fold table, lowered, runs of spaces as one; then the same next to one other character.
PLAIN = ["".join(map(chr, range(32, 127))), "  Ana   Lee  ", "ISTANBUL istanbul", "a~b|c{d}",
         " ", "Q" * 64, "O'Brien-Smith", "x_Y.z@w:1"]
NAMES += PLAIN + [f"{name}\u00e9" for name in PLAIN] + [f"\u0130{name}" for name in PLAIN]


def test_the_hubs_key_is_the_clients_for_every_mapped_character_and_name(hub, tmp_path):
    published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    chars = [ch for ch, _fold in fold_table()]
    names = NAMES + chars + [f"a{ch}b" for ch in chars[::5]]
    with hub.admin() as conn:
        keys = [r[0] for r in conn.execute(
            "SELECT simrate.rater_key(n, NULL) FROM unnest(%s::text[]) WITH ORDINALITY "
            "AS t(n, i) ORDER BY i", (names,)).fetchall()]
    wrong = [(n, k, rater_key(n)) for n, k in zip(names, keys, strict=True)
             if k != rater_key(n)]
    assert wrong == []


def test_publishing_again_keys_an_older_hubs_lookalikes(hub, tmp_path):
    """A hub whose raters `coe` and Cyrillic `сое` came in before the fold table: published
    again, `coe` keeps the key, `сое` keeps its own rows but no key, and a new spelling
    finds `coe`."""
    from simrate.hub.team.publish import publish

    path, _ = published_study(hub, tmp_path, items=4, per_task=2, n_checks=0, annotator=None)
    with hub.admin() as conn:
        conn.execute("DELETE FROM simrate.rater_fold")
        conn.execute("DELETE FROM simrate.hub WHERE key = 'rater_fold'")
        for name in ("coe", "\u0441\u043e\u0435"):
            conn.execute("INSERT INTO simrate.annotators (name, key) VALUES (%s, %s)",
                         (name, name))
    with Project.open(path) as project:
        publish(project, hub.url())
    with hub.admin() as conn:
        keys = dict(conn.execute("SELECT name, key FROM simrate.annotators").fetchall())
        assert keys["coe"] == "coe" and keys["\u0441\u043e\u0435"] is None
        assert conn.execute("SELECT simrate.claim_rater(%s, NULL, 'human')",
                            ("\u0421\u041e\u0415",)).fetchone() == ("coe",)
