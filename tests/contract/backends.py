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
    """A change one side refused, with the one line it said (and the HTTP status of a web
    refusal: WebRefusal's, or the hub's SQLSTATE SRnnn)."""

    def __init__(self, message: str, status: int | None = None, problem: str = ""):
        super().__init__(message)
        self.status = status
        self.problem = problem or message  # without the file's name before it


def status_of(exc: BaseException) -> int | None:
    state = getattr(exc, "sqlstate", None) or ""
    if state.startswith("SR") and state[2:].isdigit():
        return int(state[2:])
    return getattr(exc, "status", None)


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
            raise Refused(one_line(exc), status_of(exc), getattr(exc, "message", "")) from None

    # ------------------------------------------------------------ changes
    def add_person(self, name: str) -> str:
        """`team add` on a hub; on a file, a person of the team (`team invite` adds one)."""
        return self._do(lambda: self.project.roster.add(name))

    def import_ratings(self, names: list[str], kind: str = HUMAN, items=None) -> dict:
        return self._do(lambda: self.project.import_ratings(frame_of(names, items),
                                                            source="r.csv", kind=kind))

    def import_machine(self, name: str) -> None:
        from simrate.services.imports.machine_import import import_machine

        scores = self.folder / "machine.tsv"
        scores.write_text("item_id\tscore\n" + "".join(f"{i}\t3\n" for i in ITEMS[:3]),
                          encoding="utf-8")
        self._do(lambda: import_machine(self.project, scores, name))

    def lease(self, worker: str, study: str = "s") -> str:
        """A web worker starts a task; returns the task's worker name."""
        return self._do(lambda: web.lease(self.project, study, worker).worker)

    def set_study(self, settings: dict) -> None:
        """`crowd study` with every setting given (the names of rules.STUDY_RULES, the
        options as a dict; `open` False: the study closed)."""
        if not settings.get("open", True):
            self._do(lambda: web.set_study(self.project, settings["name"], close=True))
            return
        self._do(lambda: web.set_study(
            self.project, settings["name"], per_task=settings["per_task"],
            checks=settings["checks"], per_item=settings["per_item"],
            lease_minutes=settings["lease_minutes"],
            completion_url=settings["completion_url"], completion_code=settings["code"],
            options=settings["options"]))

    def insert_rater(self, name: str, kind: str = HUMAN) -> str:
        """A rater added by the lowest route a client has (the file: the roster)."""
        return self._do(lambda: self.project.roster.add(name, kind))

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
            raise Refused(one_line(exc), status_of(exc), getattr(exc, "message", "")) from None

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

    def lease(self, worker: str, study: str = "s") -> str:
        """The hub's own lease function (as `simrate serve` calls it), unaided by Python."""
        def call():
            with self.hub.admin() as conn:
                return conn.execute("SELECT worker FROM simrate.web_lease(%s, %s, '', '', '')",
                                    (study, worker)).fetchone()[0]
        return self._do(call)

    def set_study(self, settings: dict) -> None:
        """The hub's own `web_set_study`, called by an organizer's login, unaided by Python."""
        import json

        from simrate.hub.team.people import hub_of, organizer_connection

        def call():
            conn = organizer_connection(*hub_of(self.project), None)
            try:
                conn.execute(
                    "SELECT simrate.web_set_study(%(name)s, %(per_task)s, %(checks)s, "
                    "%(per_item)s, %(lease_minutes)s, %(completion_url)s, %(open)s, '{}', "
                    "%(code)s, %(secret)s, %(options)s)",
                    {"open": True, **settings, "secret": "k" * 64,
                     "options": json.dumps(settings["options"])})
                conn.commit()
            finally:
                conn.close()
        self._do(call)

    def insert_rater(self, name: str, kind: str = HUMAN) -> str:
        """A row written straight into the hub's raters (as any client of the owner could):
        the hub's own rules decide."""
        from simrate.core.base.names import rater_key

        def call():
            with self.hub.admin() as conn:
                conn.execute("INSERT INTO simrate.annotators (name, kind, key) "
                             "VALUES (%s, %s, %s)", (name, kind, rater_key(name)))
            return name
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
