"""The DuckDB store: owns the connection, keeps the schema, runs named queries.

The database is a cache of the logs: it records which files it was built from, and when
its schema version is older than this code's, it is rebuilt from those files
(:func:`explorer.ingest.imports.open_database`) instead of being migrated or misread. One written by
a newer Turnscope, one held by another process, a damaged one (:mod:`explorer.store.damage`)
and any DuckDB database Turnscope does not recognise as its own
(:mod:`explorer.store.recognition`) are refused untouched with a :class:`StoreError` that says
so; imports a stopped process left unfinished are named in :attr:`Store.unfinished` (see
:mod:`explorer.store.durability`).
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

import duckdb
import polars as pl

import queries
from explorer.store import damage, durability, recognition
from explorer.store.transaction import transaction

#: Bump whenever a table, column or stored meaning changes.
SCHEMA_VERSION = 4   # 4: event_details parent_session, parent_call, note (FORMAT.md)

_SCHEMA = (
    "create_kind_type", "create_meta", "create_files", "create_events", "create_rejected",
    "create_event_details", "create_duplicates", "create_conflicts",
    "create_imports_in_progress",
)
_MACROS = (
    "create_macro_txt_int", "create_macro_num_int", "create_macro_txt_bool",
    "create_macro_txt_ts", "create_macro_kind_of",
)
#: Derived tables cached in the database (explorer.audits.cache, explorer.audits.findings_cache,
#: explorer.tokens.counts, explorer.search.index).
_CACHE_PREFIXES = ("audit_", "findings_", "tokens_", "search_")
_TABLES = ("events", "event_details", "rejected", "duplicates", "conflicts", "files", "meta",
           "imports_in_progress")


class StoreError(Exception):
    """A database that cannot be used as it is (newer schema, locked, damaged, another
    program's)."""


#: The rows :meth:`Db.frame_in_blocks` fetches at a time (DuckDB's own result chunks hold
#: about 125,000).
BLOCK_ROWS = 131_072


class Db:
    """Named-query access over one DuckDB connection (one per thread)."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.con.execute("SET TimeZone = 'UTC'")
        # DuckDB's Python client prints a progress bar on stdout for statements over 2 s:
        # it would land in `turnscope audit --json` output (run_watched reads the progress).
        self.con.execute("SET enable_progress_bar_print = false")

    def run(self, name: str, fragments: dict[str, str] | None = None, **params: Any) -> list[tuple]:
        """Run the statement ``name`` and fetch every row it returns."""
        return self.con.execute(queries.render(name, **(fragments or {})), params or None).fetchall()

    def frame(self, name: str, fragments: dict[str, str] | None = None, **params: Any) -> pl.DataFrame:
        """Run the query ``name`` and return its result as a polars frame."""
        return self.con.sql(queries.render(name, **(fragments or {})), params=params or None).pl()

    def frame_in_blocks(self, name: str, fragments: dict[str, str] | None = None, *,
                        each: Callable[[pl.DataFrame], pl.DataFrame],
                        rows: int = BLOCK_ROWS, **params: Any) -> pl.DataFrame:
        """:meth:`frame`, its rows fetched ``rows`` at a time, each block passed through
        ``each`` before the next is fetched (the result read to its end before it returns):
        what ``each`` makes smaller is never held whole as it was read."""
        reader = self.con.sql(queries.render(name, **(fragments or {})),
                              params=params or None).to_arrow_reader(rows)
        blocks = [each(pl.from_arrow(batch)) for batch in reader]
        if not blocks:
            return each(pl.from_arrow(reader.schema.empty_table()))
        return pl.concat(blocks, rechunk=False)

    def one(self, name: str, fragments: dict[str, str] | None = None, **params: Any) -> dict:
        """Run ``name`` and return its single row as a dict."""
        cur = self.con.execute(queries.render(name, **(fragments or {})), params or None)
        row = cur.fetchone()
        cols = [d[0] for d in cur.description]
        cur.fetchall()
        return dict(zip(cols, row)) if row is not None else {}

    def close(self) -> None:
        self.con.close()


class Store(Db):
    """The owning connection of one database, in memory or in a file.

    ``rebuild_sources`` lists the files an out-of-date database was built from; the
    caller imports them again (see :func:`explorer.ingest.imports.open_database`). ``unfinished``
    lists the files whose import a stopped process left unfinished (not in the database;
    :func:`explorer.store.durability.unfinished_message` says so to the user).
    """

    def __init__(self, path: str | os.PathLike | None = None, *,
                 memory_limit: str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        try:
            con = duckdb.connect(str(self.path) if self.path else ":memory:")
        except duckdb.IOException as exc:
            raise StoreError(_open_error(self.path, exc)) from exc
        except duckdb.Error as exc:
            raise StoreError(damage.database_problem(self.path, exc)
                             or f"{self.path}: not a Turnscope database ({exc})") from exc
        super().__init__(con)
        # DuckDB's allocator hands freed memory back to the system soon after each task
        # instead of keeping it for the next (issue 13: reading a session of 3M events
        # peaked 300 MB higher with the defaults, a 128 MB threshold and no purging thread).
        self.con.execute(ALLOCATOR_SETTINGS).fetchall()
        if self.path is None:
            # An in-memory database spills to disk past its memory limit: not into the cwd.
            spill = Path(tempfile.gettempdir()) / f"turnscope-spill-{os.getpid()}"
            self.con.execute("SET temp_directory = $dir", {"dir": str(spill)})
        if memory_limit:
            self.con.execute("SET memory_limit = $limit", {"limit": memory_limit})
        self.rebuild_sources: list[str] = []
        self.unfinished: list[str] = []
        try:
            self._check_schema()
        except BaseException as exc:
            self.con.close()  # a refused database is not kept open (nor locked) until GC
            if isinstance(exc, (duckdb.Error, ValueError)):
                raise StoreError(damage.database_problem(self.path, exc) or
                                 f"{self.path}: not a usable Turnscope database ({exc})") from exc
            raise

    def cursor(self) -> Db:
        """A connection for another thread, sharing this database."""
        return Db(self.con.cursor())

    def interrupt(self) -> None:
        """Cancel the query running on the owning connection."""
        self.con.interrupt()

    def _check_schema(self) -> None:
        tables = recognition.table_names(self.run("all_table_names"))
        marked = bool(tables) and self._marked(tables)
        if tables and not marked and not recognition.is_earlier_schema(tables):
            raise StoreError(recognition.refusal(self.path, tables))   # before any write
        if "meta" in tables:
            found = self.one("get_meta", key="schema_version").get("value")
            version = int(found) if found is not None else 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path}: written by a newer Turnscope (schema {version}, this one "
                    f"reads {SCHEMA_VERSION}); open it with that version or import the logs again"
                )
            if version == SCHEMA_VERSION:
                self.run("create_imports_in_progress")  # a database made before it existed
                if not marked:   # written before the marker existed: adopted
                    self.run("set_meta", key=recognition.MARKER_KEY,
                             value=recognition.MARKER_VALUE)
                self._create_macros()
                durability.forget_finished(self)
                self.unfinished = durability.unfinished_imports(self)
                return
        self._read_old(tables)
        # One transaction: a process stopped half way leaves the old database or the new one.
        with transaction(self.con):
            self._drop_old(tables)
            for name in _SCHEMA:
                self.run(name)
            # A rebuild stopped before it imported these will name them as unfinished.
            durability.mark_started(self, [
                *self.unfinished, *(p for p in self.rebuild_sources if Path(p).exists())])
            self.run("set_meta", key=recognition.MARKER_KEY, value=recognition.MARKER_VALUE)
            self.run("set_meta", key="schema_version", value=str(SCHEMA_VERSION))
        self._create_macros()

    def _marked(self, tables: set[str]) -> bool:
        """Whether ``meta`` holds the marker only Turnscope writes (a ``meta`` of another
        shape is another program's)."""
        if "meta" not in tables:
            return False
        try:
            found = self.one("get_meta", key=recognition.MARKER_KEY).get("value")
        except duckdb.Error:
            return False
        return found == recognition.MARKER_VALUE

    def _read_old(self, tables: set[str]) -> None:
        """Remember an older schema's source files and unfinished imports (read before the
        rebuild's transaction: a failed read there would abort it)."""
        if "files" in tables:
            try:
                rows = self.con.execute("SELECT path FROM files ORDER BY file_id").fetchall()
                self.rebuild_sources = list(dict.fromkeys(r[0] for r in rows))
            except duckdb.Error:
                self.rebuild_sources = []
        if "imports_in_progress" in tables:
            try:
                self.unfinished = durability.unfinished_imports(self)
            except duckdb.Error:
                self.unfinished = []

    def _drop_old(self, tables: set[str]) -> None:
        """Forget an older schema's tables."""
        caches = {t for t in tables if t.startswith(_CACHE_PREFIXES)}
        for table in (*_TABLES, *sorted(caches)):
            if table in tables:
                self.con.execute(f"DROP TABLE {table}")  # our own names only
        self.con.execute("DROP TYPE IF EXISTS kind_t")

    def _create_macros(self) -> None:
        for name in _MACROS:
            self.run(name)


#: How often a watched statement's progress and stop flag are polled.
WATCH_POLL_SECONDS = 0.05


def run_watched(db: Db, sql: str, params: dict, progress: Callable[[int, int], None] | None,
                should_stop: Callable[[], bool] | None) -> list[tuple]:
    """Run one statement on ``db`` (a connection of its own) and fetch its rows, while a
    watcher thread reports DuckDB's progress of it as ``progress(done, 1000)`` and, once
    ``should_stop()`` turns true, interrupts it (again at each poll: an interrupt sent
    before the statement starts is lost). The interrupted statement raises ``duckdb.InterruptException``."""
    if progress is None and should_stop is None:
        return db.con.execute(sql, params).fetchall()
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_POLL_SECONDS):
            if should_stop and should_stop():
                db.con.interrupt()
                continue
            if progress:
                percent = db.con.query_progress()
                if percent >= 0:
                    progress(min(int(percent * 10), 999), 1000)

    # DuckDB tracks a statement's progress only with its progress bar on (never printed:
    # Db turned its printing off).
    db.con.execute("SET enable_progress_bar = true")
    watcher = threading.Thread(target=watch, name="statement-watch", daemon=True)
    watcher.start()
    try:
        rows = db.con.execute(sql, params).fetchall()
    finally:
        done.set()
        watcher.join()
    # Not after a failure: in the aborted transaction a RESET would raise and hide why the
    # statement failed (the setting, never printed, then stays on this worker's cursor).
    db.con.execute("RESET enable_progress_bar")
    return rows


#: The memory DuckDB may use while a file is imported; past it, it spills to its temp
#: directory, so a file of any size imports in bounded memory (issue 6: a 2 GB file).
#: At 512 MiB a 200 MB Codex file spilled while its event details (the records' raw, about
#: the file's size) were written: insert_event_details 0.96 s, 0.34 s at 1 GiB.
IMPORT_MEMORY = 2**30
#: DuckDB's allocator: flushed after any task that allocated 16 MB, and purged by a thread
#: of its own (a process's peak memory follows what its queries use, not what they used).
ALLOCATOR_SETTINGS = ("SET allocator_flush_threshold = '16MB'; "
                      "SET allocator_background_threads = true")

_UNITS = {"bytes": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


@contextmanager
def bounded_memory(db: Db, limit: int = IMPORT_MEMORY):
    """Lower DuckDB's memory limit to ``limit`` bytes for the block (never raise it: a
    lower limit the user set stays), and restore it after. The limit is the database's,
    so queries running meanwhile on other cursors share it."""
    current = db.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    number, unit = (str(current).split() + ["bytes"])[:2]
    try:
        before = float(number) * _UNITS.get(unit.lower(), 1)
    except ValueError:
        before = float("inf")
    if before <= limit:
        yield
        return
    db.con.execute(f"SET memory_limit = '{int(limit)}B'").fetchall()   # an integer of ours
    try:
        yield
    finally:   # the default, or else DuckDB's own words for the limit it had ("18.8 GiB")
        db.con.execute("RESET memory_limit").fetchall()
        if db.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] != current:
            db.con.execute(f"SET memory_limit = '{number} {unit}'").fetchall()


def data_version(db: Db) -> int:
    """A number that changes whenever the events change (each file imported): what caches
    of derived tables (the audit table, the findings) are keyed by."""
    found = db.one("get_meta", key="data_version").get("value")
    return int(found) if found is not None else 0


def bump_data_version(db: Db) -> None:
    """Record that the events changed (inside the import's transaction)."""
    db.run("set_meta", key="data_version", value=str(data_version(db) + 1))


def _open_error(path: Path | None, exc: Exception) -> str:
    text = str(exc)
    # DuckDB's words for a lock another process holds, looked for outside the path it quotes
    # (a path holding "lock", clock.db, is not a lock conflict).
    said = text.replace(str(Path(path).resolve()), "").replace(str(path), "") if path else text
    if _LOCK_CONFLICT in said:
        # DuckDB lets one process write a file; while it does, no other may even read it.
        pid = re.search(r"\(PID (\d+)\)", said)
        holder = f"process {pid.group(1)}" if pid else "another process"
        return (f"{path}: the database is in use by {holder} (another Turnscope, or DuckDB); "
                "close it there, or open another database file")
    return damage.database_problem(path, exc) or f"{path}: cannot open the database ({text})"


#: How DuckDB (local_file_system.cpp) says another process holds the file's lock:
#: 'Could not set lock on file "<path>": Conflicting lock is held in <program> (PID <n>)'.
_LOCK_CONFLICT = "Conflicting lock is held in"
