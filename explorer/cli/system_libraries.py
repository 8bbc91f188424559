"""What to say when the window cannot start because a system library is missing.

Qt's Python modules link against libraries of the system (GLib, OpenGL, EGL, xkbcommon,
fontconfig, D-Bus); without one, importing PySide6 fails with the loader's own words
(``libglib-2.0.so.0: cannot open shared object file``). The command line turns that into one
message naming the Debian packages to install, and exit status 3, as with no display.
"""

from __future__ import annotations

import re

#: The libraries Qt's modules load, by the start of their file name, and the Debian 12
#: package that holds each (README.md, "What the system needs").
PACKAGES = {
    "libglib-2.0": "libglib2.0-0", "libgthread-2.0": "libglib2.0-0",
    "libGL.": "libgl1", "libGLX": "libgl1", "libOpenGL": "libopengl0", "libEGL": "libegl1",
    "libxkbcommon.": "libxkbcommon0", "libxkbcommon-x11": "libxkbcommon-x11-0",
    "libfontconfig": "libfontconfig1", "libfreetype": "libfreetype6",
    "libdbus-1": "libdbus-1-3", "libxcb-cursor": "libxcb-cursor0",
    "libxcb-icccm": "libxcb-icccm4", "libxcb-keysyms": "libxcb-keysyms1",
    "libxcb-shape": "libxcb-shape0", "libX11": "libx11-6",
}
#: Everything the window needs on Debian 12, for a library this table does not know.
ALL = ("libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 "
       "fonts-dejavu-core")
_SONAME = re.compile(r"(lib[\w.+-]*?\.so(?:\.\d+)*)")


def missing_library(exc: ImportError) -> str | None:
    """The shared library whose absence ``exc`` reports, or None for another ImportError."""
    text = str(exc)
    if "cannot open shared object file" not in text and "undefined symbol" not in text:
        return None
    found = _SONAME.search(text)
    return found.group(1) if found else "a system library"


def message(library: str) -> str:
    """The one message for a missing library: which, and what to install."""
    package = next((pkg for prefix, pkg in PACKAGES.items() if library.startswith(prefix)), None)
    install = package or ALL
    return (f"turnscope: the window needs the system library {library}, which is not "
            f"installed.\n  On Debian or Ubuntu:  sudo apt-get install {install}\n"
            f"  (all the window needs: {ALL}); the headless subcommands (audit, sweep, view, "
            "generate) need none of these")
