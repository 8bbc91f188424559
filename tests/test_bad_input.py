"""Broken input (issue 6 §2, "salvage, never silent loss"): every file of
sample_data/broken/ through the importer and through ``turnscope audit --json``, the two
big ones made here, and the safe line reader that agent-format readers can use."""

from __future__ import annotations

import gzip
import json
import shutil
import zlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from explorer.cli.main import main
from explorer.formats import lines
from explorer.ingest.imports import import_paths
from sample_data import broken_files
from tests.conftest import CORPUS  # ../shared/corpus beside the checkout

BROKEN = Path(broken_files.__file__).resolve().parent / "broken"


def _bytes(name: str) -> bytes:
    return (BROKEN / name).read_bytes()


def _gunzipped(name: str) -> bytes:
    """What can be decompressed of a (maybe cut) gzip file."""
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(_bytes(name))


def _line_start(data: bytes, number: int) -> int:
    """Byte offset where line ``number`` (from 1) starts."""
    offset = 0
    for _ in range(number - 1):
        offset = data.index(b"\n", offset) + 1
    return offset


def _torn(start: int, end: int, why: str, of: str = "file") -> str:
    return (f"torn_tail: the last line ends mid-record: the record from byte {start} of the "
            f"{of} is cut at byte {end} of the {of} ({why})")


def _expected(name: str) -> dict:
    """What Turnscope gives for each file of the suite: counts, the (line, seq) of every
    event kept, and the (line, reason) of every record rejected — worked out from the
    file's bytes, not from the importer."""
    if name == "torn_tail.jsonl":
        data = _bytes(name)
        start = _line_start(data, 4)
        return dict(counts=(4, 3, 1, 0, 3), kept=[(1, 1), (2, 2), (3, 3)],
                    rejected=[(4, _torn(start, len(data), "no line end after it"))])
    if name == "glued_torn_record.jsonl":
        data = _bytes(name)
        line2 = _line_start(data, 2)
        cut = data.index(b'{"session_id": "s1", "seq": 3', line2)
        return dict(counts=(4, 3, 1, 0, 3), kept=[(1, 1), (2, 2), (3, 4)], rejected=[(
            2, f"a record cut mid-write, glued to another on the same line: from byte "
               f"{cut - line2} of the line (byte {cut} of the file), invalid JSON: Expecting "
               f"property name enclosed in double quotes: line 1 column 96 (char 95)")])
    if name == "glued_records.jsonl":
        return dict(counts=(4, 4, 0, 0, 4), kept=[(1, 1), (2, 2), (2, 3), (3, 4)], rejected=[])
    if name == "invalid_utf8.jsonl":
        data = _bytes(name)
        bad = data.index(b"\xe9")
        line2 = _line_start(data, 2)
        return dict(counts=(3, 2, 1, 0, 2), kept=[(1, 1), (3, 3)], rejected=[(
            2, f"invalid UTF-8 at byte {bad - line2} of the line (byte {bad} of the file)")])
    if name == "bom_crlf.jsonl":
        return dict(counts=(2, 2, 0, 0, 2), kept=[(1, 1), (2, 2)], rejected=[])
    if name == "truncated.jsonl.gz":
        text = _gunzipped(name)
        whole = text.count(b"\n")
        start = _line_start(text, whole + 1)
        why = f"the gzip stream ends early, at byte {len(_bytes(name))} of the file"
        return dict(counts=(whole + 1, whole, 1, 0, whole),
                    kept=[(i, i) for i in range(1, whole + 1)],
                    rejected=[(whole + 1, _torn(start, len(text), why, "decompressed text"))])
    if name == "gzip_no_trailer.jsonl.gz":
        text = _gunzipped(name)
        return dict(counts=(6, 5, 1, 0, 5), kept=[(i, i) for i in range(1, 6)], rejected=[(
            6, f"truncated gzip: the gzip stream ends early, at byte {len(_bytes(name))} of "
               f"the file, after {len(text)} bytes of text that end with a whole line; every "
               "line before was read")])
    if name == "wrong_types.jsonl":
        return dict(counts=(8, 3, 5, 0, 3), kept=[(1, 12), (3, 14), (8, 19)], rejected=[
            (2, "seq is not an integer: abc"), (4, "seq is not an integer: 15.5"),
            (5, "tokens is not an integer: many"), (6, "unparsable ts: yesterday"),
            (7, "is_error is not a boolean: maybe")])
    if name == "missing_fields.jsonl":
        return dict(counts=(7, 2, 5, 0, 2), kept=[(1, 1), (7, 8)], rejected=[
            (2, "missing session_id"), (3, "missing kind"),
            (4, "missing seq (other rows of this file carry seq)"),
            (5, 'unknown kind "SHOUT"'), (6, "not a JSON object")])
    if name == "duplicate_event_ids.jsonl":
        return dict(counts=(5, 4, 0, 1, 4), kept=[(1, 1), (3, 3), (4, 4), (5, 5)], rejected=[])
    if name == "quoted_newlines.csv":
        start = _line_start(_bytes(name), 5)
        return dict(counts=(4, 3, 1, 0, 3), kept=[(2, 1), (4, 2), (6, 4)], rejected=[(
            5, f"not valid CSV from this line (unexpected end of data), which starts at byte "
               f"{start} of the file; the lines after it are read again as rows")])
    if name == "torn_tail.csv":
        return dict(counts=(3, 2, 1, 0, 2), kept=[(2, 1), (3, 2)], rejected=[
            (4, "torn_tail: the last line ends mid-record (3 of 4 fields, no line end after it)")])
    if name == "invalid_utf8.csv":
        data = _bytes(name)
        bad = data.index(b"\xff")
        return dict(counts=(3, 2, 1, 0, 2), kept=[(2, 1), (4, 3)], rejected=[(
            3, f"invalid UTF-8 at byte {bad - _line_start(data, 3)} of the record "
               f"(byte {bad} of the file)")])
    raise KeyError(name)


