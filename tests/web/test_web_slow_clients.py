"""Slow and broken clients are bounded (issue 32): 200 connections that send part of their
headers or part of their body and stop neither stop a normal request from answering within
a second nor stay open past their deadlines; each dropped client is one log line, never a
traceback."""

from __future__ import annotations

import socket
import time

import httpx

from simrate.core.project import Project
from simrate.core.team import web_study as web
from simrate.web.slow_clients import BODY_SECONDS, HEADER_SECONDS
from tests.web.projects import make_project
from tests.web.servers import Server


def half_open(port: int, kind: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    if kind == "headers":
        sock.sendall(b"GET /study/s HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    else:
        sock.sendall(b"POST /study/s/rate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/x-www-form-urlencoded\r\n"
                     b"Content-Length: 200\r\n\r\ntoken=abc&slot=1&sc")
    return sock


def closed(sock: socket.socket) -> bool:
    """True when the server closed the connection (it may answer 408 first)."""
    sock.settimeout(0.5)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_two_hundred_half_open_connections_leave_the_page_answering(tmp_path):
    path = make_project(tmp_path / "p.simrate", items=10, checks=0)
    with Project.open(path) as project:
        web.set_study(project, "s", per_task=2)
    with Server(path) as server:
        socks = [half_open(server.port, "headers" if n % 2 else "body") for n in range(200)]
        began = time.monotonic()
        answer = httpx.get(f"{server.url}/study/s?worker=W1", timeout=5)
        took = time.monotonic() - began
        assert answer.status_code == 200 and took < 1.0, took
        # a client that leaves mid-body: one line, no traceback
        gone = half_open(server.port, "body")
        gone.close()
        deadline = time.monotonic() + BODY_SECONDS + HEADER_SECONDS + 10
        while time.monotonic() < deadline and not all(closed(s) for s in socks[:1]):
            time.sleep(0.5)
        time.sleep(max(0.0, began + BODY_SECONDS + 3 - time.monotonic()))
        still_open = [s for s in socks if not closed(s)]
        for sock in socks:
            sock.close()
        assert httpx.get(f"{server.url}/", timeout=5).status_code == 200
        status, _out, err = server.stop()
    assert status == 0
    assert still_open == []  # every half-open connection was closed by its deadline
    lines = err.splitlines()
    assert "Traceback" not in err
    assert len(lines) <= 201 + 5, lines[:5]  # a line per dropped client, and no more
    assert sum("no whole request" in line for line in lines) >= 100
    assert sum("body took too long" in line or "left during" in line for line in lines) >= 100
