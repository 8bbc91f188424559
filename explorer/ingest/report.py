"""What importing files gave: per file, how every record was counted (issue 6: records =
imported + skipped + rejected + duplicates), and for one import call, its files and the
files that could not be read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from explorer.formats import LogFileError


@dataclass
class FileReport:
    """What importing one file gave (keys as in the ``files`` table).

    Every record the reader read is counted once: ``records = imported + skipped + rejected
    + duplicates``. A record is a line of JSON Lines, a row of CSV or Parquet, or what an
    agent-format reader yields as one :class:`~explorer.formats.record.Record` (a line, an
    element of a document's message list, a cassette interaction); blank lines are none.
    A record is *imported* when at least one of its events was kept; *duplicates* when
    every event it gave repeats one already kept; *rejected* when none was kept and at
    least one of its rows was rejected (the rejected table lists those rows: a record
    imported with some events rejected keeps them there too, so that table can hold more
    rows than ``rejected`` counts); *skipped* when it gave no event by design, counted by
    reason in ``skipped_by_reason``. ``events`` counts the events kept and
    ``duplicate_events`` the copies dropped (AUDITS.md's ``duplicates``). ``unchanged``:
    the file was already imported with the same content; its counts are the stored ones.
    ``unknown_types``: the record types its reader did not know (format drift), each kept as
    an OTHER event with note ``unknown type: X`` and counted as imported: type -> records.
    ``appended``: for a followed file whose new lines alone were read
    (explorer.ingest.appending), how many records they held (the counts are the file's).
    """

    path: str
    format: str
    records: int = 0
    imported: int = 0
    skipped: int = 0
    rejected: int = 0
    duplicates: int = 0
    events: int = 0
    skipped_by_reason: dict[str, int] = field(default_factory=dict)
    duplicate_events: int = 0
    seq_assigned: bool = False
    unchanged: bool = False
    unknown_types: dict[str, int] = field(default_factory=dict)
    appended: int = 0


#: The accounting keys of a file, in the order reports show them.
ACCOUNT_KEYS = ("records", "imported", "skipped", "rejected", "duplicates", "events")


@dataclass
class ImportReport:
    """The files of one import call, the files that could not be read at all, and the files
    found in the folders given that are not logs (each with why: not an error)."""

    files: list[FileReport] = field(default_factory=list)
    errors: list[LogFileError] = field(default_factory=list)
    not_logs: list[LogFileError] = field(default_factory=list)

    @property
    def rejected(self) -> int:
        """Records rejected by this import (files found unchanged are not read again)."""
        return sum(f.rejected for f in self.files if not f.unchanged)

    def totals(self) -> dict[str, int]:
        """The accounting keys summed over the files."""
        return {k: sum(getattr(f, k) for f in self.files) for k in ACCOUNT_KEYS}

    def skipped_by_reason(self) -> dict[str, int]:
        """Skipped records of every file by reason, most frequent first."""
        total: dict[str, int] = {}
        for f in self.files:
            for reason, n in f.skipped_by_reason.items():
                total[reason] = total.get(reason, 0) + n
        return dict(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))


def stored_report(row: dict) -> FileReport:
    """The report of a file found unchanged: its stored counts."""
    report = FileReport(row["path"], row["format"], unchanged=True,
                        seq_assigned=row["seq_assigned"],
                        skipped_by_reason=json.loads(row["skipped_by_reason"] or "{}"))
    for key in ACCOUNT_KEYS:
        setattr(report, key, row[key])
    return report