#: Files that are no log at all: one clear message each.
ERRORS = {
    "empty.jsonl": "the file is empty",
    "blank_lines.jsonl": "the file holds only blank lines",
    "empty_gzip.jsonl.gz": "the file is empty (a gzip file holding no text)",
    "wrong_header.csv": "the CSV header has no session_id or kind column (it has: session, "
                        "seq, type, text); FORMAT.md names the columns",
    "wrong_columns.parquet": "the Parquet file has no session_id or kind column (it has: "
                             "conversation, role, content); FORMAT.md names the columns",
}
READABLE = ["torn_tail.jsonl", "glued_torn_record.jsonl", "glued_records.jsonl",
            "invalid_utf8.jsonl", "bom_crlf.jsonl", "truncated.jsonl.gz",
            "gzip_no_trailer.jsonl.gz", "wrong_types.jsonl", "missing_fields.jsonl",
            "duplicate_event_ids.jsonl", "quoted_newlines.csv", "torn_tail.csv",
            "invalid_utf8.csv"]


def _imported(store, path: Path):
    report = import_paths(store, [path])
    assert not report.errors, report.errors
    f = report.files[0]
    kept = store.con.execute("SELECT line, seq FROM events ORDER BY eid").fetchall()
    rejected = store.con.execute("SELECT line, reason FROM rejected ORDER BY line, reason").fetchall()
    return (f.records, f.imported, f.rejected, f.duplicates, f.events), kept, rejected


