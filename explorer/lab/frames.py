"""``lab frames`` (LAB.md): newline-delimited JSON against length prefix + CRC-32.

N records are written twice, as JSON Lines and as frames (:mod:`explorer.formats.frames`);
both files are damaged the same way (a torn tail, a tail torn before the closing brace, a
restarted writer interleaving) and read back by three readers: a lax line reader (split
lines, pick fields out), a strict line reader (each line valid JSON of the format) and the
frame reader (length and CRC). Every figure counts against the records written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from explorer.formats import frames
from explorer.jobs import check

DAMAGES = ("tail", "tail-brace", "interleaved")
READERS = ("lax-lines", "strict-lines", "frames")
DEFAULT_KS = (26_000, 94_000, 158_000)
#: The fields the lax reader picks out of a line (FORMAT.md's required ones and seq).
_FIELD = {name: re.compile(rb'"%s":' % name.encode()) for name in ("session_id", "kind", "seq")}
#: The keys of ``lab frames --json``, per row.
KEYS = ("damage", "k", "reader", "written", "read", "recovered", "lost", "torn", "garbage",
        "bytes", "overhead_pct")


def damaged(records: list[bytes], encode, damage: str, k: int) -> bytes:
    """The file of ``records`` (each as ``encode`` writes it) damaged at record K+1 (K is
    the number of complete records before the damage)."""
    whole = [encode(r) for r in records]
    torn = whole[k]
    if damage == "tail":
        return b"".join(whole[:k]) + torn[:len(torn) // 2]
    if damage == "tail-brace":
        return b"".join(whole[:k]) + torn[:torn.rindex(b"}")]
    if damage == "interleaved":
        return b"".join(whole[:k]) + torn[:len(torn) // 2] + b"".join(whole[k + 1:])
    raise ValueError(f"unknown damage {damage!r}: use one of {', '.join(DAMAGES)}")


def line(record: bytes) -> bytes:
    return record + b"\n"


@dataclass
class Read:
    """What one reader made of one file."""

    read: int = 0          # lines or frames read
    accepted: list | None = None   # the records it accepted (bytes)
    torn: int = 0          # torn records it detected


def lax_lines(data: bytes) -> Read:
    """Split lines; a line holding the format's fields is a record."""
    out = Read(accepted=[])
    for text in data.split(b"\n"):
        if not text:
            continue
        out.read += 1
        if all(p.search(text) for p in _FIELD.values()):
            out.accepted.append(text)
    return out


def strict_lines(data: bytes) -> Read:
    """Each line must be a JSON object with the format's required fields; any other is torn."""
    out = Read(accepted=[])
    for text in data.split(b"\n"):
        if not text:
            continue
        out.read += 1
        try:
            value = json.loads(text)
        except ValueError:
            out.torn += 1
            continue
        if isinstance(value, dict) and "session_id" in value and "kind" in value:
            out.accepted.append(text)
        else:
            out.torn += 1
    return out


def frame_reader(data: bytes) -> Read:
    """Frames by length and CRC, resynchronising after each torn one."""
    out = Read(accepted=[])
    for frame in frames.frames(data):
        out.read += 1
        if frame.payload is None:
            out.torn += 1
        else:
            out.accepted.append(frame.payload)
    return out


def run(records: list[bytes], ks=DEFAULT_KS, damages=DAMAGES, should_stop=None,
        progress=None) -> list[dict]:
    """One row per (damage, K, reader) (KEYS)."""
    ks = [k for k in ks]
    bad = [k for k in ks if not 0 <= k < len(records) - 1]
    if bad:
        raise ValueError(f"K {bad[0]} is outside 0..{len(records) - 2} for {len(records)} records")
    originals = set(records)
    plain = sum(len(r) + 1 for r in records)
    framed = sum(len(r) + frames.HEADER for r in records)
    rows, total = [], len(damages) * len(ks)
    for damage in damages:
        for k in ks:
            check(should_stop, "lab frames")
            for reader, encode, read in (("lax-lines", line, lax_lines),
                                         ("strict-lines", line, strict_lines),
                                         ("frames", frames.encode, frame_reader)):
                got = read(damaged(records, encode, damage, k))
                recovered = sum(1 for r in got.accepted if r in originals)
                size = framed if reader == "frames" else plain
                # written: the records the writer began (the torn one included)
                written = k + 1 if damage.startswith("tail") else len(records)
                rows.append({"damage": damage, "k": k, "reader": reader, "written": written,
                             "read": got.read, "recovered": recovered,
                             "lost": written - recovered,
                             "torn": got.torn, "garbage": len(got.accepted) - recovered,
                             "bytes": size,
                             "overhead_pct": round(100 * (size - plain) / plain, 2)})
            if progress:
                progress(len(rows) // 3, total)
    return rows
