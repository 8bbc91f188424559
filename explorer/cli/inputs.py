"""The inputs of a subcommand: the logs given on the command line imported into a new store,
or into the database of ``--db``; every command that reads logs opens them here."""

from __future__ import annotations

from explorer.cli import messages
from explorer.formats import LogFileError
from explorer.ingest.imports import import_paths, open_database
from explorer.store.db import Store, StoreError


def open_inputs(args, command: str, *, strict: bool = False) -> tuple[Store | None, int]:
    """The store with ``args.paths`` imported (into ``args.db`` when given) and the exit
    status so far (2 when a file could not be read), or None and the exit status after
    saying why not. Each unreadable file is named on stderr, rejected lines and a rebuilt
    database are warned about. ``strict``: any unreadable file stops the command."""
    if not args.paths and not args.db:
        messages.error(command, "give at least one PATH (or --demo), or --db PATH")
        return None, 2
    try:
        store, rebuilt = open_database(args.db)
    except StoreError as exc:
        messages.error(command, exc)
        return None, 2
    report = import_paths(store, args.paths)
    errors: list[LogFileError] = (list(rebuilt.errors) if rebuilt else []) + report.errors
    for exc in errors:
        messages.error(command, exc)
    if report.rejected:
        messages.rejected_warning(command, report.rejected)
    if errors and (strict or (not report.files and not args.db)):
        store.close()
        return None, 2
    return store, 2 if errors else 0
