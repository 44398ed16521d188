"""Load and faults: five annotator processes rate 2,000 items each into one hub while the
organizer pulls; the server crashes (pg_ctl stop -m immediate) and comes back, and one
client is killed (-9) in the middle of a push and restarted. Afterwards the hub and the
organizer hold exactly the 10,000 ratings, equal everywhere, and live alpha equals batch.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from simrate.core.agreement import alpha
from simrate.core.project import Project
from simrate.hub.link.connection import HubError
from simrate.hub.team.sync import session_for, sync_round
from tests.hub.hubs import ROOT, make_project

N_ITEMS = 2000
ANNOTATORS = 5
PACE = 250  # ratings per second per annotator process, at most


def hub_ratings(hub) -> list[tuple]:
    with hub.admin() as admin:
        return admin.execute("SELECT item_id, annotator, code FROM simrate.ratings "
                             "ORDER BY 1, 2").fetchall()


def hub_count(hub) -> int | None:
    try:
        with hub.admin() as admin:
            return admin.execute("SELECT count(*) FROM simrate.ratings").fetchone()[0]
    except psycopg.Error:
        return None  # the server is down


def start_rater(hub, tmp_path, login: str, name: str, seed: int) -> subprocess.Popen:
    args = [sys.executable, "-m", "tests.hub.rater", hub.url(login),
            str(tmp_path / f"{login}.simrate"), name, "0", str(N_ITEMS), str(PACE), str(seed)]
    return subprocess.Popen(args, cwd=ROOT, env=hub.env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def kill_in_the_middle_of_a_push(hub, process: subprocess.Popen, login: str) -> None:
    """Hold a lock on the ratings that every rating's write waits for, so that pushes stop
    inside their transaction; wait for this client's push to be stuck there, kill it with
    signal 9, let the hub go on."""
    with hub.admin() as admin, hub.admin() as watch, admin.transaction():
        admin.execute("LOCK TABLE simrate.ratings IN SHARE MODE")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # watched from another connection: a
            stuck = watch.execute(           # transaction sees one snapshot of the view
                "SELECT count(*) FROM pg_stat_activity WHERE usename = %s "
                "AND wait_event_type = 'Lock' AND state = 'active'", (login,)).fetchone()[0]
            if stuck:
                break
            time.sleep(0.01)
        assert stuck, "the client never pushed while the lock was held"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()


def test_five_annotators_two_thousand_ratings_each_through_a_crash_and_a_kill(hub, tmp_path):
    from simrate.hub.team.people import add_person
    from simrate.hub.team.publish import publish

    organizer = make_project(tmp_path / "organizer.simrate", N_ITEMS)
    publish(organizer, hub.url())
    logins = {}
    for k in range(ANNOTATORS):
        name, login = f"Rater {k}", f"{hub.name}_r{k}"
        add_person(organizer, name, "annotator", f"pw-{k}", login=login)
        hub.remember(login, f"pw-{k}")
        logins[name] = login
    live = organizer.live  # built now: pulled ratings update it as they come
    session = session_for(organizer)
    processes = {name: start_rater(hub, tmp_path, login, name, k)
                 for k, (name, login) in enumerate(logins.items())}
    crashed = killed = False
    failed_rounds = 0
    deadline = time.monotonic() + 480
    while time.monotonic() < deadline:
        try:
            sync_round(organizer, session)
        except HubError:
            failed_rounds += 1
        count = hub_count(hub)
        if not crashed and count is not None and count >= 2500:
            hub.cluster.stop("immediate")  # a crash: no shutdown checkpoint
            crashed = True
            time.sleep(2.0)  # the annotators keep rating meanwhile
            hub.cluster.start()
        elif crashed and not killed and count is not None and count >= 5000:
            name = next(iter(processes))
            kill_in_the_middle_of_a_push(hub, processes[name], logins[name])
            processes[name] = start_rater(hub, tmp_path, logins[name], name, 0)
            killed = True
        if all(p.poll() is not None for p in processes.values()) and \
                len(organizer.ratings()) == ANNOTATORS * N_ITEMS:
            break
        session.wait(0.2)
    session.close()
    outputs = {name: p.communicate(timeout=60) for name, p in processes.items()}
    for name, (_out, err) in outputs.items():
        assert processes[name].returncode == 0, err
    assert crashed and killed and failed_rounds >= 1

    on_hub = hub_ratings(hub)
    assert len(on_hub) == ANNOTATORS * N_ITEMS
    assert all(code is not None for *_, code in on_hub)
    with hub.admin() as admin:  # each rating written once: nothing duplicated
        assert admin.execute("SELECT count(*), count(DISTINCT (item_id, annotator)) FROM "
                             "simrate.changes WHERE kind = 'ratings'").fetchone() == (10000,
                                                                                      10000)
    mine = organizer.ratings()
    assert sorted(zip(mine["item_id"], mine["annotator"], mine["code"].astype(int),
                      strict=True)) == on_hub
    for name, login in logins.items():
        with Project.open(tmp_path / f"{login}.simrate") as replica:
            theirs = replica.ratings()
            assert set(theirs["annotator"]) == {name}
            assert sorted(zip(theirs["item_id"], theirs["annotator"],
                              theirs["code"].astype(int), strict=True)) == \
                [r for r in on_hub if r[1] == name]
    table = mine.pivot(index="annotator", columns="item_id", values="score")
    batch = alpha(table.to_numpy(dtype=float))
    assert organizer.live.alpha() == pytest.approx(batch, abs=1e-12)
    assert live is organizer.live or organizer.live.alpha() == pytest.approx(batch)
    organizer.close()
