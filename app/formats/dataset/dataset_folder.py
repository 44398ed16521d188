"""A dataset folder as a whole: where it may go, its options, and writing it all or nothing.

The folder is written under a hidden temporary name beside the target (the export's
leftover naming, app/formats/output/leftovers.py, so a killed export's folder is swept later) and
renamed to the target when every file in it is complete and flushed. A target that exists
must be an empty folder; anything else is refused before a byte is written.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

# the SPDX licence list ships in the wheel; the library has no type hints
from license_expression import (  # type: ignore[import-untyped]
    ExpressionError,
    Licensing,
    get_spdx_licensing,
)

from simrate.core.base.durable import sync_folder
from simrate.core.base.errors import SimrateError
from simrate.core.base.names import check_name_length
from simrate.formats.dataset.dataset_previous import is_dataset_folder
from simrate.formats.output.atomic import os_message, refuse_overwriting
from simrate.formats.output.leftovers import sweep, temp_name

#: Split names `datasets` accepts (its own rule), in ASCII.
_SPLIT = re.compile(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*")
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
#: The Hub's words for no SPDX licence.
NO_LICENSE = ("unknown", "other")
SPDX_PAGE = "https://spdx.org/licenses/{}.html"


@functools.lru_cache(maxsize=1)
def _spdx() -> Licensing:
    """The SPDX licence list license-expression ships in its wheel (nothing is fetched)."""
    return get_spdx_licensing()


def check_split(name: str) -> str:
    """The split name, refused unless `datasets` would take it (letters, digits, _ and .)."""
    if not _SPLIT.fullmatch(name or "") or len(name) > 100:
        raise SimrateError(f"--split {name!r}: a split name is letters, digits and '_', "
                           "parts joined by '.' (train, test, validation)")
    return name


def check_license(name: str) -> str:
    """The licence as an SPDX identifier or expression in its canonical spelling
    (`cc-by-4.0` gives `CC-BY-4.0`, `mit or apache-2.0` gives `MIT OR Apache-2.0`), or the
    Hub's `unknown` / `other`; anything else is refused."""
    if (name or "").strip().lower() in NO_LICENSE:
        return name.strip().lower()
    try:
        parsed = _spdx().parse(name, validate=True, strict=True)
    except ExpressionError as exc:
        raise SimrateError(f"--license {name!r} is not an SPDX licence identifier or "
                           f"expression ({str(exc).splitlines()[0].rstrip('.')}); give one such as CC-BY-4.0, "
                           "CC0-1.0, MIT OR Apache-2.0, or 'unknown' or 'other'") from None
    if parsed is None:
        raise SimrateError("--license is empty; give an SPDX licence such as CC-BY-4.0, or "
                           "'unknown' or 'other'")
    return str(parsed.render())


def license_keys(name: str) -> list[str]:
    """The SPDX identifiers of a licence expression checked by check_license (exceptions
    included), in their order; none for unknown / other."""
    if name in NO_LICENSE:
        return []
    return [str(key) for key in _spdx().license_keys(_spdx().parse(name))]


def check_language(code: str) -> str:
    """The language code, refused unless it looks like ISO 639 (en, de, pt-BR)."""
    if not _LANGUAGE.fullmatch(code or ""):
        raise SimrateError(f"--language {code!r} is not a language code such as en, de or "
                           "pt-BR")
    return code


def license_urls(name: str) -> list[str]:
    """The SPDX page of each licence of an expression (LicenseRef- licences have none)."""
    return [SPDX_PAGE.format(key) for key in license_keys(name)
            if not key.startswith("LicenseRef-")]


