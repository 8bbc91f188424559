"""Canonical import (FORMAT.md): formats, coercions, rejections, seq, costs, provenance."""

from __future__ import annotations

import gzip
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from explorer.audits import counts as audits
from explorer.formats import LogFileError, detect
from explorer.ingest.imports import import_paths
from explorer.model import CostSettings
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load


def _one(store, sql):
    return store.con.execute(sql).fetchall()


def test_kind_aliases_any_case(store, tmp_path):
    kinds = ["user", "Tool_Call", "TOOL_RESULT", "tool", "term", "FINAL", "compaction",
             "System", "other", "assistant", "call", "result", "summary"]
    load(store, jsonl(tmp_path / "k.jsonl", [
        {"session_id": "s", "seq": i, "kind": k} for i, k in enumerate(kinds, 1)]))
    got = [r[0] for r in _one(store, "SELECT CAST(kind AS VARCHAR) FROM events ORDER BY seq")]
    assert got == ["USER", "CALL", "RESULT", "RESULT", "ASSISTANT", "ASSISTANT", "SUMMARY",
                   "SYSTEM", "OTHER", "ASSISTANT", "CALL", "RESULT", "SUMMARY"]


def test_timestamps_epoch_ms_and_iso(store, tmp_path):
    values = [1767225600123, "2026-01-01T00:00:00Z", "2026-01-01T02:00:00+02:00",
              "2026-01-01 00:00:00", "2026-01-01T00:00:00.9999Z", "1767225600123"]
    load(store, jsonl(tmp_path / "t.jsonl", [
        {"session_id": "s", "seq": i, "kind": "USER", "ts": v} for i, v in enumerate(values, 1)]))
    got = [r[0] for r in _one(store, "SELECT ts FROM events ORDER BY seq")]
    base = 1767225600000
    assert got == [base + 123, base, base, base, base + 999, base + 123]


def test_seq_assigned_in_file_order_when_no_row_has_it(store, tmp_path):
    path = tmp_path / "noseq.jsonl"
    path.write_text('{"session_id":"b","kind":"USER"}\n\n{"session_id":"a","kind":"USER"}\n'
                    '{"session_id":"b","kind":"ASSISTANT"}\n')
    report = load(store, path)
    assert report.files[0].seq_assigned
    got = _one(store, "SELECT session_id, seq, line FROM events ORDER BY eid")
    assert got == [("b", 1, 1), ("a", 2, 3), ("b", 3, 4)]


def test_seq_coercions_and_rejections(store, tmp_path):
    rows = [
        {"session_id": "s", "seq": "12", "kind": "USER"},
        {"session_id": "s", "seq": 13.0, "kind": "USER"},
        {"session_id": "s", "seq": "abc", "kind": "USER"},
        {"session_id": "s", "seq": 12.5, "kind": "USER"},
        {"session_id": "s", "kind": "USER"},
    ]
    report = load(store, jsonl(tmp_path / "s.jsonl", rows))
    f = report.files[0]
    assert (f.records, f.events, f.rejected) == (5, 2, 3)
    assert f.records == f.imported + f.rejected
    assert sorted(r[0] for r in _one(store, "SELECT seq FROM events")) == [12, 13]
    reasons = _one(store, "SELECT line, reason FROM rejected ORDER BY line")
    assert reasons == [
        (3, "seq is not an integer: abc"),
        (4, "seq is not an integer: 12.5"),
        (5, "missing seq (other rows of this file carry seq)"),
    ]


def test_bad_lines_are_rejected_kept_and_counted(store, tmp_path):
    path = tmp_path / "bad.jsonl"
    lines = [
        '{"session_id":"s","seq":1,"kind":"USER","text":"ok"}',
        '{"session_id":"s","seq":2,"kind":"USER"',            # not valid JSON
        '[1, 2]',                                               # not an object
        '{"seq":3,"kind":"USER"}',                              # no session_id
        '{"session_id":"s","seq":4}',                           # no kind
        '{"session_id":"s","seq":5,"kind":"SHOUT"}',            # unknown kind
        '{"session_id":"s","seq":6,"kind":"USER","ts":"yesterday"}',
        '{"session_id":"s","seq":7,"kind":"USER","tokens":-3}',
        '',
        '{"session_id":"s","seq":8,"kind":"ASSISTANT","tokens":4}',
    ]
    path.write_text("\n".join(lines) + "\n")
    report = load(store, path)
    assert (report.files[0].events, report.rejected) == (2, 7)
    rejected = _one(store, "SELECT line, reason, text FROM rejected ORDER BY line")
    assert [r[0] for r in rejected] == [2, 3, 4, 5, 6, 7, 8]
    reasons = [r[1] for r in rejected]
    assert reasons[0].startswith("invalid JSON: ")
    assert reasons[1:] == ["not a JSON object", "missing session_id", "missing kind",
                           'unknown kind "SHOUT"', "unparsable ts: yesterday",
                           "negative tokens: -3"]
    assert rejected[0][2] == lines[1]  # the line's text is kept


