"""Turnscope's log: failures with their tracebacks go to a file under the platform's state
folder; ``--verbose`` adds everything at DEBUG on stderr. No Qt: the command line and the
window configure it the same way.

The folder is ``$TURNSCOPE_STATE_DIR`` when set (the tests point it to a temporary folder),
else ``$XDG_STATE_HOME/turnscope`` (default ``~/.local/state/turnscope``) on Linux,
``~/Library/Logs/Turnscope`` on macOS and ``%LOCALAPPDATA%\\Turnscope`` on Windows.
"""

from __future__ import annotations

import logging
import os
import sys
from logging.handlers import RotatingFileHandler
from pathlib import Path

#: The project's packages: their loggers (``logging.getLogger(__name__)``) are configured.
PACKAGES = ("explorer", "widgets")
FILE_NAME = "turnscope.log"
STATE_DIR_ENV = "TURNSCOPE_STATE_DIR"
_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(threadName)s]: %(message)s"
_MAX_BYTES = 1_000_000


def state_dir() -> Path:
    """The folder Turnscope keeps its log in (not created here)."""
    override = os.environ.get(STATE_DIR_ENV)
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "Turnscope"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Logs" / "Turnscope"
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "turnscope"


def log_path() -> Path:
    return state_dir() / FILE_NAME


def configure(verbose: bool = False) -> Path | None:
    """Send the project's log records to :func:`log_path` (INFO and above), and to stderr at
    DEBUG when ``verbose``. Calling it again replaces what an earlier call set up. Returns
    the log file, or None when it cannot be written (logging then goes on without it)."""
    handlers: list[logging.Handler] = []
    path: Path | None = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        file_handler = RotatingFileHandler(path, maxBytes=_MAX_BYTES, backupCount=2,
                                           encoding="utf-8", delay=True)
        file_handler.setLevel(logging.INFO)
        handlers.append(file_handler)
    except OSError:
        path = None  # a read-only home must not stop the program
    if verbose:
        stderr = logging.StreamHandler(sys.stderr)
        stderr.setLevel(logging.DEBUG)
        handlers.append(stderr)
    formatter = logging.Formatter(_FORMAT)
    for name in PACKAGES:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if getattr(h, "_turnscope", False)]:
            logger.removeHandler(old)
            old.close()
        for handler in handlers:
            handler.setFormatter(formatter)
            handler._turnscope = True  # type: ignore[attr-defined] - ours to replace
            logger.addHandler(handler)
        logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    return path
