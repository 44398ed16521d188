"""Run a benchmark's stages each in a fresh interpreter, so time and peak memory are its own.

A benchmark script calls `run_stage(__file__, name, *args)`; the child process runs
`python script --stage name args...`. The script's `main` builds its parser and calls
`options_or_stage(parser, STAGES)`: in the child that runs the stage (`stage_main`) and
returns None, in the parent it returns the script's options.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable, Sequence


def positionals(doc: str | None, *spec: tuple[str, type, object, str]) -> argparse.Namespace:
    """Parse a script's positional arguments, each (name, type, default, help); a default of
    None makes it required. `--help` prints the script's first doc line and these."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0])
    for name, kind, default, text in spec:
        if default is None:
            parser.add_argument(name, type=kind, help=text)
        else:
            parser.add_argument(name, type=kind, nargs="?", default=default,
                                help=f"{text} (default {default})")
    return parser.parse_args()


def run_stage(script: str, name: str, *args: object, env: dict | None = None) -> dict:
    """Run stage `name` of `script` in a fresh interpreter and return its JSON result."""
    out = subprocess.run([sys.executable, script, "--stage", name, *map(str, args)],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout.strip().splitlines()[-1])


def stage_main(stages: dict[str, Callable[..., dict]], name: str, args: Sequence[str],
               peak: bool = True) -> None:
    """In the child: run one stage, add its peak RSS in MB, print the result as JSON."""
    values = [int(a) if a.isdigit() else a for a in args]
    result = stages[name](*values)
    if peak:
        result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def options_or_stage(parser: argparse.ArgumentParser, stages: dict[str, Callable[..., dict]],
                     peak: bool = True) -> argparse.Namespace | None:
    """Add `--stage NAME ARGS...` to a benchmark's parser and parse the command line.

    In a child (`--stage` given) run that stage with `stage_main` and return None; in the
    parent return the options."""
    parser.add_argument("--stage")
    parser.add_argument("args", nargs="*")
    opts = parser.parse_args()
    if opts.stage:
        stage_main(stages, opts.stage, opts.args, peak=peak)
        return None
    return opts
