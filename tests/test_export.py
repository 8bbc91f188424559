"""Export (explorer.export, ``turnscope export``): ATIF, OTel GenAI OTLP JSON and canonical
JSON Lines written from what was imported; export then import keeps every count of
AUDITS.md but ``duplicates`` and ``shared_keys`` (an export is one file of kept events), on
the demo data and on every corpus file; the owner and the logged turn ride along; the
findings travel as span events and ATIF extra fields."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from explorer.export import ExportError, export
from explorer.ingest.imports import import_paths
from explorer.store.db import Store
from tests.helpers import corpus_and_demo, events_as_dicts

#: Counts an export cannot keep: dropped copies are not written; one file has no shared key.
# missing_child is Turnscope's own count (not AUDITS.md's): a sub-agent link is read from a
# Claude Code Task call's raw record, which the interchange formats do not carry yet.
NOT_KEPT = {"duplicates", "shared_keys", "missing_child"}
FORMATS = ("atif", "otel-json", "jsonl")


def _corpus_files() -> list[Path]:
    """Every corpus file some reader imports events from (a format no reader knows yet is
    left out: it has nothing to export)."""
    from explorer.cli.demo import demo_paths
    demo = {Path(p) for p in demo_paths()}
    out = []
    for path in corpus_and_demo():
        if path in demo or path.name == "SOURCES.md":
            continue
        store = Store()
        try:
            report = import_paths(store, [path])
            if not report.errors and store.con.execute(
                    "SELECT count(*) FROM events").fetchall()[0][0]:
                out.append(path)
        finally:
            store.close()
    return out


CORPUS_FILES = _corpus_files()


def _round_trip(store: Store, to: str, out: Path) -> tuple[dict, dict, Store]:
    before = audits.corpus_counts(store)
    export(store, to, out)
    again = Store()
    report = import_paths(again, [out])
    assert not report.errors, report.errors
    assert report.files[0].rejected == 0
    return before, audits.corpus_counts(again), again


def _kept(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if k not in NOT_KEPT}


@pytest.mark.parametrize("to", FORMATS)
def test_round_trip_of_the_demo_keeps_every_count(demo, to, tmp_path):
    before, after, again = _round_trip(demo, to, tmp_path / f"demo.{to}")
    try:
        assert _kept(after) == _kept(before)
        assert before["duplicates"] > 0 and after["duplicates"] == 0   # the demo has copies
        # the owner, the logged turn, the writer's ids and the times ride along, event by event
        keys = ("session_id", "kind", "call_id", "user_id", "turn", "event_id", "ts")
        assert [tuple(e[k] for k in keys) for e in _in_seq(events_as_dicts(again))] == \
               [tuple(e[k] for k in keys) for e in _in_seq(events_as_dicts(demo))]
    finally:
        again.close()


def _in_seq(events: list[dict]) -> list[dict]:
    first = {}
    for e in events:
        first.setdefault(e["session_id"], e["eid"])
    return sorted(events, key=lambda e: (first[e["session_id"]], e["seq"], e["sub"], e["eid"]))


@pytest.mark.parametrize("to", ("atif", "otel-json"))
@pytest.mark.parametrize("path", CORPUS_FILES, ids=lambda p: p.name[:60])
def test_round_trip_of_each_corpus_file(path, to, tmp_path):
    store = Store()
    try:
        assert not import_paths(store, [path]).errors
        before, after, again = _round_trip(store, to, tmp_path / f"out.{to}")
        again.close()
    finally:
        store.close()
    assert _kept(after) == _kept(before)


def test_the_corpus_round_trip_covers_every_imported_folder():
    folders = {p.parent.name for p in CORPUS_FILES}
    assert {"claude-code", "codex-cli", "langfuse", "openhands", "swe-agent",
            "inspect-ai", "gemini-cli", "anthropic-messages",
            "openai-chat-completions"} <= folders


def test_atif_export_validates_with_the_atif_models_and_carries_findings(demo, tmp_path):
    from atif import Trajectory
    out = tmp_path / "demo.atif"
    done = export(demo, "atif", out)
    docs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(docs) == done.sessions == audits.corpus_counts(demo)["sessions"]
    for doc in docs:
        Trajectory.model_validate(doc)
    carried = Counter(f["rule"] for d in docs for s in [*d["steps"], d]
                      for f in (s.get("extra") or {}).get("turnscope_findings", []))
    assert carried == Counter(f["rule"] for f in audits.findings(demo))
    assert sum(carried.values()) == done.findings > 0


def test_otel_export_is_genai_spans_with_findings_as_events(demo, tmp_path):
    out = tmp_path / "demo.otel.json"
    done = export(demo, "otel-json", out)
    spans = json.loads(out.read_text(encoding="utf-8"))["resourceSpans"][0]["scopeSpans"][0]["spans"]
    ops = Counter(next(a["value"]["stringValue"] for a in s["attributes"]
                       if a["key"] == "gen_ai.operation.name") for s in spans)
    assert ops["invoke_agent"] == done.sessions
    answered = demo.con.execute(
        "SELECT count(*) FROM events c WHERE c.kind = 'CALL' AND c.call_id IS NOT NULL AND "
        "EXISTS (SELECT 1 FROM events r WHERE r.kind = 'RESULT' AND r.session_id = c.session_id "
        "AND r.call_id = c.call_id)").fetchall()[0][0]
    assert ops["execute_tool"] == answered
    findings = [e for s in spans for e in s.get("events", []) if e["name"] == "turnscope.finding"]
    assert len(findings) == done.findings == sum(1 for _ in audits.findings(demo))


def test_one_session_only(demo, tmp_path):
    sid = demo.con.execute("SELECT min(session_id) FROM events").fetchall()[0][0]
    out = tmp_path / "one.atif"
    done = export(demo, "atif", out, sid)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert done.sessions == 1 and doc["session_id"] == sid
    with pytest.raises(ExportError, match="no session"):
        export(demo, "atif", tmp_path / "none.atif", "no such session")
    assert not (tmp_path / "none.atif").exists()


def test_the_command_line(tmp_path):
    from tests.conftest import CORPUS
    src = CORPUS / "langfuse" / "langfuse-langfuse__openai-agents-2025-09-30.trace.json"
    out = tmp_path / "o.json"
    run = subprocess.run([sys.executable, "-m", "explorer", "export", str(src), "--to",
                          "otel-json", str(out)], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert "wrote 1 sessions, 5 events" in run.stderr
    audit = subprocess.run([sys.executable, "-m", "explorer", "audit", "--json", str(out)],
                           capture_output=True, text=True, timeout=120, check=False)
    assert json.loads(audit.stdout)["files"][0]["format"] == "otel-json"
    bad = subprocess.run([sys.executable, "-m", "explorer", "export", str(src), "--to", "x",
                          str(out)], capture_output=True, text=True, timeout=120, check=False)
    assert bad.returncode == 2


#: Rows that use every canonical column an export must keep, and the shapes a format has
#: no natural place for: no time, chars instead of text, a CALL without id or with text
#: that is no JSON object, an orphan result, a result before its call, a repeated call id,
#: an event id with two contents, SUMMARY and OTHER events.
EDGE_ROWS = [
    {"session_id": "s1", "kind": "SYSTEM", "text": "be brief", "ts": 1000},
    {"session_id": "s1", "kind": "USER", "text": "hi", "ts": 1000, "user_id": "u1", "turn": 1,
     "event_id": "e1"},
    {"session_id": "s1", "kind": "RESULT", "call_id": "c2", "text": "early", "ts": 900},
    {"session_id": "s1", "kind": "ASSISTANT", "text": "", "message_id": "m1", "tokens": 7},
    {"session_id": "s1", "kind": "CALL", "call_id": "c2", "tool": "t", "text": "not json",
     "message_id": "m1"},
    {"session_id": "s1", "kind": "CALL", "call_id": None, "tool": "t", "text": "{\"a\":1}"},
    {"session_id": "s1", "kind": "CALL", "call_id": "c3", "tool": "t", "text": "[1, 2]"},
    {"session_id": "s1", "kind": "CALL", "call_id": "c3", "tool": "t", "chars": 40, "cjk": True},
    {"session_id": "s1", "kind": "RESULT", "call_id": "c3", "tool": "t", "text": "ok",
     "is_error": True, "ts": 2000},
    {"session_id": "s1", "kind": "RESULT", "call_id": "zz", "text": "orphan", "ts": 2000},
    {"session_id": "s1", "kind": "OTHER", "text": "marker", "synthetic": True, "branch": "b.1"},
    {"session_id": "s1", "kind": "SUMMARY", "text": "so far", "archived": True, "ts": 1500},
    {"session_id": "s1", "kind": "USER", "text": "again", "user_id": "u2", "turn": 1,
     "event_id": "e1"},
    {"session_id": "s2", "kind": "USER", "chars": 12, "ts": 5},
]
COLUMNS = ("session_id", "kind", "ts", "call_id", "tool", "text", "chars", "cjk", "tokens",
           "user_id", "turn", "message_id", "event_id", "is_error", "synthetic", "branch",
           "archived")


@pytest.mark.parametrize("to", FORMATS)
def test_every_canonical_column_survives_the_round_trip(to, tmp_path):
    from explorer.export.source import sessions
    from tests.helpers import jsonl_present
    src = jsonl_present(tmp_path / "edge.jsonl", [dict(r, seq=i + 1) for i, r in enumerate(EDGE_ROWS)])
    store = Store()
    try:
        assert not import_paths(store, [src]).errors
        before, after, again = _round_trip(store, to, tmp_path / f"edge.{to}")
        rows = [[tuple(e.get(k) for k in COLUMNS) for e in s.events] for s in sessions(store)]
        back = [[tuple(e.get(k) for k in COLUMNS) for e in s.events] for s in sessions(again)]
        again.close()
    finally:
        store.close()
    assert back == rows
    assert after == before
    assert {k: before[k] for k in ("orphan_results", "mispair", "duplicate_call_ids",
                                   "event_id_conflicts", "clock_regressions", "ts_ties",
                                   "collapsed_keys", "turn_collisions")} == {
        "orphan_results": 1, "mispair": 1, "duplicate_call_ids": 1, "event_id_conflicts": 2,
        "clock_regressions": 2, "ts_ties": 2, "collapsed_keys": 1, "turn_collisions": 1}
