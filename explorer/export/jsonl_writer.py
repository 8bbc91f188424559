"""Canonical JSON Lines (FORMAT.md): one event a line, the columns that have a value."""

from __future__ import annotations

import json
from typing import Iterator, TextIO

from explorer.export.source import Session


def write(fh: TextIO, sessions: list[Session]) -> Iterator[None]:
    """Write each session's events; yields after each session."""
    for session in sessions:
        fh.writelines(json.dumps(event, ensure_ascii=False) + "\n" for event in session.events)
        yield
