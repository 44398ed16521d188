"""Web studies in the project file: tasks, caps, leases, workers kept apart (core, no server)."""

from __future__ import annotations

import time

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team import web_tasks
from simrate.core.team.quality import annotator_report
from tests.web.projects import make_project


@pytest.fixture
def project(tmp_path):
    with Project.open(make_project(tmp_path / "p.simrate")) as opened:
        yield opened


def slots_of(project, lease):
    return project.team_tables.read("SELECT slot, item_ord, is_check FROM web_slots WHERE "
                                    "study = ? AND task = ? ORDER BY slot",
                                    (lease.study, lease.task))


def rate_all(project, lease, score="2"):
    while (slot := web.next_slot(project, lease)) is not None:
        lease, _ = web.rate_slot(project, lease.study, lease.cookie, lease.token, slot.slot,
                                 score)
    return lease


def test_a_task_is_k_items_plus_c_distinct_checks(project):
    web.set_study(project, "s", per_task=4, checks=2)
    checks = {project.item_ord(f"c{n}") for n in (1, 2, 3)}
    lease = web.lease(project, "s", "W1")
    rows = slots_of(project, lease)
    assert len(rows) == 6 and lease.size == 6
    flagged = [o for _s, o, c in rows if c]
    assert len(flagged) == 2 and set(flagged) <= checks
    assert all((o in checks) == bool(c) for _s, o, c in rows)


def test_no_item_gets_more_than_r_web_ratings_and_checks_are_exempt(project):
    web.set_study(project, "s", per_task=5, checks=1, per_item=2)
    done = 0
    for n in range(20):
        try:
            lease = web.lease(project, "s", f"W{n}")
        except web.WebRefusal as refusal:
            assert refusal.status == 410
            break
        rate_all(project, lease)
        done += 1
    assert done == 8  # 20 items x 2 ratings / 5 per task
    counts = project.ratings().query("annotator != 'alice'").groupby("item_id").size()
    plain = counts[[i for i in counts.index if i.startswith("i")]]
    assert plain.max() == 2 and len(plain) == 20
    assert counts[[i for i in counts.index if i.startswith("c")]].sum() == 8
    status = web.study_status(project)["s"]
    assert status["tasks"] == {"done": 8, "leased": 0, "expired": 0, "left": 0}
    assert status["ratings_per_item"] == {"2": 20}


def test_a_worker_never_gets_an_item_twice(project):
    web.set_study(project, "s", per_task=3, checks=1, per_item=5)
    seen = []
    with pytest.raises(web.WebRefusal):
        for _ in range(30):
            lease = web.lease(project, "s", "W1", again=True)
            seen += [o for _s, o, _c in slots_of(project, lease)]
            rate_all(project, lease)
    assert len(seen) == len(set(seen)) == 23  # every item and check once, then no task left


def test_a_lease_past_its_time_goes_back_to_the_pool(project):
    web.set_study(project, "s", per_task=10, per_item=1, lease_minutes=1)
    first = web.lease(project, "s", "W1", now=1000.0)
    second = web.lease(project, "s", "W2", now=1000.0)
    with pytest.raises(web.WebRefusal) as full:
        web.lease(project, "s", "W3", now=1010.0)
    assert full.value.status == 410
    slot = web.next_slot(project, first)
    web.rate_slot(project, "s", first.cookie, first.token, slot.slot, "3", now=1020.0)
    third = web.lease(project, "s", "W3", now=1061.0)  # both leases ran out
    assert third.size == 10
    with pytest.raises(web.WebRefusal) as late:
        web.rate_slot(project, "s", second.cookie, second.token, 1, "3", now=1062.0)
    assert late.value.status == 403  # never rated: the task is gone with its cookie
    assert web.task_by_cookie(project, "s", second.cookie) is None
    # the one rating of the expired lease stays; its item is not leased again
    given = {o for _s, o, _c in slots_of(project, third)}
    assert slot.item_ord not in given
    assert project.rating(project.item_id_for_ord(slot.item_ord), "W1") == 3.0


