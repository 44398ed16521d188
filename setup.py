"""Packaging details pyproject.toml cannot state: the top-level data folders go into the wheel.

`resources/` and `sample_data/` stay at the top of the checkout; here they become the data
packages `app._resources` and `app._sample_data`, so a wheel (and pipx, and the bundle) carries
them and `app.locations` finds them with importlib.resources, installed or editable alike.
"""

from setuptools import find_packages, setup

DATA_PACKAGES = {"app._resources": "resources", "app._sample_data": "sample_data"}

setup(
    packages=find_packages(include=["app", "app.*"]) + sorted(DATA_PACKAGES),
    package_dir=DATA_PACKAGES,
    package_data={"app._resources": ["**/*"], "app._sample_data": ["*"],
                  # the web page's templates and its CSS and JavaScript (simrate serve)
                  "app.web": ["templates/*.html", "static/*"]},
)
