"""The tests mirror the code: every folder of app/ that holds modules has a folder at the
same path under tests/ with at least one test module in it (app/core/data/ -> tests/core/data/,
app/ itself -> tests/).

The folders are found when the test runs, so a folder added or moved in app/ is asked for
its mirror at once. A folder holds modules when it has a `*.py` file besides `__init__.py`;
a package whose whole code sits in its `__init__.py` is one module, and its tests sit in
its parent's mirror like those of any other module.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_folders(app: Path) -> list[str]:
    """Folders under `app` (and `app` itself, as "") holding a module besides __init__.py."""
    found = set()
    for module in app.rglob("*.py"):
        if module.name != "__init__.py" and "__pycache__" not in module.parts:
            folder = module.parent.relative_to(app).as_posix()
            found.add("" if folder == "." else folder)
    return sorted(found)


def missing_mirrors(app: Path, tests: Path) -> list[str]:
    """The folders of `app` whose mirror under `tests` holds no test module."""
    return [folder for folder in module_folders(app)
            if not any((tests / folder).glob("test_*.py"))]


def test_every_folder_of_the_package_has_its_tests_folder():
    missing = missing_mirrors(ROOT / "app", ROOT / "tests")
    assert not missing, ("folders of app/ without test modules at the same path under "
                         "tests/: " + ", ".join(f"app/{f} -> tests/{f}/" for f in missing))


def test_a_folder_without_its_mirror_is_named(tmp_path):
    app, tests = tmp_path / "app", tmp_path / "tests"
    files = {
        "app/__init__.py": "", "app/cli.py": "",
        "app/core/__init__.py": "", "app/core/project.py": "",
        "app/core/data/__init__.py": "", "app/core/data/store.py": "",
        "app/core/edits/__init__.py": "", "app/core/edits/writes.py": "",
        "app/gui/__init__.py": "",  # a package of packages: nothing to mirror
        "app/core/solo/__init__.py": "def whole(): ...",  # one module: tested in core/
        "app/core/data/__pycache__/store.cpython-311.py": "",
        "tests/test_cli.py": "", "tests/core/test_project.py": "",
        "tests/core/data/test_store.py": "",
        "tests/core/edits/helpers.py": "",  # a helper is not a test module
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert module_folders(app) == ["", "core", "core/data", "core/edits"]
    assert missing_mirrors(app, tests) == ["core/edits"]
    (tests / "core/edits/test_writes.py").write_text("")
    assert missing_mirrors(app, tests) == []
    (tests / "core/data/test_store.py").unlink()  # a mirror emptied by a move
    assert missing_mirrors(app, tests) == ["core/data"]
