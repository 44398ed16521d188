"""The rules written once (simrate.core.base.rules) hold alike on the plain file (Python)
and on the hub (its PL/pgSQL, called as a client would, unaided by Python): the same input
is taken or refused on both, with the same one line, word for word, and the same HTTP
status for a web refusal."""

from __future__ import annotations

import pytest

from simrate.core.base import rules
from simrate.core.base.names import rater_name_problem
from simrate.core.data.store import CROWD, HUMAN, MACHINE
from tests.contract.backends import Refused

GOOD = {"name": "t", "per_task": 2, "checks": 0, "per_item": 1, "lease_minutes": 10.0,
        "completion_url": "https://example.org/done?cc={code}", "code": "CODE-1",
        "options": {"partial_code": "P1"}}
RULE = {rule.value: rule for rule in rules.STUDY_RULES}

#: (what is changed from GOOD, the rule it breaks or None: taken).
STUDY_CASES = [
    ({"name": "../etc"}, "name"), ({"name": "<b>"}, "name"), ({"name": "-t"}, "name"),
    ({"name": "t" * 65}, "name"), ({"name": "caf\u00e9"}, "name"), ({"name": "\uff54"}, "name"), ({"name": "t" * 64}, None), ({"name": "a.b_c-1"}, None),
    ({"per_task": 0}, "per_task"), ({"per_task": rules.MAX_COUNT + 1}, "per_task"),
    ({"per_task": rules.MAX_COUNT}, None), ({"checks": -1}, "checks"),
    ({"per_item": 0}, "per_item"), ({"lease_minutes": 0.0}, "lease_minutes"),
    ({"lease_minutes": -1.0}, "lease_minutes"), ({"lease_minutes": float("inf")}, "lease_minutes"),
    ({"lease_minutes": float("nan")}, "lease_minutes"),
    ({"lease_minutes": rules.MAX_LEASE_MINUTES}, "lease_minutes"),
    ({"lease_minutes": 0.5}, None),
    ({"completion_url": "javascript:alert(1)"}, "completion_url"),
    ({"completion_url": "https://x.org/a b"}, "completion_url"),
    ({"completion_url": "https://x.org/a\tb"}, "completion_url"),
    ({"completion_url": 'https://x.org/"><script>'}, "completion_url"),
    ({"completion_url": "https://x.org/a\u00a0b"}, "completion_url"),
    ({"completion_url": "https://x.org/a\u2028b"}, "completion_url"),
    ({"completion_url": "https://x.org/a\u3000b"}, "completion_url"),
    ({"completion_url": "https://x.org/" + "a" * rules.MAX_URL_CHARS}, "completion_url"),
    ({"completion_url": ""}, None), ({"code": "<b>"}, "code"), ({"code": "C" * 65}, "code"),
    ({"code": "C" * 64}, None), ({"code": "C\u00d3D"}, "code"), ({"code": "\u0663"}, "code"),
    ({"options": {"partial_code": "a b"}}, "partial_code"),
    ({"options": {"prolific_study": "x/y"}}, "prolific_study"),
    ({"options": {"prolific_study": "60f1c2"}}, None),
    ({"options": {"frame_from": "javascript:alert(1)"}}, "frame_from"),
    ({"options": {"frame_from": "https://www.mturk.com/x"}}, "frame_from"),
    ({"options": {"frame_from": "https://www.mturk.com:443"}}, None),
    ({"options": {"frame_from": "https://[::1]:8080"}}, None),
    ({"options": {"redirect_seconds": rules.MAX_REDIRECT_SECONDS + 1}}, "redirect_seconds"),
    ({"options": {"redirect_seconds": rules.MAX_REDIRECT_SECONDS}}, None),
    ({"options": {"instructions": "x" * (rules.MAX_OPTION_TEXT + 1)}}, "instructions"),
    ({"options": {"consent": "x" * rules.MAX_OPTION_TEXT}}, None),
]


def outcome(action) -> tuple[str | None, int | None]:
    """(None, None) when taken, else (the one line said, the status)."""
    try:
        action()
    except Refused as refused:
        return refused.problem, refused.status
    return None, None


