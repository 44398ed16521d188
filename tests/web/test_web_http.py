"""The web page over HTTP (Starlette's test client on a real project file): the worker's
flow and each security point of issue 24."""

from __future__ import annotations

import random
import re

import pytest
from starlette.testclient import TestClient  # noqa: E402  (the test extra has simrate[web])

from simrate.core.project import Project  # noqa: E402
from simrate.core.team import web_study as web  # noqa: E402
from simrate.web.pages import create_app  # noqa: E402
from simrate.web.security import MAX_BODY  # noqa: E402
from tests.web.client import (  # noqa: E402
    Inputs,
    completion_code,
    form_of,
    item_page,
    rate,
    send_hostile_requests,
    start,
    whole_task,
)
from tests.web.projects import make_project  # noqa: E402

HOSTILE = '<script>document.title="owned"</script><img src=x onerror=alert(1)>'


@pytest.fixture
def path(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=12, checks=2, texts=(HOSTILE, "b & c"))
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=3, checks=1, per_item=2,
                      completion_url="https://example.org/done?cc=ABC")
        web.set_study(project, "t", per_task=2)
    return path


def client_for(path, **options):
    return TestClient(create_app(path, **options), raise_server_exceptions=False)


def web_rows(path):
    with Project.open(path) as project:
        ratings = project.ratings()
        slots = project.team_tables.read("SELECT * FROM web_slots ORDER BY study, task, slot")
        tasks = project.team_tables.read("SELECT study, task, worker, state FROM web_tasks")
    return ratings[ratings["annotator"] != "alice"], slots, tasks


def test_a_worker_does_a_whole_task_and_gets_the_code(path):
    with client_for(path) as client:
        assert client.get("/").status_code == 200
        code, seen = whole_task(client, "s", "W1", "2.5")
    with Project.open(path) as project:
        study = web.get_study(project, "s")
        assert code == study.code
        ratings = project.ratings().query("annotator == 'W1'")
        assert len(ratings) == 4 and set(ratings["score"]) == {2.5}
        assert ratings["seconds"].notna().all()
        assert project.team_tables.read("SELECT kind FROM annotators WHERE name='W1'") == \
            [("crowd",)]


def test_the_last_page_redirects_to_the_completion_url(path):
    with client_for(path) as client:
        whole_task(client, "s", "W1")
        done = item_page(client, "s")
        # by default no automatic redirect: a button back to the platform, the code copyable
        assert 'id="completion-link" href="https://example.org/done?cc=ABC"' in done.text
        assert 'http-equiv="refresh"' not in done.text and 'id="copy-code"' in done.text
        with Project.open(path) as project:
            web.set_study(project, "s", completion_url="https://example.org/c?cc={code}"
                          "&w={worker}&s={session}", options={"redirect_seconds": 3})
            code = web.get_study(project, "s").code
        done = item_page(client, "s")
    assert (f'http-equiv="refresh" content="3;url=https://example.org/c?cc={code}&amp;w=W1'
            '&amp;s="') in done.text


def test_a_reload_resumes_at_the_first_unrated_item_and_a_resend_doubles_nothing(path):
    with client_for(path) as client:
        started = start(client, "s", "W1")
        assert started.headers["location"] == "/study/s/task/1"  # no stop at /task
        first = item_page(client, "s")
        assert rate(client, "s", first.text, "1").status_code == 200
        again = rate(client, "s", first.text, "1")  # the same form sent twice
        assert again.status_code == 200
        second = item_page(client, "s")
        assert second.text == item_page(client, "s").text  # a reload: the same item
        assert form_of(second.text)["slot"] == "2"
        assert "Pair 2 of 4" in second.text
        # the Start button pressed again resumes the same task, at its first unrated pair
        again = start(client, "s", "W1")
        assert (again.status_code, again.headers["location"]) == (303, "/study/s/task")
        assert form_of(item_page(client, "s").text)["slot"] == "2"
    ratings, _slots, _tasks = web_rows(path)
    assert list(ratings["score"]) == [1.0]