def test_costs_follow_the_token_estimate(store, tmp_path):
    rows = [
        {"session_id": "s", "seq": 1, "kind": "USER", "text": "ab"},            # 2/4 -> 0.5 -> 1
        {"session_id": "s", "seq": 2, "kind": "USER", "text": "日本語"},         # 3/1.5 -> 2
        {"session_id": "s", "seq": 3, "kind": "USER", "chars": 3, "cjk": True},  # 2
        {"session_id": "s", "seq": 4, "kind": "USER", "chars": 6},               # 1.5 -> 2
        {"session_id": "s", "seq": 5, "kind": "USER", "text": "x" * 100, "tokens": 7},
        {"session_id": "s", "seq": 6, "kind": "USER", "text": "한국어 text"},    # 3 CJK, 5 other
        {"session_id": "s", "seq": 7, "kind": "USER"},                           # nothing: 0
    ]
    load(store, jsonl(tmp_path / "c.jsonl", rows))
    frame = session_events(store, "s")
    assert frame["cost"].to_list() == [1, 2, 2, 2, 7, 3, 0]
    assert frame["estimated"].to_list() == [True, True, True, True, False, True, True]
    # chars + cjk come back from the code-point counts they were stored as.
    assert frame.select("chars", "cjk").rows()[2:4] == [(3, True), (6, False)]
    doubled = session_events(store, "s", settings=CostSettings(cjk_ratio=3.0, other_ratio=8.0))
    assert doubled["cost"].to_list() == [0, 1, 1, 1, 7, 2, 0]  # 2/8 + 0.5 rounds down


def test_ratios_change_cost_but_no_structural_count(store, tmp_path):
    from explorer.cli.demo import demo_paths
    load(store, *demo_paths())
    a = audits.session_counts(store, "seq")
    b = audits.session_counts(store, "seq", CostSettings(cjk_ratio=2.0, other_ratio=3.0))
    assert a.drop("cost").equals(b.drop("cost"))
    assert not a["cost"].equals(b["cost"])


def test_unknown_columns_kept_in_raw(store, tmp_path):
    line = {"session_id": "s", "seq": 1, "kind": "USER", "model": "m-1", "meta": {"x": 1}}
    load(store, jsonl(tmp_path / "r.jsonl", [line, {"session_id": "s", "seq": 2, "kind": "USER"}]))
    raws = session_events(store, "s")["raw"].to_list()
    assert json.loads(raws[0]) == line
    assert raws[1] is None


def test_csv_with_quoted_newlines_and_extra_columns(store, tmp_path):
    path = tmp_path / "log.csv"
    # "comment" is the extra column kept in raw ("note" was, before FORMAT.md made it one)
    path.write_text('session_id,seq,kind,text,ts,comment\n'
                    's,1,USER,"two\nlines",2026-01-01T00:00:00Z,x\n'
                    's,2,ASSISTANT,plain,1767225600500,\n'
                    's,3,ALIEN,hm,,\n'
                    's,4,USER\n', encoding="utf-8")
    report = load(store, path)
    assert report.files[0].format == "canonical-csv"
    got = session_events(store, "s").select("seq", "line", "text", "ts", "raw").rows()
    assert [r[:4] for r in got] == [(1, 2, "two\nlines", 1767225600000),
                                    (2, 4, "plain", 1767225600500)]
    assert json.loads(got[0][4])["comment"] == "x"
    assert _one(store, "SELECT line, reason FROM rejected ORDER BY line") == [
        (5, 'unknown kind "ALIEN"'), (6, "expected 6 fields as in the header, found 3")]


def test_parquet_native_and_wrong_types(store, tmp_path):
    good = tmp_path / "good.parquet"
    pq.write_table(pa.table({
        "session_id": ["s", "s", "s"], "seq": [1, 2, 3], "kind": ["USER", "CALL", "RESULT"],
        "call_id": [None, "c", "c"], "ts": pa.array([0, 1, 2], pa.timestamp("ms")),
        "chars": [4, 8, 12], "extra": [1, 2, 3]}), good)
    bad = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"session_id": ["t", "t"], "seq": [1.5, 2.0], "kind": ["USER", "USER"]}), bad)
    report = load(store, good, bad)
    assert [(f.events, f.rejected) for f in report.files] == [(3, 0), (1, 1)]
    assert _one(store, "SELECT ts FROM events WHERE session_id = 's' ORDER BY seq") == [(0,), (1,), (2,)]
    assert _one(store, "SELECT reason FROM rejected") == [("seq is not an integer: 1.5",)]
    assert json.loads(session_events(store, "s")["raw"][0])["extra"] == 1


