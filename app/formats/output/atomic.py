"""Atomic file output: write beside the target, fsync, then rename over it in one step.

A failed or interrupted write never leaves a half-written file where a good one was:
the data goes to a temporary file in the target's folder (so the final rename stays on
one file system and is atomic), and only a complete, flushed file replaces the target.
On any exception, including KeyboardInterrupt, the temporary file is removed.

A target that exists and is not a regular file (`/dev/null`, `/dev/stdout`, a named pipe)
cannot be replaced by renaming without destroying it: the temporary file is made in the
system's temporary folder, and when finished it is copied into the target and removed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from simrate.core.base.durable import sync_folder
from simrate.core.base.errors import SimrateError
from simrate.core.base.names import check_name_length
from simrate.formats.output.leftovers import is_special, sweep, temp_name, work_place

TEMP_SUFFIX = ".part"


def check_writable_target(path: str | Path, protected: Sequence[str | Path] = (),
                          what: str = "the project file itself") -> Path:
    """Return `path` as a Path if a file can be written there; SimrateError saying why not.

    `protected` are files the command reads (the open project, its input files): writing
    over one of them (or over a project's -wal, -shm or -journal file) is refused.
    """
    if str(path).endswith(("/", os.sep)) and not Path(path).is_dir():
        raise SimrateError("ends with a slash, so it names a folder, and there is none; "
                           "give a file name without the slash", path)
    path = Path(path)
    check_name_length(path)
    refuse_loop(path)
    refuse_overwriting(path, protected, what)
    if path.is_dir():
        raise SimrateError("is a folder; give a file name to write", path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.exists():
        raise SimrateError(f"folder {str(folder)!r} does not exist", path)
    if not folder.is_dir():
        raise SimrateError(f"{str(folder)!r} is not a folder", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise SimrateError(f"cannot write in folder {str(folder)!r} (permission denied)", path)
    if path.exists() and not os.access(path, os.W_OK):
        raise SimrateError("the existing file is read-only", path)
    return path


def refuse_loop(path: Path) -> None:
    """SimrateError when `path` is a symbolic link that leads in a loop (pathlib's resolve()
    raises RuntimeError on one, and opening it fails with ELOOP)."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SimrateError("is a symbolic link that leads in a loop (to itself, or through "
                               "others back to it); give another name", path) from None


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop: compared as given
        return path.absolute()


def refuse_overwriting(out: Path, protected: Sequence[str | Path], what: str) -> None:
    """SimrateError when `out` is one of the `protected` files or a journal of one."""
    for given in protected:
        given = Path(given)
        for path in [given] + [Path(f"{given}{s}") for s in ("-wal", "-shm", "-journal")]:
            same = _resolved(out) == _resolved(path)
            if not same and out.exists() and path.exists():
                same = os.path.samefile(out, path)
            if same:
                raise SimrateError(f"is {what}; choose another output name", out)


def _final_mode(path: Path) -> int:
    """Permissions for the new file: those of the file it replaces, else 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it replaces `path`, else it is removed.

    For writers that want a file name (openpyxl's save). The writer must have closed the
    file when the block ends.
    """
    target = check_writable_target(path)
    temp = temp_name(work_place(target), "export")
    folder = temp.parent
    sweep(folder)  # what killed exports left behind
    try:
        os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        raise SimrateError(f"cannot create a file in {str(folder)!r}: {os_message(exc)}",
                           target) from None
    try:
        yield temp
        with open(temp, "rb+") as written:
            os.fsync(written.fileno())
        if is_special(target):
            _copy_into(temp, target)
            return
        os.chmod(temp, _final_mode(target))
        os.replace(temp, target)
    except BaseException as exc:
        temp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise SimrateError(f"cannot write: {os_message(exc)}", target) from None
        raise
    sync_folder(folder)


def _copy_into(temp: Path, target: Path) -> None:
    """Write the finished file into a special target, then remove the temporary file. A
    named pipe is opened without waiting: with no reader at its other end the write would
    wait for ever, and is refused instead."""
    try:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno == errno.ENXIO:
                raise SimrateError("is a named pipe that no program reads; start the reader "
                                   "first, or give a file name", target) from None
            raise
        os.set_blocking(fd, True)
        with open(temp, "rb") as source, open(fd, "wb") as sink:
            shutil.copyfileobj(source, sink, 1 << 20)
    finally:
        temp.unlink(missing_ok=True)


def os_message(exc: OSError) -> str:
    """An OSError in words; a full disk says so, and that the old file is unchanged."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full (or the quota used up); an existing file is unchanged"
    return exc.strerror or str(exc)


@contextlib.contextmanager
def atomic_open(path: str | Path, binary: bool = False, encoding: str = "utf-8",
                newline: str | None = "") -> Iterator[IO]:
    """Open a temporary file for writing; it replaces `path` only when the block succeeds.

    Text mode by default (UTF-8, newlines written exactly as given); `binary=True` for bytes.
    """
    with atomic_path(path) as temp:
        handle: IO
        if binary:
            handle = open(temp, "wb")
        else:
            handle = open(temp, "w", encoding=encoding, newline=newline)
        try:
            yield handle
            handle.flush()
        finally:
            handle.close()
