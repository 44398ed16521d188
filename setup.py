"""Packaging details pyproject.toml cannot state: the import name and the data folders.

The source folder is `app/` (the owner's layout), installed under the import name `simrate`,
so that a user's own `app.py` beside a script can never shadow it: `from simrate import
Project`. `resources/` and `sample_data/` stay at the top of the checkout; here they become
the data packages `simrate._resources` and `simrate._sample_data`, so a wheel (and pipx, and
the bundle) carries them and `simrate.install.locations` finds them with importlib.resources,
installed or editable alike.
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"simrate._resources": "resources", "simrate._sample_data": "sample_data"}
SOURCE_PACKAGES = ["simrate"] + [f"simrate.{name}" for name in find_packages(where="app")]

setup(
    packages=SOURCE_PACKAGES + sorted(DATA_PACKAGES),
    package_dir={"simrate": "app", **DATA_PACKAGES},
    package_data={"simrate._resources": ["**/*"], "simrate._sample_data": ["*"],
                  # the web page's templates and its CSS and JavaScript (simrate serve)
                  "simrate.web": ["templates/*.html", "static/*"]},
)
