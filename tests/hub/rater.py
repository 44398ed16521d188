"""A simulated annotator for the load and fault tests: rate a list of items at a steady
pace in a replica, syncing every few ratings, carrying on when the hub is away.

Run: python -m tests.hub.rater URL REPLICA NAME FIRST COUNT PER_SECOND SEED
It joins when REPLICA does not exist yet, rates items d:FIRST+1 .. d:FIRST+COUNT that it
has not rated (so a restart after kill -9 carries on where it stopped), then syncs until
nothing is pending. Prints one JSON line: ratings made, rounds, failed rounds.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

SYNC_EVERY = 25


def main(argv: list[str]) -> int:
    from simrate.core.project import Project
    from simrate.hub.link.connection import HubError
    from simrate.hub.team.join import join
    from simrate.hub.team.sync import session_for, sync_round

    url, path, name, first, count, pace, seed = argv
    path = Path(path)
    if path.exists():
        project = Project.open(path)
    else:
        project, _ = join(url, path)
    session = session_for(project)
    rng = random.Random(int(seed))
    made = rounds = failed = 0
    pause = 1.0 / float(pace)

    def one_round() -> int | None:
        nonlocal rounds, failed
        try:
            rounds += 1
            return sync_round(project, session).pending
        except HubError:
            failed += 1
            return None

    for i in range(int(first) + 1, int(first) + int(count) + 1):
        item_id = f"d:{i}"
        if project.rating_record(item_id, name) is not None:
            continue
        base = (i * 7) % 21  # items differ; raters agree up to noise
        code = min(20, max(0, base + rng.choice((-2, -1, 0, 0, 1, 2))))
        project.rate(item_id, name, code * 0.25)
        made += 1
        if made % SYNC_EVERY == 0:
            one_round()
        time.sleep(pause)
    deadline = time.monotonic() + 120
    while one_round() != 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    session.close()
    project.close()
    print(json.dumps({"made": made, "rounds": rounds, "failed": failed}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
