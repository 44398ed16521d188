"""`simrate check` and `--salvage`, fifth round (issue 43): the way out copies every table of
every kind of project the app makes; `check` sees what the schema declares (tables,
columns, indexes by content, triggers, the web tables and their texts, the schema
version); a -wal or -shm that does not belong to the file is named; a full disk is a full
disk. Real files, built with the app's own API and commands, damaged on disk."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pandas as pd
import pytest

from simrate.core.data.store import MACHINE
from simrate.core.project import Project
from tests.support.helpers import ROOT, new_project, one_line_error, run_cli


def _rate(project: Project, raters: tuple[str, ...], kind: str = "human") -> None:
    ids = project.item_ids()
    rows = [(item, rater, float((n + k) % 4)) for n, item in enumerate(ids)
            for k, rater in enumerate(raters)]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "score"])
    frame["line"] = range(2, len(frame) + 2)
    frame["note"] = ""
    project.import_ratings(frame, "r.csv", kind=kind)


def _plain(path: Path) -> None:
    with new_project(path, n_items=30) as project:
        _rate(project, ("ann", "bob"))
    assert run_cli("checks", path, "x:1", "--score", "2").returncode == 0
    assert run_cli("adjudicate", path, "x:2", "1").returncode == 0


def _machine(path: Path) -> None:
    with new_project(path, n_items=30) as project:
        _rate(project, ("ann",))
        _rate(project, ("gpt",), kind=MACHINE)


def _crowd(path: Path) -> None:
    from simrate.core.team.crowd import make_batch, record_batch

    with new_project(path, n_items=30) as project:
        record_batch(project, make_batch(project, per_task=5))


def _web(path: Path) -> None:
    from simrate.core.team import web_study
    from simrate.core.team.web_tasks import lease

    with new_project(path, n_items=30) as project:
        web_study.set_study(project, "web1", per_task=4)
        lease(project, "web1", "WORKER1")


def _replica(path: Path) -> None:
    from simrate.core.data.replica_mode import Role
    from simrate.hub.link.replica import link_replica

    with new_project(path, n_items=30) as project:
        link_replica(project, "postgresql://hub.example/team", Role.ORGANIZER, None,
                     str(uuid.uuid4()))
        _rate(project, ("ann",))


def _pyramid(path: Path) -> None:
    new_project(path, n_items=0).close()
    assert run_cli("import", path, ROOT / "sample_data" / "D9901.pyr").returncode == 0


KINDS = {"plain": _plain, "machine": _machine, "crowd": _crowd, "web": _web,
         "replica": _replica, "pyramid": _pyramid}


def _schema(path: Path) -> dict[str, dict[str, int | None]]:
    """type -> name -> rows (tables) or None (indexes, triggers)."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        found: dict[str, dict[str, int | None]] = {"table": {}, "index": {}, "trigger": {}}
        for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE name "
                                       "NOT LIKE 'sqlite_%'").fetchall():
            found[kind][name] = conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] \
                if kind == "table" else None
        return found
    finally:
        conn.close()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_salvage_copies_every_table_of_every_kind_of_project(kind, tmp_path):
    path = tmp_path / "p.simrate"
    KINDS[kind](path)
    out = tmp_path / "new.simrate"
    result = run_cli("check", path, "--salvage", out)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    before, after = _schema(path), _schema(out)
    for table, rows in before["table"].items():
        if table == "meta":
            continue
        assert after["table"].get(table) == rows, (table, result.stdout)
    assert set(before["index"]) <= set(after["index"])
    assert set(before["trigger"]) <= set(after["trigger"])
    assert sum(before["table"].values()) > 20  # each kind made something to copy
    assert run_cli("check", out).returncode == 0


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    _web(path)
    return path


