"""The suite of broken input files (issue 6): one small file per way a log gets broken,
written byte for byte the same every time, and the two big ones made at test time.

    python -m sample_data.broken_files [OUT_DIR]    # default: sample_data/broken/

``sample_data/broken/README.md`` lists each file and what Turnscope gives for it;
tests/test_bad_input.py checks exactly that.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent / "broken"


def event(seq, kind: str = "USER", session: str = "s1", **more) -> bytes:
    """One canonical event as a JSON line (without its line end)."""
    record = {"session_id": session, "seq": seq, "kind": kind, "text": f"event {seq}", **more}
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def _lines(*records: bytes, end: bytes = b"\n") -> bytes:
    return b"".join(r + end for r in records)


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _small_files() -> dict[str, bytes]:
    five = _lines(*(event(i) for i in range(1, 6)))
    truncated = _gzip(_lines(*(event(i, text=f"event {i} " + "lorem ipsum " * 20)
                               for i in range(1, 41))))
    return {
        # The writer died in the middle of its last record.
        "torn_tail.jsonl": _lines(event(1), event(2), event(3)) + event(4)[:25],
        # A torn write (record 3 cut) and the next append glued onto the same line.
        "glued_torn_record.jsonl": _lines(event(1), event(2) + event(3)[:30], event(4)),
        # Two complete records with no line end between them.
        "glued_records.jsonl": _lines(event(1), event(2) + event(3), event(4)),
        "invalid_utf8.jsonl": _lines(event(1), event(2)[:-1] + b', "note": "caf\xe9 \xff"}',
                                     event(3)),
        "bom_crlf.jsonl": b"\xef\xbb\xbf" + _lines(event(1), event(2), end=b"\r\n"),
        "empty.jsonl": b"",
        "blank_lines.jsonl": b"\n   \n\t\n\r\n",
        # Cut in the middle of the compressed stream: the last line read is torn.
        "truncated.jsonl.gz": truncated[: len(truncated) // 2],
        # Every line is there, the gzip end marker is not.
        "gzip_no_trailer.jsonl.gz": _gzip(five)[:-8],
        "empty_gzip.jsonl.gz": _gzip(b""),
        "wrong_types.jsonl": _lines(
            event("12"), event("abc"), event(14.0), event(15.5), event(16, tokens="many"),
            event(17, ts="yesterday"), event(18, is_error="maybe"), event(19)),
        "missing_fields.jsonl": _lines(
            event(1), json.dumps({"seq": 2, "kind": "USER"}).encode(),
            json.dumps({"session_id": "s1", "seq": 3}).encode(),
            json.dumps({"session_id": "s1", "kind": "USER"}).encode(),
            event(5, kind="SHOUT"), b"[6, 7]", event(8)),
        # One event appended twice (same content), one id reused for another event.
        "duplicate_event_ids.jsonl": _lines(
            event(1, event_id="e1"), event(2, event_id="e1", text="event 1"),
            event(3, event_id="e2", text="first"), event(4, event_id="e2", text="second"),
            event(5, event_id="e3")),
        "quoted_newlines.csv": (b"session_id,seq,kind,text\n"
                                b's1,1,USER,"two\nlines"\n'
                                b's1,2,ASSISTANT,"say ""hi"""\n'
                                b's1,3,USER,"never closed\n'
                                b"s1,4,USER,after\n"),
        "torn_tail.csv": b"session_id,seq,kind,text\ns1,1,USER,a\ns1,2,USER,b\ns1,3,US",
        "invalid_utf8.csv": b"session_id,seq,kind,text\ns1,1,USER,a\ns1,2,USER,\xff\xfe\ns1,3,USER,c\n",
        "wrong_header.csv": b"session,seq,type,text\ns1,1,USER,a\n",
    }


def wrong_columns_parquet(path: Path) -> Path:
    """A Parquet file whose columns are not the canonical ones."""
    pq.write_table(pa.table({"conversation": ["s1", "s1"], "role": ["user", "assistant"],
                             "content": ["hi", "hello"]}), path)
    return path


def write_small(out: Path = HERE) -> list[Path]:
    """Write every small broken file into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in _small_files().items():
        (out / name).write_bytes(data)
        paths.append(out / name)
    paths.append(wrong_columns_parquet(out / "wrong_columns.parquet"))
    return paths


def long_line(path: Path, size: int = 50 * 1024 * 1024) -> Path:
    """A JSON Lines file whose second line is one record of about ``size`` bytes."""
    with open(path, "wb") as fh:
        fh.write(event(1) + b"\n")
        head = b'{"session_id": "s1", "seq": 2, "kind": "RESULT", "call_id": "c1", "text": "'
        fh.write(head)
        chunk = b"x" * (1024 * 1024)
        left = size - len(head)
        while left > 0:
            fh.write(chunk[:left])
            left -= len(chunk)
        fh.write(b'"}\n' + event(3) + b"\n")
    return path


def deep_nesting(path: Path, depth: int = 100_000) -> Path:
    """A JSON Lines file whose second line nests ``depth`` levels deep."""
    deep = b'{"session_id": "s1", "seq": 2, "kind": "USER", "raw": ' + b"[" * depth + b"]" * depth + b"}"
    path.write_bytes(_lines(event(1), deep, event(3)))
    return path


if __name__ == "__main__":
    for written in write_small(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(written)
