"""One Spark task's work: its rows imported into an in-memory store by Turnscope's own ingest,
and the command's figures computed on that store by the very code of one machine.

No pyspark here: a task hands :func:`run` its rows as one Arrow table (the columns of
:data:`INTERNAL` and, for Parquet inputs, the file's own columns) and gets back a plain dict
the driver adds up (explorer.spark.totals). Tests call it without Spark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.compute as pc

import queries
from explorer.audits import counts as audits
from explorer.audits import identity
from explorer.compaction import CompactionSettings, SessionLog, transforms
from explorer.compaction.sweep import sweep
from explorer.formats import LogFileError, limits
from explorer.formats.reader import Lines, TableScan
from explorer.ingest.imports import import_part
from explorer.model import CostSettings, Order
from explorer.providers.session_check import check_session
from explorer.providers.sweep_figures import rejected_figures
from explorer.session.reported_usage import corpus_usage
from explorer.store.db import Store
from explorer.tokens.session_events import session_events

#: The columns every row carries: its partition key (the storage key as written), its
#: file (its URI as Spark names it), its record number in that file (from 0), its line
#: number, and a JSON Lines record's text (null for a Parquet row).
KEY, PATH, ROW, LINE, TEXT = "__ts_key", "__ts_path", "__ts_row", "__ts_line", "__ts_text"
INTERNAL = (KEY, PATH, ROW, LINE, TEXT)
#: The file's index in the order the inputs were given (added by the task).
FILE = "__ts_file"
#: The readers whose files the Spark engine reads (FORMAT.md's canonical formats).
JSONL, PARQUET = "canonical-jsonl", "canonical-parquet"
#: How many rejected lines a task reports with their reason (the driver says the first).
REJECTED_SHOWN = 5


@dataclass(frozen=True)
class Input:
    """One input file: its path as given (shown in reports), its URI as Spark reads it, its
    reader, and whether any of its rows has ``seq`` (FORMAT.md: else seq is assigned in file
    order)."""

    path: str
    uri: str
    reader: str
    seq_given: bool


@dataclass(frozen=True)
class Job:
    """What every task computes: the command and its settings (pickled to the workers)."""

    commands: tuple[str, ...]          # audit, sweep, validate: each computed by every task
    inputs: tuple[Input, ...]
    orders: tuple[str, ...] = ("seq",)   # the figures of each (FORMAT.md's orders)
    costs: CostSettings = field(default_factory=CostSettings)
    settings: CompactionSettings = field(default_factory=CompactionSettings)
    limits: limits.Limits = field(default_factory=limits.current)
    strategies: tuple[str, ...] = ()   # sweep
    budgets: tuple[int, ...] = ()      # sweep
    providers: tuple[str, ...] = ()    # sweep (rejected_<provider>) and validate
    strategy: str | None = None        # validate
    budget: int = 4000                 # validate


def run(table: pa.Table, job: Job) -> dict:
    """The figures of this task's rows (every session of them whole): the files' accounting,
    their failures, the first rejected lines, and the command's own figures."""
    limits.configure(job.limits)
    index = {normalized(source.uri): i for i, source in enumerate(job.inputs)}
    paths = pc.dictionary_encode(table.column(PATH)).combine_chunks()   # a few files' URIs
    known = pa.array([index[normalized(p)] for p in paths.dictionary.to_pylist()], pa.int64())
    table = table.drop_columns([PATH]).append_column(FILE, known.take(paths.indices))
    store = Store(None)
    try:
        errors = _import(store, table, job)
        out: dict = {"files": _files(store, job), "errors": errors,
                     "rejected_lines": [list(r) for r in store.run("rejected_lines",
                                                                   limit=REJECTED_SHOWN)]}
        first = list(_first_rows(store, job))
        out["orders"] = {order: _figures(store, job, Order(order), first)
                         for order in job.orders}
        return out
    finally:
        store.close()


