"""The reader contract: what a module of :mod:`explorer.formats` gives, and what it gives it as.

A reader is a module listed in :data:`explorer.formats.registry.READERS`. It never holds a
database connection: it reads its file and describes what it found; :mod:`explorer.ingest`
alone stages that in DuckDB, types it, and accounts for every record.

There are two kinds. A :class:`RecordReader` (the agent-tool formats of LOG-FORMATS.md)
maps each record of its file to canonical events in Python. A :class:`ScanReader` (the
canonical formats of FORMAT.md: JSON Lines, CSV, Parquet) describes how DuckDB reads the
file (:data:`Scan`), so that those go through DuckDB at its speed. ``KIND`` says which a
module is (ingest reads the file accordingly); tests/test_reader_protocol.py checks that
every reader of the registry is what its ``KIND`` says.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Literal, Protocol, runtime_checkable

from explorer.formats.record import Record
from explorer.jobs import ProgressHook


@runtime_checkable
class RecordReader(Protocol):
    """A format whose records Python maps to canonical events.

    ``KIND``: ``"records"``. ``NAME``: the format's name, shown in reports and stored with
    each file. ``BINARY``: whether its files can be binary containers (Inspect AI's .eval
    zip); the others are never shown a file that starts with a binary magic number.
    ``matches(path, head)``: whether the file is in this format, judged from ``head`` (its
    first 64 KB, gzip inflated) by content, the extension only as a tie-breaker; the first
    reader of the registry to take a file reads it. ``records(path)``: one :class:`Record`
    per record of the file, in file order (a line, an array element, a cassette
    interaction), each with its events, or why it was rejected or skipped; it raises
    :class:`~explorer.formats.LogFileError` for a whole file that cannot be read.
    Optional: ``folder_files(path)``, the files of a folder the reader reads whole as one
    log ([] for any other folder; OpenHands V1's ``event-*.json``): that folder is then one
    input, its size, hash and ``files`` row its files' (explorer.formats.log_files).
    """

    KIND: Literal["records"]
    NAME: str
    BINARY: bool

    def matches(self, path: Path, head: bytes) -> bool: ...

    def records(self, path: Path) -> Iterator[Record]: ...


@runtime_checkable
class ScanReader(Protocol):
    """A canonical format DuckDB reads. ``KIND``: ``"scan"``; ``NAME``, ``BINARY`` and
    ``matches`` as for a :class:`RecordReader`. ``scan(path, progress)`` describes the
    file as one :class:`FileScan` (DuckDB reads it in place) or as successive blocks of
    :class:`Lines` or :class:`Rows` (ingest stages one block at a time, so memory stays
    bounded), calling ``progress(done, total)`` as it goes; it raises
    :class:`~explorer.formats.LogFileError` for a whole file that cannot be read (a CSV
    header without the required columns).
    """

    KIND: Literal["scan"]
    NAME: str
    BINARY: bool

    def matches(self, path: Path, head: bytes) -> bool: ...

    def scan(self, path: Path, progress: ProgressHook | None = None) -> Iterator[Scan]: ...


Reader = RecordReader | ScanReader

#: Columns without which no row of a canonical file can be imported (FORMAT.md).
REQUIRED = ("session_id", "kind")


def missing_columns(names) -> str:
    """The required columns absent from ``names``, said as ``a`` or ``a or b``; "" if none."""
    return " or ".join(n for n in REQUIRED if n not in set(names))


@dataclass(frozen=True)
class FileScan:
    """The whole file, scanned in place by the DuckDB table function ``function`` (with
    ``file_row_number``) at every step of the import: nothing is staged. Its columns and
    their types are the file's own; ingest asks DuckDB for them and refuses a file without
    the required ones (FORMAT.md). ``label`` names the format in errors (``Parquet``)."""

    path: Path
    function: str
    label: str


@dataclass
class Lines:
    """A block of records as JSON text, one object per row, which DuckDB parses against the
    canonical columns; ingest numbers the rows in order across the file.

    ``line``, ``text`` and ``err`` hold each row's line number, text and (when the reader
    already knows it is rejected) reason. ``salvage``, given the rows DuckDB finds suspect
    (index in the block -> whether the text is valid JSON), returns the block to stage
    instead: records glued on one line split, a torn last line named as such.
    """

    line: list[int]
    text: list[str | None]
    err: list[str | None]
    salvage: Callable[[dict[int, bool]], Lines] | None = None


@dataclass
class Rows:
    """A block of records already split into fields (CSV): per row its ``row_no`` (from 0
    across the file), ``line``, ``err`` and ``src_rec`` (the record as text); ``columns``
    holds the text of each canonical column the file has (None for no value); ``extra``
    says whether a record can hold fields outside the format."""

    row_no: list[int]
    line: list[int]
    err: list[str | None]
    src_rec: list[str | None]
    columns: dict[str, list[str | None]]
    extra: bool


Scan = FileScan | Lines | Rows
