"""Hostile request bodies sent over a raw socket to a running `simrate serve`, and the
server process's memory, for the tests of the bounded body reader (issue 43)."""

from __future__ import annotations

import select
import socket
import threading
from dataclasses import dataclass
from pathlib import Path

PIECE = 64 * 1024


@dataclass
class Answer:
    status: int
    text: str
    sent: int  # body bytes the client got out before the server answered or closed


def rss_mib(pid: int) -> float:
    """The resident memory of process `pid` in MiB (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def post_chunked(port: int, path: str, total: int, headers: dict | None = None,
                 piece: bytes = b"a" * PIECE, body: bytes | None = None) -> Answer:
    """POST `total` bytes of `piece` (or `body` once) to `path` with chunked transfer
    coding, no Content-Length; stops sending as soon as the server answers or closes."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=60)
    try:
        fields = {"Content-Type": "application/json", **(headers or {})}
        head = [f"POST {path} HTTP/1.1", f"Host: 127.0.0.1:{port}",
                "Transfer-Encoding: chunked", *(f"{k}: {v}" for k, v in fields.items())]
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        sent = _send_pieces(sock, [body] if body is not None else None, piece, total)
        return _answer(sock, sent)
    finally:
        sock.close()


def _send_pieces(sock: socket.socket, once: list[bytes] | None, piece: bytes,
                 total: int) -> int:
    sent = 0
    pieces = iter(once) if once is not None else None
    while True:
        ready, _w, _x = select.select([sock], [], [], 0)
        if ready:
            return sent  # an answer (or the close) came before the body ended
        chunk = next(pieces, None) if pieces is not None else (piece if sent < total else None)
        try:
            if chunk is None:
                sock.sendall(b"0\r\n\r\n")
                return sent
            sock.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except (BrokenPipeError, ConnectionResetError):
            return sent
        sent += len(chunk)


def _answer(sock: socket.socket, sent: int) -> Answer:
    data = b""
    while b"\r\n\r\n" not in data or len(data) < _expected(data):
        try:
            got = sock.recv(65536)
        except ConnectionResetError:
            break
        if not got:
            break
        data += got
    head, _sep, rest = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    return Answer(status, rest.decode("utf-8", "replace"), sent)


def _expected(data: bytes) -> int:
    head, _sep, _rest = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(head) + 4 + int(line.split(b":")[1])
    return len(data) + 1


def post_together(port: int, path: str, total: int, clients: int,
                  headers: dict | None = None) -> list[Answer]:
    """`clients` posts of `total` chunked bytes each, at the same time."""
    answers: list[Answer | None] = [None] * clients

    def one(k: int) -> None:
        answers[k] = post_chunked(port, path, total, headers)

    threads = [threading.Thread(target=one, args=(k,)) for k in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(answer is not None for answer in answers)
    return [answer for answer in answers if answer is not None]


def nested(depth: int) -> bytes:
    """A JSON array nested `depth` deep."""
    return b"[" * depth + b"]" * depth
