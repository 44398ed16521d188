"""Benchmark Potato beside simrate on this machine: 200k pairs loaded, rating POSTs, alpha.

Run: python tests/perf/bench_potato.py [--pairs 200000] [--workers 50] [--per-task 10]
     [--loads 3] [--alpha-items 20000,200000] [--potato-venv DIR]

A developer's tool, not a test: nothing of Potato is part of simrate, and simrate never
downloads anything when it runs. The script installs Potato (`pip install
potato-annotation`) into a throwaway virtual environment in a temporary folder (or into
--potato-venv DIR, kept for the next run), and says so in one line and exits 0 when that
is impossible (offline, no package index).

Both servers get the same PAIRS text pairs and listen on 127.0.0.1 only. They take turns,
so that the machine's other load falls on both alike: LOADS cold loads each, alternating,
each on fresh files; then the workers alternate between them, one request at a time.
- Potato: a project in its own config format (a 6-point Likert scheme, one JSON line per
  pair, the two texts in one field as Potato shows one text per item; workers arrive by
  Prolific's URL parameters, `login.type: url_direct`), started with `potato start`;
- simrate: `simrate new`, `simrate import` of the same pairs as TSV, `simrate crowd study`,
  then `simrate serve` on that plain project file.

Measured, in the same run:
- load: from the first command to the first answer of `GET /` (Potato reads its data when
  it starts; simrate's figure is the sum of new + import + study + serve), the median;
- peak RSS (VmHWM from /proc) of the server process after the workers, and for simrate of
  each command before it (Potato does all its loading in the server process);
- WORKERS workers, each doing a task of PER_TASK pairs over HTTP as a
  browser does: the rating POST (Potato: `/updateinstance`, the save its page sends;
  simrate: `/study/NAME/rate`, with the page's per-task token) p50/p95, and the whole
  item cycle (save, move on, next page shown) p50/p95;
- ratings acknowledged and then found in each server's storage after it stopped;
- Krippendorff's interval alpha over the same ratings (ALPHA_ITEMS items x 3 raters, 10%
  missing): Potato's `krippendorff_alpha` (what its /admin/iaa page computes with), in
  its venv,
  simrate's `simrate.core.agreement.alpha`, each in a fresh interpreter; both values printed so
  that they can be seen to agree.

The machine's load average is printed beside the figures: on a shared machine, compare
the ratios of one run rather than figures of different runs.
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
    "from simrate.cli import main\n"
    "sys.exit(main())\n")

POTATO_CONFIG = """\
annotation_task_name: similarity of text pairs
task_dir: {folder}
output_annotation_dir: {folder}/annotation_output/
data_files:
- {data}
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
    "from simrate.core.agreement import alpha\n"
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
    tsv, jsonl = folder / "pairs.tsv", folder / "pairs.jsonl"
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
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:  # it has exited already
        pass
    return float("nan")


