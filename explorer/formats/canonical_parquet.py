"""Canonical events as Parquet: columns named as in FORMAT.md, read by DuckDB in place."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from explorer.formats.reader import FileScan
from explorer.jobs import ProgressHook

NAME = "canonical-parquet"
#: A binary format: the text sniffers never look at it (explorer.formats.detect).
BINARY = True
KIND = "scan"  # explorer.formats.reader.ScanReader


def matches(path: Path, head: bytes) -> bool:
    return head.startswith(b"PAR1")


def scan(path: Path, progress: ProgressHook | None = None) -> Iterator[FileScan]:
    """The whole file, scanned by DuckDB in parallel at each step of the import."""
    yield FileScan(path, "read_parquet", "Parquet")
