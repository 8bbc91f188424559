#!/usr/bin/env bash
# Install the unpacked bundle for this user: a `turnscope` command in ~/.local/bin, the
# desktop entry, the icons and the AppStream metainfo under ~/.local/share.
#   ./install.sh            (run from the unpacked turnscope/ folder)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$HOME/.local/bin" "$data/applications" "$data/metainfo"
ln -sf "$here/turnscope" "$HOME/.local/bin/turnscope"
sed "s|^Exec=turnscope|Exec=$here/turnscope|" "$here/turnscope.desktop" \
    > "$data/applications/io.github.turnscope.Turnscope.desktop"
cp "$here/io.github.turnscope.Turnscope.metainfo.xml" "$data/metainfo/"
for png in "$here"/icons/turnscope-*.png; do
    size="$(basename "$png" .png)"; size="${size#turnscope-}"
    mkdir -p "$data/icons/hicolor/${size}x${size}/apps"
    cp "$png" "$data/icons/hicolor/${size}x${size}/apps/turnscope.png"
done
mkdir -p "$data/icons/hicolor/scalable/apps"
cp "$here/icons/turnscope.svg" "$data/icons/hicolor/scalable/apps/turnscope.svg"
echo "installed: run 'turnscope' or find Turnscope in your applications menu"
