"""Every way a rating enters a hub-linked replica reaches the hub at the next `team sync`.

Routes: `simrate import` of a ratings file (annotator's and organizer's replica), package
merges, crowd results, machine raters on the organizer's replica, undo of a single edit and
undo of an import. Each runs as a user runs it (real files, the command line in another
process); `team sync --json` then reports the ratings as pushed (pending before), and they
are on the hub and in another organizer's replica.
"""

from __future__ import annotations

import csv
import html
import json

import pandas as pd
import pytest

from simrate.core.actions import History, SetRating
from simrate.core.base.errors import SimrateError
from simrate.core.base.events import RatingState
from simrate.core.project import Project
from simrate.hub.team.sync import pending_count
from tests.hub.hubs import join_as, team


@pytest.fixture
def replicas(hub, tmp_path):
    """Paths of the organizer's replica, a second organizer's (Olga) and Alice's."""
    organizer, logins = team(hub, tmp_path, {"Olga": "organizer", "Alice": "annotator"})
    join_as(hub, logins["Olga"], tmp_path / "olga.simrate").close()
    join_as(hub, logins["Alice"], tmp_path / "alice.simrate").close()
    organizer.close()
    return {"org": tmp_path / "organizer.simrate", "olga": tmp_path / "olga.simrate",
            "alice": tmp_path / "alice.simrate"}


def run(hub, *args) -> str:
    done = hub.simrate(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def pending(path) -> int:
    with Project.open(path) as project:
        return pending_count(project)


def sync(hub, path) -> dict:
    return json.loads(run(hub, "team", "sync", path, "--json"))


def on_hub(hub, annotator: str) -> dict[str, int | None]:
    with hub.admin() as admin:
        return dict(admin.execute("SELECT item_id, code FROM simrate.ratings "
                                  "WHERE annotator = %s", (annotator,)).fetchall())


def scores(path, annotator: str) -> dict[str, float]:
    with Project.open(path) as project:
        ratings = project.ratings()
    mine = ratings[ratings["annotator"] == annotator]
    return dict(zip(mine["item_id"], mine["score"], strict=True))


def ratings_file(path, annotator: str, values: dict[str, float]):
    path.write_text("item_id,annotator,score,note\n" + "".join(
        f"{item_id},{annotator},{score},from a file\n" for item_id, score in values.items()),
        encoding="utf-8")
    return path


def pushed_and_there(hub, path, annotator, values, other) -> None:
    """`path` has len(values) ratings pending; one sync pushes them; the hub and `other`
    (after its own sync) hold them."""
    assert pending(path) == len(values)
    report = sync(hub, path)
    assert (report["pushed"], report["pending"]) == (len(values), 0)
    assert on_hub(hub, annotator) == {i: int(v * 4) for i, v in values.items()}
    sync(hub, other)
    assert scores(other, annotator) == values
    with Project.open(other) as project:  # what a pull wrote is not queued to go back
        assert project.team_tables.read("SELECT count(*) FROM hub_outbox")[0][0] == 0
        assert pending_count(project) == 0


def test_an_imported_ratings_file_leaves_an_annotators_replica(hub, replicas, tmp_path):
    values = {"d:1": 2.0, "d:2": 3.5, "d:3": 0.25}
    run(hub, "import", replicas["alice"], ratings_file(tmp_path / "mine.csv", "Alice", values))
    pushed_and_there(hub, replicas["alice"], "Alice", values, replicas["org"])


def test_ratings_of_others_are_refused_by_an_annotators_replica(hub, replicas, tmp_path):
    """The hub takes only Alice's own ratings from her replica: a file rating as someone
    else is refused whole (it would never leave this machine), with one line."""
    mixed = tmp_path / "mixed.csv"
    mixed.write_text("item_id,annotator,score,note\nd:1,Alice,2,\nd:2,Bob,3,\n",
                     encoding="utf-8")
    done = hub.simrate("import", replicas["alice"], mixed)
    assert done.returncode == 2, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("simrate: error: ")]
    assert len(errors) == 1 and "holds only that person's own ratings" in errors[0]
    assert "Traceback" not in done.stderr and "sqlite3" not in done.stderr
    assert scores(replicas["alice"], "Alice") == {} and pending(replicas["alice"]) == 0
    with Project.open(replicas["alice"]) as project:
        with pytest.raises(SimrateError, match="own ratings"):
            project.rate("d:3", "Bob", 1.0)
        project.rate("d:3", "Alice", 1.0)
    assert sync(hub, replicas["alice"])["pushed"] == 1


