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
NOT_KEPT = {"duplicates", "shared_keys"}
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
                          "otel-json", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "wrote 1 sessions, 5 events" in run.stderr
    audit = subprocess.run([sys.executable, "-m", "explorer", "audit", "--json", str(out)],
                           capture_output=True, text=True, timeout=120)
    assert json.loads(audit.stdout)["files"][0]["format"] == "otel-json"
    bad = subprocess.run([sys.executable, "-m", "explorer", "export", str(src), "--to", "x",
                          str(out)], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
