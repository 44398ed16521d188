"""The file's replica mode (core/data/replica_mode.py): resolved once when the Project opens,
changed only through `Project.relink`, and never stale after a failed transaction.

Real project files on disk; the hub adapter's link and unlink, and the modes publishing and
joining give, are in tests/hub/test_replica_mode.py.
"""

from __future__ import annotations

import sqlite3

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.data.replica_mode import ReplicaMode, Role
from simrate.core.project import Project

HUB = "postgresql://hub.example:5432/team"
SERVICE = "https://rate.example:8000"


@pytest.fixture
def path(tmp_path):
    Project.create(tmp_path / "p.simrate").close()
    return tmp_path / "p.simrate"


def _stored(path) -> dict[str, str]:
    """The file's meta keys of the link, read by a connection of its own."""
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT key, value FROM meta WHERE key LIKE 'hub%'"))


def test_a_new_file_is_plain(path):
    with Project.open(path) as project:
        mode = project.mode
        assert mode.role is Role.PLAIN and mode.plain
        assert not mode.organizer and not mode.annotator
        assert (mode.url, mode.service, mode.name, mode.token) == ("", "", None, "")
        with pytest.raises(SimrateError, match="not linked to a hub") as refused:
            mode.require_link(path)
        assert str(path) in str(refused.value)


def test_organizer_and_annotator_files_report_their_mode(path):
    with Project.open(path) as project:
        with project.relink(ReplicaMode(Role.ORGANIZER, HUB, "r-1")):
            pass
        assert project.mode == ReplicaMode(Role.ORGANIZER, HUB, "r-1")
        assert project.mode.organizer and not project.mode.service
    with Project.open(path) as project:  # resolved from the file when it opens
        assert project.mode.organizer and project.mode.url == HUB
        with project.relink(ReplicaMode(Role.ANNOTATOR, SERVICE, "r-1", "Zoë", "t0k3n")):
            pass
    with Project.open(path) as project:
        mode = project.mode
        assert mode.annotator and (mode.name, mode.token, mode.replica) == ("Zoë", "t0k3n", "r-1")
        assert mode.service == SERVICE  # it syncs through `simrate serve`
        assert "t0k3n" not in repr(mode)  # the token is a credential


def test_a_hub_url_without_a_known_role_is_an_annotators_replica(path):
    """A file linked by an older simrate may lack the role: it gets the lesser one."""
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO meta VALUES ('hub_url', ?)", (HUB,))
    with Project.open(path) as project:
        assert project.mode.annotator and project.mode.url == HUB and project.mode.name is None


def test_unlinking_leaves_a_plain_file_that_keeps_its_replica_id(path):
    with Project.open(path) as project:
        with project.relink(ReplicaMode(Role.ANNOTATOR, SERVICE, "r-9", "Ann", "tok")):
            pass
        with project.relink(project.mode.unlinked()):
            pass
        assert project.mode == ReplicaMode(replica="r-9")
    assert _stored(path) == {"hub_replica": "r-9"}
    with Project.open(path) as project:
        assert project.mode.plain and project.mode.replica == "r-9"


def test_the_mode_is_read_once_and_again_when_another_program_relinks(path):
    """Another process's link reaches an open project at its next refresh, not before."""
    with Project.open(path) as window, Project.open(path) as other:
        with other.relink(ReplicaMode(Role.ORGANIZER, HUB, "r-2")):
            pass
        assert window.mode.plain  # resolved once: no read of the file per question
        assert window.refresh()
        assert window.mode.organizer and window.mode.url == HUB


def test_the_mode_is_read_back_inside_the_transaction_and_kept_only_after_commit(path):
    with Project.open(path) as project:
        with pytest.raises(ValueError):
            with project.relink(ReplicaMode(Role.ORGANIZER, HUB, "r-3")) as conn:
                assert ReplicaMode.read(conn).organizer  # inside: written
                assert project.mode.plain  # not ours before the commit
                raise ValueError("the adapter's own write failed")
        assert project.mode.plain
    assert _stored(path) == {}


def test_a_refused_write_leaves_no_stale_mode(path):
    """SQLite itself refuses the transaction after the link's keys went in: the file and
    the object both keep the mode they had."""
    with Project.open(path) as project:
        with project.relink(ReplicaMode(Role.ANNOTATOR, HUB, "r-4", "Ann")):
            pass
        before = project.mode
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TRIGGER no_uuid BEFORE INSERT ON meta WHEN NEW.key = "
                         "'project_uuid' BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        assert project.refresh() and project.mode == before  # another program's commit
        with pytest.raises(SimrateError, match="disk says no"):
            with project.relink(ReplicaMode(Role.ORGANIZER, SERVICE, "r-4")) as conn:
                conn.execute("INSERT OR REPLACE INTO meta VALUES ('project_uuid', 'x')")
        assert project.mode == before
        assert not project.refresh()  # nothing was committed
    with Project.open(path) as project:
        assert project.mode == before
