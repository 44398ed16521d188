"""Benchmark: reading DUC pyramids and deriving both tests.

Run: python tests/perf/bench_pyramid.py   (under a minute)

Each scenario runs in a fresh interpreter, which reports its own times and peak memory
(resource.getrusage), so the rows do not disturb each other:
- the four real pyramids of ../shared/realdata (skipped when absent);
- 75 pyramids of DUC size made from them (each copy under a new topic id), ~2.4 MB in all;
- 75 synthetic pyramids of the same size (random sentences over a Zipf vocabulary);
- `simrate pyramid` on the 75 copies, end to end (both tests, TSV written);
- one 50 MB pyramid of misplaced parts (reading only): the reader's worst case.
The budget of the issue: 75 pyramids read and all pairs and questions made in at most 10 s.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.support.pyramid_xml import DTD, SpecScu, ducview_xml  # noqa: E402

REAL = ROOT.parent / "shared" / "realdata" / "pyramid"
N_PYRAMIDS = 75

CHILD = """
import json, resource, sys, time
from simrate.formats.pyramids.pyramid import read_pyramid
from simrate.core.pyramid.pairs import derive_tests, pyramid_statistics
files = [a for a in sys.argv[1:] if a != "--read-only"]
derive = "--read-only" not in sys.argv
t0 = time.perf_counter()
pyramids = [read_pyramid(f) for f in files]
t1 = time.perf_counter()
pairs, questions = [], []
for pyramid in pyramids if derive else []:
    more_pairs, more_questions = derive_tests(pyramid)
    pairs += more_pairs
    questions += more_questions
t2 = time.perf_counter()
stats = pyramid_statistics(pyramids, pairs, questions)
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"read": t1 - t0, "derive": t2 - t1, "total": t2 - t0,
                  "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
                  **stats}))
"""

CLI = """
import json, resource, sys, time
from simrate.cli import main
t0 = time.perf_counter()
status = main(sys.argv[1:])
elapsed = time.perf_counter() - t0
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"status": status, "total": elapsed, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_mb": usage.ru_maxrss / 1024}), file=sys.stderr)
"""


def run_child(code: str, args: list[str]) -> dict:
    """Run `code` in a fresh interpreter and return the JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    stream = done.stderr if code is CLI else done.stdout
    result = json.loads(stream.strip().splitlines()[-1])
    if code is CLI:
        result.update(json.loads(done.stdout))
    return result


