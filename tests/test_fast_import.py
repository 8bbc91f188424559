"""Issue 15, import speed: the fast paths of the import (explorer.formats.fast_json) give the
same database as the reference path (the json module everywhere), table for table and row
for row, on real corpus files and on generated files holding what the fast paths must
hand back to the reference one (repeated keys, NaN, big integers, lone surrogates, spaced
JSON, glued records, a torn tail, bytes that are not UTF-8, deep nesting)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.formats import fast_json
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.conftest import CORPUS

REAL = sorted((CORPUS / "claude-code").glob("*.jsonl")) + sorted(
    (CORPUS / "codex-cli").glob("*.jsonl"))
#: The tables an import writes (the files' paths differ: the same file is imported twice).
TABLES = ("events", "event_details", "rejected", "duplicates", "files")


def tables(path: Path, reference: bool, monkeypatch) -> dict[str, list[tuple]]:
    """Every row of every table a fresh database holds once ``path`` is imported."""
    monkeypatch.setattr(fast_json, "REFERENCE", reference)
    store = Store(None)
    try:
        report = import_paths(store, [path])
        assert not report.errors, report.errors
        out = {}
        for table in TABLES:
            cur = store.con.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cur.description]
            rows = cur.fetchall()
            keep = [i for i, n in enumerate(names) if n not in ("imported_at", "mtime")]
            out[table] = sorted((tuple(r[i] for i in keep) for r in rows), key=repr)
        return out
    finally:
        store.close()


def same(path: Path, monkeypatch) -> dict[str, list[tuple]]:
    fast = tables(path, False, monkeypatch)
    reference = tables(path, True, monkeypatch)
    for table in TABLES:
        assert len(fast[table]) == len(reference[table]), table
        for a, b in zip(fast[table], reference[table]):
            assert a == b, table
    return fast


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:40])
def test_real_files_import_the_same(path, monkeypatch):
    assert same(path, monkeypatch)["events"]


#: Numbers as orjson writes them (a line holding them is read by orjson), which json.dumps
#: writes otherwise (1.5e-07): the staged text differs, the tables must not.
NUMBERS = b"[1e+16,0.1,1.5e-7,-0.0,12345678901234567]"


def test_numbers_take_the_fast_path_and_are_written_otherwise():
    value = fast_json.compact_object(b'{"f":' + NUMBERS + b"}")
    assert value is not None
    assert fast_json.dumps(value, fast_json.constants) != json.dumps(
        value, ensure_ascii=False, separators=(",", ":")).encode()


def _hostile(seed: Path, out: Path) -> None:
    """The seed's lines, then copies of its first records changed in every way the fast
    paths must not read themselves."""
    lines = seed.read_bytes().splitlines()
    records = [json.loads(x) for x in lines[:40] if x.strip()]
    extra: list[bytes] = []
    for i, rec in enumerate(records):
        text = json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode()
        change = i % 10
        if change == 0:   # a repeated key with two values (Python keeps the last)
            extra.append(text[:-1] + b',"type":"zzz","type":"yyy"}')
        elif change == 1:   # NaN and Infinity (orjson writes null for them)
            extra.append(text[:-1] + b',"x":NaN,"y":-Infinity}')
        elif change == 2:   # an integer past 64 bits
            extra.append(text[:-1] + b',"big":123456789012345678901234567890}')
        elif change == 3:   # a lone surrogate escape
            extra.append(text[:-1] + b',"s":"\\ud800 half"}')
        elif change == 4:   # JSON with spaces, as Python writes it
            extra.append(json.dumps(rec, ensure_ascii=False).encode())
        elif change == 5:   # two records glued on one line
            extra.append(text + text)
        elif change == 6:   # a byte that is not UTF-8
            extra.append(text[:-1] + b',"b":"\xff"}')
        elif change == 7:   # deep nesting
            extra.append(text[:-1] + b',"d":' + b"[" * 600 + b"]" * 600 + b"}")
        elif change == 8:   # escapes the json module reads as orjson does not write them
            extra.append(text[:-1] + b',"e":"\\/\\u00e9\\u007f"}')
        else:   # numbers orjson writes otherwise than json.dumps: DuckDB reads them back
            extra.append(text[:-1] + b',"f":' + NUMBERS + b"}")
    out.write_bytes(b"\n".join(lines + extra) + b"\n" + lines[1][: len(lines[1]) // 2])


@pytest.mark.parametrize("seed", [REAL[0], next(p for p in REAL if "codex" in str(p))],
                         ids=["claude-code", "codex-cli"])
def test_hostile_lines_import_the_same(seed, tmp_path, monkeypatch):
    path = tmp_path / seed.name
    _hostile(seed, path)
    found = same(path, monkeypatch)
    assert found["rejected"]   # the hostile lines reached the reader




def test_orjson_gives_no_value_nested_past_its_depth():
    """json_lines skips the nesting check of a line compact_object parsed, when the limit
    is at least ORJSON_DEPTH: a newer orjson writing deeper values would break that."""
    def nested(levels: int, open_: bytes, close: bytes) -> bytes:
        return b'{"a":' + open_ * (levels - 1) + b"1" + close * (levels - 1) + b"}"
    for pair in ((b"[", b"]"), (b'{"a":', b"}")):
        assert fast_json.compact_object(nested(fast_json.ORJSON_DEPTH, *pair)) is not None
        assert fast_json.compact_object(nested(fast_json.ORJSON_DEPTH + 1, *pair)) is None
