"""A command line in a child interpreter under a cap on its address space and its time.

The reading tests start `python -m simrate` this way, so that a read without a bound ends in
a MemoryError (or the time limit) instead of taking the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys

from tests.support.helpers import ROOT

#: The address space the command line may use: Python with pandas and numpy takes about
#: 1 GB of it, the largest input 1 GiB more; an unbounded read passes this within seconds.
ADDRESS_SPACE = 4 * 2**30
#: Seconds a capped command may run.
TIME_LIMIT = 90


def limit_memory() -> None:
    """Cap this (child) process's address space at ADDRESS_SPACE."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run_limited(*args: object) -> subprocess.CompletedProcess:
    """`python -m simrate ARGS` under the caps, its output captured as text."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SIMRATE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "simrate", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=TIME_LIMIT,
                          preexec_fn=limit_memory)
