"""The one bounded reader of the files users name (options, importers, scales, Markdown).

Every read of a user-named path goes through `read_bounded`: the path is stated before it
is opened (a folder or a device is refused at once, and a named pipe too where the caller
takes regular files only); a regular file's size is checked against the caller's limit
before a byte is read; the file is opened with O_NONBLOCK, so opening a named pipe never
waits for a writer. A pipe (where the caller takes pipes) is read under the same limit as
it arrives, after a writer has been seen: a pipe that nothing writes to is refused after
WRITER_WAIT seconds instead of waiting for ever. Each refusal is one SimrateError naming
the path and, where a limit was met, the limit.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import time
from collections.abc import Callable
from pathlib import Path

from simrate.core.base.errors import SimrateError

#: The largest instructions or consent text (Markdown) a web study takes.
MAX_MARKDOWN_BYTES = 1 << 20
#: How long a pipe may stay without a writer before it is refused (a named pipe whose
#: writer never starts would otherwise hold the command for ever).
WRITER_WAIT = 0.5
CHUNK = 1 << 22  # bytes read at a time


def mib(limit: int) -> str:
    """A limit for messages: `1 MiB`, `1 GiB`."""
    return f"{limit // 2**30} GiB" if limit >= 2**30 else f"{limit // 2**20} MiB"


def state_input(path: str | Path, pipes: bool = True, missing: str = "no such file",
                noun: str = "file") -> os.stat_result:
    """The path's stat, or SimrateError for a missing path, a folder, a device, or (unless
    `pipes`) anything but a regular file. Never opens the path, so never blocks."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise SimrateError(missing, path) from None
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
    _refuse_kind(path, info.st_mode, pipes, noun)
    return info


def _refuse_kind(path: str | Path, mode: int, pipes: bool, noun: str = "file") -> None:
    if stat.S_ISDIR(mode):
        raise SimrateError(f"is a folder, not a {noun}", path)
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        tail = "files and pipes" if pipes else "regular files only"
        raise SimrateError(f"is a device, not a file: simrate reads {tail} (save the data "
                           "to a file first)", path)
    if not pipes and not stat.S_ISREG(mode):
        raise SimrateError("is a pipe or socket, not a file: simrate reads this from a "
                           "regular file only (save the text to a file first)", path)


def read_bounded(path: str | Path, limit: int, *, pipes: bool = True,
                 feed: Callable[[bytes], None] | None = None, too_large: str = "",
                 missing: str = "no such file", noun: str = "file") -> bytes:
    """The bytes of `path`, at most `limit` of them (SimrateError `too_large`, or `larger
    than <limit>`, beyond). `feed` sees each piece as it is read (a line check). A regular
    file over the limit is refused from its size, before it is opened."""
    too_large = too_large or f"larger than {mib(limit)}, the most simrate reads here"
    info = state_input(path, pipes, missing, noun)
    if stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise SimrateError(too_large, path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
    try:
        mode = os.fstat(fd).st_mode  # what was opened, should the path have changed since
        _refuse_kind(path, mode, pipes, noun)
        if stat.S_ISREG(mode):
            with open(fd, "rb", closefd=False) as stream:
                data = stream.read(limit + 1)  # one allocation: the size is known
            if feed is not None:
                feed(data)
            if len(data) > limit:  # the file grew since it was stated
                raise SimrateError(too_large, path)
            return data
        first = _first_piece(fd, path)
        os.set_blocking(fd, True)
        return _read_pipe(fd, path, limit, first, feed, too_large)
    except OSError as exc:
        raise SimrateError(f"cannot read: {exc.strerror or exc}", path) from None
    finally:
        os.close(fd)


def _first_piece(fd: int, path: str | Path) -> bytes:
    """The first bytes of a pipe opened without blocking; b"" when a writer is there with
    nothing written yet (blocking reads wait for it), or when a writer came and went with
    nothing. SimrateError when no writer is seen within WRITER_WAIT seconds."""
    ends = time.monotonic() + WRITER_WAIT
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    hung_up = False
    while True:
        try:
            piece = os.read(fd, 1 << 16)  # small: an empty read allocates what it asks
        except OSError as exc:
            if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                return b""  # a writer holds the pipe: its bytes are waited for
            raise
        if piece or hung_up:
            return piece
        left = ends - time.monotonic()
        if left <= 0:
            raise SimrateError(f"a pipe with nothing writing to it (simrate waited "
                               f"{WRITER_WAIT:g} s for a writer)", path)
        events = poller.poll(max(1, int(left * 1000)))
        hung_up = any(flags & select.POLLHUP for _fd, flags in events)


def _read_pipe(fd: int, path: str | Path, limit: int, first: bytes,
               feed: Callable[[bytes], None] | None, too_large: str) -> bytes:
    """The rest of a pipe after `first`, as it arrives, refused once past `limit`."""
    buffer = bytearray()
    piece = first
    while True:
        if piece:
            if feed is not None:
                feed(piece)
            buffer += piece
            if len(buffer) > limit:
                raise SimrateError(too_large, path)
        piece = os.read(fd, min(CHUNK, limit + 1 - len(buffer)) or 1)
        if not piece:
            return bytes(buffer)
