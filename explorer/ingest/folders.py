"""Folders given to an import: read recursively (a ``~/.claude/projects`` tree with its
``subagents/``, a Codex ``sessions/YYYY/MM/DD/`` tree), every file sniffed; the files that
are not logs are reported (path and why), counted, never an error of the import.

A folder that a reader takes whole (its format recognises the folder itself, as
``explorer.formats.detect`` says) is one path and is not descended into.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from explorer import formats
from explorer.formats import LogFileError


def expand(paths: Iterable[Path]) -> tuple[list[Path], list[LogFileError]]:
    """The paths to import, each folder replaced by the logs found under it (sorted by
    their path in it), and the files found under the folders that are not logs. A path
    that is not a folder is kept as given (its errors are said by the import)."""
    out: list[Path] = []
    not_logs: list[LogFileError] = []
    for path in paths:
        if not _is_folder(path) or _taken_whole(path):
            out.append(path)
            continue
        for found in walk(path):
            try:
                formats.detect(found)
            except LogFileError as exc:
                not_logs.append(exc)
            else:
                out.append(found)
    return out, not_logs


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _taken_whole(folder: Path) -> bool:
    """Whether a reader reads the folder as one log."""
    try:
        formats.detect(folder)
    except (LogFileError, OSError):
        return False
    return True


def walk(folder: Path) -> list[Path]:
    """Every file under ``folder`` (symbolic links to folders not followed: no loop), a
    folder a reader takes whole as one path; sorted by path."""
    found: list[Path] = []
    for top, dirs, files in os.walk(folder, followlinks=False):
        whole = [d for d in dirs if _taken_whole(Path(top) / d)]
        found += [Path(top) / d for d in whole]
        dirs[:] = sorted(d for d in dirs if d not in whole)
        found += [Path(top) / f for f in files]
    return sorted(found, key=lambda p: p.parts)
