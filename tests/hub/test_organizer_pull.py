"""The organizer's pull applies a batch of ratings and updates the live figures once for
it (issue 33): alpha with every rating, the rater-level figures (pairs, r vs rest) once per
item the batch touched, when next read; and all of them equal a model built afresh from
the file. Real PostgreSQL, annotators' replicas pushing as their windows do."""

from __future__ import annotations

from simrate.core.project import Project
from simrate.hub.team.sync import sync_once
from tests.hub.hubs import join_as, team


def _figures(live) -> tuple:
    return (live.alpha(), live.alpha("ordinal"), live.n_ratings,
            sorted(live.pearson_vs_rest().items()), live.pearson_matrix()[0].tobytes())


def _afresh(project: Project):
    """The live engine built anew from what the file holds (on the project's own
    connection: no second opening of the file in this process)."""
    from simrate.core.agreement.model import AgreementModel

    project.column_cache.clear()
    return AgreementModel(project).live


def test_a_pulled_batch_is_applied_whole_and_the_live_figures_follow_once(hub, tmp_path):
    people = {"Ann": "annotator", "Bob": "annotator", "Cy": "annotator"}
    organizer, logins = team(hub, tmp_path, people, n_items=12)
    model = organizer.agreement
    model.flags, model.live, model.scopes  # noqa: B018 - built, as in the window
    replicas = {name: join_as(hub, logins[name], tmp_path / f"{name}.simrate")
                for name in people}
    for k, (name, replica) in enumerate(replicas.items()):
        for item in range(1, 13):
            replica.rate(f"d:{item}", name, ((item * (k + 2)) % 21) * 0.25)
        assert sync_once(replica).pushed == 12
    report = sync_once(organizer)
    assert report.pulled == 36 and len(organizer.ratings()) == 36
    live = model.live
    # alpha follows every rating; the rater-level sums wait, once per item touched
    assert live.n_ratings == 36 and live.unsettled_units == 12
    assert live.alpha() == _afresh(organizer).alpha()
    assert _figures(live) == _figures(_afresh(organizer))
    assert live.unsettled_units == 0
    # a second batch: three items, one of them rated anew by two people
    for item, score in (("d:1", 5.0), ("d:2", 0.0), ("d:3", 2.5)):
        replicas["Ann"].rate(item, "Ann", score)
    replicas["Bob"].rate("d:1", "Bob", 0.5)
    for name in ("Ann", "Bob"):
        sync_once(replicas[name])
    assert sync_once(organizer).pulled == 4
    assert live.unsettled_units == 3
    assert _figures(live) == _figures(_afresh(organizer))
    assert model.live is live  # kept up to date, never rebuilt
    for replica in replicas.values():
        replica.close()
    organizer.close()
