"""Readers of input files: which format a file is in (:func:`detect`).

What a reader module holds is written once, in :mod:`explorer.formats.reader`; the readers
tried, in order, are :data:`explorer.formats.registry.READERS`.
"""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.text_escape import visible

if TYPE_CHECKING:
    from explorer.formats.reader import Reader

_log = logging.getLogger(__name__)
_HEAD = 64 * 1024
_BINARY_MAGIC = {
    b"\x89PNG": "a PNG image",
    b"\xff\xd8\xff": "a JPEG image",
    b"GIF8": "a GIF image",
    b"%PDF": "a PDF document",
    b"PK\x03\x04": "a ZIP archive",
    b"SQLite format 3": "an SQLite database",
    b"\x7fELF": "an executable",
    b"PAR1": "a Parquet file",   # read only by readers of binary files (canonical Parquet)
}


class LogFileError(Exception):
    """A whole file that cannot be read as a session log; says which file and why."""

    def __init__(self, path: str | Path, reason: str) -> None:
        # one line, whatever the name holds (explorer.text_escape): a newline in a file
        # name cannot start a message line of its own
        super().__init__(visible(f"{path}: {reason}"))
        self.path = str(path)
        self.reason = reason


def shown_path(path: str | os.PathLike) -> str:
    """The path as text that can be printed and stored: a file name that is not UTF-8 keeps
    its odd bytes as escapes (``\\xff.jsonl``)."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def check_name(path: Path) -> None:
    """Refuse a file whose name is not UTF-8: DuckDB stores paths as UTF-8 text only."""
    if shown_path(path) != str(path):
        raise LogFileError(shown_path(path), "the file name is not valid UTF-8; rename the "
                                             "file to import it")


def check_regular(path: Path) -> os.stat_result:
    """The file's status, or :class:`LogFileError` saying why it is not a file to read
    (missing, a loop of symbolic links, not permitted, a folder, a FIFO or device)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise LogFileError(path, os_reason(path, exc)) from exc
    if stat.S_ISDIR(st.st_mode):
        raise LogFileError(path, "is a folder, not a log file")
    if not stat.S_ISREG(st.st_mode):
        # Not opened: reading a FIFO would wait for a writer, /dev/zero never ends.
        raise LogFileError(path, f"not a regular file ({_kind(st.st_mode)}); not read")
    return st


def os_reason(path: Path, exc: OSError) -> str:
    """Why the system would not let ``path`` be read, in words."""
    if exc.errno == errno.ELOOP:
        return "a symbolic link loop (the link leads back to itself)"
    if exc.errno == errno.ENOENT:
        return ("a symbolic link to a missing file" if path.is_symlink() else "no such file")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return f"cannot be read ({exc.strerror or exc})"


def _kind(mode: int) -> str:
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a file"


def read_head(path: Path) -> bytes:
    """The first bytes of a file, decompressed when it is gzip (as much as can be: a cut or
    damaged stream gives what came before the damage; the reader reports the damage)."""
    with open(path, "rb") as fh:
        head = fh.read(_HEAD)
    if head[:2] != b"\x1f\x8b":
        return head
    from explorer.formats import inflate  # it imports this package (LogFileError)

    with open(path, "rb") as fh:
        out, problem = b"", None
        try:
            for piece in inflate.gunzip(fh, _HEAD):
                out += piece
                if len(out) >= _HEAD:
                    break
        except inflate.Cut as exc:
            problem = str(exc)
    if not out and problem and "damaged" in problem:
        raise LogFileError(path, f"not a readable gzip file ({problem})")
    if not out and problem:
        raise LogFileError(path, "a truncated gzip file: it ends before any of its text")
    if not out:
        raise LogFileError(path, "the file is empty (a gzip file holding no text)")
    return out[:_HEAD]


def folder_reader(path: Path) -> Reader | None:
    """The reader that takes the folder ``path`` whole as one log (a reader with
    ``folder_files``: OpenHands V1's folder of ``event-*.json`` files), or None."""
    from explorer.formats.registry import READERS  # the readers import this package

    try:
        if not path.is_dir():
            return None
        return next((r for r in READERS if getattr(r, "folder_files", None)
                     and r.folder_files(path)), None)
    except OSError:
        return None


def log_files(path: Path, reader: Reader) -> list[Path]:
    """The files one input is made of: the file itself, or the files of a folder its
    reader takes whole (sorted by name). Its size, hash and staging are theirs."""
    if getattr(reader, "folder_files", None) and path.is_dir():
        return sorted(reader.folder_files(path), key=lambda p: p.name)
    return [path]


def detect(path: Path) -> Reader:
    """The reader module for ``path``, or :class:`LogFileError` saying why there is none.
    A folder is a log when a reader takes it whole (:func:`folder_reader`)."""
    from explorer.formats.registry import READERS  # the readers import this package

    if (whole := folder_reader(path)) is not None:
        return whole
    if check_regular(path).st_size == 0:
        raise LogFileError(path, "the file is empty")
    try:
        head = read_head(path)
    except OSError as exc:
        raise LogFileError(path, os_reason(path, exc)) from exc
    magic = next((what for m, what in _BINARY_MAGIC.items() if head.startswith(m)), None)
    if magic is None and is_utf16(head):
        raise LogFileError(path, "UTF-16 text: convert it to UTF-8 (for example "
                                 "iconv -f UTF-16 -t UTF-8)")
    for reader in READERS:
        if (magic is None or reader.BINARY) and _matches(reader, path, head):
            return reader  # a binary container only for a reader of one (Inspect's .eval zip)
    if magic is not None:
        raise LogFileError(path, f"not a session log: the file is {magic}")
    if not head.strip():
        raise LogFileError(path, "the file holds only blank lines")
    if b"\x00" in head:
        raise LogFileError(path, "not a session log: the file holds binary data")
    tried = ", ".join(reader.NAME for reader in READERS)
    raise LogFileError(path, f"not a recognised log format (tried: {tried}; see FORMAT.md "
                             "and LOG-FORMATS.md)")


def is_utf16(head: bytes) -> bool:
    """Whether a file's first bytes are UTF-16 text: its byte-order mark, or (none written)
    the NUL of every other byte that Latin text in UTF-16 has, on one side of each pair."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return not head.startswith(b"\xff\xfe\x00\x00")  # that is UTF-32's mark
    pairs = len(head) // 2
    if pairs < 2:
        return False
    even, odd = head[0:pairs * 2:2].count(0), head[1:pairs * 2:2].count(0)
    return max(even, odd) >= 0.9 * pairs and min(even, odd) == 0


def _matches(reader: Reader, path: Path, head: bytes) -> bool:
    """Whether ``reader`` takes the file; a head nested too deep for Python's json to
    sniff (RecursionError), or one its sniffer fails on (a value of a type it did not
    expect: a bug, logged), is not taken by that reader: the next reader may read it."""
    try:
        return reader.matches(path, head)
    except RecursionError:
        return False
    except Exception:   # noqa: BLE001 - any sniffer's bug: logged, the file goes on
        _log.info("%s: the %s reader's sniffer failed", path, reader.NAME, exc_info=True)
        return False
