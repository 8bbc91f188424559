"""Export: what was imported, written out in an interchange format (docs/FORMATS.md).

:data:`WRITERS` names each format's writer module (``jsonl``: canonical JSON Lines of
FORMAT.md; ``atif``: Harbor's ATIF, validated with the ``atif`` models; ``otel-json``:
OpenTelemetry GenAI spans as OTLP JSON). A writer has ``write(fh, sessions)``, taking the
sessions of :func:`explorer.export.source.sessions` (each with its events and findings).
:func:`export` is the one entry point, for the command line and the window alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from explorer.export import atif_writer, jsonl_writer, otel_writer, source
from explorer.jobs import ProgressHook, StopHook, check
from explorer.store.db import Db

#: The export formats by name, as ``--to`` takes them.
WRITERS = {"jsonl": jsonl_writer, "atif": atif_writer, "otel-json": otel_writer}


class ExportError(ValueError):
    """An export that cannot be written (no such session, an invalid document)."""


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: sessions, events, findings, and where."""

    path: str
    sessions: int
    events: int
    findings: int


def export(db: Db, to: str, out: str | Path, session_id: str | None = None,
           progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> ExportReport:
    """Write the events of ``session_id`` (every session when None) to ``out`` in format
    ``to``; the file is written whole or not at all (a temporary file renamed)."""
    if to not in WRITERS:
        raise ExportError(f"unknown export format {to!r} (one of {', '.join(WRITERS)})")
    sessions = source.sessions(db, session_id)
    if not sessions:
        raise ExportError(f"no session {session_id!r} in the database" if session_id
                          else "nothing to export: no events were imported")
    out = Path(out)
    part = out.with_name(out.name + ".part")
    try:
        with open(part, "w", encoding="utf-8", newline="\n") as fh:
            for done, _ in enumerate(WRITERS[to].write(fh, sessions), start=1):
                check(should_stop, "export")
                if progress:
                    progress(done, len(sessions))
        part.replace(out)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    return ExportReport(str(out), len(sessions), sum(len(s.events) for s in sessions),
                        sum(len(s.findings) for s in sessions))
