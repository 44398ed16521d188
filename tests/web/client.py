"""A worker's browser, as an HTTP client: follows the page's own forms."""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser


class Inputs(HTMLParser):
    """The named inputs of a page's forms, and each script tag's attributes and text."""

    def __init__(self, text: str):
        super().__init__()
        self.values: dict[str, str] = {}
        self.scripts: list[tuple[dict, str]] = []
        self.handlers: list[str] = []
        self._in_script: dict | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.handlers += [k for k in attrs if k.startswith("on")]
        if tag == "input" and "name" in attrs:
            self.values[attrs["name"]] = attrs.get("value") or ""
        if tag == "script":
            self._in_script = attrs
            self.scripts.append((attrs, ""))

    def handle_data(self, data):
        if self._in_script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = None


def form_of(text: str) -> dict[str, str]:
    return Inputs(text).values


def start(client, study: str, worker: str, session: str = "", **headers):
    """Open the worker's link and press Start; returns the POST's response."""
    query = f"PROLIFIC_PID={worker}&STUDY_ID=x&SESSION_ID={session}" if session else \
        f"worker={worker}"
    landing = client.get(f"/study/{study}?{query}")
    assert landing.status_code == 200, landing.text
    assert 'id="start"' in landing.text
    return client.post(f"/study/{study}/start", data=form_of(landing.text),
                       follow_redirects=False, headers=headers)


def item_page(client, study: str):
    """The task's page: its next pair (by that pair's own address), or its code."""
    return client.get(f"/study/{study}/task", follow_redirects=True)


def rate(client, study: str, page_text: str, score: str, **headers):
    form = form_of(page_text)
    form["score"] = score
    return client.post(f"/study/{study}/rate", data=form, follow_redirects=False,
                       headers=headers)


def completion_code(text: str) -> str | None:
    found = re.search(r'id="completion-code">([^<]+)<', text)
    return found.group(1) if found else None


def whole_task(client, study: str, worker: str, score: str = "2") -> tuple[str, list[str]]:
    """Do a whole task; returns the completion code and the left texts seen."""
    assert start(client, study, worker).status_code == 303
    seen = []
    page = item_page(client, study)
    for _ in range(1000):  # each rating's answer is the next page itself
        assert page.status_code == 200, page.text
        code = completion_code(page.text)
        if code:
            return code, seen
        seen.append(re.search(r'id="left">([^<]*)<', page.text).group(1))
        page = rate(client, study, page.text, score)
    raise AssertionError("the task never ended")


# ------------------------------------------------------------------ hostile requests
ENDPOINTS = ["/", "/study/s", "/study/s/start", "/study/s/task", "/study/s/rate",
             "/study/nope/rate", "/static/rate.js", "/study/s/start?worker=W1"]
KINDS = ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
         "application/json", "text/plain", ""]


def random_body(rng: random.Random) -> bytes:
    choice = rng.randrange(5)
    if choice == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 600)))
    if choice == 1:
        fields = ["token", "slot", "score", "worker", "start_token", "session", "x"]
        return "&".join(f"{rng.choice(fields)}={rng.choice(['', '2', '-1', '%00', '9'*30, '%ff'])}"
                        for _ in range(rng.randrange(1, 14))).encode()
    if choice == 2:
        return b"score=2&slot=1&token=" + b"A" * rng.randrange(0, 9000)
    if choice == 3:
        return b'{"score": 2, "slot": 1}'
    return "score=\u202e\u0000&slot=\ud800".encode("utf-8", "surrogatepass")


def send_hostile_requests(client, rng: random.Random, count: int) -> None:
    """Random methods, bodies, content types and origins to every endpoint: each answer
    must be a short 4xx with no traceback."""
    for _ in range(count):
        url = rng.choice(ENDPOINTS)
        method = rng.choice(["POST", "PUT", "PATCH", "DELETE", "POST"])
        headers = {"content-type": rng.choice(KINDS)}
        if rng.random() < 0.3:
            headers["origin"] = rng.choice(["http://testserver", "https://evil.example"])
        answer = client.request(method, url, content=random_body(rng), headers=headers)
        assert 400 <= answer.status_code < 500, (method, url, answer.status_code)
        assert len(answer.content) < 2000
        assert "traceback" not in answer.text.lower()
