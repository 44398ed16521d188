"""Benchmark Potato beside simrate on this machine: 200k pairs loaded, rating POSTs, alpha.

Run: python tests/perf/bench_potato.py [--pairs 200000] [--workers 50] [--per-task 10]
     [--alpha-items 20000,200000] [--potato-venv DIR]

A developer's tool, not a test: nothing of Potato is part of simrate, and simrate never
downloads anything when it runs. The script installs Potato (`pip install
potato-annotation`) into a throwaway virtual environment in a temporary folder (or into
--potato-venv DIR, kept for the next run), and says so in one line and exits 0 when that
is impossible (offline, no package index).

Both servers get the same PAIRS text pairs and listen on 127.0.0.1 only, one after the
other (never both at once):
- Potato: a project in its own config format (a 6-point Likert scheme, one JSON line per
  pair, the two texts in one field as Potato shows one text per item; workers arrive by
  Prolific's URL parameters, `login.type: url_direct`), started with `potato start`;
- simrate: `simrate new`, `simrate import` of the same pairs as TSV, `simrate crowd study`,
  then `simrate serve` on that plain project file.

Measured, in the same run:
- load: from the first command to the first answer of `GET /` (Potato reads its data when
  it starts; simrate's figure is the sum of new + import + study + serve);
- peak RSS (VmHWM from /proc) of the server process after the workers, and for simrate of
  each command before it (Potato does all its loading in the server process);
- WORKERS workers, one after the other, each doing a task of PER_TASK pairs over HTTP as a
  browser does: the rating POST (Potato: `/updateinstance`, the save its page sends;
  simrate: `/study/NAME/rate`, with the page's per-task token) p50/p95, and the whole
  item cycle (save, move on, next page shown) p50/p95;
- ratings acknowledged and then found in each server's storage after it stopped;
- Krippendorff's interval alpha over the same ratings (ALPHA_ITEMS items x 3 raters, 10%
  missing): Potato's `krippendorff_alpha` (what its agreement pages call) in its venv,
  simrate's `app.core.agreement.alpha`, each in a fresh interpreter; both values printed so
  that they can be seen to agree.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

STUDY = "bench"
SCORE = "3"  # simrate: a value of the clss grid; Potato: the Likert point labelled 3

#: A simrate command in a child interpreter that reports its own peak memory on the way out.
PEAK_CLI = (
    "import atexit, sys\n"
    "def _peak():\n"
    "    with open('/proc/self/status') as status:\n"
    "        for line in status:\n"
    "            if line.startswith('VmHWM'):\n"
    "                sys.stderr.write('peak-kb ' + line.split()[1] + '\\n')\n"
    "atexit.register(_peak)\n"
    "from app.cli import main\n"
    "sys.exit(main())\n")

POTATO_CONFIG = """\
annotation_task_name: similarity of text pairs
task_dir: {folder}
output_annotation_dir: {folder}/annotation_output/
data_files:
- {folder}/data/pairs.jsonl
item_properties:
  id_key: id
  text_key: text
user_config:
  allow_all_users: true
  users: []
login:
  type: url_direct
  url_argument: PROLIFIC_PID
require_password: false
max_annotations_per_user: {per_task}
max_annotations_per_item: 5
alert_time_each_instance: 10000000
annotation_schemes:
- annotation_type: likert
  name: similarity
  description: How similar in meaning are the two texts?
  min_label: unrelated
  max_label: the same meaning
  size: 6