def test_a_study_is_taken_or_refused_alike_with_the_same_words(backend):
    differ = []
    for change, broken in STUDY_CASES:
        said, _status = outcome(lambda change=change: backend.set_study({**GOOD, **change}))
        wanted = None if broken is None else rules.STUDY_REFUSED + RULE[broken].message
        if said != wanted:
            differ.append((change if len(str(change)) < 200 else broken, said, wanted))
    assert differ == []


WORKER_CASES = [("w" * 64, None), ("w" * 65, "worker_id"), ("-w", "worker_id"),
                ("w x", "worker_id"), ("w\u00e9", "worker_id"), ("", "worker_id"),
                ("ann@example.org", None), ("5f3a:7", None)]


def test_a_worker_id_is_taken_or_refused_alike(backend):
    differ = []
    for worker, broken in WORKER_CASES:
        got = outcome(lambda worker=worker: backend.lease(worker))
        wanted = (None, None) if broken is None else rules.REFUSALS[broken][::-1]
        if got != wanted:
            differ.append((worker[:70], got, wanted))
    assert differ == []


def test_a_study_that_is_not_there_or_closed_is_refused_alike(backend):
    assert outcome(lambda: backend.lease("w1", study="nope")) == \
        rules.REFUSALS["no_study"][::-1]
    backend.set_study({**GOOD, "name": "c"})
    backend.set_study({**GOOD, "name": "c", "open": False})
    assert outcome(lambda: backend.lease("w1", study="c")) == rules.REFUSALS["closed"][::-1]


@pytest.mark.parametrize("kind", [HUMAN, MACHINE])
def test_a_worker_id_of_another_kind_of_rater_is_refused_alike(backend, kind):
    """One namespace: the id of a person or machine rater is no crowd worker's, in any
    spelling of its key; the same words and status on both sides."""
    backend.insert_rater("dana", kind)
    backend.sync()
    status, message = rules.WORKER_OF_OTHER_KIND
    wanted = (message.format(held=rules.KIND_WORDS[kind]), status)
    assert outcome(lambda: backend.lease("DANA")) == wanted
    assert backend.lease("erin") == "erin"


def test_a_name_of_another_kind_is_refused_with_the_same_words(backend):
    """A machine rater under a person's name: the file's roster and the hub's
    claim_rater say the one sentence of rules.KIND_CLASH."""
    backend.insert_rater("ana", HUMAN)
    wanted = rules.KIND_CLASH.format(name="'ana'", held=rules.KIND_WORDS[HUMAN],
                                     wanted=rules.KIND_RATINGS[MACHINE])
    if backend.kind == "file":
        said, _ = outcome(lambda: backend._do(lambda: backend.project.roster.add_machine("ANA")))
    else:
        def claim():
            with backend.hub.admin() as conn:
                conn.execute("SELECT simrate.claim_rater('ANA', NULL, 'machine')")
        said, _ = outcome(lambda: backend._do(claim))
    assert said == wanted
    assert backend.raters()["ana"] == HUMAN


def test_the_longest_rater_name_is_the_same_on_both_sides(backend):
    """MAX_RATER_CHARS: the hub refuses a longer name even from a client that skips
    simrate's checks, in the file's words."""
    longest = "r" * rules.MAX_RATER_CHARS
    assert backend.insert_rater(longest, CROWD) == longest
    too_long = longest + "r"
    said, _ = outcome(lambda: backend.insert_rater(too_long, CROWD))
    assert said == rater_name_problem(too_long, "annotator name") == rules.RATER_TOO_LONG.format(
        what="annotator name", limit=rules.MAX_RATER_CHARS, given=len(too_long))
    assert too_long not in backend.raters()


@pytest.mark.parametrize("name", ["a\tb", "bell\x07", "esc\x1b", "del\x7f", "line\nbreak"])
def test_an_ascii_control_character_in_a_name_is_refused_alike(backend, name):
    """The hub refuses what the file refuses in a name of printable ASCII, in the file's
    words, even from a client that skips simrate's checks; nothing is written."""
    before = backend.raters()
    said, _ = outcome(lambda: backend.insert_rater(name, CROWD))
    assert said == rater_name_problem(name, "annotator name") == rules.RATER_HIDDEN.format(
        what="annotator name", char=f"U+{ord(next(c for c in name if c < ' ' or c == chr(127))):04X}")
    assert backend.raters() == before

