#!/usr/bin/env bash
# Put this simrate bundle into the desktop menu (and `simrate` on the PATH) for this user.
# Run it from the unpacked bundle: ./install-desktop-entry.sh   (--remove takes it out again)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
entry="$data/applications/simrate.desktop"
icon="$data/icons/hicolor/256x256/apps/simrate.png"
link="$HOME/.local/bin/simrate"

if [ "${1:-}" = "--remove" ]; then
  rm -f "$entry" "$icon"
  # only our own link: never a simrate that someone installed another way
  if [ -L "$link" ] && [ "$(readlink "$link")" = "$here/simrate" ]; then rm -f "$link"; fi
  echo "removed the simrate desktop entry"
  exit 0
fi

mkdir -p "$(dirname "$entry")" "$(dirname "$icon")" "$(dirname "$link")"
install -m 644 "$here/simrate.png" "$icon"
# The menu starts this bundle's program by its full path, quoted as the desktop entry
# specification asks: \ " ` $ escaped with a backslash inside the quotes, every backslash then
# doubled by the string escape rule, and % doubled (a folder name may hold any of them).
exec_path="$here/simrate"
exec_path="${exec_path//\\/\\\\\\\\}"
exec_path="${exec_path//\"/\\\\\"}"
exec_path="${exec_path//\`/\\\\\`}"
exec_path="${exec_path//\$/\\\\\$}"
exec_path="${exec_path//%/%%}"
while IFS= read -r line; do
  case "$line" in
    Exec=*) printf 'Exec="%s" %%f\n' "$exec_path" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$here/simrate.desktop" > "$entry"
chmod 644 "$entry"
ln -sfn "$here/simrate" "$link"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
echo "installed: $entry"
echo "command:   $link (if ~/.local/bin is on your PATH, 'simrate' runs this bundle)"
