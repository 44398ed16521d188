"""The routes of a web study's worker: landing, start, the task's pages, rating, the code.

Each pair of a task has its own address (`/study/NAME/task/N`), so Back and a reload show
that pair with the score saved for it, and saving there corrects it while the lease holds
(the later edit wins). A score off the scale comes back on the same page with the field
kept; every other refusal has a link back to the task. The last page holds the code (the
requester's), a copy button and a "Return to the study platform" link.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from simrate.core.base.scale import fmt
from simrate.core.team import web_study as web
from simrate.core.team.crowdweb.access import NOT_FOR_YOU, may_start
from simrate.core.team.crowdweb.attention import ENDED, warning
from simrate.core.team.crowdweb.flood import address_key
from simrate.core.team.crowdweb.options import completion_link
from simrate.core.team.crowdweb.training import SCREENED, feedback
from simrate.web import mturk
from simrate.web.backend_protocol import Shown, WebBackend
from simrate.web.markdown import render
from simrate.web.security import COOKIE, Buckets, Refused, refused


class StudyRoutes:
    """The worker's routes of a study (a part of pages.Pages, which provides what is
    declared here: the backend, the rate limits and the page helpers)."""

    backend: WebBackend  # set by pages.Pages
    writes: Buckets
    starts: Buckets
    ip_starts: Buckets
    page: Callable[..., HTMLResponse]
    points: Callable[[], list[dict]]
    study_or_refuse: Callable[..., Awaitable[web.Study]]

    async def landing(self, request: Request) -> Response:
        name = request.path_params["name"]
        study = await self.study_or_refuse(name, closed_ok=True)
        query = request.query_params
        frame_from = study.option("frame_from", "")
        turker, turk_session, preview = mturk.from_link(query, frame_from)
        if preview:  # a HIT's preview: the page without a task
            return self.landing_page(study, "", "", "", preview=True)
        worker = turker or query.get("PROLIFIC_PID") or query.get("worker") or ""
        try:
            web.check_worker_id(worker)
        except web.WebRefusal as refusal:
            raise Refused(refusal.message, refusal.status) from None
        self.check_platform_study(study, query.get("STUDY_ID", ""))
        mine = await self.finished_here(request, study, worker)
        if mine is not None:
            return mine
        if not study.open:
            raise refused("closed")
        if not may_start(study, worker):  # a page that says so, never a task
            raise Refused(NOT_FOR_YOU, 403)
        return self.landing_page(study, worker, turk_session or query.get("SESSION_ID", ""),
                                 query.get("STUDY_ID", ""))

    def landing_page(self, study: web.Study, worker: str, session: str, study_id: str,
                     preview: bool = False) -> Response:
        scale = self.backend.scale
        return self.page("landing.html", title=self.backend.title or "Rate text pairs",
                         frame_from=study.option("frame_from", ""), preview=preview,
                         study=study.name, worker=worker, session=session[:100],
                         study_id=study_id[:100], start_token=study.start_token(worker),
                         size=study.per_task + study.checks, scale_title=scale.title,
                         scale_description=scale.description, points=self.points(),
                         top=fmt(scale.high), low=fmt(scale.low), step=fmt(scale.step),
                         example=fmt(scale.from_code(round((scale.high - scale.low)
                                                         / scale.step) // 2)),
                         instructions=render(study.option("instructions", "")),
                         consent=render(study.option("consent", "")))

    async def finished_here(self, request: Request, study: web.Study, worker: str):
        """The code page when this browser holds a task of this worker that is finished
        (or ran out, or whose study closed, with ratings); else None."""
        cookie = request.cookies.get(COOKIE, "")
        if not cookie:
            return None
        lease, _slot = await self.backend.task(study.name, cookie)
        if lease is None or lease.worker != worker:
            return None
        if lease.done:
            return self.done_page(study, lease)
        if lease.rated and (not study.open or lease.state != "leased"
                            or lease.expires_at <= time.time()):
            return self.done_page(study, lease, partial=True)
        return None

    def check_platform_study(self, study: web.Study, study_id: str) -> None:
        wanted = study.option("prolific_study")
        if wanted and not hmac.compare_digest(wanted, study_id or ""):
            raise Refused("this link is for another study of the platform; open the link "
                          "of the study you took part in", 403)

    async def start(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = await read_form_of(request)
        study = await self.study_or_refuse(name)
        worker = form.get("worker", "")
        if not hmac.compare_digest(study.start_token(worker), form.get("start_token", "")):
            raise Refused("refused: open your study link again", 403)
        self.check_platform_study(study, form.get("study_id", ""))
        if not may_start(study, worker):
            raise Refused(NOT_FOR_YOU, 403)
        if not self.starts.allow(f"{name}\0{worker}"):
            raise Refused("too many requests; wait a moment", 429)
        raw = request.client.host if request.client else ""
        link = f"/study/{name}?" + urlencode({"PROLIFIC_PID": worker, "STUDY_ID": form.get(
            "study_id", ""), "SESSION_ID": form.get("session", "")})
        if not self.ip_starts.allow(address_key(raw) or raw):
            raise Refused("too many tasks started from this address; wait a moment", 429,
                          back=link)
        try:
            lease = await self.backend.lease(name, worker, form.get("session", ""),
                                             request.cookies.get(COOKIE), address_key(raw))
        except web.WebRefusal as refusal:
            raise Refused(refusal.message, refusal.status, back=link) from None
        if lease.done or lease.state in (ENDED, SCREENED):  # a finished task: its code again
            return self.done_page(study, lease, partial=not lease.done, with_back=False)
        # a task without a rating opens at its first pair, with no stop at /task (which
        # would only look that pair up); one with ratings goes on at its first unrated one
        first = "/1" if lease.rated == 0 and lease.size > 0 else ""
        response = RedirectResponse(f"/study/{name}/task{first}", status_code=303)
        framed = bool(study.option("frame_from")) and request.url.scheme == "https"
        response.set_cookie(COOKIE, lease.cookie, max_age=int(study.lease_minutes * 60) + 86400,
                            path=f"/study/{name}", httponly=True,
                            samesite="none" if framed else "strict",
                            secure=request.url.scheme == "https")
        return response

    async def task(self, request: Request) -> Response:
        """The task's next pair to rate (a redirect to its own address), or its code."""
        name = request.path_params["name"]
        study = await self.study_or_refuse(name, closed_ok=True)
        lease, slot = await self.backend.task(name, request.cookies.get(COOKIE, ""))
        ended = self.ended(study, lease)
        if ended is not None:
            return ended
        if slot is None:
            return self.done_page(study, lease)
        return RedirectResponse(f"/study/{name}/task/{slot.slot}", status_code=303)

    def ended(self, study: web.Study, lease) -> Response | None:
        """The page of a task that cannot take ratings (None when it can)."""
        if lease is None:
            raise Refused("no task is open in this browser; open your study link again", 403)
        if lease.done:
            return self.done_page(study, lease)
        if study.open and lease.state == "leased" and lease.expires_at > time.time():
            return None
        if lease.rated:
            return self.done_page(study, lease, partial=True)
        raise Refused("the time for this task ran out before a pair was rated; open your "
                      "study link again for a new one", 409)

    async def pair(self, request: Request) -> Response:
        """One pair of the task, by its number: the score saved for it is shown."""
        name = request.path_params["name"]
        number = request.path_params["slot"]
        study = await self.study_or_refuse(name, closed_ok=True)
        if not (number.isascii() and number.isdigit()) or len(number) > 6:
            raise refused("no_slot", 404)
        lease, slot, saved = await self.backend.slot(name, request.cookies.get(COOKIE, ""),
                                                     int(number))
        if lease is not None and lease.state == SCREENED and slot is not None:
            practice = await self.backend.practice(name, lease.cookie, slot.slot)
            if practice is not None and practice.given is not None:  # the last feedback
                return self.feedback_page(study, slot, practice)
        if lease is None or not (study.open and lease.state in ("leased", "done")
                                 and lease.expires_at > time.time()):
            ended = self.ended(study, lease)
            if ended is not None:  # always, by the test above
                return ended
        if slot is None:
            raise refused("no_slot", 404)
        return await self.pair_page(request, study, lease, slot, saved)

    async def pair_page(self, request: Request, study: web.Study, lease, slot,
                        saved) -> Response:
        """A pair to rate, with the attention-check warning when due; a practice pair, or
        its feedback once answered (crowdweb/training.py)."""
        cookie = request.cookies.get(COOKIE, "")
        practice = await self.backend.practice(study.name, cookie, slot.slot) \
            if study.option("training") else None
        frame_from = study.option("frame_from", "")
        if practice is not None and practice.given is not None:
            return self.feedback_page(study, slot, practice)
        warn_after = int(study.option("failed_checks", 0) or 0)
        failed = await self.backend.failed_checks(study.name, cookie) if warn_after else 0
        return self.item_page(study.name, lease, slot, saved, frame_from=frame_from,
                              warning=warning(failed, warn_after), practice=practice)

    def item_page(self, name: str, lease, slot, saved, error: str = "", value: str = "",
                  status: int = 200, frame_from: str = "", warning: str = "",
                  practice=None, address: str = "") -> Response:
        scale = self.backend.scale
        shown = "" if saved is None else fmt(saved)
        return self.page("item.html", status, frame_from, action=f"/study/{name}/rate",
                         token=lease.token,
                         slot=slot.slot, position=slot.slot, size=lease.size, left=slot.left,
                         right=slot.right, low=fmt(scale.low), high=fmt(scale.high),
                         step=fmt(scale.step), points=self.points(),
                         saved=shown or None, value=value or shown, error=error,
                         warning=warning, practice=practice, address=address,
                         previous=f"/study/{name}/task/{slot.slot - 1}" if slot.slot > 1 else "",
                         next=f"/study/{name}/task" if saved is not None else "")

    async def rate(self, request: Request) -> Response:
        name = request.path_params["name"]
        form = await read_form_of(request)
        cookie = request.cookies.get(COOKIE, "")
        if not cookie or not form.get("token"):
            raise Refused("refused: this page has expired; open your study link again", 403)
        if not self.writes.allow(cookie[:64]):
            raise Refused("too many requests; wait a moment", 429)
        slot = form.get("slot", "")
        if not (slot.isascii() and slot.isdigit()) or len(slot) > 6:
            raise refused("no_slot")
        score = form.get("score", "")
        try:
            shown = await self.backend.rate_and_show(name, cookie, form["token"], int(slot),
                                                     score)
        except web.ScoreRefused:  # the item's page again, the mistake named on it
            lease, found, saved = await self.backend.slot(name, cookie, int(slot))
            if lease is None or found is None:
                raise
            return self.item_page(name, lease, found, saved, status=400, value=score[:12],
                                  address=f"/study/{name}/task/{found.slot}",
                                  error=f"\u201c{score[:12]}\u201d is not a score of this "
                                        f"scale: type a value from {fmt(self.backend.scale.low)} "
                                        f"to {fmt(self.backend.scale.high)} in steps of "
                                        f"{fmt(self.backend.scale.step)}.")
        if shown.study.option("training"):
            return await self.after_practice(name, cookie, int(slot), shown)
        return await self.next_page(shown)

    async def next_page(self, shown: Shown) -> Response:
        """The page a rating leads to, as the answer to the rating itself (one call of the
        backend, no redirect): the next pair to rate, or the code. The page carries its
        own address (rate.js writes it in the address bar), so a reload or Back asks for
        that page, never the rating again."""
        study, lease = shown.study, shown.lease
        if lease.done or shown.slot is None:  # the task's last pair: its code
            return self.done_page(study, lease, partial=not lease.done,
                                  address=f"/study/{study.name}/task")
        ended = self.ended(study, lease)
        if ended is not None:
            return ended
        warn_after = int(study.option("failed_checks", 0) or 0)
        failed = await self.backend.failed_checks(study.name, lease.cookie) if warn_after else 0
        return self.item_page(study.name, lease, shown.slot, None,
                              frame_from=study.option("frame_from", ""),
                              warning=warning(failed, warn_after),
                              address=f"/study/{study.name}/task/{shown.slot.slot}")

    async def after_practice(self, name: str, cookie: str, slot: int,
                             shown: Shown) -> Response:
        """A study with practice pairs: a practice answer's feedback page first, else the
        task's next pair, each by its own address."""
        following = shown.slot.slot if shown.slot is not None else None
        where = f"/study/{name}/task" + (f"/{following}" if following else "")
        if await self.backend.practice(name, cookie, slot) is not None:
            where = f"/study/{name}/task/{slot}"  # its feedback first
        return RedirectResponse(where, status_code=303)

    def feedback_page(self, study: web.Study, slot, practice) -> Response:
        """A practice pair once answered: the reference, the worker's difference, Go on."""
        last = practice.index == practice.count
        return self.page("feedback.html", frame_from=study.option("frame_from", ""),
                         index=practice.index, count=practice.count, left=slot.left,
                         right=slot.right, line=feedback(practice),
                         next=f"/study/{study.name}/task",
                         label="Go on" if last else "Next practice pair")

    def done_page(self, study: web.Study, lease, partial: bool = False,
                  with_back: bool = True, address: str = "") -> Response:
        """The code page: the requester's code (or the partial code for an unfinished
        task), a copy button and the way back to the platform."""
        if lease.state == SCREENED:
            return self.screened_page(study, lease)
        code = study.code_for(lease.task, partial=partial)
        line = ""
        if partial:
            why = "This study was closed" if not study.open else "The time for this task ran out"
            line = (f"{why} before every pair was rated; the {lease.rated} pairs you rated are "
                    "saved. This is your code for the work done.")
            if lease.state == ENDED:
                line = (f"This task ended early: too many check pairs got a score far from the "
                        f"one we know. The {lease.rated} pairs you rated are saved; this is "
                        "your code for the work done.")
        url = completion_link(study.completion_url, code, lease.worker, lease.session) \
            if study.completion_url else ""
        live = study.open and lease.expires_at > time.time()
        back = f"/study/{study.name}/task/{lease.size}" if with_back and live and not partial \
            else ""
        turk = mturk.submit_to(lease.session)
        return self.page("done.html", frame_from=study.option("frame_from", ""), code=code,
                         line=line, return_url=url if turk is None else "", back=back,
                         address=address,
                         redirect_seconds=int(study.option("redirect_seconds", 0) or 0),
                         turk_submit=turk[0] if turk else "",
                         assignment=turk[1] if turk else "")

    def screened_page(self, study: web.Study, lease) -> Response:
        """The page of a worker the practice pairs screened out: the screen-out code."""
        code = study.option("screen_out_code", "")
        line = ("Thank you for trying. Your practice answers did not meet what this study "
                "needs, so it ends here and no further pairs follow. Submit this code on "
                "your platform; it is the study's code for this case.")
        url = completion_link(study.completion_url, code, lease.worker, lease.session) \
            if study.completion_url else ""
        turk = mturk.submit_to(lease.session)
        return self.page("done.html", frame_from=study.option("frame_from", ""), code=code,
                         line=line, return_url=url if turk is None else "", back="",
                         redirect_seconds=int(study.option("redirect_seconds", 0) or 0),
                         turk_submit=turk[0] if turk else "",
                         assignment=turk[1] if turk else "")


async def read_form_of(request: Request) -> dict[str, str]:
    from simrate.web.security import read_form

    return await read_form(request)