def real_copies(folder: Path) -> list[Path]:
    """N_PYRAMIDS copies of the real pyramids, each under a topic id of its own."""
    originals = sorted(REAL.glob("*.pyr"))
    topics = {"D0614.pyr": "D0614", "D0631.pyr": "D0631", "D0701-AGHI.pyr": "D0701",
              "D0703-A-ACDJ.pyr": "D0703-A"}
    paths = []
    for k in range(N_PYRAMIDS):
        original = originals[k % len(originals)]
        new_topic = f"D{8000 + k}" + ("-A" if topics[original.name].endswith("-A") else "")
        text = original.read_text(encoding="utf-8").replace(topics[original.name], new_topic)
        path = folder / f"{new_topic}.pyr"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def synthetic_pyramid(rng: random.Random, topic: str) -> str:
    """A DUC-sized pyramid: 4 summaries of ~12 sentences, ~55 SCUs of weight 1-4."""
    vocabulary = [f"w{k}" for k in range(3000)]
    weights = [1 / (k + 1) for k in range(3000)]
    function_words = "the of a in to and on for with by was were has".split()
    ids = [f"{topic}.M.250.A.{letter}" for letter in "ABCD"]

    def sentence() -> str:
        words = rng.choices(vocabulary, weights, k=rng.randint(14, 28))
        for _ in range(len(words) // 3):
            words.insert(rng.randrange(len(words)), rng.choice(function_words))
        return " ".join(words).capitalize() + "."

    summaries = {sid: [sentence() for _ in range(12)] for sid in ids}
    scus = []
    for uid in range(55):
        contributors = []
        for sid in rng.sample(ids, rng.choice((1, 1, 2, 2, 3, 4))):
            words = rng.choice(summaries[sid]).rstrip(".").split()
            start = rng.randrange(max(1, len(words) - 8))
            fragment = " ".join(words[start:start + rng.randint(5, 14)])
            contributors.append([(sid, fragment)])
        label = " ".join(rng.sample(contributors[0][0][1].split(), 4)) + " " + rng.choice(vocabulary)
        scus.append(SpecScu(str(uid + 1), label, contributors))
    return ducview_xml(summaries, scus)


def synthetic_set(folder: Path) -> list[Path]:
    """N_PYRAMIDS synthetic pyramids."""
    rng = random.Random(7)
    paths = []
    for k in range(N_PYRAMIDS):
        path = folder / f"D{7000 + k}.pyr"
        path.write_text(synthetic_pyramid(rng, f"D{7000 + k}"), encoding="utf-8")
        paths.append(path)
    return paths


def misplaced_50mb(folder: Path) -> Path:
    """50 MB of SCUs whose parts all point to the wrong place; half name text that is absent."""
    path = folder / "huge.pyr"
    with path.open("w", encoding="utf-8") as out:
        out.write('<?xml version="1.0"?>\n' + DTD + "\n<pyramid>\n <text>\n")
        out.writelines(f"  <line>Sentence {k} tells of the ferry, the strike and the harbour.</line>\n"
                       for k in range(2000))
        out.write(" </text>\n")
        uid = 0
        while out.tell() < 50_000_000:
            label = "the ferry, the strike" if uid % 2 else f"missing words {uid}"
            offset = (uid * 61) % 120000
            out.write(f' <scu uid="{uid}" label="x"><contributor label="c"><part label="{label}"'
                      f' start="{offset}" end="{offset + 21}"/></contributor></scu>\n')
            uid += 1
        out.write("</pyramid>\n")
    return path


def megabytes(paths: list[Path]) -> float:
    """Total size of `paths` in MB."""
    return sum(p.stat().st_size for p in paths) / 1e6


def main() -> None:
    """Run every scenario and print one table."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        scenarios: list[tuple[str, list[Path]]] = []
        if REAL.is_dir():
            scenarios.append(("4 real DUC pyramids", sorted(REAL.glob("*.pyr"))))
            (folder / "real").mkdir()
            scenarios.append((f"{N_PYRAMIDS} copies of the real ones", real_copies(folder / "real")))
        (folder / "syn").mkdir()
        scenarios.append((f"{N_PYRAMIDS} synthetic, DUC-sized", synthetic_set(folder / "syn")))
        for name, paths in scenarios:
            result = run_child(CHILD, [str(p) for p in paths])
            rows.append((name, len(paths), megabytes(paths), result))
        if REAL.is_dir():
            copies = sorted((folder / "real").glob("*.pyr"))
            out = folder / "pairs.tsv"
            result = run_child(CLI, ["pyramid", *map(str, copies), "--out", str(out), "--json"])
            result.update(read=float("nan"), derive=float("nan"))
            rows.append((f"simrate pyramid, {N_PYRAMIDS} copies", len(copies), megabytes(copies),
                         result))
        started = time.perf_counter()
        huge = misplaced_50mb(folder)
        print(f"(wrote the 50 MB file in {time.perf_counter() - started:.1f} s)")
        result = run_child(CHILD, ["--read-only", str(huge)])
        rows.append(("50 MB of misplaced parts, read", 1, megabytes([huge]), result))
    header = (f"{'scenario':38} {'files':>5} {'MB':>6} {'read s':>7} {'derive s':>8} "
              f"{'total s':>7} {'cpu s':>6} {'peak MB':>7} {'parts':>7} {'lost':>6} {'pos':>6} {'neg':>7} "
              f"{'questions':>9}")
    print(header)
    print("-" * len(header))
    for name, files, size, r in rows:
        print(f"{name:38} {files:>5} {size:>6.2f} {r['read']:>7.2f} {r['derive']:>8.2f} "
              f"{r['total']:>7.2f} {r['cpu']:>6.2f} {r['peak_mb']:>7.0f} {r.get('parts', 0):>7} "
              f"{r.get('parts_lost', 0):>6} {r.get('positive_pairs', 0):>6} "
              f"{r.get('negative_pairs', 0):>7} {r.get('questions', 0):>9}")
    print("budget: 75 DUC-sized pyramids read and both tests derived in at most 10 s")
    print("total s: wall time of the work; cpu s: CPU time of the whole child process, imports "
          "included (compare the two on a busy machine)")


if __name__ == "__main__":
    main()