def check_folder_target(out: str | Path, protected: Sequence[str | Path]) -> Path:
    """The target folder, refused when it exists and is not an empty folder, or cannot be
    made (no parent folder, no permission), or names a file the command reads."""
    path = Path(out)
    check_name_length(path)
    refuse_overwriting(path, protected, "the project file itself")
    if path.exists() or path.is_symlink():
        if not path.is_dir() or path.is_symlink():
            raise SimrateError("exists and is not a folder; a dataset is written to a new "
                               "(or empty) folder", path)
        if any(os.scandir(path)) and not is_dataset_folder(path):
            raise SimrateError("the folder is not empty and holds no dataset folder simrate "
                               "wrote; give a new or empty folder (nothing was written)", path)
    parent = path.absolute().parent
    if not parent.exists():
        raise SimrateError(f"folder {str(parent)!r} does not exist", path)
    if not parent.is_dir():
        raise SimrateError(f"{str(parent)!r} is not a folder", path)
    if not os.access(parent, os.W_OK | os.X_OK):
        raise SimrateError(f"cannot write in folder {str(parent)!r} (permission denied)", path)
    return path


def _fsync_tree(folder: Path) -> None:
    """Flush every file and folder under `folder` to the disk."""
    for root, _dirs, files in os.walk(folder):
        for name in files:
            with open(os.path.join(root, name), "rb") as handle:
                os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            fd = os.open(root, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


@contextlib.contextmanager
def folder_writer(target: Path, replaces: Sequence[str] = ()) -> Iterator[Path]:
    """Yield a fresh hidden folder beside `target`; when the block succeeds it becomes
    `target` (renamed into place, or for an earlier export its files moved in one by one
    and the files in `replaces` it no longer has removed); removed, with all in it, when
    the block fails or is interrupted."""
    parent = target.absolute().parent
    sweep(parent)  # folders that killed exports left behind
    temp = temp_name(target.absolute(), "export")
    try:
        os.mkdir(temp)
    except OSError as exc:
        raise SimrateError(f"cannot create a folder in {str(parent)!r}: {os_message(exc)}",
                           target) from None
    try:
        yield temp
        _fsync_tree(temp)
        if target.is_dir() and any(os.scandir(target)):
            _move_in(temp, target, replaces)
        else:
            os.rename(temp, target)  # replaces an empty folder; refuses one filled meanwhile
    except BaseException as exc:
        shutil.rmtree(temp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise SimrateError(f"cannot write: {os_message(exc)}", target) from None
        raise
    with contextlib.suppress(OSError):
        fd = os.open(parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _move_in(temp: Path, target: Path, replaces: Sequence[str]) -> None:
    """Move every file of `temp` over its namesake in `target` (the card and croissant.json
    last, so they never describe files not yet there), then remove the replaced files
    that were not written again; other files of `target` stay."""
    written = sorted((str(p.relative_to(temp)) for p in temp.rglob("*") if p.is_file()),
                     key=lambda name: (name in ("README.md", "croissant.json"), name))
    for name in written:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        os.replace(temp / name, target / name)
    for name in set(replaces) - set(written):
        with contextlib.suppress(FileNotFoundError):
            os.remove(target / name)
    shutil.rmtree(temp, ignore_errors=True)
    for folder in {(target / name).parent for name in written}:
        sync_folder(folder)  # the new names made durable


def _column_name(key: str, taken: set[str]) -> str:
    """`meta_<key>` with characters other than letters, digits and _ as _, made unique."""
    base = "meta_" + (re.sub(r"[^A-Za-z0-9_]", "_", key) or "field")
    name, n = base, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def meta_texts(metas: list[dict]) -> dict[str, list[str | None]]:
    """The source files' extra fields as texts {key: values} (None where absent), keys in
    the order first seen; a JSON value that is not a string is written as JSON."""
    keys = list(dict.fromkeys(k for meta in metas for k in meta))
    return {key: [None if v is None else v if isinstance(v, str)
                  else json.dumps(v, ensure_ascii=False)
                  for v in (meta.get(key) for meta in metas)] for key in keys}


def meta_columns(texts: dict[str, list[str | None]], taken: set[str]
                 ) -> dict[str, list[str | None]]:
    """meta_texts as columns named `meta_<key>` (letters, digits and _; made unique)."""
    taken = set(taken)
    return {_column_name(key, taken): values for key, values in texts.items()}
