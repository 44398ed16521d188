"""The import name is `simrate`, not the source folder's name: a user's own `app.py` beside a
script cannot shadow it, and `from simrate import Project` is the documented API."""

from __future__ import annotations

import subprocess
import sys


def test_a_users_own_app_module_does_not_shadow_simrate(tmp_path):
    (tmp_path / "app.py").write_text('raise SystemExit("the user\'s app.py was imported")\n')
    script = tmp_path / "rate.py"
    script.write_text(
        "from simrate import LiveAgreement, Project, alpha\n"
        "p = Project.create('p.simrate', scale='clss')\n"
        "print(type(p).__module__, alpha([[1, 2, 3], [1, 2, 4]]) > 0.5)\n"
        "import simrate.cli\n"
        "print(simrate.cli.__name__)\n"
    )
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["simrate.core.project", "True", "simrate.cli"]


def test_python_dash_m_simrate_is_the_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "simrate", "--version"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("simrate ")