def test_the_suite_is_what_its_generator_writes(tmp_path):
    listed = {p.name for p in BROKEN.iterdir() if p.name != "README.md"}
    assert listed == set(READABLE) | set(ERRORS)
    broken_files.write_small(tmp_path)
    for path in BROKEN.iterdir():
        if path.suffix == ".parquet":
            assert pq.read_table(path).equals(pq.read_table(tmp_path / path.name))
        elif path.name != "README.md":
            assert path.read_bytes() == (tmp_path / path.name).read_bytes(), path.name
    readme = (BROKEN / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}`" in readme for name in listed)


@pytest.mark.parametrize("name", READABLE)
def test_what_can_be_read_is_kept_and_the_rest_explained(store, name):
    counts, kept, rejected = _imported(store, BROKEN / name)
    want = _expected(name)
    assert counts == want["counts"]
    assert kept == want["kept"]
    assert rejected == sorted(want["rejected"])
    records, imported, n_rejected, duplicates, _ = counts
    assert records == imported + n_rejected + duplicates


@pytest.mark.parametrize("name", READABLE)
def test_audit_json_gives_the_same_account(capsys, name):
    path = BROKEN / name
    status = main(["audit", str(path), "--json"])
    out, err = capsys.readouterr()
    assert status == 0
    doc = json.loads(out)
    want = _expected(name)
    records, imported, rejected, duplicates, events = want["counts"]
    got = doc["files"][0]
    assert (got["records"], got["imported"], got["rejected"], got["duplicates"], got["events"]) \
        == want["counts"]
    assert doc["rejected"] == rejected and doc["events"] == events
    for line, reason in sorted(want["rejected"])[:5]:  # the first five are named on stderr
        assert f"{path}:{line}: {reason}" in err
    assert main(["audit", str(path), "--strict"]) == (2 if rejected else 0)
    capsys.readouterr()


def test_the_same_event_id_twice(capsys):
    status = main(["audit", str(BROKEN / "duplicate_event_ids.jsonl"), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 0
    assert (doc["duplicates"], doc["event_id_conflicts"]) == (1, 2)  # each event of the pair counts


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_no_log_at_all_is_one_clear_message(store, capsys, name):
    path = BROKEN / name
    report = import_paths(store, [path])
    assert not report.files and [e.reason for e in report.errors] == [ERRORS[name]]
    assert main(["audit", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == f"turnscope audit: error: {path}: {ERRORS[name]}"


def test_a_gzip_cut_before_any_text(store, tmp_path):
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"session_id": "s1", "seq": 1, "kind": "USER"}\n', mtime=0)[:10])
    report = import_paths(store, [path])
    assert [e.reason for e in report.errors] == [
        "a truncated gzip file: it ends before any of its text"]


def test_a_line_of_50_mb(store, tmp_path):
    path = broken_files.long_line(tmp_path / "long.jsonl")
    counts, kept, rejected = _imported(store, path)
    assert counts == (3, 3, 0, 0, 3) and kept == [(1, 1), (2, 2), (3, 3)] and rejected == []
    length = store.con.execute(
        "SELECT length(text) FROM event_details JOIN events USING (eid) WHERE seq = 2").fetchall()
    assert length == [(50 * 1024 * 1024 - len(b'{"session_id": "s1", "seq": 2, "kind": "RESULT", '
                                                b'"call_id": "c1", "text": "'),)]


def test_json_nested_100000_levels_deep(store, tmp_path, capsys):
    path = broken_files.deep_nesting(tmp_path / "deep.jsonl")
    counts, kept, rejected = _imported(store, path)
    assert counts == (3, 2, 1, 0, 2) and kept == [(1, 1), (3, 3)]
    assert rejected == [(2, "JSON nested deeper than 512 levels, the limit (--max-json-depth)")]
    assert main(["audit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rejected"] == 1


def test_nesting_up_to_the_limit_is_read(store, tmp_path):
    path = broken_files.deep_nesting(tmp_path / "deep.jsonl", depth=lines.MAX_DEPTH - 1)
    counts, _, rejected = _imported(store, path)
    assert counts == (3, 3, 0, 0, 3) and rejected == []


# The safe line reader for agent formats (explorer/formats/lines.py).

def test_json_lines_salvages_what_the_suite_breaks():
    got = [(line.number, value.value is not None, value.error)
           for line, value in lines.json_lines(BROKEN / "glued_torn_record.jsonl")]
    assert [(n, ok) for n, ok, _ in got] == [(1, True), (2, True), (2, False), (3, True)]
    assert got[2][2].startswith("a record cut mid-write, glued to another on the same line")
    torn = list(lines.json_lines(BROKEN / "torn_tail.jsonl"))
    assert [v.value["seq"] for _, v in torn[:3]] == [1, 2, 3]
    assert torn[3][1].error.startswith("torn_tail: ") and torn[3][0].tail
    bad = list(lines.json_lines(BROKEN / "invalid_utf8.jsonl"))
    assert bad[1][1].error.startswith("invalid UTF-8 at byte") and "caf\\xe9 \\xff" in bad[1][1].text
    assert [line.offset for line, _ in bad] == [0, _line_start(_bytes("invalid_utf8.jsonl"), 2),
                                                _line_start(_bytes("invalid_utf8.jsonl"), 3)]
    assert [v.value["seq"] for _, v in lines.json_lines(BROKEN / "bom_crlf.jsonl")] == [1, 2]
    cut = list(lines.json_lines(BROKEN / "gzip_no_trailer.jsonl.gz"))
    assert [v.error is None for _, v in cut] == [True] * 5 + [False]
    assert cut[-1][1].error.startswith("truncated gzip: ")


@pytest.mark.parametrize("corpus", ["claude-code", "codex-cli"])
def test_json_lines_on_a_damaged_corpus_file(tmp_path, corpus):
    source = sorted((CORPUS / corpus).glob("*.jsonl"))[0]
    data = source.read_bytes()
    count = sum(1 for line in data.split(b"\n") if line.strip())
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data.rstrip(b"\n")[:-30])
    got = list(lines.json_lines(torn))
    assert len(got) == count and all(v.error is None for _, v in got[:-1])
    assert got[-1][1].error.startswith("torn_tail: ")
    second = _line_start(data, 2)
    mangled = tmp_path / "bytes.jsonl"
    mangled.write_bytes(data[:second + 10] + b"\xfe" + data[second + 10:])
    got = list(lines.json_lines(mangled))
    assert len(got) == count and [v.error is not None for _, v in got].count(True) == 1
    assert got[1][1].error == f"invalid UTF-8 at byte 10 of the line (byte {second + 10} of the file)"
    assert "\\xfe" in got[1][1].text
    shutil.copy(source, tmp_path / "copy.jsonl")
    assert all(v.error is None for _, v in lines.json_lines(tmp_path / "copy.jsonl"))