def _alter(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for statement in statements:
        conn.execute(statement)
    conn.commit()
    conn.close()


def _check(path: Path) -> list[str]:
    import json

    result = run_cli("check", path, "--json")
    assert result.returncode == 2, (result.stdout, result.stderr)
    return json.loads(result.stdout)["problems"]


def test_a_rater_key_held_twice_under_an_index_that_lost_its_unique_is_found(project):
    _alter(project, "DROP INDEX annotators_key",
           "CREATE INDEX annotators_key ON annotators(key)",
           "INSERT INTO annotators (name, key) VALUES ('ann', 'ann'), ('ANN ', 'ann')")
    problems = _check(project)
    assert "index annotators_key of table annotators is not UNIQUE" in problems
    assert any("table annotators: 1 value(s) of (key)" in p for p in problems), problems


@pytest.mark.parametrize(("statement", "needle"), [
    ("DROP INDEX items_dataset", "index items_dataset of table items is missing"),
    ("DROP INDEX web_fill_next", "index web_fill_next of table web_fill is missing"),
    ("DROP TABLE web_fill", "table web_fill is missing"),
    ("DROP TRIGGER annotators_top", "trigger annotators_top is missing"),
    ("CREATE TRIGGER zero AFTER INSERT ON ratings BEGIN UPDATE ratings SET code = 0; END",
     "trigger zero is not simrate's"),
    ("UPDATE meta SET value = '1" + "0" * 40 + "' WHERE key = 'schema_version'",
     "the schema version is '1000"),
    ("UPDATE web_studies SET code = CAST(X'636166E9' AS TEXT)",
     "web_studies.code: 1 text(s) not valid UTF-8 (first at name web1)"),
    ("UPDATE web_tasks SET worker = CAST(X'FF' AS TEXT)", "web_tasks.worker: 1 text(s)"),
])
def test_check_sees_what_the_schema_declares(project, statement, needle):
    assert run_cli("check", project).returncode == 0
    _alter(project, statement)
    problems = _check(project)
    assert any(needle in problem for problem in problems), problems


_WRITER = ("import sqlite3, sys, os; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
           "c.execute('PRAGMA wal_autocheckpoint = 0'); c.execute('BEGIN'); "
           "c.execute(\"UPDATE items SET left = 'changed'\"); c.execute('UPDATE ratings SET "
           "code = 0'); c.execute('COMMIT'); os._exit(0)")


def _killed_writer(path: Path) -> None:
    """A writer of `path` that dies before its checkpoint: its -wal and -shm stay."""
    import subprocess
    import sys

    subprocess.run([sys.executable, "-c", _WRITER, str(path)], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0 and Path(f"{path}-shm").exists()


@pytest.fixture
def rated(tmp_path) -> Path:
    path = tmp_path / "p.simrate"
    _plain(path)
    return path


def _copy_of(path: Path) -> Path:
    other = path.parent / "other"
    other.mkdir()
    copy = other / path.name
    copy.write_bytes(path.read_bytes())
    return copy


def _left(path: Path) -> set[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT left FROM items")}
    finally:
        conn.close()


def test_the_wal_of_a_copy_beside_the_project_is_named_never_applied(rated, tmp_path):
    copy = _copy_of(rated)
    _killed_writer(copy)
    wal = Path(f"{rated}-wal")
    wal.write_bytes(Path(f"{copy}-wal").read_bytes())
    (problem,) = _check(rated)
    assert problem.startswith(f"the file itself is sound, but its -wal file {wal}")
    assert "does not belong to it" in problem and "no -shm index" in problem
    out = tmp_path / "new.simrate"
    result = run_cli("check", rated, "--salvage", out)
    assert result.returncode == 0, result.stderr
    assert f"left behind: the -wal file {wal}, which does not belong" in result.stdout
    assert "changed" not in _left(out) and len(_left(out)) == 30


def test_a_wal_put_in_place_of_the_files_own_is_named(rated):
    copy = _copy_of(rated)
    _killed_writer(copy)
    _killed_writer(rated)  # the file's own -wal and -shm
    Path(f"{rated}-wal").write_bytes(Path(f"{copy}-wal").read_bytes())
    (problem,) = _check(rated)
    assert "does not belong to it" in problem and "salts differ" in problem


def test_the_files_own_wal_left_by_a_killed_writer_is_applied(rated):
    _killed_writer(rated)
    assert run_cli("check", rated).returncode == 0


def test_a_sound_project_on_a_full_disk_is_said_to_be_on_a_full_disk(rated, tmp_path):
    import sys

    from tests.support.helpers import run_on_small_disk

    folder = tmp_path / "disk"
    folder.mkdir()
    target = folder / "p.simrate"
    simrate = f"{sys.executable} -m simrate"
    script = (f"cp {rated} {target} && (dd if=/dev/zero of={folder}/fill bs=1k 2>/dev/null; "
              f"true) && cd {ROOT} && {simrate} info {target}; {simrate} check {target}; "
              f"{simrate} check {target} --salvage {folder}/new.simrate; true")
    proc, _ = run_on_small_disk(folder, 512, ["sh", "-c", script])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 3, proc.stderr
    for line in lines:
        one_line_error(line, str(target), "the disk is full")
        assert "damaged" not in line and "salvage" not in line
