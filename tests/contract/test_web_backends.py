"""The web pages' two backends, one contract: the file backend (a plain project file) and
the hub backend (an organizer's replica, every call one of the hub's functions on a real
PostgreSQL) both implement the typed Protocol `WebBackend`, and one set of cases runs
against both: a lease, a rating, a correction, a finished task, a task resumed by its
cookie, and the refusals, with the same words and statuses (simrate.core.base.rules)."""

from __future__ import annotations

import asyncio
import inspect

import pytest

from simrate.core.base import rules
from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.core.team.web_tables import WebRefusal
from simrate.web.backend_protocol import WebBackend
from simrate.web.backends import FileBackend
from simrate.web.hub_backend import HubBackend
from tests.hub.conftest import hub, pg  # noqa: F401  (the hub's fixtures, for the hub side)
from tests.web.projects import make_project

PER_TASK = 3


def expire_all(backend: WebBackend, cluster_hub=None):
    """Every lease of the study past its time (as if its minutes had run out)."""
    if cluster_hub is not None:
        with cluster_hub.admin() as conn:
            conn.execute("UPDATE simrate.web_tasks SET expires_at = 0")
        return

    def past(project: Project) -> None:
        with project.team_tables.transaction() as conn:
            conn.execute("UPDATE web_tasks SET expires_at = 0")

    backend._pool.submit(past, backend.project).result()  # the file's own thread


@pytest.fixture(params=["file", "hub"])
def side(request, tmp_path):
    """An opened backend over a project with an open study `s` of 3 pairs a task."""
    if request.param == "file":
        path = make_project(tmp_path / "organizer.simrate", items=20, checks=3)
        with Project.open(path) as project:
            web.set_study(project, "s", per_task=PER_TASK, checks=0, per_item=2)
        backend: WebBackend = FileBackend(path)
    else:
        from tests.hub.webhub import published_study

        path, _ = published_study(request.getfixturevalue("hub"), tmp_path, items=20,
                                  checks=3, per_task=PER_TASK, n_checks=0, per_item=2,
                                  annotator=None)
        backend = HubBackend(path)
        backend.test_hub = request.getfixturevalue("hub")  # for expire_all
    backend.open()
    yield backend
    backend.close()


def run(backend: WebBackend, scenario) -> None:
    """`scenario(backend)` in an event loop, the backend started and stopped around it."""
    async def whole():
        await backend.start()
        try:
            await scenario(backend)
        finally:
            await backend.stop()

    asyncio.run(whole())


async def refused(call, name: str) -> WebRefusal:
    """The WebRefusal `call` ends with: the words and status of rules.REFUSALS[name]."""
    with pytest.raises(WebRefusal) as caught:
        await call
    status, message = rules.REFUSALS[name]
    assert (caught.value.status, caught.value.message.startswith(message)) == (status, True), \
        (caught.value.status, caught.value.message)
    return caught.value


@pytest.mark.parametrize("backend", [FileBackend("x.simrate"), HubBackend("x.simrate")],
                         ids=["file", "hub"])
def test_both_backends_implement_the_protocol_with_its_signatures(backend):
    """Every member of WebBackend, on each side's class, with the Protocol's parameters and
    the same kind (a coroutine where the Protocol's is one). It reads the classes, so it
    needs no study: the hub side's class is checked without a PostgreSQL."""
    members = [n for n in vars(WebBackend) if not n.startswith("_")]
    assert {"lease", "rate", "task", "slot", "study", "open", "start"} <= set(members)
    cls = type(backend)
    for name in members:
        ours = getattr(WebBackend, name)
        assert hasattr(cls, name) or name in vars(backend), (cls.__name__, name)
        if isinstance(ours, property):
            continue
        theirs = getattr(cls, name)
        assert inspect.iscoroutinefunction(theirs) == inspect.iscoroutinefunction(ours), \
            (cls.__name__, name)
        assert list(inspect.signature(theirs).parameters) == \
            list(inspect.signature(ours).parameters), (cls.__name__, name)


def test_a_lease_gives_a_task_that_its_cookie_resumes(side):
    async def scenario(b: WebBackend):
        assert b.open_studies() == ["s"] and (await b.study("s")).per_task == PER_TASK
        assert await b.study("nope") is None
        first = await b.lease("s", "W1", "", None)
        assert (first.state, first.size, first.rated, first.worker) == \
            ("leased", PER_TASK, 0, "W1")
        again = await b.lease("s", "W1", "", first.cookie)  # the same browser: resumed
        assert (again.task, again.cookie, again.token) == (first.task, first.cookie,
                                                          first.token)
        lease, slot = await b.task("s", first.cookie)
        assert lease.task == first.task and slot.slot == 1 and slot.left.startswith("left")
        assert await b.task("s", "no-such-cookie") == (None, None)
        other = await b.lease("s", "W2", "", None)
        assert other.task != first.task

    run(side, scenario)