def test_gzip_jsonl_and_provenance(store, tmp_path):
    path = tmp_path / "log.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write('{"session_id":"s","seq":1,"kind":"USER"}\n\n{"session_id":"s","seq":2,"kind":"USER"}\n')
    other = jsonl(tmp_path / "second.jsonl", [{"session_id": "s", "seq": 3, "kind": "USER"}])
    load(store, path, other)
    got = _one(store, "SELECT f.path, e.line FROM events e JOIN files f USING (file_id) ORDER BY eid")
    assert got == [(str(path), 1), (str(path), 3), (str(other), 1)]


def test_bom_and_crlf(store, tmp_path):
    path = tmp_path / "win.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"session_id":"s","seq":1,"kind":"USER"}\r\n'
                     b'{"session_id":"s","seq":2,"kind":"USER"}\r\n')
    assert load(store, path).files[0].events == 2


def test_invalid_utf8_line_is_rejected_with_its_bytes(store, tmp_path):
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"session_id":"s","seq":1,"kind":"USER"}\n'
                     b'{"session_id":"s","seq":2,"kind":"USER","text":"\xff"}\n')
    report = load(store, path)
    assert (report.files[0].events, report.rejected) == (1, 1)
    reason, text = _one(store, "SELECT reason, text FROM rejected")[0]
    assert reason.startswith("invalid UTF-8") and "\\xff" in text


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"\n\n  \n", "blank lines"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "PNG image"),
    (b"hello world\nthis is prose\n", "not a recognised log format"),
    # JSON Lines of another program: no record has the canonical fields (issue 15 §3)
    (b'{"event": "start", "t": 1}\n{"event": "stop", "t": 2}\n',
     "not a recognised log format (tried: "),
    (b'{"seq": 1, "kind": "USER"}\n' * 30 + b'{"session_id": "s", "seq": 2, "kind": "USER"}\n',
     "not a recognised log format (tried: "),
])
def test_files_that_are_not_logs(store, tmp_path, content, message):
    path = tmp_path / "input.jsonl"
    path.write_bytes(content)
    report = import_paths(store, [path])
    assert not report.files and len(report.errors) == 1
    assert message in str(report.errors[0]) and str(path) in str(report.errors[0])


def test_canonical_fields_on_one_of_the_first_records_are_enough(tmp_path):
    """One canonical record among the first lines makes a canonical file, whose other lines
    are then rejected one by one (a line cut by the head counts by its text)."""
    path = tmp_path / "events.jsonl"
    path.write_text('{"seq": 1}\n{"session_id": "s", "seq": 2, "kind": "USER"}\n')
    assert detect(path).NAME == "canonical-jsonl"
    path.write_text('{"session_id": "s", "kind": "USER", "text": "' + "x" * 70000 + '"}\n')
    assert detect(path).NAME == "canonical-jsonl"


def test_detect_by_content_not_extension(tmp_path):
    path = tmp_path / "events.txt"
    path.write_text('{"session_id":"s","seq":1,"kind":"USER"}\n')
    assert detect(path).NAME == "canonical-jsonl"
    with pytest.raises(LogFileError):
        detect(tmp_path / "missing.jsonl")


def test_kind_macro_knows_every_alias_of_the_model(store):
    from explorer.model import KIND_ALIASES
    for alias, kind in KIND_ALIASES.items():
        for spelling in (alias, alias.lower(), alias.title()):
            got = store.con.execute("SELECT kind_of($k)", {"k": spelling}).fetchone()[0]
            assert got == kind, spelling


def test_sql_cost_equals_the_python_estimate_on_demo_text(store):
    from explorer.cli.demo import demo_paths
    from explorer.tokens.estimate import cost, count_chars
    load(store, *demo_paths())
    settings = CostSettings(1.7, 3.3)
    cjk_seen = other_seen = 0
    for session in ("s000000", "s000001", "s000002", "s000003", "s000004"):
        frame = session_events(store, session, settings=settings)
        for text, tokens, got in frame.select("text", "tokens", "cost").iter_rows():
            cjk, other = count_chars(text or "")
            cjk_seen, other_seen = cjk_seen + cjk, other_seen + other
            assert got == cost(tokens, cjk, other, settings)
    assert cjk_seen and other_seen
