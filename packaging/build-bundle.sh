#!/usr/bin/env bash
# Build simrate as a one-folder application that runs without Python (PyInstaller).
#
#   packaging/build-bundle.sh [DEST]      (DEST defaults to build/bundle in the checkout)
#
# Makes DEST/simrate/ (the program `simrate`, its libraries in _internal/, a desktop entry,
# our icon, install-desktop-entry.sh, the sample files) and DEST/simrate-VERSION-linux-ARCH.tar.gz.
# The build runs in its own virtual environment under DEST/work, made with python3 from PATH
# (3.10 or newer), so the bundle carries exactly the runtime dependencies of a plain install.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$(mkdir -p "${1:-$root/build/bundle}" && cd "${1:-$root/build/bundle}" && pwd)"
work="$dest/work"
python="${PYTHON:-python3}"

step() { printf 'build-bundle: %s\n' "$*" >&2; }

step "build environment in $work/venv"
rm -rf "$work" "$dest/simrate"
"$python" -m venv "$work/venv"
venv_python="$work/venv/bin/python"
"$venv_python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
# A wheel first, then an ordinary (not editable) install of it: the bundle is frozen from what a
# user's pip would install, data packages included. The wheel is built from a copy of the
# sources, so that a stale simrate.egg-info in the checkout cannot add or hide files.
mkdir -p "$work/src"
(cd "$root" && tar --exclude=__pycache__ -cf - pyproject.toml setup.py README.md app resources \
  sample_data) | tar -C "$work/src" -xf -
"$venv_python" -m pip wheel --quiet --no-deps --wheel-dir "$work/wheel" "$work/src"
wheel="$(ls "$work"/wheel/simrate-*.whl)"
"$venv_python" -m pip install --quiet "$wheel[bundle]"
version="$("$venv_python" -c 'from importlib.metadata import version; print(version("simrate"))')"

step "freezing simrate $version with PyInstaller"
# --collect-submodules: the command handlers and format readers are imported by name at run time.
# --collect-data: the data packages simrate._resources and simrate._sample_data, and the
# confusables table rater names are keyed with (read as data: no import shows it to PyInstaller).
# --copy-metadata: `simrate --version` reads the version from the package metadata.
(cd "$work" && "$work/venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --onedir --name simrate \
  --distpath "$dest" --workpath "$work/pyinstaller" --specpath "$work" \
  --collect-submodules simrate --collect-data simrate --copy-metadata simrate \
  --collect-data confusable_homoglyphs \
  --exclude-module tkinter \
  "$root/packaging/simrate_main.py")

step "desktop entry, icon, sample files"
bundle="$dest/simrate"
install -m 644 "$root/packaging/simrate.desktop" "$bundle/simrate.desktop"
install -m 644 "$root/resources/icons/simrate-256.png" "$bundle/simrate.png"
install -m 755 "$root/packaging/install-desktop-entry.sh" "$bundle/install-desktop-entry.sh"
mkdir -p "$bundle/sample_data"
find "$root/sample_data" -maxdepth 1 -type f ! -name '*.py' -exec cp {} "$bundle/sample_data/" \;

archive="$dest/simrate-$version-linux-$(uname -m).tar.gz"
step "archive $archive"
tar -C "$dest" -czf "$archive" simrate
rm -rf "$work"
du -sh "$bundle" "$archive" >&2
echo "$bundle"
