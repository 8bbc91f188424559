"""The new complete lines of a followed file imported on their own (issue 22), as importing
the whole file again would give them.

A file already imported whole (:func:`explorer.ingest.imports.import_file`) that has grown is
not read again: its reader (one with ``FOLLOWS``: explorer.formats.reader) reads only the
new lines (a :class:`~explorer.formats.reader.Resume`), which are staged, typed,
deduplicated and accounted for as any file's rows, in one transaction, under the file's own
``file_id``. What keeps the result that of a whole import:

- line numbers go on from the earlier lines (the reader's span starts at the line after);
- import positions (``eid``) come after every event already in the store, so the earlier
  rows keep theirs and the new ones sort after them, as in the file;
- a ``seq`` the file's rows do not carry goes on from the earlier rows' (a file that had
  none and now has some rows that carry it is :class:`WholeFile`: the earlier rows would now
  be rejected);
- a duplicate is looked for among the new rows and between them and every earlier event
  (an earlier row is never a copy of a later one: the first kept is the earliest);
- records restated by the reader (an earlier line whose details a new line changes: a
  Claude Code message's final usage) replace those events' details;
- the file's counts are its earlier counts plus the new records', its digest and size the
  bytes read so far.
"""

from __future__ import annotations

import json
from pathlib import Path

from explorer.formats.reader import Reader, Resume
from explorer.ingest import imports
from explorer.ingest.report import ACCOUNT_KEYS, FileReport
from explorer.ingest.steps import DETAILED, INSERTED, REJECTED, Steps
from explorer.jobs import ProgressHook, StopHook
from explorer.store import durability
from explorer.store.db import Db, bounded_memory, bump_data_version
from explorer.store.transaction import transaction
from explorer.tokens import counts as token_counts
from explorer.tokens.estimate import NON_CJK_RE2


class WholeFile(Exception):
    """The new lines cannot be imported on their own: the file is to be read whole."""


def append_lines(store: Db, path: Path, reader: Reader, resume: Resume, file_id: int,
                 digests: tuple[str, str], progress: ProgressHook | None = None,
                 should_stop: StopHook | None = None) -> FileReport:
    """Import the lines of ``resume.span`` of ``path`` (imported before as ``file_id``);
    ``digests``: the SHA-256 of the file's bytes before the span (what the store must hold
    for the file) and up to its end. The report holds the whole file's counts now. Raises
    :class:`WholeFile` when the file is to be read whole instead (nothing was written)."""
    steps = Steps(path, progress, should_stop)
    rows = store.frame("file_row", file_id=file_id).to_dicts()
    if (not rows or rows[0]["status"] != "complete" or rows[0]["sha256"] != digests[0]
            or rows[0]["path"] != str(path)):
        raise WholeFile("the store holds another version of the file")
    earlier = rows[0]
    source = _Resumed(reader, resume)
    with durability.importing(store, path):
        try:
            store.run("create_record_rows")
            with bounded_memory(store):
                typed, details, _direct = imports._typed_rows(store, path, source, steps)
                with transaction(store.con):
                    report = _load(store, path, reader, earlier,
                                   (digests[1], resume.span.end), steps, typed, details)
                    bump_data_version(store)
                    steps.check()
        finally:
            for temp in ("parsed", "cand", "dups", "record_rows"):
                store.con.execute(f"DROP TABLE IF EXISTS {temp}").fetchall()
    steps.hook(1000)(1, 1)
    return report


class _Resumed:
    """The file's reader, reading only the span of ``resume``."""

    def __init__(self, reader: Reader, resume: Resume) -> None:
        self.NAME, self.KIND = reader.NAME, reader.KIND
        self.reader, self.resume = reader, resume

    def records(self, path: Path):
        return self.reader.records(path, self.resume)

    def scan(self, path: Path, progress=None):
        return self.reader.scan(path, progress, self.resume)


def _load(store: Db, path: Path, reader: Reader, earlier: dict, digest: tuple[str, int],
          steps: Steps, typed: dict[str, str], details: bool) -> FileReport:
    file_id = earlier["file_id"]
    eid_base = store.one("next_ids")["eid_base"]
    token_counts.forget_from(store, eid_base)
    mapped = store.one("record_rows_count")["n"] > 0
    if mapped:   # the earlier records a new line changes (Record.restated)
        store.run("restate_event_details", file_id=file_id)
        store.run("forget_restated_rows")
        store.run("forget_restated_records")
    seq = store.one("seq_stats", typed)
    assign = earlier["seq_assigned"]
    if assign and seq["given"]:
        raise WholeFile("new rows carry seq where the earlier rows had it assigned")
    fragments, params = {**typed, "seq": "seq"}, {}
    if assign:   # 1, 2, 3 ... in file order, after the earlier valid rows
        fragments["seq"] = "$seq_from + row_number() OVER (ORDER BY row_no)"
        params["seq_from"] = (earlier["events"]
                              + store.one("file_duplicate_events", file_id=file_id)["n"])
    imports.find_copies(store, fragments, file_id, eid_base, steps, assign_seq=assign, **params)
    steps.run(store, INSERTED, "insert_events", fragments, eid_base=eid_base, file_id=file_id,
              non_cjk=NON_CJK_RE2, assign_seq=assign, **params)
    if details:
        steps.run(store, DETAILED, "insert_event_details", typed, eid_base=eid_base,
                  assign_seq=assign)
    imports.record_copies(store, steps)
    counts = store.one("file_counts", file_id=file_id)
    new_dups = counts["duplicates"]
    if seq["records"] > counts["events"] - earlier["events"] + new_dups:
        steps.run(store, REJECTED, "insert_rejected", typed, file_id=file_id,
                  seq_mixed=not assign)
    added = FileReport(str(path), reader.NAME)
    if mapped:
        imports._count_records(store, added, eid_base)
    else:   # one staged row per record
        added.records = seq["records"]
        added.imported = counts["events"] - earlier["events"]
        added.duplicates = new_dups
        added.rejected = seq["records"] - added.imported - new_dups
    report = FileReport(str(path), reader.NAME, seq_assigned=assign,
                        duplicate_events=store.one("file_duplicate_events", file_id=file_id)["n"])
    for key in ACCOUNT_KEYS:
        setattr(report, key, earlier[key] + getattr(added, key))
    report.events = counts["events"]
    report.skipped_by_reason = json.loads(earlier["skipped_by_reason"] or "{}")
    for why, n in added.skipped_by_reason.items():
        report.skipped_by_reason[why] = report.skipped_by_reason.get(why, 0) + n
    store.run("update_appended_file", file_id=file_id, sha256=digest[0], size=digest[1],
              records=report.records, imported=report.imported, skipped=report.skipped,
              rejected=report.rejected, duplicates=report.duplicates, events=report.events,
              skipped_by_reason=json.dumps(report.skipped_by_reason, ensure_ascii=False))
    report.unknown_types = dict(store.run("file_unknown_types", file_id=file_id))
    report.appended = added.records
    return report
