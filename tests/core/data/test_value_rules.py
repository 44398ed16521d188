"""Fourth round of bad values: one rule per kind of value, whatever the entry point (an
option, an environment variable, a stored setting), and output in any locale."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from simrate.core.base.errors import SimrateError
from simrate.core.data import values
from simrate.core.project import Project
from tests.cli.helpers import simrate
from tests.support.helpers import ROOT, one_line_error, run_cli

SAMPLES = ROOT / "sample_data"
BIG = "9" * 25
HUGE = "9" * 5000


@pytest.fixture
def project(capsys, tmp_path):
    path = tmp_path / "p.simrate"
    assert simrate(capsys, "new", path, "--scale", "clss").status == 0
    assert simrate(capsys, "import", path, SAMPLES / "pairs.tsv",
                   SAMPLES / "ratings_long.csv").status == 0
    return path


def _state(path: Path) -> bytes:
    return path.read_bytes()


@pytest.mark.parametrize("args", [
    ["agreement", "{p}", "--min-overlap", BIG], ["agreement", "{p}", "--min-overlap", HUGE],
    ["import", "{p}", "--undo", BIG], ["import", "{p}", "--undo", HUGE],
    ["crowd", "study", "{p}", "s", "--per-task", BIG],
    ["crowd", "study", "{p}", "s", "--per-task", "3", "--per-item", HUGE],
    ["import", "{p}", str(SAMPLES / "D9901.pyr"), "--negatives", BIG],
    ["import", "{p}", str(SAMPLES / "D9901.pyr"), "--negatives", HUGE],
    ["crowd", "export", "{p}", "{d}/t.csv", "--per-task", "2", "--seed", "-1"],
    ["pyramid", str(SAMPLES / "D9901.pyr"), "--out", "{d}/x.tsv", "--seed", "-1"],
    ["assign", "{p}", "ana", "ben", "--per-item", "1", "--seed", "-1"],
    ["package", "{p}", "{d}/a.simrate", "--annotator", "ana", "--sample", BIG],
])
def test_whole_numbers_are_bounded_everywhere(capsys, project, args):
    before, folder = _state(project), sorted(project.parent.iterdir())
    argv = [a.replace("{p}", str(project)).replace("{d}", str(project.parent)) for a in args]
    result = simrate(capsys, *argv)
    assert result.status == 2, result.err
    line = one_line_error(result.err)
    assert len(line) < 400  # the 5,000 digits are not quoted back
    assert _state(project) == before and sorted(project.parent.iterdir()) == folder


def test_the_hub_wait_variable_follows_the_rule_of_wait(project):
    for given in ("inf", "-inf", "nan", "1e400", HUGE):
        result = run_cli("team", "sync", project, env={"SIMRATE_HUB_WAIT": given})
        assert result.returncode == 2
        one_line_error(result.stderr, "SIMRATE_HUB_WAIT")


@pytest.mark.parametrize("host", ["a..b", "-a.b", "a b", "a_b.example", "x" * 64 + ".org"])
def test_host_names_follow_one_rule(capsys, project, host):
    result = simrate(capsys, "serve", project, f"--host={host}")
    assert result.status == 2
    one_line_error(result.err, "--host", "not a host name")
    result = simrate(capsys, "team", "join", f"postgresql://u@{host}/db", project.parent / "j.s")
    assert result.status == 2
    one_line_error(result.err, *(("hub URL", "not a host name") if " " not in host else ()))
    assert not (project.parent / "j.s").exists()


def test_a_stored_hub_url_with_a_bad_host_is_one_line(capsys, project):
    conn = sqlite3.connect(project)
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                     [("hub_url", "postgresql://u@a..b:5432/db"), ("hub_kind", "organizer"),
                      ("hub_uuid", "00000000-0000-0000-0000-000000000000")])
    conn.commit()
    conn.close()
    result = simrate(capsys, "team", "sync", project)
    assert result.status == 2
    one_line_error(result.err, "not a host name: 'a..b'")


@pytest.mark.parametrize("base", ["javascript:alert(1)", "file:///etc/passwd",
                                  "data:text/html,x", "http://a..b/", "http://x/\x07",
                                  "ftp://example.org/"])
def test_invite_base_url_is_an_http_address(capsys, project, base):
    result = simrate(capsys, "team", "invite", project, "bob", "--base-url", base)
    assert result.status == 2
    one_line_error(result.err, "--base-url")


@pytest.mark.parametrize("url", ["https://x.org/\x07done", "https://x.org/a\x1b[2Jb",
                                 "https://x.org/a\u2028b", "javascript:alert(1)",
                                 "https://a..b/"])
def test_completion_url_refuses_control_characters_and_other_schemes(capsys, project, url):
    before = _state(project)
    result = simrate(capsys, "crowd", "study", project, "s", "--per-task", "2",
                     "--completion-url", url)
    assert result.status == 2
    one_line_error(result.err, "--completion-url")
    assert _state(project) == before


def test_values_module_rules():
    assert values.whole("+7", "x") == 7 and values.whole("-9223372036854775807", "x") < 0
    for bad in ("9223372036854775808", "0" * 5000, "1.0", "", "+-1", "٣"):
        with pytest.raises(SimrateError):
            values.whole(bad, "x")
    assert values.host_name("db.example.org", "h") and values.host_name("::1", "h")
    assert values.web_address("https://example.org:8443/p?q={code}", "u")
    with pytest.raises(SimrateError):
        values.web_address("https://example.org:port/", "u")


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "C",
                                                                 "PYTHONIOENCODING": ""},
                                 {"PYTHONIOENCODING": "latin-1"}])
def test_output_in_any_locale_is_escaped_never_a_crash(tmp_path, env):
    path = tmp_path / "zoë.simrate"
    assert run_cli("new", path, "--scale", "clss", "--title", "Zoë – 日本").returncode == 0
    pairs = tmp_path / "p.tsv"
    pairs.write_text("id\tleft\tright\nx1\tcafé\tnaïve 日本\n", encoding="utf-8")
    assert run_cli("import", path, pairs).returncode == 0
    for args, status in (
            (["info", path], 0), (["info", path, "--json"], 0), (["flagged", path], 0),
            (["annotators", path, "--exclude", "日本"], 2),
            (["import", path, tmp_path / "nö-日本.tsv"], 2)):
        result = subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT), **env},
                                capture_output=True, timeout=120)
        assert result.returncode == status, result.stderr
        assert b"Traceback" not in result.stderr and b"Error:" not in result.stderr
        if status:
            assert result.stderr.count(b"\n") == 1 and result.stderr.startswith(b"simrate:")
    shown = subprocess.run([sys.executable, "-m", "simrate", "info", str(path)], cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT),
                                "PYTHONIOENCODING": "ascii"}, capture_output=True)
    assert b"Zo\\xeb \\u2013 \\u65e5\\u672c" in shown.stdout


def test_extreme_scores_are_one_line_without_numpy_warnings(tmp_path):
    path = tmp_path / "s.simrate"
    assert run_cli("new", path, "--scale", "sts").returncode == 0
    assert run_cli("import", path, SAMPLES / "STS.input.demo.txt").returncode == 0
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,score\ndemo:1,ann,1e308\ndemo:2,ann,-1e308\n")
    machine = tmp_path / "m.csv"
    machine.write_text("item_id,score\ndemo:1,2\ndemo:2,-1e308\n")
    before = path.read_bytes()
    for args, needle in (([ratings], "r.csv:2: score 1e+308 is outside scale"),
                         ([machine, "--machine", "bert"], "m.csv:3: score -1e+308 is far "
                                                          "outside the scale")):
        result = run_cli("import", path, *args)
        assert result.returncode == 2
        assert "Warning" not in result.stderr
        one_line_error(result.stderr, needle)
    assert path.read_bytes() == before


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("fmt", ["auto", "pairs", "ratings", "sts", "clss"])
def test_utf16_without_a_byte_order_mark_says_utf16(capsys, project, tmp_path, codec, fmt):
    source = tmp_path / "wide.tsv"
    source.write_bytes("id\tleft\tright\nx1\thello there\tgood bye\n".encode(codec))
    result = simrate(capsys, "import", project, source, "--format", fmt)
    assert result.status == 2
    one_line_error(result.err, f"{codec.upper().replace('-LE', 'LE').replace('-BE', 'BE')} "
                   "text without a byte-order mark")


def test_read_only_folders_for_package_and_the_sample(project, tmp_path):
    from tests.support.helpers import run_with_read_only_folder

    locked = tmp_path / "locked"
    (locked / "data").mkdir(parents=True)
    code = ("import sys; from simrate.cli import main; "
            f"sys.exit(main(['package', {str(project)!r}, {str(locked / 'a.simrate')!r}, "
            "'--annotator', 'ana']))")
    result = run_with_read_only_folder(locked, code)
    assert result.returncode == 2
    one_line_error(result.stderr, "cannot write the package", "read-only")
    code = ("import sys; from simrate.core.base.errors import SimrateError; "
            "from simrate.gui.base.sample import ensure_sample_project\n"
            f"try: ensure_sample_project({str(locked / 'data')!r})\n"
            "except SimrateError as exc: print(exc); sys.exit(2)")
    result = run_with_read_only_folder(locked, code)
    assert result.returncode == 2, result.stderr
    assert "cannot write in the folder for the sample" in result.stdout
    assert sorted(p.name for p in locked.rglob("*")) == ["data"]


def test_the_web_hub_password_line_for_a_socket_folder():
    from simrate.hub.team.web_hub import password_hosts

    assert password_hosts("db.example.org") == ["db.example.org"]
    assert password_hosts("/srv/pg-sockets") == ["/srv/pg-sockets"]
    assert password_hosts("/var/run/postgresql") == ["/var/run/postgresql", "localhost"]


def test_project_file_still_opens(project):
    with Project.open(project) as opened:
        assert opened.n_items > 0


@pytest.mark.parametrize("fmt", ["tsv", "csv", "xlsx", "sts", "pit", "jsonl", "pyramid"])
def test_a_symlink_loop_is_one_line_for_every_export_format(capsys, project, fmt):
    loop, other = project.parent / "loop", project.parent / "other"
    loop.symlink_to(other)
    other.symlink_to(loop)
    result = simrate(capsys, "export", project, loop, "--format", fmt, "--allow-unresolved")
    assert result.status == 2
    one_line_error(result.err, "symbolic link that leads in a loop")
    assert loop.is_symlink() and other.is_symlink()  # neither replaced nor removed


@pytest.mark.parametrize("args", [["import", "{p}", "{loop}"],
                                  ["crowd", "export", "{p}", "{loop}", "--per-task", "3"],
                                  ["crowd", "export", "{loop}", "{d}/t.csv", "--per-task", "3"],
                                  ["pyramid", "{loop}", "--out", "{d}/x.tsv"],
                                  ["pyramid", str(SAMPLES / "D9901.pyr"), "--out", "{loop}"],
                                  ["package", "{p}", "{loop}", "--annotator", "ana"],
                                  ["new", "{loop}", "--scale", "clss"],
                                  ["check", "{loop}"], ["check", "{p}", "--salvage", "{loop}"]])
def test_a_symlink_loop_as_input_or_output_is_one_line(capsys, project, args):
    loop, other = project.parent / "loop", project.parent / "other"
    loop.symlink_to(other)
    other.symlink_to(loop)
    before = sorted(project.parent.iterdir())
    argv = [a.replace("{p}", str(project)).replace("{loop}", str(loop)).replace(
        "{d}", str(project.parent)) for a in args]
    result = simrate(capsys, *argv)
    assert result.status == 2
    one_line_error(result.err, str(loop))
    assert sorted(project.parent.iterdir()) == before
