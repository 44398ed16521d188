"""A load generator of several processes for the web page benchmark (bench_web.py).

One process of Python cannot drive 1,000 simulated workers and keep up: its own lag shows in
every latency it measures. So the workers are split over PROCESSES processes, each an
asyncio loop with one keep-alive HTTP/1.1 connection per simulated worker, written here on
asyncio's streams (a few dozen lines, lighter than a full HTTP client: what the generator
spends is taken from the servers on a small machine). Each process lowers
its own priority (os.nice) so that the servers get the CPU first, reports its own CPU time
and how late its event loop woke (its lag: when that stays small, the generator was not the
bottleneck), and sends its figures back through a multiprocessing queue.

A simulated worker is one person after another on one connection: open the study link, do
a whole task (thinking THINK seconds per pair, or not at all), then the next person, until
the deadline. Each person comes from an address of their own, sent in X-Forwarded-For as
the reverse proxy on the servers' machine would (`simrate serve` trusts that header from
127.0.0.1 only, as uvicorn does by default), so the per-address limits apply per person.
The flows of simrate and of Potato differ, each as its own page drives it.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import random
import re
import resource
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit

INPUT = re.compile(rb"<input\b[^>]*>")
NAME = re.compile(rb'\bname="([^"]*)"')
VALUE = re.compile(rb'\bvalue="([^"]*)"')
LEFT = re.compile(rb'id="left">the left text of pair ([^<,]*)')
TIMEOUT = 60.0


@dataclass
class Plan:
    """What one scenario asks of the generator."""

    kind: str                    # "simrate" or "potato"
    urls: list[str]
    workers: int                 # simulated workers at once
    seconds: float               # from the go to the last rating started
    think: tuple[float, float] | None = None  # seconds per pair (uniform), None: no thinking
    ramp: float = 10.0           # workers arrive over this many seconds
    prefix: str = "w"            # worker ids: PREFIX<number>x<person>
    study: str = "bench"
    per_task: int = 10           # Potato's pairs per worker (simrate's task says its own)


@dataclass
class Tally:
    """What one generator process saw."""

    latencies: list[float] = field(default_factory=list)   # rating POST, seconds
    acked: list[tuple[str, str, float]] = field(default_factory=list)  # worker, item, when
    outcomes: dict[str, int] = field(default_factory=dict)
    lag: list[float] = field(default_factory=list)
    requests: int = 0
    cpu: float = 0.0
    waited: float = 0.0  # seconds its threads were runnable but had no CPU
    wall: float = 0.0

    def outcome(self, what: str) -> None:
        self.outcomes[what] = self.outcomes.get(what, 0) + 1


class Client:
    """One browser: a keep-alive connection, its cookies, its made-up client address."""

    def __init__(self, url: str, address: str, tally: Tally):
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port
        self.address, self.tally = address, tally
        self.reader = self.writer = None
        self.cookies: dict[str, str] = {}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: bytes = b"",
                      kind: str = "application/x-www-form-urlencoded") -> tuple:
        """(status, headers, body); a kept-alive connection the server closed meanwhile
        is opened again once, as a browser does."""
        for _attempt in range(2):
            fresh = self.writer is None
            if fresh:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            head = (f"{method} {path} HTTP/1.1\r\nhost: {self.host}:{self.port}\r\n"
                    f"x-forwarded-for: {self.address}\r\naccept: text/html\r\n")
            if self.cookies:
                head += "cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()) \
                    + "\r\n"
            if method == "POST":
                head += f"content-type: {kind}\r\ncontent-length: {len(body)}\r\n"
            self.tally.requests += 1
            try:
                self.writer.write(head.encode("latin-1") + b"\r\n" + body)
                return await asyncio.wait_for(self.response(), TIMEOUT)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if fresh:
                    raise
        raise ConnectionError("the connection closed twice")

    async def response(self) -> tuple[int, dict[str, str], bytes]:
        head = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        version, status = head[0].split(" ", 2)[:2]
        headers: dict[str, str] = {}
        for line in head[1:]:
            if ":" in line:
                key, value = line.split(":", 1)
                key, value = key.strip().lower(), value.strip()
                if key == "set-cookie":
                    name, _, rest = value.split(";", 1)[0].partition("=")
                    self.cookies[name.strip()] = rest.strip()
                else:
                    headers[key] = value
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = await self.chunked()
        else:
            body = await self.reader.read()
            headers["connection"] = "close"
        if headers.get("connection", "").lower() == "close" or version == "HTTP/1.0":
            self.close()
        return int(status), headers, body

    async def chunked(self) -> bytes:
        parts = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                while await self.reader.readuntil(b"\r\n") != b"\r\n":
                    pass  # trailers
                return b"".join(parts)
            parts.append((await self.reader.readexactly(size + 2))[:-2])

    async def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """GET, following redirects (a browser's way)."""
        for _ in range(10):
            status, headers, body = await self.request("GET", path)
            if status not in (301, 302, 303, 307) or "location" not in headers:
                return status, headers, body
            target = urlsplit(headers["location"])
            path = target.path + (f"?{target.query}" if target.query else "")
        return status, headers, body


def inputs(page: bytes) -> dict[str, str]:
    """The named inputs of a page's forms, with their values."""
    found = {}
    for tag in INPUT.findall(page):
        name = NAME.search(tag)
        if name:
            value = VALUE.search(tag)
            found[html.unescape(name.group(1).decode())] = \
                html.unescape(value.group(1).decode()) if value else ""
    return found


async def think(plan: Plan, deadline: float) -> bool:
    """A person reads the pair; False when the run ends first."""
    if plan.think:
        await asyncio.sleep(random.uniform(*plan.think))
    return time.monotonic() < deadline


async def simrate_person(client: Client, plan: Plan, person: str, deadline: float,
                         tally: Tally) -> str:
    """A Prolific worker on simrate: link, Start, the task's pairs, the code page."""
    base = f"/study/{plan.study}"
    status, _h, page = await client.get(f"{base}?" + urlencode(
        {"PROLIFIC_PID": person, "STUDY_ID": "bench-study", "SESSION_ID": f"s-{person}"}))
    if status != 200:
        return f"link {status}"
    status, headers, _b = await client.request("POST", f"{base}/start",
                                               urlencode(inputs(page)).encode())
    if status != 303 or "location" not in headers:
        return f"start {status}"
    status, _h, page = await client.get(urlsplit(headers["location"]).path)
    while b'id="completion-code"' not in page:
        form, left = inputs(page), LEFT.search(page)
        if status != 200 or left is None:
            return f"pair page {status}"
        if not await think(plan, deadline):
            return "ended mid-task"
        form["score"] = "2.25"
        began = time.perf_counter()
        status, _h, answer = await client.request("POST", f"{base}/rate",
                                                  urlencode(form).encode())
        if status != 200:
            return f"rate {status}"
        tally.latencies.append(time.perf_counter() - began)
        tally.acked.append((person, left.group(1).decode(), time.perf_counter()))
        page = answer  # the rating's answer is the next page (no redirect to follow)
    return "done"


async def potato_person(client: Client, plan: Plan, person: str, deadline: float,
                        tally: Tally) -> str:
    """A Prolific worker on Potato: its link, then save (/updateinstance), next, the page,
    as its annotation page does, for PER_TASK pairs (its max_annotations_per_user)."""
    status, _h, page = await client.get("/?" + urlencode(
        {"PROLIFIC_PID": person, "STUDY_ID": "bench-study", "SESSION_ID": f"s-{person}"}))
    for _ in range(plan.per_task):
        item = inputs(page).get("instance_id")
        for _reload in range(3):  # Potato answers 500 now and then under concurrent
            if item or status != 500:  # workers; a person reloads the page
                break
            tally.outcome("reload after a 500")
            status, _h, page = await client.get("/")
            item = inputs(page).get("instance_id")
        if not item:
            return f"no item page ({status})"
        if not await think(plan, deadline):
            return "ended mid-task"
        body = json.dumps({"instance_id": item, "annotations": {"similarity:3": "3"}})
        began = time.perf_counter()
        status, _h, saved = await client.request("POST", "/updateinstance", body.encode(),
                                                 "application/json")
        if status != 200 or b'"success"' not in saved:
            return f"save {status}"
        tally.latencies.append(time.perf_counter() - began)
        tally.acked.append((person, item, time.perf_counter()))
        body = json.dumps({"action": "next_instance", "instance_id": item})
        await client.request("POST", "/annotate", body.encode(), "application/json")
        status, _h, page = await client.get("/")
    return "done"


def address(number: int, person: int) -> str:
    """A made-up client address of a person of its own (100.64.0.0/10, shared address
    space: no real subscriber's)."""
    n = (person * 1009 + number) % (1 << 22)
    return f"100.{64 + (n >> 16)}.{(n >> 8) & 255}.{n & 255}"


async def worker(plan: Plan, number: int, deadline: float, tally: Tally) -> None:
    """One simulated worker: person after person on a connection of their own."""
    person_of = simrate_person if plan.kind == "simrate" else potato_person
    await asyncio.sleep(random.uniform(0, plan.ramp))
    person = 0
    while time.monotonic() < deadline:
        client = Client(plan.urls[number % len(plan.urls)], address(number, person), tally)
        try:
            tally.outcome(await person_of(client, plan, f"{plan.prefix}{number}x{person}",
                                          deadline, tally))
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, ValueError) as exc:
            tally.outcome(type(exc).__name__)
        finally:
            client.close()
        person += 1