site_dir: default
"""

#: Potato's alpha, timed in its own venv on the ratings in an .npy file (raters x items).
POTATO_ALPHA = (
    "import json, sys, time\n"
    "import numpy as np\n"
    "from potato.server_utils.iaa.alpha import krippendorff_alpha\n"
    "data = np.load(sys.argv[1])\n"
    "rows = [(f'r{r}', f'i{u}', float(data[r, u])) for r in range(data.shape[0])\n"
    "        for u in range(data.shape[1]) if data[r, u] == data[r, u]]\n"
    "start = time.perf_counter()\n"
    "value = krippendorff_alpha(rows, 'interval')\n"
    "print(json.dumps({'seconds': time.perf_counter() - start, 'value': value}))\n")

SIMRATE_ALPHA = (
    "import json, sys, time\n"
    "import numpy as np\n"
    "from app.core.agreement import alpha\n"
    "data = np.load(sys.argv[1])\n"
    "times = []\n"
    "for _ in range(5):\n"
    "    start = time.perf_counter()\n"
    "    value = alpha(data, 'interval')\n"
    "    times.append(time.perf_counter() - start)\n"
    "print(json.dumps({'seconds': min(times), 'value': float(value)}))\n")


# ---------------------------------------------------------------- Potato's install
def potato_venv(folder: Path) -> Path | None:
    """The venv's python with Potato installed in it, or None (said in one line)."""
    python = folder / "bin" / "python"
    if (folder / "bin" / "potato").exists():
        return python
    made = subprocess.run([sys.executable, "-m", "venv", str(folder)],
                          capture_output=True, text=True)
    if made.returncode != 0:
        print(f"bench_potato: no virtual environment could be made, so Potato was not "
              f"measured: {last_line(made.stderr)}")
        return None
    print("installing potato-annotation into a throwaway venv (a minute or two) ...",
          flush=True)
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "potato-annotation"], capture_output=True, text=True)
    if installed.returncode != 0 or not (folder / "bin" / "potato").exists():
        print("bench_potato: potato-annotation could not be installed (offline, or no "
              f"package index), so nothing was measured: {last_line(installed.stderr)}")
        return None
    return python


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "(no message)"


def potato_version(python: Path) -> str:
    found = subprocess.run([str(python), "-c", "from importlib.metadata import version; "
                            "print(version('potato-annotation'))"], capture_output=True,
                           text=True)
    return found.stdout.strip() or "?"


# ---------------------------------------------------------------- shared helpers
def write_pairs(folder: Path, pairs: int) -> tuple[Path, Path]:
    """The same pairs twice: a TSV for `simrate import`, a JSON-lines file for Potato."""
    tsv = folder / "pairs.tsv"
    jsonl = folder / "potato" / "data" / "pairs.jsonl"
    jsonl.parent.mkdir(parents=True)
    with tsv.open("w", encoding="utf-8") as out_tsv, jsonl.open("w", encoding="utf-8") as out:
        out_tsv.write("id\tleft\tright\n")
        for n in range(pairs):
            left = f"the left text of pair i{n}, a sentence of some ordinary length"
            right = f"the right text of pair i{n}, another sentence of much the same kind"
            out_tsv.write(f"i{n}\t{left}\t{right}\n")
            out.write(json.dumps({"id": f"i{n}", "text": f"{left} ||| {right}"}) + "\n")
    return tsv, jsonl


def peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) / 1024
    return float("nan")


