"""Before a web study is opened: will it serve any task? A study whose item pool is empty (no
items, or every item a check item) or whose every item already has its web ratings opens
with 0 tasks, and workers sent to it would find nothing. The command line and the window
refuse such a study with the reason, before anything is written."""

from __future__ import annotations

from simrate.core.base.errors import SimrateError
from simrate.core.project import Project
from simrate.core.team.quality import check_scores
from simrate.core.team.web_study import get_study, study_status


def refuse_empty_study(project: Project, name: str, per_item: int | None,
                       close: bool = False) -> None:
    """SimrateError saying why, when study `name` (as it would be with `per_item`, None:
    unchanged) would be open with no task to serve; nothing when it is being closed."""
    if close:
        return
    items = project.items()["item_id"]
    checks = set(check_scores(project))
    pool = int((~items.isin(checks)).sum())
    start = f"study {name!r} would have 0 tasks to serve: "
    if not len(items):
        raise SimrateError(start + "the project has no items yet (simrate import)",
                           project.path)
    if pool == 0:
        raise SimrateError(
            start + f"all {len(items):,} items are check items, and a task serves checks only "
            "beside items to rate; unmark some (simrate checks PROJECT ITEM_ID... --remove) or "
            "mark a sample (simrate checks PROJECT --from-reference --sample N)", project.path)
    if get_study(project, name) is None:
        return
    status = study_status(project)[name]
    wanted = per_item or status["per_item"]
    room = sum(max(0, wanted - int(n)) * count
               for n, count in status["ratings_per_item"].items())
    if room == 0:
        raise SimrateError(
            start + f"every one of its {pool:,} items already has its {wanted} web "
            f"{'rating' if wanted == 1 else 'ratings'} (--per-item {wanted}); raise --per-item "
            "to collect more, or close it (--close)", project.path)