def _import(store: Store, table: pa.Table, job: Job) -> list[dict]:
    """Import the rows of each input file, in the order the inputs were given, each as that
    file (explorer.ingest.imports.import_part); a file that cannot be read is an error."""
    errors = []
    files = table.column(FILE)
    for index in sorted(set(files.to_pylist())):
        part = table.filter(pc.equal(files, index)).sort_by(ROW)
        source = job.inputs[index]
        try:
            import_part(store, source.path, source.reader, _scans(store, part, source, index),
                        source.seq_given)
        except LogFileError as exc:
            errors.append({"file": index, "path": exc.path, "reason": exc.reason})
        finally:
            if source.reader == PARQUET:
                store.con.unregister(_table_name(index))
    return errors


def normalized(uri: str) -> str:
    """A file's URI as one string whatever way Spark writes it (``file:/x``, ``file:///x``,
    percent-escaped or not)."""
    uri = unquote(uri)
    if uri.startswith("file:"):
        return "file:///" + uri[5:].lstrip("/")
    return uri


def _table_name(index: int) -> str:
    return f"spark_part_{index}"


def _scans(store: Store, part: pa.Table, source: Input, index: int) -> list:
    """The rows of one file as its reader's scan would give them, numbered as in the file."""
    if source.reader == JSONL:
        lines = part.column(LINE).to_numpy()
        texts = [_record_text(text, line) for text, line in
                 zip(part.column(TEXT).to_pylist(), lines.tolist())]
        return [Lines(lines.tolist(), texts, [None] * len(texts),
                      row_no=part.column(ROW).to_numpy())]
    own = part.drop_columns([KEY, FILE, LINE, TEXT])
    own = own.rename_columns(["file_row_number" if n == ROW else n for n in own.column_names])
    store.con.register(_table_name(index), own)
    return [TableScan(_table_name(index), source.path, "Parquet")]


def _record_text(text: str | None, line: int) -> str | None:
    """A line as the JSON Lines reader stages it: without its CR, line 1 without its BOM."""
    if text is None:
        return None
    text = text.removesuffix("\r")
    return text.removeprefix("\ufeff") if line == 1 else text


def _files(store: Store, job: Job) -> list[dict]:
    """Each input file's accounting of the rows of it this task read."""
    index = {source.path: i for i, source in enumerate(job.inputs)}
    return [{**row, "file": index[row["path"]]} for row in store.frame("list_files").to_dicts()]


def _figures(store: Store, job: Job, order: Order, first: list[tuple]) -> dict:
    """The commands' figures in one order."""
    out = {}
    if "audit" in job.commands:
        out["audit"] = _audit(store, job, order)
    if "sweep" in job.commands and first:
        out["sweep"] = _sweep(store, job, order)
    if "validate" in job.commands and first:
        out["validate"] = _validate(store, job, order, first)
    return out


def _audit(store: Store, job: Job, order: Order) -> dict:
    counts = audits.corpus_counts(store, order, job.costs)
    counts.update(identity.identity(store)[0])
    cur = store.con.execute(queries.render("corpus_usage_raws"))
    usage = corpus_usage(tuple(row) for rows in iter(lambda: cur.fetchmany(10_000), [])
                         for row in rows)
    return {"counts": counts, "usage": usage}


def _sweep(store: Store, job: Job, order: Order) -> list[dict]:
    more = rejected_figures(job.providers) if job.providers else None
    return sweep(store, job.strategies, job.budgets, order, job.costs, job.settings,
                 more=more)


def _validate(store: Store, job: Job, order: Order, first_rows: list[tuple]) -> list[dict]:
    """Each session's verdicts, with where its first event is (input, line) for the driver to
    put the sessions in input order."""
    first = {name: (file_index, line) for name, file_index, line in first_rows}
    out = []
    for (name,) in store.run("sessions_in_input_order"):
        frame = session_events(store, name, order, job.costs, texts=False)
        log = SessionLog.from_frame(name, frame)
        if job.strategy is not None:
            log = transforms.for_log(store, log, job.settings, job.costs)
        found = check_session(log, job.providers, job.strategy, job.budget, job.settings)
        out.append({"session_id": name, "first": first[name],
                    "verdicts": [[provider, [v.as_dict() for v in vs]]
                                 for provider, vs in found.items()]})
    return out


def _first_rows(store: Store, job: Job):
    index = {source.path: i for i, source in enumerate(job.inputs)}
    for name, path, line in store.run("session_first_rows"):
        yield name, index[path], line