def test_an_imported_ratings_file_leaves_an_organizers_replica(hub, replicas, tmp_path):
    values = {"d:4": 1.0, "d:5": 5.0}
    run(hub, "import", replicas["org"], ratings_file(tmp_path / "ext.csv", "Ext", values))
    pushed_and_there(hub, replicas["org"], "Ext", values, replicas["olga"])


def test_new_items_and_their_ratings_leave_in_one_sync(hub, replicas, tmp_path):
    """Items and ratings of them imported between two syncs: the items reach the hub
    before the ratings that refer to them."""
    pairs = tmp_path / "more.tsv"
    pairs.write_text("id\tleft\tright\nn:1\ta first\ta second\nn:2\tone more\tand one\n",
                     encoding="utf-8")
    run(hub, "import", replicas["org"], pairs)
    values = {"n:1": 2.0, "n:2": 4.75}
    run(hub, "import", replicas["org"], ratings_file(tmp_path / "ext.csv", "Ext", values))
    report = sync(hub, replicas["org"])
    assert (report["pushed"], report["pending"]) == (4, 0)  # 2 items, 2 ratings
    assert on_hub(hub, "Ext") == {"n:1": 8, "n:2": 19}
    sync(hub, replicas["olga"])
    assert scores(replicas["olga"], "Ext") == values


def test_undoing_an_import_reaches_the_hub_and_puts_back_what_it_replaced(
        hub, replicas, tmp_path):
    with Project.open(replicas["org"]) as project:
        project.rate("d:6", "Ext", 1.0)  # rated by hand before the file came
    sync(hub, replicas["org"])
    values = {"d:6": 4.0, "d:7": 2.0}
    run(hub, "import", replicas["org"], ratings_file(tmp_path / "ext.csv", "Ext", values))
    sync(hub, replicas["org"])
    sync(hub, replicas["olga"])
    assert scores(replicas["olga"], "Ext") == values
    run(hub, "import", replicas["org"], "--undo")
    assert pending(replicas["org"]) == 2
    report = sync(hub, replicas["org"])
    assert (report["pushed"], report["pending"], report["conflicts"]) == (2, 0, 0)
    assert on_hub(hub, "Ext") == {"d:6": 4, "d:7": None}  # 1.0 back; d:7 cleared
    sync(hub, replicas["olga"])
    assert scores(replicas["olga"], "Ext") == {"d:6": 1.0}


def test_undoing_a_single_edit_reaches_the_hub(hub, replicas):
    with Project.open(replicas["alice"]) as project:
        project.rate("d:8", "Alice", 2.0)
    sync(hub, replicas["alice"])
    with Project.open(replicas["alice"]) as project:
        history = History(project)
        history.run(SetRating("d:8", "Alice", RatingState(project.scale.to_code(4.5))))
    sync(hub, replicas["alice"])
    assert on_hub(hub, "Alice") == {"d:8": 18}
    with Project.open(replicas["alice"]) as project:
        history = History(project)
        history.run(SetRating("d:8", "Alice", RatingState(project.scale.to_code(1.0))))
        sync(hub, replicas["alice"])
        assert history.undo()
    pushed_and_there(hub, replicas["alice"], "Alice", {"d:8": 4.5}, replicas["org"])


