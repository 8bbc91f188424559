"""Files -> canonical rows -> DuckDB, one file per transaction, with a report.

``import_paths`` is a plain function with ``progress(done, total)`` and ``should_stop()``
hooks, so the CLI, the tests and the desktop app's worker all call the same code.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path

import duckdb

import queries
from explorer import formats
from explorer.formats import LogFileError
from explorer.formats.json_values import lone_surrogate_error
from explorer.formats.reader import Reader
from explorer.ingest import coerce, folders, postgres_source, staging
from explorer.ingest.postgres_url import is_database_url, without_password
from explorer.ingest.prefetch import ahead
from explorer.ingest.report import ACCOUNT_KEYS, FileReport, ImportReport, stored_report
from explorer.ingest.scan import Chunk, scanned
from explorer.ingest.steps import DEDUPLICATED, DETAILED, HASHED, INSERTED, REJECTED, STAGED, Steps
from explorer.jobs import Cancelled, ProgressHook, StopHook
from explorer.store import durability
from explorer.store.db import Db, Store, bounded_memory, bump_data_version
from explorer.store.transaction import transaction
from explorer.tokens import counts as token_counts
from explorer.tokens.estimate import NON_CJK_RE2

_log = logging.getLogger(__name__)

__all__ = ["ACCOUNT_KEYS", "FileReport", "ImportReport", "import_file", "import_part",
           "import_paths", "open_database"]


def import_paths(
    store: Db,
    paths: Iterable[str | os.PathLike],
    progress: ProgressHook | None = None,
    should_stop: StopHook | None = None,
    ask_password: postgres_source.PasswordPrompt | None = None,
) -> ImportReport:
    """Import each file in the order given; files that cannot be read are reported.
    A ``postgresql://`` URL is a database read after the files (:func:`import_database`;
    ``ask_password`` is asked when the server wants a password none of libpq's gave).

    ``store`` is the owning Store or, on a worker thread, one of its cursors.
    """
    report = ImportReport()
    paths = list(paths)
    urls = [p for p in paths if is_database_url(p)]
    paths, report.not_logs = folders.expand(Path(p) for p in paths if not is_database_url(p))
    for index, path in enumerate(paths):
        def file_progress(done: int, total: int, index=index) -> None:
            if progress:
                progress(index * 1000 + (1000 * done // max(total, 1)), 1000 * len(paths))
        try:
            formats.check_name(path)
            # Recorded (committed) while the file's transaction runs: a process killed in
            # it leaves the file named for the next open (explorer.store.durability).
            with durability.importing(store, path):
                report.files.append(_import_bounded(store, path, file_progress, should_stop))
        except LogFileError as exc:
            report.errors.append(exc)
            # Remembered for a later `audit --db` (exit 2) while the file is there to fix;
            # a path that names no file (a typo) is said now and not kept.
            if os.path.lexists(exc.path):
                durability.record_failure(store, exc.path, exc.reason)
    for url in urls:   # databases after the files (explorer.ingest.postgres_source)
        try:
            report.files.append(import_database(store, url, progress, should_stop,
                                                ask_password))
        except LogFileError as exc:
            report.errors.append(exc)
    if progress:
        progress(1000 * len(paths), 1000 * len(paths))
    return report


def import_database(store: Db, url: str, progress: ProgressHook | None = None,
                    should_stop: StopHook | None = None,
                    ask_password: postgres_source.PasswordPrompt | None = None) -> FileReport:
    """Import the Spring AI session tables of a PostgreSQL database, read-only, in one
    transaction, as if they were one file named by the URL without its password (an
    earlier import of the same URL is replaced). Its digest is the SHA-256 of the rows read."""
    key = without_password(url)
    reading = True   # while the rows are read, progress counts them (read_progress)
    read_at = HASHED   # the rows read so far, as a step of the bar (noted by the reader)
    shown = 0

    def step_progress(done: int, total: int) -> None:
        # Called in this thread only; the rows are read in staging's thread (prefetch), a
        # block ahead: their count is shown here, and the bar never goes back.
        nonlocal shown
        if reading:
            done, total = read_at, 1000
        at = done * 1000 // max(total, 1)
        if progress and at >= shown:
            shown = at
            progress(done, total)

    steps = Steps(key, step_progress, should_stop)   # type: ignore[arg-type]  (a URL)
    digest = hashlib.sha256()
    rows = 0

    def read_progress(done: int, total: int) -> None:   # the rows read, of count(*)
        nonlocal read_at
        read_at = HASHED + (STAGED - HASHED) * done // max(total, 1)

    class Source:   # a reader of the one "file" the database is (explorer.formats.reader)
        NAME = postgres_source.NAME
        KIND = "records"

        @staticmethod
        def records(_key):
            nonlocal rows, reading
            for record in postgres_source.records(url, read_progress, should_stop,
                                                  ask_password):
                rows += 1
                digest.update(repr((record.line, record.error, record.text,
                                    record.events)).encode("utf-8", "surrogatepass"))
                yield record
            reading = False

    steps.at = HASHED
    earlier = store.frame("file_by_path", path=key).to_dicts()
    try:
        store.run("create_record_rows")
        with bounded_memory(store):
            staged = _typed_rows(store, key, Source, steps)   # type: ignore[arg-type]
            return _commit(store, key, Source, (digest.hexdigest(), rows),  # type: ignore
                           steps, earlier, staged)
    finally:
        for temp in ("parsed", "cand", "dups", "record_rows"):
            store.con.execute(f"DROP TABLE IF EXISTS {temp}").fetchall()


def import_part(store: Db, path: str, name: str, scans: list, seq_given: bool) -> FileReport:
    """Import some rows of one input file (the Spark engine's partition of it, explorer.spark)
    as that file: ``scans`` (explorer.formats.reader: Lines or a TableScan) number each row
    as in the whole file, ``name`` is the file's reader, and ``seq_given`` says whether any
    row of the whole file has ``seq`` (FORMAT.md: if none has, it is assigned in file order,
    each row's ``row_no + 1``; if some have, a row without it is rejected)."""
    class Part:   # a reader of these rows (explorer.formats.reader.ScanReader)
        NAME = name
        KIND = "scan"

        @staticmethod
        def scan(_path, _progress=None):
            return iter(scans)

    steps = Steps(path, None, None)   # type: ignore[arg-type]  (a name, maybe a URL)
    try:
        store.run("create_record_rows")
        staged = _typed_rows(store, path, Part, steps)   # type: ignore[arg-type]
        return _commit(store, path, Part, ("", 0), steps, [], staged,  # type: ignore[arg-type]
                       seq_given=seq_given)
    finally:
        for temp in ("parsed", "cand", "dups", "record_rows"):
            store.con.execute(f"DROP TABLE IF EXISTS {temp}").fetchall()


def _import_bounded(store: Db, path: Path, progress, should_stop) -> FileReport:
    """Import with DuckDB's memory bounded (explorer.store.db.bounded_memory); a file with one
    record too big for the bound (a line of 50 MB) is imported again without it."""
    try:
        with bounded_memory(store):
            return import_file(store, path, progress, should_stop)
    except duckdb.OutOfMemoryException:
        try:
            return import_file(store, path, progress, should_stop)
        except duckdb.OutOfMemoryException as exc:   # the machine's memory, not the bound
            said = str(exc).splitlines()[0][:200] if str(exc) else "out of memory"
            raise LogFileError(path, f"not enough memory to import the file, even without "
                                     f"the import's memory bound (DuckDB: {said})") from exc


def import_file(
    store: Db,
    path: Path,
    progress: ProgressHook | None = None,
    should_stop: StopHook | None = None,
) -> FileReport:
    """Import one file in one transaction; a file already imported with the same content is
    not read again (its report is the stored one, marked ``unchanged``)."""
    path = Path(os.path.abspath(path))
    reader = formats.detect(path)
    steps = Steps(path, progress, should_stop)
    # a folder read whole (explorer.formats.log_files) is one input: its files' sizes summed
    files = formats.log_files(path, reader)
    earlier = store.frame("file_by_path", path=str(path)).to_dicts()
    hashing = None
    hashed = None if files == [path] else files   # a folder: its files, named and sized
    try:
        size = sum(p.stat().st_size for p in files)   # now: a file deleted later has no size
        # Only a file of the size imported last can be unchanged: its hash is needed before
        # it is read. Any other is hashed while it is read (the hash is stored with it).
        if earlier and earlier[0]["status"] == "complete" and earlier[0]["size"] == size:
            digest = steps.file_hash(hashed)
            if earlier[0]["sha256"] == digest:
                report = stored_report(earlier[0])
                report.unknown_types = dict(store.run("file_unknown_types",
                                                      file_id=earlier[0]["file_id"]))
                return report
        else:
            hashing = steps.hash_meanwhile(hashed)
    except OSError as exc:   # gone or locked since detect looked at it
        raise LogFileError(path, formats.os_reason(path, exc)) from exc
    try:
        # Staged into scratch tables before the file's transaction, chunk by chunk in
        # transactions of their own: what one chunk held is freed (or spilled) before the
        # next, so a file of any size stages in bounded memory.
        store.run("create_record_rows")   # filled by agent-format readers (staging.stage)
        staged = _typed_rows(store, path, reader, steps)
        if hashing is not None:
            try:
                digest = hashing.result()
            except OSError as exc:
                raise LogFileError(path, formats.os_reason(path, exc)) from exc
        return _commit(store, path, reader, (digest, size), steps, earlier, staged)
    finally:
        if hashing is not None:
            hashing.cancel()
        for temp in ("parsed", "cand", "dups", "record_rows"):
            store.con.execute(f"DROP TABLE IF EXISTS {temp}").fetchall()  # our scratch tables


def _commit(store: Db, path: Path, reader: Reader, digest: tuple[str, int], steps: Steps,
            earlier: list[dict], staged: tuple[dict[str, str], bool, bool],
            seq_given: bool | None = None) -> FileReport:
    """The file's transaction: forget what an earlier version gave, load what was staged.
    ``digest``: the file's SHA-256 and size, as read before staging; ``seq_given``: whether
    the whole file has seq, when the rows staged are only some of it (:func:`import_part`)."""
    with transaction(store.con):
        for file_id in (row["file_id"] for row in earlier):
            for table in ("event_details", "events", "rejected", "duplicates", "files"):
                store.run(f"forget_file_{table}", file_id=file_id)
        if earlier:
            store.run("clear_conflicts")
            store.run("rebuild_conflicts")
        try:
            report = _load(store, path, reader, digest, steps, *staged[:2], seq_given)
        except duckdb.Error as exc:
            # A file DuckDB reads directly (Parquet) may meet damage only now, past the
            # footer its sniffer checked: that is the file's fault, said as such.
            if not staged[2] or isinstance(exc, duckdb.InterruptException):
                raise
            raise LogFileError(path, f"cannot read the {reader.NAME} file: "
                                     f"{str(exc).splitlines()[0][:300]}") from exc
        bump_data_version(store)
        steps.check()   # the last chance: once the commit runs, the file is in
    steps.hook(1000)(1, 1)
    return report


def _load(store: Db, path: Path, reader: Reader, digest: tuple[str, int], steps: Steps,
          typed: dict[str, str], details: bool, seq_given: bool | None = None) -> FileReport:
    ids = store.one("next_ids")
    file_id = ids["file_id"]
    token_counts.forget_from(store, ids["eid_base"])
    seq = store.one("seq_stats", typed)
    mapped = store.one("record_rows_count")["n"] > 0
    if seq["records"] == 0 and not mapped:
        # what "no records" is in each kind of file: a CSV's header is a line, not a record
        nothing = {"canonical-csv": "a header and no rows",
                   "canonical-parquet": "no rows"}.get(reader.NAME, "no records (only blank lines)")
        raise LogFileError(path, f"the file holds {nothing}")
    assign = seq["given"] == 0 if seq_given is None else not seq_given
    # some rows of a file (import_part) are numbered as in the whole file: row_no + 1 is the
    # row_number() the whole file gives
    order = ("seq" if not assign else "row_number() OVER (ORDER BY row_no)"
             if seq_given is None else "row_no + 1")
    fragments = {**typed, "seq": order}
    find_copies(store, fragments, file_id, ids["eid_base"], steps, assign_seq=assign)
    steps.run(store, INSERTED, "insert_events", fragments,
              eid_base=ids["eid_base"], file_id=file_id, non_cjk=NON_CJK_RE2, assign_seq=assign)
    if details:
        steps.run(store, DETAILED, "insert_event_details", typed, eid_base=ids["eid_base"],
                  assign_seq=assign)
    record_copies(store, steps)
    counts = store.one("file_counts", file_id=file_id)
    if counts["events"] + counts["duplicates"] < seq["records"]:
        steps.run(store, REJECTED, "insert_rejected", typed, file_id=file_id,
                  seq_mixed=not assign)
    report = FileReport(str(path), reader.NAME, events=counts["events"],
                        duplicate_events=counts["duplicates"], seq_assigned=assign)
    if mapped:
        _count_records(store, report, ids["eid_base"])
    else:   # one staged row per record
        report.records = seq["records"]
        report.imported = counts["events"]
        report.duplicates = counts["duplicates"]
        report.rejected = seq["records"] - counts["events"] - counts["duplicates"]
    store.run("insert_file", file_id=file_id, path=str(path), sha256=digest[0],
              size=digest[1], format=reader.NAME, records=report.records,
              imported=report.imported, skipped=report.skipped, rejected=report.rejected,
              duplicates=report.duplicates, events=report.events,
              skipped_by_reason=json.dumps(report.skipped_by_reason, ensure_ascii=False),
              seq_assigned=assign, status="complete")
    report.unknown_types = dict(store.run("file_unknown_types", file_id=file_id))
    return report


def _count_records(store: Db, report: FileReport, eid_base: int) -> None:
    """Fill the record counts of a file staged with its record numbers (record_rows):
    each record is imported, skipped, rejected or a duplicate, as FileReport says."""
    counts = store.one("record_counts", eid_base=eid_base)
    for key in ("records", "imported", "skipped", "rejected", "duplicates"):
        setattr(report, key, counts[key])
    report.skipped_by_reason = dict(store.run("skipped_reasons"))


def find_copies(store: Db, fragments: dict[str, str], file_id: int, eid_base: int,
                steps: Steps, **params) -> None:
    """Find the valid rows about to be inserted (``fragments``: TYPED and the SEQ that
    insert_events.sql gives them, with its ``params``) that repeat an event kept already or
    an earlier row (event_id and content): the table dups, which insert_events.sql and
    insert_event_details.sql leave out. Before the insert, so that no copy is inserted and
    deleted again: a DELETE of rows the transaction appended, even of none, makes DuckDB
    2.0 rewrite every appended row at COMMIT (a 245 MB file: 0.18 s of 2.3 s)."""
    typed = {"typed": fragments["typed"]}
    steps.run(store, (steps.at + DEDUPLICATED) // 2, "candidate_keys", typed)
    if eid_base > 0:   # events kept already (a followed file's own earlier rows among them)
        store.run("candidate_keys_shared", typed)
    steps.run(store, DEDUPLICATED, "find_duplicates", fragments, eid_base=eid_base,
              file_id=file_id, **params)


def record_copies(store: Db, steps: Steps) -> None:
    """Record the copies left out (dups) and the keys now on several kept events, once the
    rows are inserted."""
    for name in ("insert_duplicates", "update_conflicts"):
        steps.run(store, steps.at + 5, name)


def _typed_rows(store: Db, path: Path, reader: Reader,
                steps: Steps) -> tuple[dict[str, str], bool, bool]:
    """The TYPED fragment (typed rows of the whole file, read directly or staged in
    chunks), whether any row can have event details, and whether it is read directly.

    The one place the file's reader runs (and its records are staged): whatever it raises
    but a stop (or DuckDB's memory bound) is the file's failure, said with the reader, the
    place and the exception (:class:`LogFileError`); the file's scratch tables are dropped by
    the caller and its transaction has not begun, so nothing of it stays, and the next file
    goes on."""
    place = _Place()
    chunks = None
    try:
        chunks = _chunks(store, path, reader, steps, place)
        store.run("create_parsed")
        for chunk in chunks:
            if chunk.direct:   # the file's only chunk
                return {"typed": _typed_sql(chunk)}, chunk.may_have_details(), True
            steps.check()
            store.run("insert_parsed", {"typed": _typed_sql(chunk)}, **chunk.params)
    except (LogFileError, Cancelled, duckdb.InterruptException, duckdb.OutOfMemoryException):
        raise   # said already, a stop, or past DuckDB's bound (_import_bounded retries)
    except Exception as exc:
        _log.info("%s: the %s reader failed%s", path, reader.NAME, place, exc_info=True)
        raise LogFileError(path, f"the {reader.NAME} reader failed{place}: "
                                 f"{type(exc).__name__}: {str(exc)[:300]}") from exc
    finally:
        if chunks is not None:
            chunks.close()   # now, not when the traceback goes: worker processes end
    _explain_json_errors(store)
    return {"typed": "SELECT * FROM parsed"}, True, False


class _Place:
    """Where a reader got to: the last record it gave (its number from 1, and its line)."""

    def __init__(self) -> None:
        self.followed = False   # a scan reader's rows are not followed
        self.record = 0
        self.line: int | None = None

    def follow(self, records: Iterable) -> Iterator:
        self.followed = True
        for record in records:
            self.record += 1
            self.line = record.line
            yield record

    def __str__(self) -> str:
        if not self.followed:
            return ""
        if not self.record:
            return " before its first record"
        line = f", line {self.line}" if self.line else ""
        return f" after record {self.record:,}{line}"


def _chunks(store: Db, path: Path, reader: Reader, steps: Steps,
            place: _Place) -> Iterator[Chunk]:
    """The file's chunks: as its reader describes the scan, or its records staged."""
    if reader.KIND == "scan":
        return scanned(store, ahead(partial(reader.scan, path), steps.hook(STAGED)))
    return staging.stage(store, place.follow(reader.records(path)), steps.hook(STAGED))


def _typed_sql(chunk: Chunk) -> str:
    return queries.render("typed_rows", columns=coerce.column_exprs(chunk.types),
                          source=chunk.source, srctext=chunk.srctext)


def open_database(path: str | os.PathLike | None, progress: ProgressHook | None = None) -> tuple[Store, ImportReport | None]:
    """Open (or create) a database; rebuild one of an older schema from its source files."""
    store = Store(path)
    if not store.rebuild_sources:
        return store, None
    missing = [p for p in store.rebuild_sources if not Path(p).exists()]
    present = [p for p in store.rebuild_sources if Path(p).exists()]
    report = import_paths(store, present, progress)
    report.errors.extend(LogFileError(p, "source of the database is gone; not rebuilt")
                         for p in missing)
    return store, report


def _explain_json_errors(store: Db, limit: int = 10_000) -> None:
    """Say where a line's JSON breaks (DuckDB only says that it does); a lone surrogate
    escape, which Python's decoder takes and DuckDB does not, is named with its place."""
    rows = store.run("invalid_json_rows", limit=limit)
    fixes = []
    for row_no, text in rows:
        try:
            json.loads(text)
        except (ValueError, RecursionError) as exc:
            fixes.append({"row_no": row_no, "reason": f"invalid JSON: {exc}"[:200]})
        else:
            if (error := lone_surrogate_error(text)) is not None:
                fixes.append({"row_no": row_no, "reason": f"invalid JSON: {error}"[:200]})
    if fixes:
        store.con.executemany(queries.load("set_reason"), fixes)
