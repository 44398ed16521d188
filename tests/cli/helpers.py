"""Run the command line in-process and capture what it prints."""

from __future__ import annotations

import json
from dataclasses import dataclass

from simrate.cli import main


@dataclass
class Result:
    status: int
    out: str
    err: str

    def json(self):
        """stdout parsed as JSON (fails the test if there is anything else on stdout)."""
        return json.loads(self.out)


def simrate(capsys, *args: object) -> Result:
    """Run `simrate ARGS...` and return exit status, stdout and stderr."""
    capsys.readouterr()
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return Result(status, captured.out, captured.err)
