"""Issue 15, import speed: the Claude Code reader's first pass finds the lines worth reading
by searching blocks of lines (explorer.formats.claude_code_scan.worth_records) instead of
asking each line. It must give what the reference pass gives (each line of
``lines(path, span, _worth_reading)`` read by ``fast_json.loads``), record for record, on
real transcripts and on lines that test its edges: BOM, CRLF, an unterminated last line,
lines that are not UTF-8, nest past the depth limit, are not JSON or not compact, spaced
``isSidechain`` flags, a needle twice on one line, spans and gzip."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest

from explorer.formats import claude_code_scan, fast_json, limits
from explorer.formats.lines import Span
from tests.conftest import CORPUS

REAL = sorted((CORPUS / "claude-code").glob("*.jsonl"))


def both(path: Path, monkeypatch, span: Span | None = None) -> tuple[list, list]:
    monkeypatch.setattr(fast_json, "REFERENCE", False)
    fast = list(claude_code_scan.worth_records(path, span))
    monkeypatch.setattr(fast_json, "REFERENCE", True)
    reference = list(claude_code_scan.worth_records(path, span))
    monkeypatch.setattr(fast_json, "REFERENCE", False)
    return fast, reference


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:40])
def test_real_transcripts_read_the_same(path, monkeypatch):
    fast, reference = both(path, monkeypatch)
    assert reference and fast == reference
    monkeypatch.setattr(fast_json, "REFERENCE", False)
    scanned = claude_code_scan.scan(path)
    monkeypatch.setattr(fast_json, "REFERENCE", True)
    assert scanned == claude_code_scan.scan(path)


def _line(**record) -> bytes:
    return json.dumps(record, separators=(",", ":")).encode()


EDGES = [
    _line(type="assistant", message={"id": "m1", "content": [{"type": "text", "text": "a"}]}),
    _line(type="progress", data={"type": "hook"}),                      # not worth reading
    b'{"type": "assistant", "message": {"id": "m2", "content": []}}',    # spaced JSON
    _line(type="user", agentId="a1", isSidechain=False),
    b'{"type":"user","isSidechain" :\ttrue,"uuid":"u1","parentUuid":null}',
    b'{"type":"user","isSidechain":\n',                                  # flag cut by a line end
    b'true,"uuid":"u2"}',
    b'{"type":"assistant","text":"\xff\xfe"}',                           # not UTF-8
    b'{"type":"assistant","x":' + b"[" * 300 + b"]" * 300 + b"}",        # past orjson's depth, within the limit
    b'{"type":"assistant","cut":',                                       # not JSON
    b'["assistant"]',                                                    # not an object
    b'{"type":"assistant","v":123456789012345678901234567890,"agentId":"a2"}',
    b"   ",
    _line(type="assistant", agentId="a3", note='"assistant" agentId twice'),
    _line(type="assistant", message={"id": "m1", "content": [{"type": "text", "text": "b"}]})
    + b"\r",
    _line(type="user", isSidechain=True, uuid="u3", parentUuid="u1"),
    b'{"type":"assistant","x":' + b"[" * 600 + b"]" * 600 + b"}",        # past the limit
]


def _write(tmp_path: Path, lines: list[bytes], end: bytes = b"\n", bom: bool = True) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + end)
    return path


@pytest.mark.parametrize("end", [b"\n", b""], ids=["ended", "unterminated"])
def test_edges_read_the_same(tmp_path, monkeypatch, end):
    path = _write(tmp_path, EDGES, end)
    fast, reference = both(path, monkeypatch)
    assert fast == reference
    assert [n for n, _ in reference] == [1, 3, 4, 5, 10, 12, 13, 15, 16, 17]


def test_edges_under_a_low_depth_limit_and_in_spans_and_gzip(tmp_path, monkeypatch):
    path = _write(tmp_path, EDGES, bom=False)
    data = path.read_bytes()
    cut = data.index(b"\n", len(data) // 4) + 1
    for span in (Span(0, 1, cut), Span(cut, data[:cut].count(b"\n") + 1, len(data))):
        fast, reference = both(path, monkeypatch, span)
        assert fast == reference and reference
    packed = tmp_path / "t.jsonl.gz"
    packed.write_bytes(gzip.compress(data))
    assert both(packed, monkeypatch) == both(path, monkeypatch)
    saved = limits.current()
    limits.configure(dataclasses.replace(limits.DEFAULTS, max_json_depth=3), {})
    try:
        fast, reference = both(path, monkeypatch)
    finally:
        limits.configure(saved, {})
    assert fast == reference and 0 < len(reference) < 10
