"""The entries of a zip archive (an Inspect AI ``.eval``) read one at a time, each within the
limits (:mod:`explorer.formats.limits`), a damaged one an :class:`EntryError` naming why, so
that one bad entry never costs the others (issue 14, items 3, 6 and 8).

The list of entries comes from the central directory at the end of the archive; an archive
cut short has none (``zipfile`` then refuses it whole), so its local file headers are read
from the start instead, up to the cut: :attr:`Archive.problem` says where it fell. Every
entry's data is inflated here (stored or deflate) with its CRC checked, never read whole
into memory before its size is known to be within the limit.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from typing import NamedTuple

from explorer.formats import limits
from explorer.formats.lines import expansion_error

_LOCAL = b"PK\x03\x04"
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # signature … name length, extra length
_DESCRIPTOR = b"PK\x07\x08"
_CHUNK = 1024 * 1024
_UTF8_NAMES = 0x800
_HAS_DESCRIPTOR = 0x8
_ENCRYPTED = 0x1


class EntryError(Exception):
    """Why one entry cannot be read (damaged, cut short, past a limit)."""


class Member(NamedTuple):
    """One entry: its name, where its data starts, how it is compressed, its sizes and CRC."""

    name: str
    start: int
    method: int
    size: int
    crc: int
    flags: int


class Archive:
    """A zip archive's entries (:attr:`members`), from the central directory or, for an
    archive cut short, from its local headers (then :attr:`problem` says so)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem: str | None = None
        self._inflated = 0
        self._read = 0
        self._bad: dict[str, str] = {}
        self._index: dict[str, Member] | None = None
        try:
            with zipfile.ZipFile(path) as zf:
                infos = zf.infolist()
        except zipfile.BadZipFile:
            self.members = self._scan()
            return
        self.members = []
        with open(path, "rb") as fh:
            for info in infos:
                if info.is_dir():
                    continue
                try:
                    member = self._local(fh, info.header_offset, info.compress_size, info.CRC)
                except EntryError as exc:  # a damaged local header costs its entry only
                    self._bad[info.filename] = str(exc)
                    member = Member(info.filename, 0, -1, 0, 0, 0)
                self.members.append(member._replace(name=info.filename))

    def names(self) -> list[str]:
        return [m.name for m in self.members]

    def read(self, name: str) -> bytes:
        """The data of the entry ``name``; :class:`EntryError` saying why it cannot be read."""
        if self._index is None:
            self._index = {m.name: m for m in self.members}
        member = self._index.get(name)
        if member is None:
            raise EntryError(f"the archive has no entry {name}")
        if name in self._bad:
            raise EntryError(self._bad[name])
        if member.flags & _ENCRYPTED:
            raise EntryError("the entry is encrypted")
        if member.method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise EntryError(f"compression method {member.method} is not supported")
        with open(self.path, "rb") as fh:
            fh.seek(member.start)
            data, _ = self._inflate(fh, member)
        if zlib.crc32(data) != member.crc:
            raise EntryError("the entry is damaged (its CRC does not match its data)")
        return data

    def _local(self, fh, offset: int, size: int, crc: int) -> Member:
        """The member whose local header is at ``offset`` (sizes from the central directory)."""
        fh.seek(offset)
        head = fh.read(_LOCAL_HEADER.size)
        if len(head) < _LOCAL_HEADER.size or head[:4] != _LOCAL:
            raise EntryError(f"no local header at byte {offset}")
        _, _, flags, method, _, _, _, _, _, nlen, xlen = _LOCAL_HEADER.unpack(head)
        name = _name(fh.read(nlen), flags)
        return Member(name, offset + _LOCAL_HEADER.size + nlen + xlen, method, size, crc, flags)

    def _scan(self) -> list[Member]:
        """The entries of an archive without a central directory, from its local headers."""
        out: list[Member] = []
        end = self.path.stat().st_size
        with open(self.path, "rb") as fh:
            pos = 0
            while True:
                fh.seek(pos)
                head = fh.read(_LOCAL_HEADER.size)
                if head[:4] != _LOCAL:
                    if not out:
                        raise zipfile.BadZipFile("no zip entry at its start")
                    if head[:4] == b"PK\x01\x02":
                        self.problem = (f"the archive's central directory is damaged; "
                                        f"{len(out)} entries read from their local headers")
                    elif pos >= end:
                        self.problem = (f"the archive ends early, at byte {end}, after "
                                        f"{len(out)} whole entries (no central directory)")
                    else:
                        self.problem = (f"no entry header at byte {pos} of {end}, after "
                                        f"{len(out)} whole entries (no central directory)")
                    return out
                if len(head) < _LOCAL_HEADER.size:
                    self.problem = f"the archive ends inside an entry header at byte {pos}"
                    return out
                _, _, flags, method, _, _, crc, size, _, nlen, xlen = _LOCAL_HEADER.unpack(head)
                name = _name(fh.read(nlen), flags)
                start = pos + _LOCAL_HEADER.size + nlen + xlen
                member = Member(name, start, method, size, crc, flags)
                try:
                    member, after = self._delimited(fh, member)
                except EntryError as exc:
                    self.problem = f"the archive ends inside the entry {name}: {exc}"
                    return out
                if after > end:
                    self.problem = (f"the archive ends inside the entry {name} (at byte {end}, "
                                    f"its data runs to byte {after})")
                    return out
                out.append(member)
                pos = after

    def _delimited(self, fh, member: Member) -> tuple[Member, int]:
        """The member with its size and CRC, and where the next local header is: after its
        data, or after the data descriptor that follows it (a zip written to a pipe)."""
        if not member.flags & _HAS_DESCRIPTOR:
            return member, member.start + member.size
        if member.method != zipfile.ZIP_DEFLATED:
            raise EntryError("a stored entry with a data descriptor cannot be delimited")
        fh.seek(member.start)
        _, used = self._inflate(fh, member._replace(size=-1), keep=False)
        fh.seek(member.start + used)
        tail = fh.read(16)
        signed = tail[:4] == _DESCRIPTOR  # the descriptor's signature is optional
        fields = tail[4:] if signed else tail[:12]
        if len(fields) < 12:
            raise EntryError("the archive ends inside its data descriptor")
        crc = int.from_bytes(fields[:4], "little")
        return member._replace(size=used, crc=crc), member.start + used + len(fields) + 4 * signed

    def _inflate(self, fh, member: Member, keep: bool = True) -> tuple[bytes, int]:
        """The entry's data from ``fh`` (at its start) and the compressed bytes it took;
        ``size`` -1: until the deflate stream ends. Within the limits, else EntryError."""
        most = limits.current().max_line_bytes
        stored = member.method == zipfile.ZIP_STORED
        inflate = None if stored else zlib.decompressobj(-zlib.MAX_WBITS)
        out: list[bytes] = []
        got = used = 0
        left = member.size
        while left != 0:
            data = fh.read(_CHUNK if left < 0 else min(_CHUNK, left))
            if not data:
                raise EntryError(f"the entry is cut short after {used} of its bytes")
            left -= len(data) if left > 0 else 0
            while data:
                if inflate is None:
                    piece, rest = data, b""
                else:
                    try:
                        piece = inflate.decompress(data, _CHUNK)
                    except zlib.error as exc:
                        raise EntryError(f"the entry's compressed data is damaged ({exc})") from exc
                    rest = inflate.unconsumed_tail
                used += len(data) - len(rest) - (len(inflate.unused_data) if inflate else 0)
                got += len(piece)
                self._inflated += len(piece)
                self._read += len(data) - len(rest)
                if got > most:
                    raise EntryError(limits.past("max_line_bytes", "entry larger than"))
                over = expansion_error(self._inflated, self._read)
                if over:
                    raise EntryError(over)
                if keep:
                    out.append(piece)
                data = rest
                if inflate is not None and inflate.eof:
                    return b"".join(out), used
        if inflate is not None and not inflate.eof:
            raise EntryError("the entry's compressed data ends early")
        return b"".join(out), used


def _name(raw: bytes, flags: int) -> str:
    return raw.decode("utf-8" if flags & _UTF8_NAMES else "cp437", "replace")