# ------------------------------------------------------------------ security
def test_texts_are_shown_as_text_under_a_csp_without_inline_script(path):
    with client_for(path) as client:
        start(client, "s", "W1")
        pages = [client.get("/study/s?worker=W1"), item_page(client, "s"),
                 client.get("/study/nope?worker=W1")]
        item = pages[1]
        assert "&lt;script&gt;document.title=&#34;owned&#34;&lt;/script&gt;" in item.text
        assert "<script>document" not in item.text and "<img" not in item.text
        for page in pages:
            csp = page.headers["content-security-policy"]
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp
            assert "default-src 'none'" in csp
            parsed = Inputs(page.text)
            assert parsed.scripts and all(a.get("src", "").startswith("/static/")
                                          and not text.strip() for a, text in parsed.scripts)
            assert not parsed.handlers  # no onload=, onclick= ...
        script = client.get("/static/rate.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]


def test_the_task_cookie_is_httponly_and_samesite_strict(path):
    with client_for(path) as client:
        answer = start(client, "s", "W1")
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/study/s;" in cookie


@pytest.mark.parametrize("headers", [{"origin": "https://evil.example"},
                                     {"origin": "null"},
                                     {"origin": "https://testserver"},  # scheme
                                     {"origin": "http://testserver:8080"},  # port
                                     {"origin": "http://testserver:x"},
                                     {"origin": "http://testserver.evil.example"},
                                     {"sec-fetch-site": "cross-site"},
                                     {"sec-fetch-site": "same-site"}])
def test_a_cross_site_write_is_refused(path, headers):
    with client_for(path) as client:
        assert start(client, "s", "W2", **headers).status_code == 403
        start(client, "s", "W1")
        page = item_page(client, "s")
        answer = rate(client, "s", page.text, "2", **headers)
        assert answer.status_code == 403 and "refused" in answer.text
    ratings, _slots, tasks = web_rows(path)
    assert ratings.empty and [t[2] for t in tasks] == ["W1"]


@pytest.mark.parametrize("origin", ["http://testserver", "http://TESTSERVER:80"])
def test_a_same_origin_write_is_taken(path, origin):
    with client_for(path) as client:
        assert start(client, "s", "W1", origin=origin).status_code == 303
        page = item_page(client, "s")
        assert rate(client, "s", page.text, "2", origin=origin).status_code == 200


def test_a_write_without_the_tasks_token_is_refused(path):
    with client_for(path) as client:
        start(client, "s", "W1")
        page = item_page(client, "s")
        form = form_of(page.text)
        for token in ("", "x" * 43, form["token"][:-1] + ("A" if form["token"][-1] != "A" else "B")):
            answer = client.post("/study/s/rate", data={**form, "token": token, "score": "2"},
                                 follow_redirects=False)
            assert answer.status_code == 403
        # the right token without the cookie (another site's page cannot send it)
        client.cookies.clear()
        answer = client.post("/study/s/rate", data={**form, "score": "2"})
        assert answer.status_code == 403
        # the start form's token is bound to its worker
        landing = form_of(client.get("/study/s?worker=W1").text)
        answer = client.post("/study/s/start", data={**landing, "worker": "W9"})
        assert answer.status_code == 403
    ratings, _slots, tasks = web_rows(path)
    assert ratings.empty and len(tasks) == 1


@pytest.mark.parametrize("score", ["2.3", "4.25", "-0.25", "nan", "inf", "", "2,5", "1e400",
                                   "0x2", "2.25.1"])
def test_every_score_is_checked_against_the_grid(path, score):
    with client_for(path) as client:
        start(client, "s", "W1")
        answer = rate(client, "s", item_page(client, "s").text, score)
        # the same pair again, the field keeping what was typed, the error beside it
        assert answer.status_code == 400
        assert "is not a score of this scale" in answer.text and 'id="score-error"' in answer.text
        assert form_of(answer.text)["score"] == score and form_of(answer.text)["slot"] == "1"
        # the page names the pair's own address: a reload asks for the pair, not the POST
        assert 'data-address="/study/s/task/1"' in answer.text
    assert web_rows(path)[0].empty


def test_bodies_are_limited_in_size(path):
    with client_for(path) as client:
        start(client, "s", "W1")
        form = form_of(item_page(client, "s").text)
        big = {**form, "score": "2", "pad": "x" * MAX_BODY}
        assert client.post("/study/s/rate", data=big).status_code == 413

        def chunks():  # no Content-Length: the limit holds while reading
            for _ in range(10):
                yield b"a" * 1000

        answer = client.post("/study/s/rate", content=chunks(), headers={
            "content-type": "application/x-www-form-urlencoded"})
        assert answer.status_code == 413
    assert web_rows(path)[0].empty


def test_writes_are_rate_limited_per_worker(path):
    with client_for(path, rate=0.01, burst=3) as client, \
            TestClient(client.app, raise_server_exceptions=False) as other:
        start(client, "s", "W1")
        page = item_page(client, "s")
        statuses = [rate(client, "s", page.text, "x").status_code for _ in range(6)]
        assert statuses[:3] == [400] * 3 and set(statuses[3:]) == {429}
        # another worker is not slowed by the first
        start(other, "s", "W2")
        assert rate(other, "s", item_page(other, "s").text, "2").status_code == 200


def test_task_starts_are_rate_limited_per_client_address(path):
    """Many worker ids from one address (a script making up ids) get a few tasks, then 429
    and nothing stored; another address is not slowed by it."""
    with client_for(path, ip_starts_per_minute=3) as client:
        statuses = []
        for number in range(5):
            client.cookies.clear()
            statuses.append(start(client, "s", f"W{number}").status_code)
        assert statuses == [303, 303, 303, 429, 429]
        other = TestClient(client.app, raise_server_exceptions=False,
                           client=("192.0.2.7", 50000))
        assert start(other, "s", "W9").status_code == 303
    _ratings, _slots, tasks = web_rows(path)
    assert sorted(t[2] for t in tasks) == ["W0", "W1", "W2", "W9"]


def test_no_traceback_or_server_detail_in_any_answer(path):
    with client_for(path) as client:
        start(client, "s", "W1")
        page = item_page(client, "s")
        backend = client.app.app.state.backend
        # the file loses a table under the running server: reads and writes fail inside
        with backend._pool.submit(backend.project.team_tables.transaction).result() as conn:
            conn.execute("DROP TABLE web_slots")
        answers = [item_page(client, "s"), rate(client, "s", page.text, "2"),
                   client.get("/study/s/task", headers={"cookie": "simrate_task=" + "\x7f" * 9}),
                   client.get("/nope"), client.delete("/study/s/rate")]
    for answer in answers:
        assert answer.status_code >= 400
        text = answer.text + str(answer.headers)
        for detail in ("Traceback", "sqlite", "web_slots", str(path), "p.simrate", "File ",
                       "uvicorn", "starlette", "python"):
            assert detail.lower() not in text.lower(), (detail, text)
        assert len(re.sub(r"<[^>]+>", "", answer.text).strip()) < 400


def test_one_worker_can_read_nothing_of_anothers(path):
    with client_for(path) as first, TestClient(first.app, raise_server_exceptions=False) as second:
        start(first, "s", "W1", session="S1")
        mine = item_page(first, "s")
        assert rate(first, "s", mine.text, "2").status_code == 200
        mine = item_page(first, "s")
        # W1's link opened in another browser, with W1's platform session too: no task,
        # no item of W1's (the link is no credential; the task is the cookie's)
        assert start(second, "s", "W1", session="S1").status_code == 409
        assert item_page(second, "s").status_code == 403
        start(second, "s", "W2")
        theirs = item_page(second, "s")
        assert form_of(theirs.text)["token"] != form_of(mine.text)["token"]
        # W2's cookie and W1's token together write nothing
        answer = second.post("/study/s/rate", data={**form_of(mine.text), "score": "2"})
        assert answer.status_code == 403
        # a task's cookie means nothing in another study
        assert second.get("/study/t/task").status_code == 403
    ratings, _slots, _tasks = web_rows(path)
    assert list(ratings["annotator"]) == ["W1"]


def test_an_annotators_name_as_worker_id_is_refused(path):
    with client_for(path) as client:
        answer = start(client, "s", "alice")
        assert answer.status_code == 403
    ratings, _slots, tasks = web_rows(path)
    assert tasks == []


# ------------------------------------------------------------------ hostile input
def test_random_bodies_to_every_endpoint_get_short_4xx_and_store_nothing(path):
    rng = random.Random(24)
    with client_for(path) as client:
        start(client, "s", "W1")  # a live task: the hostile requests carry its cookie
        item_page(client, "s")
        before = web_rows(path)
        send_hostile_requests(client, rng, 400)
    after = web_rows(path)
    assert after[0].equals(before[0]) and after[1:] == before[1:]


@pytest.mark.parametrize("slot", ["\u00b2", "\uff11", "\u0661"])
def test_a_slot_in_other_digits_is_a_short_400_and_stores_nothing(path, slot):
    """str.isdigit() takes superscripts and fullwidth digits, which int() then refuses or
    reads: the slot must be ASCII digits."""
    with client_for(path) as client:
        start(client, "s", "W1")
        page = item_page(client, "s")
        form = form_of(page.text)
        form.update(slot=slot, score="2")
        answer = client.post("/study/s/rate", data=form, follow_redirects=False)
        assert answer.status_code == 400, answer.text
        assert len(answer.text) < 2000 and "Traceback" not in answer.text
        assert "Error" not in answer.text.replace("error", "")
    ratings, _slots, _tasks = web_rows(path)
    assert ratings.empty


@pytest.mark.parametrize("score", ["0_3", "\uff13", "2\u00b2"])
def test_a_score_float_would_misread_is_refused_and_stores_nothing(path, score):
    """float() reads 0_3 as 3 and fullwidth digits as digits: the page refuses them."""
    with client_for(path) as client:
        start(client, "s", "W1")
        answer = rate(client, "s", item_page(client, "s").text, score)
        assert answer.status_code == 400, answer.text
    ratings, _slots, _tasks = web_rows(path)
    assert ratings.empty


# ------------------------------------------------------------------ completion flow
def test_a_prolific_study_id_other_than_the_studys_is_refused(path):
    with Project.open(path) as project:
        web.set_study(project, "s", options={"prolific_study": "PS1"})
    with client_for(path) as client:
        assert client.get("/study/s?PROLIFIC_PID=W1&STUDY_ID=PS2").status_code == 403
        landing = client.get("/study/s?PROLIFIC_PID=W1&STUDY_ID=PS1&SESSION_ID=z")
        assert landing.status_code == 200
        form = form_of(landing.text)
        refused = client.post("/study/s/start", data={**form, "study_id": "PS2"},
                              follow_redirects=False)
        assert refused.status_code == 403
        assert client.post("/study/s/start", data=form,
                           follow_redirects=False).status_code == 303
    assert [t[2] for t in web_rows(path)[2]] == ["W1"]


def test_a_task_cut_short_shows_the_partial_code_with_a_line_that_says_so(path):
    with Project.open(path) as project:
        web.set_study(project, "s", options={"partial_code": "PART-1"},
                      completion_url="https://example.org/c?cc={code}")
    with client_for(path) as client:
        start(client, "s", "W1")
        assert rate(client, "s", item_page(client, "s").text, "2").status_code == 200
        with Project.open(path) as project:
            web.set_study(project, "s", close=True)
        page = item_page(client, "s")
        assert page.status_code == 200
        assert completion_code(page.text) == "PART-1", page.text
        assert "This study was closed before every pair was rated" in page.text
        assert 'href="https://example.org/c?cc=PART-1"' in page.text
        # the link opened again in this browser: the same page
        again = client.get("/study/s?worker=W1")
        assert completion_code(again.text) == "PART-1"
    with client_for(path) as client:  # a task never rated: no code, a plain refusal
        assert client.get("/study/s?worker=W2").status_code == 410


def test_a_code_per_task_is_the_tasks_own_and_listed_in_the_status(path):
    with Project.open(path) as project:
        web.set_study(project, "s", completion_code="PROLIFIC1",
                      options={"code_per_task": True})
    with client_for(path) as client:
        first, _ = whole_task(client, "s", "W1")
        client.cookies.clear()
        second, _ = whole_task(client, "s", "W2")
    assert first != second and "PROLIFIC1" not in (first, second)
    with Project.open(path) as project:
        workers = web.study_status(project)["s"]["workers"]
    assert workers["W1"]["codes"] == [first] and workers["W2"]["codes"] == [second]


def test_mechanical_turk_mode_frames_the_page_and_posts_the_assignment_back(path):
    with Project.open(path) as project:
        web.set_study(project, "s", completion_code="TURK1",
                      options={"frame_from": "https://worker.mturk.com"})
    with client_for(path) as client:
        preview = client.get("/study/s?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
        assert preview.status_code == 200 and 'id="preview"' in preview.text
        assert re.search(r'<button type="submit" id="start" disabled>', preview.text)
        csp = preview.headers["content-security-policy"]
        assert "frame-ancestors https://worker.mturk.com" in csp
        assert "x-frame-options" not in preview.headers
        link = ("/study/s?workerId=A1TURKER&assignmentId=3ASSIGN9&hitId=H1"
                "&turkSubmitTo=https%3A%2F%2Fworkersandbox.mturk.com")
        landing = client.get(link)
        assert form_of(landing.text)["worker"] == "A1TURKER"
        client.post("/study/s/start", data=form_of(landing.text), follow_redirects=False)
        for _ in range(10):
            page = item_page(client, "s")
            if completion_code(page.text):
                break
            rate(client, "s", page.text, "2")
        assert completion_code(page.text) == "TURK1"
        assert ('action="https://workersandbox.mturk.com/mturk/externalSubmit"' in page.text)
        assert form_of(page.text)["assignmentId"] == "3ASSIGN9"
        assert form_of(page.text)["completion_code"] == "TURK1"
        assert "form-action 'self' https://www.mturk.com https://workersandbox.mturk.com" in \
            page.headers["content-security-policy"]
        # another study (no such mode): never framed, the HIT's fields ignored
        other = client.get("/study/t?workerId=A1TURKER&assignmentId=3ASSIGN9"
                           "&turkSubmitTo=https%3A%2F%2Fwww.mturk.com")
        assert other.status_code == 400  # no worker id of its own kind in the link
        plain = client.get("/study/t?worker=W5")
        assert "frame-ancestors 'none'" in plain.headers["content-security-policy"]
        assert plain.headers["x-frame-options"] == "DENY"
