"""Spring AI session owners: dumps of the ``AI_SESSION`` table, which supply ``user_id``.

An ``AI_SESSION`` dump holds no events. It is read when an ``AI_SESSION_EVENT`` dump of the
same folder is imported (:func:`owners_for`), and each event of a session listed in it gets
the session's ``user_id``. Given on its own it is recognised, and not imported: importing
it raises :class:`CompanionFile` (a :class:`LogFileError`) saying where its owners go.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from explorer.formats import LogFileError, read_head
from explorer.formats import spring_ai_rows as dump
from explorer.formats.record import Record

NAME = "spring-ai-session-owners"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
#: Sibling files looked at for owners: dumps are text (or gzip) files with these endings.
_SUFFIXES = {".csv", ".tsv", ".txt", ".json", ".jsonl", ".ndjson", ".gz"}
#: At most this many siblings are sniffed, so a folder of thousands of logs stays quick.
_MAX_SIBLINGS = 2_000


class CompanionFile(LogFileError):
    """A file that is read alongside others and is not imported by itself."""


def matches(path: Path, head: bytes) -> bool:
    return dump.sniff(head) == dump.SESSIONS


def records(path: Path) -> Iterator[Record]:
    """No records: the file is not imported alone; it raises :class:`CompanionFile` saying why."""
    owners = owners_in(path)
    raise CompanionFile(path, (
        f"an AI_SESSION dump ({len(owners)} sessions with their user_id): it holds no events. "
        "Its user_id values are given to the events of the AI_SESSION_EVENT dumps imported "
        "from the same folder"))


def owners_in(path: Path) -> dict[str, str]:
    """``AI_SESSION.id`` -> ``user_id`` of one dump (rows of other tables are ignored)."""
    owners: dict[str, str] = {}
    for row in dump.rows(path):
        if row.table != dump.SESSIONS or row.values is None:
            continue
        session, user = row.values.get("id"), row.values.get("user_id")
        if session is not None and user not in (None, ""):
            owners.setdefault(str(session), str(user))
    return owners


def owners_for(path: Path) -> dict[str, str]:
    """The owners of the sessions of an ``AI_SESSION_EVENT`` dump: from ``AI_SESSION`` dumps
    in the same folder (by name order; the first dump naming a session wins) and from the
    file itself when it is a JSON export of several tables."""
    owners: dict[str, str] = {}
    if dump.holds_tables(read_head(path)):
        owners.update(owners_in(path))
    siblings = [p for p in sorted(path.parent.iterdir())
                if p.suffix.lower() in _SUFFIXES and p != path][:_MAX_SIBLINGS]
    for sibling in siblings:
        try:
            if not sibling.is_file() or not matches(sibling, read_head(sibling)):
                continue
            for session, user in owners_in(sibling).items():
                owners.setdefault(session, user)
        except (OSError, LogFileError):
            continue  # an unreadable neighbour gives no owners; it is not this file's error
    return owners