def wait_ready(url: str, process: subprocess.Popen, deadline_s: float) -> None:
    import httpx

    deadline = time.monotonic() + deadline_s
    while True:
        try:
            if httpx.get(url + "/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise SystemExit(f"bench_potato: the server exited early ({process.returncode})")
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_potato: the server did not answer within {deadline_s} s")
        time.sleep(0.05)


def quantiles(values: list[float]) -> tuple[float, float]:
    """Median and p95 in ms."""
    ordered = sorted(values)
    return (statistics.median(ordered) * 1000,
            ordered[int(0.95 * (len(ordered) - 1))] * 1000)


# ---------------------------------------------------------------- Potato
def run_potato(python: Path, folder: Path, args: argparse.Namespace) -> dict:
    import httpx

    from tests.web.client import form_of
    from tests.web.servers import free_port

    project = folder / "potato"
    config = project / "config.yaml"
    config.write_text(POTATO_CONFIG.format(folder=project, per_task=args.per_task),
                      encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / "potato.log").open("w")
    started = time.perf_counter()
    server = subprocess.Popen([str(python.parent / "potato"), "start", str(config),
                               "-p", str(port)], cwd=project, stdout=log,
                              stderr=subprocess.STDOUT)
    try:
        wait_ready(url, server, 900)
        load = time.perf_counter() - started
        posts, cycles, acked, failures = [], [], 0, []
        for n in range(args.workers):
            with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as client:
                page = client.get(f"/?PROLIFIC_PID=P{n}&STUDY_ID={STUDY}&SESSION_ID=s{n}")
                for _ in range(args.per_task):
                    item = form_of(page.text).get("instance_id")
                    if not item:
                        failures.append(f"no item page ({page.status_code})")
                        break
                    begun = time.perf_counter()
                    saved = client.post("/updateinstance", json={
                        "instance_id": item, "annotations": {f"similarity:{SCORE}": SCORE}})
                    posts.append(time.perf_counter() - begun)
                    if saved.status_code != 200 or saved.json().get("status") != "success":
                        failures.append(f"save {saved.status_code}")
                        break
                    acked += 1
                    client.post("/annotate", json={"action": "next_instance",
                                                   "instance_id": item})
                    page = client.get("/")
                    cycles.append(time.perf_counter() - begun)
        rss = peak_mb(server.pid)
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    stored = 0
    for state in (project / "annotation_output").glob("*/user_state.json"):
        stored += len(json.loads(state.read_text(encoding="utf-8"))
                      .get("instance_id_to_label_to_value", {}))
    return {"load": load, "rss": rss, "posts": posts, "cycles": cycles, "acked": acked,
            "stored": stored, "failures": failures}


# ---------------------------------------------------------------- simrate
def simrate_cli(*argv: object) -> tuple[float, float]:
    """Run one simrate command in a child interpreter: (seconds, its peak memory in MB)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK_CLI, *map(str, argv)],
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    took = time.perf_counter() - started
    if done.returncode != 0:
        said = "\n".join(line for line in done.stderr.splitlines()
                         if not line.startswith("peak-kb"))
        raise SystemExit(f"bench_potato: simrate {argv[0]} failed: {last_line(said)}")
    peaks = [line.split()[1] for line in done.stderr.splitlines() if line.startswith("peak-kb")]
    return took, int(peaks[-1]) / 1024 if peaks else float("nan")


def run_simrate(folder: Path, tsv: Path, args: argparse.Namespace) -> dict:
    import httpx

    from app.core.project import Project
    from tests.web.client import completion_code, item_page, rate, start
    from tests.web.servers import Server

    path = folder / "bench.simrate"
    steps = {"new": simrate_cli("new", path, "--scale", "clss"),
             "import": simrate_cli("import", path, tsv),
             "study": simrate_cli("crowd", "study", path, STUDY, "--per-task", args.per_task,
                                  "--checks", 0, "--per-item", 5)}
    started = time.perf_counter()
    server = Server(path)
    steps["serve"] = (time.perf_counter() - started, float("nan"))
    try:
        posts, cycles, acked, failures = [], [], 0, []
        for n in range(args.workers):
            with httpx.Client(base_url=server.url, timeout=60) as client:
                answer = start(client, STUDY, f"W{n}")
                if answer.status_code != 303:
                    failures.append(f"start {answer.status_code}")
                    continue
                page = item_page(client, STUDY)
                while completion_code(page.text) is None and page.status_code == 200:
                    begun = time.perf_counter()
                    rated = rate(client, STUDY, page.text, SCORE)
                    posts.append(time.perf_counter() - begun)
                    if rated.status_code != 303:
                        failures.append(f"rate {rated.status_code}")
                        break
                    acked += 1
                    page = item_page(client, STUDY)
                    cycles.append(time.perf_counter() - begun)
        rss = peak_mb(server.process.pid)
    finally:
        status, _out, err = server.stop()
    if status != 0:
        failures.append(f"serve exit {status}: {last_line(err)}")
    with Project.open(path) as project:
        stored = project.team_tables.read(
            "SELECT COUNT(*) FROM ratings r JOIN annotators a ON a.id = r.annotator_id "
            "WHERE a.kind = 'crowd'")[0][0]
    return {"load": sum(s for s, _ in steps.values()), "steps": steps, "rss": rss,
            "posts": posts, "cycles": cycles, "acked": acked, "stored": stored,
            "failures": failures}


# ---------------------------------------------------------------- alpha
def alpha_data(folder: Path, units: int) -> Path:
    """Raters x units quarter-point ratings on 0-5 around a true score, 10% missing (the
    data of bench_agreement.py)."""
    import numpy as np

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 21, units)
    data = np.clip(truth + rng.integers(-2, 3, (3, units)), 0, 20) * 0.25
    data[rng.random(data.shape) < 0.1] = np.nan
    path = folder / f"alpha-{units}.npy"
    np.save(path, data)
    return path


def timed_alpha(python: Path | str, code: str, data: Path) -> dict:
    done = subprocess.run([str(python), "-c", code, str(data)], capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        return {"seconds": float("nan"), "value": float("nan"),
                "error": last_line(done.stderr)}
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------- the table
def seconds(value: float) -> str:
    return f"{value * 1000:.1f} ms" if value < 1 else f"{value:.2f} s"


def row(what: str, potato: str, ours: str, ratio: str = "") -> str:
    return f"| {what} | {potato} | {ours} | {ratio} |"


def ratio(potato: float, ours: float) -> str:
    return f"{potato / ours:.1f}x" if ours > 0 else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200_000)
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--per-task", type=int, default=10)
    parser.add_argument("--alpha-items", default="20000,200000",
                        help="item counts for the alpha comparison (comma-separated)")
    parser.add_argument("--potato-venv", type=Path, default=None,
                        help="install Potato here and keep it (default: a temporary folder)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="bench-potato-") as name:
        folder = Path(name)
        python = potato_venv(args.potato_venv or folder / "venv")
        if python is None:
            return
        version = potato_version(python)
        tsv, _jsonl = write_pairs(folder, args.pairs)
        print(f"Potato {version} and simrate, {args.pairs:,} pairs, {args.workers} workers "
              f"x {args.per_task} ratings, one worker at a time, loopback", flush=True)
        potato = run_potato(python, folder, args)
        ours = run_simrate(folder, tsv, args)
        alphas = []
        for units in (int(u) for u in args.alpha_items.split(",") if u.strip()):
            data = alpha_data(folder, units)
            alphas.append((units, timed_alpha(python, POTATO_ALPHA, data),
                           timed_alpha(sys.executable, SIMRATE_ALPHA, data)))

    print()
    print(row("what", f"Potato {version}", "simrate", "Potato / simrate"))
    print("|---|---|---|---|")
    print(row(f"load {args.pairs:,} pairs until GET / answers", seconds(potato["load"]),
              seconds(ours["load"]), ratio(potato["load"], ours["load"])))
    print(row("peak RSS of the server process", f"{potato['rss']:.0f} MB",
              f"{ours['rss']:.0f} MB", ratio(potato["rss"], ours["rss"])))
    loading = max([ours["rss"]] + [peak for _took, peak in ours["steps"].values()
                                   if peak == peak])
    print(row("peak RSS of any process of the load", f"{potato['rss']:.0f} MB",
              f"{loading:.0f} MB", ratio(potato["rss"], loading)))
    for key, what in (("posts", "rating POST"), ("cycles", "item cycle: save, next page")):
        if potato[key] and ours[key]:
            (p50, p95), (o50, o95) = quantiles(potato[key]), quantiles(ours[key])
            print(row(f"{what}, p50", f"{p50:.1f} ms", f"{o50:.1f} ms", ratio(p50, o50)))
            print(row(f"{what}, p95", f"{p95:.1f} ms", f"{o95:.1f} ms", ratio(p95, o95)))
    print(row("ratings acknowledged / stored", f"{potato['acked']} / {potato['stored']}",
              f"{ours['acked']} / {ours['stored']}"))
    for units, theirs, mine in alphas:
        print(row(f"interval alpha, {units:,} items x 3 raters", seconds(theirs["seconds"]),
                  seconds(mine["seconds"]), ratio(theirs["seconds"], mine["seconds"])))
    print()
    steps = ours["steps"]
    print("simrate's load: " + ", ".join(
        f"{name} {seconds(took)}" + (f" (peak {peak:.0f} MB)" if peak == peak else "")
        for name, (took, peak) in steps.items()))
    for units, theirs, mine in alphas:
        print(f"alpha at {units:,} items: Potato {theirs['value']:.6f}, simrate "
              f"{mine['value']:.6f}" + (f" (Potato: {theirs['error']})"
                                        if "error" in theirs else "")
              + (f" (simrate: {mine['error']})" if "error" in mine else ""))
    for who, result in (("Potato", potato), ("simrate", ours)):
        if result["failures"]:
            print(f"{who}: {len(result['failures'])} workers stopped early: "
                  f"{sorted(set(result['failures']))}")


if __name__ == "__main__":
    main()