async def watch_lag(deadline: float, tally: Tally, every: float = 0.05) -> None:
    """How late the event loop wakes from a short sleep: the generator's own delay."""
    while time.monotonic() < deadline:
        began = time.perf_counter()
        await asyncio.sleep(every)
        tally.lag.append(time.perf_counter() - began - every)


async def drive(plan: Plan, numbers: list[int], tally: Tally) -> None:
    deadline = time.monotonic() + plan.seconds
    await asyncio.gather(watch_lag(deadline, tally),
                         *(worker(plan, n, deadline, tally) for n in numbers))


def run_queue_wait(pid: int | str = "self") -> float:
    """Seconds the threads of a process were ready to run but waited for a CPU (Linux
    /proc/PID/task/*/schedstat, its second field): what sharing the machine cost it."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[1])
        except OSError:  # the thread ended meanwhile
            continue
    return total / 1e9


def generator_process(plan: Plan, numbers: list[int], barrier, results) -> None:
    """One generator process: lower priority, wait for the go, drive, send the tally."""
    os.nice(int(os.environ.get("BENCH_WEB_NICE", "10")))
    random.seed(numbers[0] if numbers else 0)
    tally = Tally()
    barrier.wait()
    began, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    waited = run_queue_wait()
    asyncio.run(drive(plan, numbers, tally))
    done = resource.getrusage(resource.RUSAGE_SELF)
    tally.waited = run_queue_wait() - waited
    tally.cpu = done.ru_utime + done.ru_stime - cpu.ru_utime - cpu.ru_stime
    tally.wall = time.perf_counter() - began
    results.put(tally)


def run(plan: Plan, processes: int, before=None) -> Tally:
    """Drive PLAN from PROCESSES processes; `before()` runs just before the go. Returns
    the tallies merged (cpu: the processes' CPU seconds together; wall: the longest)."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(processes + 1), spawn.Queue()
    shares = [list(range(k, plan.workers, processes)) for k in range(processes)]
    children = [spawn.Process(target=generator_process, args=(plan, share, barrier, results))
                for share in shares]
    for child in children:
        child.start()
    if before is not None:
        before()
    barrier.wait()
    tallies = [results.get(timeout=plan.seconds + 600) for _ in children]
    for child in children:
        child.join(60)
    merged = Tally(cpu=sum(t.cpu for t in tallies), wall=max(t.wall for t in tallies),
                   waited=sum(t.waited for t in tallies))
    for tally in tallies:
        merged.latencies += tally.latencies
        merged.acked += tally.acked
        merged.lag += tally.lag
        merged.requests += tally.requests
        for what, count in tally.outcomes.items():
            merged.outcomes[what] = merged.outcomes.get(what, 0) + count
    return merged