def test_rating_correcting_and_finishing_a_task(side):
    async def scenario(b: WebBackend):
        lease = await b.lease("s", "W1", "", None)
        assert await b.rate("s", lease.cookie, lease.token, 1, "2") == 2
        _, shown, saved = await b.slot("s", lease.cookie, 1)
        assert (shown.slot, saved) == (1, 2.0)
        # a correction: the later edit wins, still one rating, the next slot unchanged
        assert await b.rate("s", lease.cookie, lease.token, 1, "4") == 2
        now, _, saved = await b.slot("s", lease.cookie, 1)
        assert (saved, now.rated) == (4.0, 1)
        _, unrated, nothing = await b.slot("s", lease.cookie, 2)
        assert (unrated.slot, nothing) == (2, None)
        assert await b.rate("s", lease.cookie, lease.token, 2, "1") == 3
        assert await b.rate("s", lease.cookie, lease.token, 3, "0") is None  # finished
        done, next_slot = await b.task("s", lease.cookie)
        assert (done.state, done.rated, next_slot) == ("done", PER_TASK, None)
        back = await b.lease("s", "W1", "", None)  # a finished worker gets the task back
        assert (back.task, back.state) == (lease.task, "done")
        assert await b.rate("s", lease.cookie, lease.token, 3, "3.5") is None  # corrected
        assert (await b.slot("s", lease.cookie, 3))[2] == 3.5

    run(side, scenario)


def test_a_rating_and_the_page_after_it_come_back_from_one_call(side):
    """rate_and_show: the rating saved, and what the next page shows (the study, the task
    after the rating, its next unrated pair with its texts; None after the last pair); a
    correction shows the first unrated pair; the refusals are rate()'s."""
    async def scenario(b: WebBackend):
        lease = await b.lease("s", "W1", "", None)
        _, second, _ = await b.slot("s", lease.cookie, 2)
        shown = await b.rate_and_show("s", lease.cookie, lease.token, 1, "2.5")
        assert (shown.study.name, shown.study.per_task, shown.study.open) == ("s", PER_TASK,
                                                                             True)
        assert (shown.lease.task, shown.lease.rated, shown.lease.state) == (lease.task, 1,
                                                                           "leased")
        assert (shown.slot.slot, shown.slot.left, shown.slot.right) == (2, second.left,
                                                                       second.right)
        assert (await b.slot("s", lease.cookie, 1))[2] == 2.5
        again = await b.rate_and_show("s", lease.cookie, lease.token, 1, "3")  # corrected
        assert (again.slot.slot, again.lease.rated) == (2, 1)
        await b.rate_and_show("s", lease.cookie, lease.token, 2, "1")
        last = await b.rate_and_show("s", lease.cookie, lease.token, 3, "0")
        assert (last.slot, last.lease.state, last.lease.rated) == (None, "done", PER_TASK)
        await refused(b.rate_and_show("s", lease.cookie, "not-the-token", 1, "2"),
                      "expired_page")
        await refused(b.rate_and_show("s", lease.cookie, lease.token, 99, "2"), "no_slot")
        assert [(await b.slot("s", lease.cookie, n))[2] for n in (1, 2, 3)] == [3.0, 1.0, 0.0]

    assert getattr(side, "one_call", True)  # a hub of this version: the one call
    run(side, scenario)
    if isinstance(side, HubBackend):  # a hub published before web_rate_show: the same
        side.one_call = False
        run(side, scenario_on_an_older_hub)


async def scenario_on_an_older_hub(b: WebBackend):
    lease = await b.lease("s", "W2", "", None)
    shown = await b.rate_and_show("s", lease.cookie, lease.token, 1, "4")
    assert (shown.slot.slot, shown.lease.rated, shown.study.name) == (2, 1, "s")
    for slot in range(2, PER_TASK + 1):
        shown = await b.rate_and_show("s", lease.cookie, lease.token, slot, "4")
    assert (shown.slot, shown.lease.state) == (None, "done")


def test_another_browser_takes_an_unrated_task_and_is_refused_a_rated_one(side):
    async def scenario(b: WebBackend):
        first = await b.lease("s", "W1", "", None)
        second = await b.lease("s", "W1", "", None)  # no rating yet: given up for a new one
        assert second.cookie != first.cookie
        assert await b.task("s", first.cookie) == (None, None)  # the first task is gone
        await b.rate("s", second.cookie, second.token, 1, "3")
        await refused(b.lease("s", "W1", "", None), "open_elsewhere")
        assert (await b.lease("s", "W1", "", second.cookie)).task == second.task

    run(side, scenario)


def test_refusals_have_the_same_words_and_status(side):
    async def scenario(b: WebBackend):
        lease = await b.lease("s", "W1", "", None)
        await refused(b.rate("s", lease.cookie, "not-the-token", 1, "2"), "expired_page")
        await refused(b.rate("s", "not-the-cookie", lease.token, 1, "2"), "expired_page")
        wrong = await refused(b.rate("s", lease.cookie, lease.token, 1, "9"), "score")
        assert b.scale.describe() in wrong.message
        await refused(b.rate("s", lease.cookie, lease.token, 99, "2"), "no_slot")
        await refused(b.lease("s", "w x", "", None), "worker_id")
        await refused(b.lease("s", "w" * (rules.MAX_RATER_CHARS + 1), "", None), "worker_id")
        await refused(b.lease("nope", "W2", "", None), "no_study")
        assert (await b.task("s", lease.cookie))[0].rated == 0  # nothing was written

    run(side, scenario)


def test_a_task_past_its_time_is_refused_and_the_worker_gets_a_new_one(side):
    async def scenario(b: WebBackend):
        lease = await b.lease("s", "W1", "", None)
        await b.rate("s", lease.cookie, lease.token, 1, "2")
        expire_all(b, getattr(b, "test_hub", None))
        await refused(b.rate("s", lease.cookie, lease.token, 2, "2"), "time_out")
        await refused(b.rate("s", lease.cookie, lease.token, 1, "3"), "time_out")
        fresh = await b.lease("s", "W1", "", lease.cookie)  # its rating stays, the task ends
        assert fresh.cookie != lease.cookie and fresh.state == "leased"
        assert (await b.slot("s", lease.cookie, 1))[2] == 2.0

    run(side, scenario)

