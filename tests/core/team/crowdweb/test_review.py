"""crowd review's proposal on a simulated 200-worker study with planted careless workers."""

from __future__ import annotations

import pytest

from simrate.core.project import Project
from simrate.core.team.crowdweb.review import REJECT_FAILED_CHECKS, review_study
from tests.core.team.crowdweb.simulated import simulate

#: The seeds docs/crowd.md reports the marking figures for.
SEEDS = (7, 11, 23)
_made: dict = {}


def simulated(factory, seed: int):
    if seed not in _made:
        path = factory.mktemp(f"review{seed}") / "p.simrate"
        planted = simulate(path, seed=seed)
        with Project.open(path) as project:
            _made[seed] = planted, review_study(project, "s", now=planted.end + 7200)
    return _made[seed]


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    return simulated(tmp_path_factory, SEEDS[0])


@pytest.fixture(scope="module", params=SEEDS)
def seeded(request, tmp_path_factory):
    return simulated(tmp_path_factory, request.param)


def test_no_rejection_prolific_forbids(seeded):
    _planted, review = seeded
    for worker in review.of("reject"):
        assert len(worker.failed_checks) >= REJECT_FAILED_CHECKS, worker
        assert "fast" not in " ".join(worker.reasons)
    for worker in review.workers:  # fewer than two failed checks: never a rejection
        if len(worker.failed_checks) < REJECT_FAILED_CHECKS:
            assert worker.decision != "reject"


def test_careless_workers_are_marked_and_careful_ones_are_not(seeded):
    planted, review = seeded
    by_worker = {w.worker: w for w in review.workers}
    careless = [w for w, k in planted.kinds.items() if k in ("random", "straight", "fast")]
    careful = [w for w, k in planted.kinds.items() if k == "careful"]
    marked = [w for w in careless if by_worker[w].decision in ("return", "reject")]
    wrongly = [w for w in careful if by_worker[w].decision != "approve"]
    assert len(careless) == 40 and len(careful) == 160
    assert len(marked) >= 0.9 * len(careless), [
        (w, planted.kinds[w], by_worker[w].reasons) for w in careless if w not in marked]
    assert len(wrongly) <= 0.02 * len(careful), [(w, by_worker[w].reasons) for w in wrongly]


def test_too_fast_alone_is_asked_to_return_never_rejected(study):
    planted, review = study
    fast = [w for w in review.workers if planted.kinds.get(w.worker) == "fast"]
    assert fast and all(w.decision in ("return", "reject") for w in fast)
    for worker in fast:
        if worker.decision == "reject":  # only for its failed checks
            assert len(worker.failed_checks) >= REJECT_FAILED_CHECKS
        else:
            assert any("very fast" in r for r in worker.reasons)


def test_timed_out_submissions_are_set_apart(study):
    planted, review = study
    apart = {w.worker for w in review.of("timed_out")}
    assert apart == {w for w, k in planted.kinds.items() if k == "timed_out"}
    for worker in review.of("timed_out"):
        assert worker.ratings == 3 and not worker.complete
        assert "ran out of time" in worker.reasons[0]


def test_time_on_task_is_the_servers(study):
    planted, review = study
    for worker in review.workers:
        if worker.complete:
            assert worker.seconds == pytest.approx(planted.seconds[worker.worker], abs=0.002)
            assert worker.ratings == 14 and worker.checks == 4
    assert review.median_seconds is not None
