"""The two sides of the contract suite, with one face: a plain project file, and an
organizer's replica of a hub, where the hub's word counts (its raters, its refusals).

Every method does what a user or a worker does (a person added, an import, a web lease,
a rating); on the hub each change is synced at once, so that the hub's own rules decide.
A refusal surfaces as `Refused(message)`, whatever side refused it.
"""

from __future__ import annotations

from pathlib import Path

from simrate.core.base.errors import SimrateError
from simrate.core.base.frames import rating_frame
from simrate.core.data.store import HUMAN
from simrate.core.project import Project
from simrate.core.team import web_study as web
from tests.web.projects import make_project

ITEMS = [f"i{n:03d}" for n in range(1, 21)]


class Refused(Exception):
    """A change one side refused, with the one line it said."""


def frame_of(names: list[str], items: list[str] | None = None, score: float = 2.0):
    """A ratings table: each name rates each item (default: the first two)."""
    items = items or ITEMS[:2]
    rows = [(item, name) for name in names for item in items]
    return rating_frame({"item_id": [r[0] for r in rows], "annotator": [r[1] for r in rows],
                         "score": [score] * len(rows), "note": [""] * len(rows),
                         "line": list(range(2, len(rows) + 2))})


def one_line(exc: BaseException) -> str:
    diag = getattr(exc, "diag", None)  # psycopg: the hub's own message
    text = (diag.message_primary if diag is not None and diag.message_primary else str(exc))
    assert "\n" not in text.strip() and "Traceback" not in text, text
    return text


class FileBackend:
    """A plain project file with a web study `s`."""

    kind = "file"

    def __init__(self, folder: Path):
        self.folder = folder
        self.path = make_project(folder / "organizer.simrate", items=20, checks=3)
        self.project = Project.open(self.path)
        web.set_study(self.project, "s", per_task=2, checks=0, per_item=5)

    def close(self) -> None:
        self.project.close()

    def _do(self, action):
        try:
            return action()
        except (SimrateError, web.WebRefusal) as exc:
            raise Refused(one_line(exc)) from None

    # ------------------------------------------------------------ changes
    def add_person(self, name: str) -> str:
        """`team add` on a hub; on a file, a person of the team (`team invite` adds one)."""
        return self._do(lambda: self.project.roster.add(name))

    def import_ratings(self, names: list[str], kind: str = HUMAN, items=None) -> dict:
        return self._do(lambda: self.project.import_ratings(frame_of(names, items),
                                                            source="r.csv", kind=kind))

    def import_machine(self, name: str) -> None:
        from simrate.services.machine_import import import_machine

        scores = self.folder / "machine.tsv"
        scores.write_text("item_id\tscore\n" + "".join(f"{i}\t3\n" for i in ITEMS[:3]),
                          encoding="utf-8")
        self._do(lambda: import_machine(self.project, scores, name))

    def lease(self, worker: str) -> str:
        """A web worker starts a task; returns the task's worker name."""
        return self._do(lambda: web.lease(self.project, "s", worker).worker)

    def start(self, worker: str) -> str:
        """A web worker starts a task and rates its first pair (the rating that makes the
        worker a rater); returns the task's worker name."""
        return self.web_rate(self._do(lambda: web.lease(self.project, "s", worker)))

    def web_rate(self, lease) -> str:
        """The first pair of a leased task rated 2 through the page's function."""
        self._do(lambda: web.rate_slot(self.project, "s", lease.cookie, lease.token, 1, "2"))
        return lease.worker

    def rate(self, item: str, name: str, value: float) -> None:
        self._do(lambda: self.project.rate(item, name, value))

    def sync(self) -> None:
        """Nothing to send: the file is the whole truth."""

    # ------------------------------------------------------------ reading
    def raters(self) -> dict[str, str]:
        """{name: kind} of every rater, as the authority (the file, the hub) holds them."""
        self.project.roster.reload()
        return self.project.roster.kinds()

    def ratings_of(self, name: str) -> dict[str, float]:
        table = self.project.ratings()
        mine = table[table["annotator"] == name]
        return dict(zip(mine["item_id"], mine["score"], strict=True))


class HubBackend(FileBackend):
    """An organizer's replica of a hub with a web study `s`: the hub decides."""

    kind = "hub"

    def __init__(self, hub, folder: Path):
        from tests.hub.webhub import published_study

        self.hub, self.folder = hub, folder
        self.path, _ = published_study(hub, folder, items=20, checks=3, per_task=2,
                                       n_checks=0, per_item=5, annotator=None)
        self.project = Project.open(self.path)

    def _do(self, action):
        import psycopg

        try:
            return action()
        except (SimrateError, web.WebRefusal, psycopg.Error) as exc:
            raise Refused(one_line(exc)) from None

    def sync(self) -> None:
        from simrate.hub.team.sync import sync_once

        self._do(lambda: sync_once(self.project))

    def add_person(self, name: str) -> str:
        from simrate.hub.team.people import add_person

        login, _url = self._do(lambda: add_person(self.project, name, "annotator", None))
        with self.hub.admin() as conn:
            return conn.execute("SELECT annotator FROM simrate.people WHERE login = %s",
                                (login,)).fetchone()[0]

    def import_ratings(self, names: list[str], kind: str = HUMAN, items=None) -> dict:
        counts = super().import_ratings(names, kind, items)
        self.sync()
        return counts

    def import_machine(self, name: str) -> None:
        super().import_machine(name)
        self.sync()

    def lease(self, worker: str) -> str:
        """The hub's own lease function (as `simrate serve` calls it), unaided by Python."""
        def call():
            with self.hub.admin() as conn:
                return conn.execute("SELECT worker FROM simrate.web_lease('s', %s, '', '', '')",
                                    (worker,)).fetchone()[0]
        return self._do(call)

    def start(self, worker: str) -> str:
        """The hub's own lease and rate functions (as `simrate serve` calls them)."""
        def call():
            with self.hub.admin() as conn:
                name, cookie, token = conn.execute(
                    "SELECT worker, cookie, token FROM simrate.web_lease('s', %s, '', '', '')",
                    (worker,)).fetchone()
                conn.execute("SELECT simrate.web_rate('s', %s, %s, 1, %s)",
                             (cookie, token, self.project.scale.to_code(2.0)))
                return name
        return self._do(call)

    def web_rate(self, lease) -> str:
        raise NotImplementedError  # the hub's leases are started by `start`

    def rate(self, item: str, name: str, value: float) -> None:
        super().rate(item, name, value)
        self.sync()

    def raters(self) -> dict[str, str]:
        with self.hub.admin() as conn:
            return dict(conn.execute("SELECT name, kind FROM simrate.annotators").fetchall())

    def ratings_of(self, name: str) -> dict[str, float]:
        scale = self.project.scale
        with self.hub.admin() as conn:
            rows = conn.execute("SELECT item_id, code FROM simrate.ratings WHERE annotator = %s "
                                "AND code IS NOT NULL", (name,)).fetchall()
        return {item: scale.from_code(code) for item, code in rows}