def wait_ready(url: str, process: subprocess.Popen, deadline_s: float,
               log: Path) -> None:
    import httpx

    deadline = time.monotonic() + deadline_s
    while True:
        try:
            if httpx.get(url + "/", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise SystemExit(f"bench_potato: the server exited early ({process.returncode}): "
                             f"{last_line(log.read_text(errors='replace'))}")
        if time.monotonic() > deadline:
            raise SystemExit(f"bench_potato: the server did not answer within {deadline_s} s")
        time.sleep(0.05)


def quantiles(values: list[float]) -> tuple[float, float]:
    """Median and p95 in ms."""
    ordered = sorted(values)
    return (statistics.median(ordered) * 1000,
            ordered[int(0.95 * (len(ordered) - 1))] * 1000)


# ---------------------------------------------------------------- Potato
class PotatoSide:
    """Potato's server on one project folder; `load` starts it cold on a fresh folder."""

    name = "Potato"

    def __init__(self, python: Path, folder: Path, jsonl: Path, args: argparse.Namespace):
        self.potato, self.folder, self.jsonl, self.args = python.parent / "potato", folder, \
            jsonl, args
        self.server: subprocess.Popen | None = None
        self.loads: list[float] = []
        self.posts: list[float] = []
        self.cycles: list[float] = []
        self.acked, self.failures, self.rss = 0, [], float("nan")

    def load(self, number: int) -> None:
        from tests.web.servers import free_port

        self.project = self.folder / f"potato-{number}"
        (self.project / "data").mkdir(parents=True)
        data = self.project / "data" / self.jsonl.name  # Potato reads only inside its folder
        os.link(self.jsonl, data)
        config = self.project / "config.yaml"
        config.write_text(POTATO_CONFIG.format(folder=self.project, data=data,
                                               per_task=self.args.per_task), encoding="utf-8")
        self.url = f"http://127.0.0.1:{free_port()}"
        self.log = (self.project / "server.log").open("w")
        started = time.perf_counter()
        self.server = subprocess.Popen(
            [str(self.potato), "start", str(config), "-p", self.url.rsplit(":", 1)[1]],
            cwd=self.project, stdout=self.log, stderr=subprocess.STDOUT)
        wait_ready(self.url, self.server, 900, self.project / "server.log")
        self.loads.append(time.perf_counter() - started)

    def worker(self, number: int) -> None:
        import httpx

        from tests.web.client import form_of

        with httpx.Client(base_url=self.url, timeout=60, follow_redirects=True) as client:
            page = client.get(f"/?PROLIFIC_PID=P{number}&STUDY_ID={STUDY}"
                              f"&SESSION_ID=s{number}")
            for _ in range(self.args.per_task):
                item = form_of(page.text).get("instance_id")
                if not item:
                    self.failures.append(f"no item page ({page.status_code})")
                    return
                begun = time.perf_counter()
                saved = client.post("/updateinstance", json={
                    "instance_id": item, "annotations": {f"similarity:{SCORE}": SCORE}})
                self.posts.append(time.perf_counter() - begun)
                if saved.status_code != 200 or saved.json().get("status") != "success":
                    self.failures.append(f"save {saved.status_code}")
                    return
                self.acked += 1
                client.post("/annotate", json={"action": "next_instance", "instance_id": item})
                page = client.get("/")
                self.cycles.append(time.perf_counter() - begun)

    def stop(self, measure: bool = False) -> None:
        if self.server is None or self.server.returncode is not None:
            return
        if measure:
            self.rss = peak_mb(self.server.pid)
        self.server.terminate()
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.log.close()

    def stored(self) -> int:
        """Ratings in the annotators' saved states (one file per annotator)."""
        found = 0
        for state in (self.project / "annotation_output").glob("*/user_state.json"):
            found += len(json.loads(state.read_text(encoding="utf-8"))
                         .get("instance_id_to_label_to_value", {}))
        return found


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


class SimrateSide:
    """`simrate serve` on a plain project file; `load` makes a fresh one from the TSV."""

    name = "simrate"

    def __init__(self, folder: Path, tsv: Path, args: argparse.Namespace):
        self.folder, self.tsv, self.args = folder, tsv, args
        self.loads: list[float] = []
        self.steps: dict[str, list[tuple[float, float]]] = {}
        self.posts: list[float] = []
        self.cycles: list[float] = []
        self.acked, self.failures, self.rss = 0, [], float("nan")
        self.server = None

    def load(self, number: int) -> None:
        from tests.web.servers import Server

        self.path = self.folder / f"bench-{number}.simrate"
        steps = {"new": simrate_cli("new", self.path, "--scale", "clss"),
                 "import": simrate_cli("import", self.path, self.tsv),
                 "study": simrate_cli("crowd", "study", self.path, STUDY, "--per-task",
                                      self.args.per_task, "--checks", 0, "--per-item", 5)}
        started = time.perf_counter()
        self.server = Server(self.path)  # polls GET / every 0.1 s until it answers
        steps["serve"] = (time.perf_counter() - started, float("nan"))
        for name, step in steps.items():
            self.steps.setdefault(name, []).append(step)
        self.loads.append(sum(took for took, _peak in steps.values()))

    def worker(self, number: int) -> None:
        import httpx

        from tests.web.client import completion_code, item_page, rate, start

        with httpx.Client(base_url=self.server.url, timeout=60) as client:
            answer = start(client, STUDY, f"W{number}")
            if answer.status_code != 303:
                self.failures.append(f"start {answer.status_code}")
                return
            page = item_page(client, STUDY)
            while completion_code(page.text) is None and page.status_code == 200:
                begun = time.perf_counter()
                rated = rate(client, STUDY, page.text, SCORE)
                self.posts.append(time.perf_counter() - begun)
                if rated.status_code != 200:
                    self.failures.append(f"rate {rated.status_code}")
                    return
                self.acked += 1
                page = item_page(client, STUDY)
                self.cycles.append(time.perf_counter() - begun)

    def stop(self, measure: bool = False) -> None:
        if self.server is None or self.server.process.returncode is not None:
            return
        if measure:
            self.rss = peak_mb(self.server.process.pid)
        status, _out, err = self.server.stop()
        if status != 0:
            self.failures.append(f"serve exit {status}: {last_line(err)}")

    def stored(self) -> int:
        from simrate.core.project import Project

        with Project.open(self.path) as project:
            return project.team_tables.read(
                "SELECT COUNT(*) FROM ratings r JOIN annotators a ON a.id = r.annotator_id "
                "WHERE a.kind = 'crowd'")[0][0]


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
    parser.add_argument("--loads", type=int, default=3,
                        help="cold loads of each server, each on fresh files (median shown)")
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
        tsv, jsonl = write_pairs(folder, args.pairs)
        print(f"Potato {version} and simrate, {args.pairs:,} pairs, {args.loads} cold loads "
              f"each, {args.workers} workers x {args.per_task} ratings, one request at a "
              "time, the two servers taking turns, loopback", flush=True)
        busy = [os.getloadavg()[0]]
        potato, ours = PotatoSide(python, folder, jsonl, args), SimrateSide(folder, tsv, args)
        sides = (potato, ours)
        try:
            for number in range(args.loads):  # taking turns: the machine's other load
                for side in sides:             # falls on both alike
                    side.load(number)
                    if number < args.loads - 1:
                        side.stop()
            busy.append(os.getloadavg()[0])
            for number in range(args.workers):
                for side in sides:
                    side.worker(number)
            busy.append(os.getloadavg()[0])
        finally:
            for side in sides:
                side.stop(measure=True)
        stored = {side.name: side.stored() for side in sides}
        alphas = []
        for units in (int(u) for u in args.alpha_items.split(",") if u.strip()):
            data = alpha_data(folder, units)
            alphas.append((units, timed_alpha(python, POTATO_ALPHA, data),
                           timed_alpha(sys.executable, SIMRATE_ALPHA, data)))

    print()
    print(row("what", f"Potato {version}", "simrate", "Potato / simrate"))
    print("|---|---|---|---|")
    theirs_load, our_load = statistics.median(potato.loads), statistics.median(ours.loads)
    print(row(f"load {args.pairs:,} pairs until GET / answers (median of {args.loads})",
              seconds(theirs_load), seconds(our_load), ratio(theirs_load, our_load)))
    print(row("peak RSS of the server process", f"{potato.rss:.0f} MB",
              f"{ours.rss:.0f} MB", ratio(potato.rss, ours.rss)))
    loading = max([ours.rss] + [peak for steps in ours.steps.values()
                                for _took, peak in steps if peak == peak])
    print(row("peak RSS of any process of the load", f"{potato.rss:.0f} MB",
              f"{loading:.0f} MB", ratio(potato.rss, loading)))
    for key, what in (("posts", "rating POST"), ("cycles", "item cycle: save, next page")):
        if getattr(potato, key) and getattr(ours, key):
            (p50, p95), (o50, o95) = quantiles(getattr(potato, key)), \
                quantiles(getattr(ours, key))
            print(row(f"{what}, p50", f"{p50:.1f} ms", f"{o50:.1f} ms", ratio(p50, o50)))
            print(row(f"{what}, p95", f"{p95:.1f} ms", f"{o95:.1f} ms", ratio(p95, o95)))
    print(row("ratings acknowledged / stored", f"{potato.acked} / {stored['Potato']}",
              f"{ours.acked} / {stored['simrate']}"))
    for units, theirs, mine in alphas:
        print(row(f"interval alpha, {units:,} items x 3 raters", seconds(theirs["seconds"]),
                  seconds(mine["seconds"]), ratio(theirs["seconds"], mine["seconds"])))
    print()
    print("each load: Potato " + ", ".join(seconds(t) for t in potato.loads) + "; simrate "
          + ", ".join(seconds(t) for t in ours.loads))
    print("simrate's load, medians: " + ", ".join(
        f"{name} {seconds(statistics.median(t for t, _ in steps))}"
        + (f" (peak {max(p for _, p in steps):.0f} MB)" if steps[0][1] == steps[0][1] else "")
        for name, steps in ours.steps.items()))
    for units, theirs, mine in alphas:
        print(f"alpha at {units:,} items: Potato {theirs['value']:.6f}, simrate "
              f"{mine['value']:.6f}" + (f" (Potato: {theirs['error']})"
                                        if "error" in theirs else "")
              + (f" (simrate: {mine['error']})" if "error" in mine else ""))
    print("the machine's load average (1 min) before the loads, before and after the workers: "
          + ", ".join(f"{b:.1f}" for b in busy) + f" ({os.cpu_count()} cores)")
    for side in sides:
        if side.failures:
            print(f"{side.name}: {len(side.failures)} workers stopped early: "
                  f"{sorted(set(side.failures))}")


if __name__ == "__main__":
    main()
