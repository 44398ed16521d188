"""Who may take a web study: `crowd study --allow-workers FILE` / `--block-workers FILE`.

A file holds worker ids, one a line (commas separate too, as in a list pasted from a
platform; blank lines and lines starting with `#` are skipped): `crowd review --qualified`
writes such a file. Ids are kept by their rater key (simrate.core.base.names.rater_key), so
`ABC` blocks `abc` as the one rater it is. The lists live in the study's options (JSON), so
the file and the hub keep them alike, and the page checks them before a task is leased, for
either backend (app/web/study_pages.py); the file's own lease checks them too. With an
allow-list only its workers start; a blocked worker never does, allowed or not. An empty
file takes the list away.
"""

from __future__ import annotations

from simrate.core.base.errors import SimrateError
from simrate.core.base.names import rater_key
from simrate.core.base.rules import MAX_OPTIONS_CHARS
from simrate.core.team.web_tables import WORKER_ID, Study, WebRefusal

#: The most bytes read from a worker list (the study's options hold at most
#: MAX_OPTIONS_CHARS characters in all, so a longer file could not be kept anyway).
MAX_LIST_BYTES = 1 << 20
#: What a worker kept out is told (their platform lets them return the study).
NOT_FOR_YOU = ("This study is not open to your account, so no task was given. Please return "
               "it on your platform; if you think this is a mistake, write to the researcher "
               "there.")


def worker_list(data: bytes, flag: str, path: str) -> list[str]:
    """The rater keys of the ids in a worker list file, sorted, once each; SimrateError
    naming the file and line of one that cannot be a worker id."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SimrateError(f"{flag}: not UTF-8 text", path,
                           data[:exc.start].count(b"\n") + 1) from None
    keys: set[str] = set()
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue
        for worker in (part.strip() for part in line.split(",")):
            if not worker:
                continue
            if not WORKER_ID.fullmatch(worker):
                raise SimrateError(f"{flag}: {worker[:40]!r} is not a worker id (letters, "
                                   "digits and _.@:- , at most 64)", path, number)
            keys.add(rater_key(worker))
    if sum(len(k) + 4 for k in keys) > MAX_OPTIONS_CHARS // 2:
        raise SimrateError(f"{flag}: {len(keys):,} ids are more than a study keeps", path)
    return sorted(keys)


def may_start(study: Study, worker: str) -> bool:
    """Whether the study's lists let this worker take a task."""
    key = rater_key(worker)
    allowed = study.option("allow_workers")
    if allowed and key not in allowed:
        return False
    return key not in (study.option("block_workers") or ())


def refuse_kept_out(study: Study, worker: str) -> None:
    """WebRefusal (403, NOT_FOR_YOU) for a worker the study's lists keep out."""
    if not may_start(study, worker):
        raise WebRefusal(NOT_FOR_YOU, 403)