def test_a_merged_package_leaves_the_organizers_replica(hub, replicas, tmp_path):
    package = tmp_path / "pat.simrate"
    run(hub, "package", replicas["org"], package, "--annotator", "Pat")
    values = {"d:1": 1.5, "d:2": 2.5, "d:9": 4.0}
    with Project.open(package) as offline:
        for item_id, score in values.items():
            offline.rate(item_id, "Pat", score)
    run(hub, "import", replicas["org"], package)
    pushed_and_there(hub, replicas["org"], "Pat", values, replicas["olga"])


def test_a_machine_rater_leaves_the_organizers_replica(hub, replicas, tmp_path):
    values = {f"d:{i}": (i % 5) + 0.5 for i in range(1, 13)}
    scores_file = tmp_path / "gpt.tsv"
    scores_file.write_text("item_id\tscore\n" + "".join(
        f"{item_id}\t{score}\n" for item_id, score in values.items()), encoding="utf-8")
    run(hub, "import", replicas["org"], scores_file, "--machine", "gpt")
    pushed_and_there(hub, replicas["org"], "gpt", values, replicas["olga"])
    with hub.admin() as admin:
        assert admin.execute("SELECT kind FROM simrate.annotators WHERE name = 'gpt'"
                             ).fetchone() == ("machine",)
    with Project.open(replicas["olga"]) as olga:  # a machine there too, never a human
        assert olga.roster.machines() == ["gpt"]
        assert "gpt" in olga.roster.left_out()


def test_crowd_results_leave_the_organizers_replica(hub, replicas, tmp_path):
    batch = tmp_path / "batch.csv"
    run(hub, "crowd", "export", replicas["org"], batch, "--per-task", "4", "--seed", "3")
    tasks = pd.read_csv(batch, dtype=str, keep_default_na=False)
    slots = [c[2:] for c in tasks.columns if c.startswith("id")]
    results = tmp_path / "Batch_1_batch_results.csv"
    values = {}
    with open(results, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["HITId", "AssignmentId", "WorkerId", "AssignmentStatus",
                         "WorkTimeInSeconds"] + [f"Input.{c}" for c in tasks.columns]
                        + [f"Answer.score{s}" for s in slots])
        for number, task in tasks.iterrows():
            answers = []
            for s in slots:
                item_id = task[f"id{s}"]
                answers.append("" if not item_id else str((int(item_id[2:]) % 4) + 1.0))
                if item_id:
                    values[item_id] = (int(item_id[2:]) % 4) + 1.0
            writer.writerow([f"H{number}", f"A{number}", "W7CROWD", "Approved", "90"]
                            + [html.escape(v) for v in task.tolist()] + answers)
    run(hub, "import", replicas["org"], results)
    with Project.open(replicas["org"]) as project:
        crowd = [a for a in project.annotators() if "W7CROWD" in a]
    assert len(crowd) == 1
    pushed_and_there(hub, replicas["org"], crowd[0], values, replicas["olga"])


def test_a_hub_made_before_machine_kinds_still_syncs(hub, replicas, tmp_path):
    """A hub whose annotators table has no kind column (made by an older simrate, not
    published again): organizers still push and pull; the machine goes as a name."""
    with hub.admin() as admin:  # neither the column nor the trigger that guards it
        admin.execute("DROP TRIGGER IF EXISTS keep_kind ON simrate.annotators")
        admin.execute("ALTER TABLE simrate.annotators DROP COLUMN kind")
    scores_file = tmp_path / "gpt.tsv"
    scores_file.write_text("item_id\tscore\nd:1\t2.5\nd:2\t3\n", encoding="utf-8")
    run(hub, "import", replicas["org"], scores_file, "--machine", "gpt")
    pushed_and_there(hub, replicas["org"], "gpt", {"d:1": 2.5, "d:2": 3.0}, replicas["olga"])
