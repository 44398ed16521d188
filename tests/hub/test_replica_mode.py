"""The hub adapter changes the file's mode through `Project.relink` only: linking and
unlinking (hub/link/replica.py), and the modes publishing and joining leave.

Linking needs no server (the first two tests); publishing and joining run against real
PostgreSQL (tests/hub/cluster.py).
"""

from __future__ import annotations

import sqlite3

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.data.replica_mode import ReplicaMode, Role
from simrate.core.project import Project
from simrate.hub.link.replica import link_replica, read_link, unlink_replica
from simrate.hub.team.sync import pending_count
from tests.hub.hubs import join_as, make_project, team

HUB = "postgresql://hub.example:5432/team"


def test_link_and_unlink_an_annotators_replica(tmp_path):
    with make_project(tmp_path / "p.simrate") as project:
        with pytest.raises(SimrateError, match="not linked to a hub"):
            read_link(project)
        mode = link_replica(project, HUB, Role.ANNOTATOR, "Ann", "uuid-1")
        assert project.mode is mode and read_link(project) is mode
        assert (mode.role, mode.url, mode.name) == (Role.ANNOTATOR, HUB, "Ann") and mode.replica
        assert project.meta("project_uuid") == "uuid-1"
        project.rate("d:1", "Ann", 1.0)
        # the file's trigger reads the same mode: another person's rating is refused
        with pytest.raises(SimrateError, match="annotator's replica"):
            project.rate("d:1", "Bob", 2.0)
        assert unlink_replica(project) == ReplicaMode(replica=mode.replica)
        assert project.mode.plain and pending_count(project) == 0
        project.rate("d:1", "Bob", 2.0)  # a plain file holds anyone's ratings
        again = link_replica(project, HUB, Role.ORGANIZER, None, "uuid-1")
        assert again.organizer and again.replica == mode.replica  # the same replica
        assert pending_count(project) >= 1  # Bob's rating, made while unlinked, goes out
    with Project.open(tmp_path / "p.simrate") as reopened:
        assert reopened.mode == again


def test_a_failed_link_leaves_the_mode_and_the_file_as_they_were(tmp_path):
    """The link's keys are written, then the same transaction fails: nothing of it stays,
    in the file or in the object."""
    path = tmp_path / "p.simrate"
    with make_project(path) as project:
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TRIGGER no_uuid BEFORE INSERT ON meta WHEN NEW.key = "
                         "'project_uuid' BEGIN SELECT RAISE(ABORT, 'refused here'); END")
        project.refresh()
        with pytest.raises(SimrateError, match="refused here"):
            link_replica(project, HUB, Role.ORGANIZER, None, "uuid-2")
        assert project.mode.plain
        with pytest.raises(SimrateError, match="not linked"):
            read_link(project)
    with Project.open(path) as reopened:
        assert reopened.mode.plain and reopened.mode.replica == ""
        assert reopened.team_tables.read(
            "SELECT count(*) FROM sqlite_master WHERE name = 'hub_outbox'") == [(0,)]


def test_publishing_and_joining_leave_organizer_and_annotator_modes(hub, tmp_path):
    organizer, logins = team(hub, tmp_path, {"Alice": "annotator", "Olga": "organizer"})
    alice = join_as(hub, logins["Alice"], tmp_path / "alice.simrate")
    olga = join_as(hub, logins["Olga"], tmp_path / "olga.simrate")
    try:
        assert organizer.mode.organizer and organizer.mode.url == hub.url()
        assert alice.mode.annotator and alice.mode.name == "Alice"
        assert alice.mode.url == hub.url(logins["Alice"]) and not alice.mode.service
        assert olga.mode.organizer
        assert len({organizer.mode.replica, alice.mode.replica, olga.mode.replica}) == 3
    finally:
        for project in (organizer, alice, olga):
            project.close()
    with Project.open(tmp_path / "alice.simrate") as reopened:
        assert reopened.mode == alice.mode
