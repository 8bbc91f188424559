#!/usr/bin/env bash
# Build the one-folder bundle and its tarball, then check that it runs:
#   packaging/build.sh [PYTHON]     (PYTHON: an interpreter with Turnscope and PyInstaller
#                                    installed, e.g. .venv/bin/python; default: python3)
# Output: dist/turnscope/ (the bundle: run dist/turnscope/turnscope) and
#         dist/turnscope-<version>-linux-<arch>.tar.gz (the bundle, the .desktop entry, the
#         AppStream metainfo and the icons, with install.sh to put them in ~/.local).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${1:-python3}"
DIST="${TURNSCOPE_DIST:-dist}"
WORK="${TURNSCOPE_WORK:-build/pyinstaller}"
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST" --workpath "$WORK" packaging/turnscope.spec
bundle="$DIST/turnscope"
cp packaging/turnscope.desktop packaging/io.github.turnscope.Turnscope.metainfo.xml \
   packaging/install.sh "$bundle/"
mkdir -p "$bundle/icons"
cp packaging/icons/turnscope-*.png widgets/icons/turnscope.svg "$bundle/icons/"
# The check: it knows its version, audits the demo data, renders the window offscreen.
version="$("$bundle/turnscope" --version | awk '{print $2}')"
"$bundle/turnscope" audit --demo --json > "$WORK/audit.json"
QT_QPA_PLATFORM=offscreen "$bundle/turnscope" screenshot "$WORK/screenshot.png"
tarball="$DIST/turnscope-$version-linux-$(uname -m).tar.gz"
tar -C "$DIST" -czf "$tarball" turnscope
echo "built $bundle ($(du -sh "$bundle" | cut -f1)) and $tarball"
