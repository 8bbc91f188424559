"""Broken copies of real agent-tool logs (issue 6 §2): the corpus files of the line-based
formats (Claude Code, Codex CLI) cut mid-record, with a torn write glued on, with invalid
UTF-8 and with a record nested 100,000 levels deep; the document formats nested too deep.
What could be read is kept, the rest is rejected with its reason, the accounting holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.helpers import corpus_and_demo

LINE_BASED = [p for p in corpus_and_demo() if p.parent.name in ("claude-code", "codex-cli")]
DOCUMENTS = [p for p in corpus_and_demo()
             if p.parent.name in ("swe-agent", "openai-chat-completions", "openhands",
                                  "gemini-cli", "anthropic-messages")
             and p.suffix in (".json", ".traj")]
# empty lists would make the tests below skip, not fail, when a corpus folder moves
assert {p.parent.name for p in LINE_BASED} == {"claude-code", "codex-cli"}
assert {p.parent.name for p in DOCUMENTS} == {"gemini-cli", "openai-chat-completions",
                                              "openhands", "swe-agent"}


def _import(path: Path):
    store = Store()
    report = import_paths(store, [path])
    reasons = [r for (r,) in store.con.execute(
        "SELECT reason FROM rejected ORDER BY line").fetchall()]
    texts = [t for (t,) in store.con.execute("SELECT text FROM rejected ORDER BY line").fetchall()]
    store.close()
    return report, reasons, texts


def _balanced(f) -> bool:
    return f.records == f.imported + f.skipped + f.rejected + f.duplicates


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


@pytest.fixture(scope="module", params=LINE_BASED, ids=lambda p: p.name[:40])
def original(request):
    report, reasons, _ = _import(request.param)
    assert not report.errors and reasons == []
    return request.param, report.files[0]


def test_a_torn_tail_keeps_every_earlier_record(original, tmp_path):
    path, whole = original
    lines = _lines(path)
    last = lines[-1].rstrip(b"\r\n")
    torn = tmp_path / path.name
    torn.write_bytes(b"".join(lines[:-1]) + last[: len(last) // 2])
    report, reasons, _ = _import(torn)
    (f,) = report.files
    assert f.rejected == 1 and reasons[0].startswith("torn_tail")
    assert f.records == whole.records and _balanced(f)
    assert f.imported + f.skipped == whole.imported + whole.skipped - 1


def test_a_torn_write_glued_on_keeps_the_valid_record(original, tmp_path):
    path, whole = original
    lines = _lines(path)
    second_last = lines[-2].rstrip(b"\r\n")
    glued = tmp_path / path.name
    glued.write_bytes(b"".join(lines[:-2]) + second_last + lines[-1][:40] + b"\n" + lines[-1])
    report, reasons, _ = _import(glued)
    (f,) = report.files
    assert f.rejected == 1 and "glued" in reasons[0] and "byte" in reasons[0]
    assert f.records == whole.records + 1 and _balanced(f)
    assert f.events == whole.events


def test_invalid_utf8_is_rejected_with_its_bytes_kept(original, tmp_path):
    path, whole = original
    lines = _lines(path)
    broken = lines[1][:20] + b"\xff\xfe" + lines[1][20:]
    bad = tmp_path / path.name
    bad.write_bytes(b"".join([lines[0], broken, *lines[2:]]))
    report, reasons, texts = _import(bad)
    (f,) = report.files
    assert f.rejected == 1 and reasons[0].startswith("invalid UTF-8 at byte 20")
    assert "\\xff\\xfe" in texts[0]
    assert f.records == whole.records and _balanced(f)


def test_deep_nesting_is_rejected_not_a_crash(original, tmp_path):
    path, whole = original
    deep = tmp_path / path.name
    deep.write_bytes(path.read_bytes().rstrip(b"\n") + b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    report, reasons, _ = _import(deep)
    (f,) = report.files
    assert f.rejected == 1 and "nested deeper" in reasons[0]
    assert f.events == whole.events and _balanced(f)


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name[:40])
def test_a_document_nested_too_deep_is_one_clear_answer(path, tmp_path):
    """The same file name (so the same sniffers are tried), its content a deep array."""
    deep = tmp_path / path.name
    deep.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    report, reasons, _ = _import(deep)
    assert report.errors or (report.files and report.files[0].rejected >= 1 and reasons)
