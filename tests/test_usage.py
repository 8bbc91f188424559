"""Reported usage: kept from each format's raw records, shown beside the estimate, never the
cost. Expected figures are read from the corpus files with a few lines of independent code."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from explorer.ingest.imports import import_paths
from explorer.session.data import load_session
from explorer.session.reported_usage import reported_usage
from tests.conftest import CORPUS

CLAUDE = CORPUS / "claude-code" / "jnarowski-agentcmd__full-session.jsonl"
GEMINI = CORPUS / "gemini-cli" / "jnarowski-agentcmd__session-2025-10-29T10-39-a63242d9.json"
CASSETTE = CORPUS / "openai-chat-completions" / "pydantic-pydantic-ai__test_openai_tool_output.yaml"


def _only_session(store, path: Path):
    import_paths(store, [path])
    (session,), = store.run("session_names")
    return load_session(store, session)


def test_claude_code_usage_counts_each_message_once_with_its_last_figures(store):
    last: dict[str, dict] = {}
    for line in CLAUDE.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        message = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        if rec.get("type") == "assistant" and "usage" in message:
            last[message["id"]] = message["usage"]  # later lines of a message carry more
    data = _only_session(store, CLAUDE)
    assert data.usage.responses == len(last) > 0
    assert data.usage.output == sum(u["output_tokens"] for u in last.values())
    # never the cost: every cost is the estimate from the content
    assert data.frame["estimated"].all()


def test_gemini_usage_is_the_messages_token_record(store):
    doc = json.loads(GEMINI.read_text(encoding="utf-8"))
    tokens = [m["tokens"] for m in doc["messages"] if isinstance(m.get("tokens"), dict)]
    data = _only_session(store, GEMINI)
    assert data.usage.responses == len(tokens) > 0
    assert data.usage.output == sum(t["output"] for t in tokens)


def test_a_cassette_counts_each_recorded_response_once(store):
    doc = yaml.safe_load(CASSETTE.read_text(encoding="utf-8"))
    usages = [i["response"]["parsed_body"]["usage"] for i in doc["interactions"]
              if "usage" in (i["response"].get("parsed_body") or {})]
    data = _only_session(store, CASSETTE)
    assert data.usage.responses == len(usages) > 0
    assert data.usage.output == sum(u["completion_tokens"] for u in usages)


def test_reported_usage_reads_the_known_places_only():
    assert reported_usage({"message": {"usage": {"input_tokens": 5, "output_tokens": 2,
                                                 "cache_read_input_tokens": 9}}}) == \
        {"input": 5, "output": 2, "cache_read": 9}
    assert reported_usage('{"response": {"usage": {"prompt_tokens": 7}}}') == {"input": 7}
    assert reported_usage({"usage": {"output_tokens": True}}) is None  # not a count
    assert reported_usage({"elsewhere": {"usage": {"input_tokens": 1}}}) is None
    assert reported_usage("not json") is None and reported_usage(None) is None


def _claude_ledger(path: Path) -> dict[str, int]:
    """Independent: each message.id's last usage, summed (input, cached input, output)."""
    last: dict[str, dict] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        message = rec.get("message") if isinstance(rec.get("message"), dict) else {}
        if rec.get("type") == "assistant" and isinstance(message.get("usage"), dict):
            last[message["id"]] = message["usage"]
    return {"responses": len(last),
            "input": sum(u.get("input_tokens", 0) for u in last.values()),
            "cached_input": sum(u.get("cache_read_input_tokens", 0) for u in last.values()),
            "output": sum(u.get("output_tokens", 0) for u in last.values())}


def test_the_token_ledger_counts_each_response_once_per_session_and_for_the_corpus(store):
    from explorer.cli.audit import ledger

    files = sorted((CORPUS / "claude-code").glob("*.jsonl"))[:4]
    import_paths(store, files)
    got = ledger(store)
    expected = [_claude_ledger(f) for f in files]
    for key in ("responses", "input", "cached_input", "output"):
        assert got[key] == sum(e[key] for e in expected), key
    assert got["responses"] > 0 and got["cached_input"] > 0
    # each session's figures add up to the corpus's, and the window's title says them
    assert sum(s["output"] for s in got["sessions"].values()) == got["output"]
    session, figures = next(iter(got["sessions"].items()))
    data = load_session(store, session)
    assert (data.usage.input, data.usage.cached_input, data.usage.output) == (
        figures["input"], figures["cached_input"], figures["output"])
    assert f"output {figures['output']:,} tokens" in data.usage.text()


def test_usage_written_again_on_later_records_counts_once_with_its_last_figures():
    from explorer.session.reported_usage import session_usage

    # a streaming writer repeats the usage on every line of one response (ids beside it or
    # on the event); a record without any id is a response of its own
    raws = [("m1", {"message": {"id": "a", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            ("m1", {"message": {"id": "a", "usage": {"input_tokens": 5, "output_tokens": 9}}}),
            ("m2", {"usage": {"input_tokens": 3, "output_tokens": 2}}),
            ("m2", {"usage": {"input_tokens": 3, "output_tokens": 4}}),
            (None, {"usage": {"input_tokens": 1, "output_tokens": 1}}),
            (None, {"usage": {"input_tokens": 1, "output_tokens": 1}})]
    got = session_usage(raws)
    assert (got.responses, got.input, got.output) == (4, 10, 15)
