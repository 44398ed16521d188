"""`simrate serve` as a real process on a free loopback port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Server:
    """A running `simrate serve PROJECT`; stop() sends SIGTERM and waits for the exit."""

    def __init__(self, project: Path, port: int | None = None, args: tuple = ()):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "simrate", "serve", str(project), "--port", str(self.port),
             *map(str, args)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(self.url + "/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                out, err = self.process.communicate(timeout=10)
                raise AssertionError(f"the server did not start: {out} {err}")
            time.sleep(0.1)

    def stop(self, timeout: float = 30) -> tuple[int, str, str]:
        if self.process.poll() is None:
            self.process.terminate()
        out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, out, err

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate(timeout=10)