def test_a_live_task_resumes_only_with_its_cookie_never_by_the_link(project):
    web.set_study(project, "s", per_task=3)
    lease = web.lease(project, "s", "W1", session="S1")
    assert web.lease(project, "s", "W1", cookie=lease.cookie).task == lease.task
    # the link's session id is no credential: another browser gets a task of its own, and
    # the first one, never rated, is given up (a stranger cannot keep W1 out for a lease)
    other = web.lease(project, "s", "W1", session="S1")
    assert other.cookie != lease.cookie
    assert web.task_by_cookie(project, "s", lease.cookie) is None
    slot = web.next_slot(project, other)
    web.rate_slot(project, "s", other.cookie, other.token, slot.slot, "2")
    # once rated, the task stays with the browser that rated it
    with pytest.raises(web.WebRefusal) as refused:
        web.lease(project, "s", "W1", session="S1")
    assert refused.value.status == 409
    assert web.lease(project, "s", "W1", cookie=other.cookie).task == other.task


def test_a_finished_worker_gets_the_finished_task_back(project):
    web.set_study(project, "s", per_task=3)
    done = rate_all(project, web.lease(project, "s", "W1"))
    assert done.done
    again = web.lease(project, "s", "W1")
    assert again.done and again.task == done.task
    assert web.lease(project, "s", "W1", again=True).task != done.task


def test_a_start_that_never_rates_leaves_no_rater_and_no_log(project):
    web.set_study(project, "s", per_task=3, lease_minutes=60)
    before = project.team_tables.read("SELECT COUNT(*) FROM changes")[0][0]
    lease = web.lease(project, "s", "W9", now=1000.0)
    # short until its first rating
    assert lease.expires_at == 1000.0 + web_tasks.FIRST_RATING_MINUTES * 60
    assert project.team_tables.read("SELECT COUNT(*) FROM annotators WHERE name = 'W9'"
                                    ) == [(0,)]
    web.lease(project, "s", "W8", now=1000.0 + web_tasks.FIRST_RATING_MINUTES * 60 + 1)
    assert web.task_by_cookie(project, "s", lease.cookie) is None
    assert project.team_tables.read("SELECT COUNT(*) FROM web_slots s JOIN web_tasks t ON "
                                    "t.study = s.study AND t.task = s.task WHERE "
                                    "t.worker = 'W9'") == [(0,)]
    assert project.team_tables.read("SELECT COUNT(*) FROM changes")[0][0] == before
    # the first rating adds the rater, logs the lease and gives it its full length
    rated = web.lease(project, "s", "W7", now=time.time())
    slot = web.next_slot(project, rated)
    after, _ = web.rate_slot(project, "s", rated.cookie, rated.token, slot.slot, "3")
    assert after.expires_at > rated.expires_at + 50 * 60
    kinds = [k for (k,) in project.team_tables.read(
        "SELECT kind FROM changes ORDER BY rowid")][-3:]
    assert "web_lease" in kinds and "annotator" in kinds


def test_a_pair_of_the_task_can_be_corrected_while_the_lease_holds(project):
    web.set_study(project, "s", per_task=2, lease_minutes=1)
    lease = web.lease(project, "s", "W1", now=time.time())
    first = web.next_slot(project, lease)
    web.rate_slot(project, "s", lease.cookie, lease.token, first.slot, "1")
    item = project.item_id_for_ord(first.item_ord)
    web.rate_slot(project, "s", lease.cookie, lease.token, first.slot, "2.5")
    assert project.rating(item, "W1") == 2.5
    assert web.slot_view(project, lease, first.slot)[1] == 2.5
    after = rate_all(project, lease, "1")
    assert after.done  # corrections go on after the last pair, until the lease ends
    web.rate_slot(project, "s", lease.cookie, lease.token, first.slot, "3")
    assert project.rating(item, "W1") == 3.0
    with pytest.raises(web.WebRefusal) as late:
        web.rate_slot(project, "s", lease.cookie, lease.token, first.slot, "4",
                      now=time.time() + 61 * 60)
    assert late.value.status == 409
    assert project.rating(item, "W1") == 3.0


