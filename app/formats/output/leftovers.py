"""Temporary files of exports: named so a user can tell what they are, swept when stale.

An export writes `.<name>.simrate-export-<host>-<pid>-<random>.part` beside its target (with
<name> cut short where the whole would pass the 255 bytes a file name may hold) and
renames it over the target at the end; openpyxl's scratch files go into a folder
`.<name>.simrate-scratch-<host>-<pid>-<random>` beside it. Both are removed when the export
ends, however it ends. A killed export cannot remove them, so every export first sweeps its
folder: a leftover whose process (on this machine) is gone is deleted. Files of exports
still running, or made on another machine, are left alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import socket
import stat
import tempfile
import time
import uuid
from pathlib import Path

from simrate.core.base.names import fit_name

#: Files of the form earlier versions wrote (`.<name>.<8 random>.part`) count as stale
#: after this many seconds.
LEGACY_AGE = 24 * 3600
_HOST = hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]
_OURS = re.compile(r"^\..+\.simrate-(?:export|scratch)-([0-9a-f]{6})-(\d+)-[0-9a-f]{6}"
                   r"(?:\.part)?$")
_LEGACY = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.part$")


def is_special(path: Path) -> bool:
    """True for an existing path that is neither a regular file nor a folder (a device, a
    named pipe, a socket): renaming a file over it would put a plain file in its place."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def work_place(target: Path) -> Path:
    """Where temporary files for writing `target` are named from: beside it, except for a
    special target (`/dev/null`), whose folder is no place for them."""
    return Path(tempfile.gettempdir()) / target.name if is_special(target) else target


def temp_name(target: Path, kind: str) -> Path:
    """A fresh temporary name beside `target`; kind "export" (a .part file) or "scratch"."""
    suffix = ".part" if kind == "export" else ""
    tail = f".simrate-{kind}-{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:6]}{suffix}"
    return target.with_name(fit_name(target.name, tail))  # a long target's name is cut


def _alive(pid: int) -> bool:
    """True when a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # someone else's process, or we cannot tell: leave its files alone
    return True


def is_stale(path: Path, now: float | None = None) -> bool:
    """True for a leftover of a killed export (see the module docstring)."""
    match = _OURS.match(path.name)
    if match:
        return match.group(1) == _HOST and not _alive(int(match.group(2)))
    if _LEGACY.match(path.name) and ".simrate-" not in path.name:
        with contextlib.suppress(OSError):
            return (now or time.time()) - path.lstat().st_mtime > LEGACY_AGE
    return False


def sweep(folder: Path) -> list[Path]:
    """Delete the stale leftovers in `folder`; returns what was removed."""
    removed: list[Path] = []
    try:
        entries = [e for e in os.scandir(folder) if e.name.startswith(".")]
    except OSError:
        return removed
    for entry in entries:
        path = Path(entry.path)
        if not is_stale(path):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(path)
    return removed