def test_a_worker_id_that_names_an_annotator_never_writes_into_it(project):
    web.set_study(project, "s", per_task=3)
    project.roster.add_machine("bert")
    before = project.ratings()
    for name in ("alice", "bert"):
        with pytest.raises(web.WebRefusal) as refused:
            web.lease(project, "s", name)
        assert refused.value.status == 403
    assert project.ratings().equals(before)
    lease = web.lease(project, "s", "W1")
    web.rate_slot(project, "s", lease.cookie, lease.token, 1, "2")  # the first rating adds W1
    assert project.team_tables.read("SELECT kind FROM annotators WHERE name = 'W1'") == \
        [("crowd",)]
    assert web.crowd_workers(project) == ["W1"]
    # a task whose worker row was turned into a person is refused on write too
    with project.team_tables.transaction() as conn:
        conn.execute("UPDATE annotators SET kind = 'human' WHERE name = 'W1'")
    with pytest.raises(web.WebRefusal):
        web.rate_slot(project, "s", lease.cookie, lease.token, 2, "2")


@pytest.mark.parametrize("score", ["2.3", "5", "-1", "nan", "", "x", "1e999", "2.25;"])
def test_scores_off_the_grid_are_refused_and_nothing_stored(project, score):
    web.set_study(project, "s", per_task=3)
    lease = web.lease(project, "s", "W1")
    with pytest.raises(web.WebRefusal) as refused:
        web.rate_slot(project, "s", lease.cookie, lease.token, 1, score)
    assert refused.value.status == 400
    assert project.rating_record(project.item_id_for_ord(slots_of(project, lease)[0][1]),
                                 "W1") is None


def test_a_wrong_token_or_cookie_writes_nothing(project):
    web.set_study(project, "s", per_task=3)
    lease = web.lease(project, "s", "W1")
    for cookie, token in ((lease.cookie, "x" * 43), ("x" * 43, lease.token), ("", "")):
        with pytest.raises(web.WebRefusal) as refused:
            web.rate_slot(project, "s", cookie, token, 1, "2")
        assert refused.value.status == 403
    assert web.next_slot(project, lease).slot == 1


def test_web_ratings_feed_the_check_rule_with_seconds(project):
    web.set_study(project, "s", per_task=20, checks=3, per_item=1)
    lease = web.lease(project, "s", "W1", now=100.0)
    now = 100.0
    while (slot := web.next_slot(project, lease)) is not None:
        now += 4.0
        lease, _ = web.rate_slot(project, "s", lease.cookie, lease.token, slot.slot, "0",
                                 now=now)
    row = next(r for r in annotator_report(project) if r["annotator"] == "W1")
    assert row["checks"] == 3 and row["rated"] == 23
    assert row["seconds_per_item"] == pytest.approx(4.0)
    assert row["flagged"] and "same score" in row["flag_reason"]


def test_study_settings_are_checked_and_closing_refuses_leases(project):
    with pytest.raises(SimrateError, match="--per-task"):
        web.set_study(project, "s")
    with pytest.raises(SimrateError, match="check items"):
        web.set_study(project, "s", per_task=3, checks=4)
    with pytest.raises(SimrateError, match="http"):
        web.set_study(project, "s", per_task=3, completion_url="javascript:alert(1)")
    with pytest.raises(SimrateError, match="study name"):
        web.set_study(project, "../x", per_task=3)
    web.set_study(project, "s", per_task=3, completion_url="https://example.org/done?cc=1")
    study, what = web.set_study(project, "s", close=True)
    assert what == "closed" and not study.open
    with pytest.raises(web.WebRefusal) as closed:
        web.lease(project, "s", "W1")
    assert closed.value.status == 410
    assert web.set_study(project, "s", per_item=3)[0].open
