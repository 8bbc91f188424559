"""``turnscope validate`` (PROVIDERS.md), ``audit --fail-on`` and ``--junit``: what they
print, their exit status, and that validate says what the window's check says."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from explorer.cli.main import main
from explorer.providers import PROVIDERS
from explorer.providers.session_check import check_session
from explorer.session.data import load_session
from explorer.store.db import Store
from tests.conftest import CORPUS
from tests.helpers import jsonl, load

CODEX_EOF = CORPUS / "codex-cli" / \
    "madshn-localpush__rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
#: b before a (input order is not name order); b is clean, a's call is never answered
ROWS = [{"session_id": "b", "seq": 1, "kind": "USER", "tokens": 5},
        {"session_id": "b", "seq": 2, "kind": "CALL", "call_id": "k1", "tokens": 5},
        {"session_id": "b", "seq": 3, "kind": "RESULT", "call_id": "k1", "tokens": 50},
        {"session_id": "b", "seq": 4, "kind": "ASSISTANT", "tokens": 5},
        {"session_id": "a", "seq": 1, "kind": "USER", "tokens": 5},
        {"session_id": "a", "seq": 2, "kind": "CALL", "call_id": "x9", "tokens": 5}]


def _run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_validate_json_has_one_object_per_session_and_provider(capsys, tmp_path):
    path = jsonl(tmp_path / "s.jsonl", ROWS)
    status, out, _ = _run(capsys, "validate", str(path), "--json")
    docs = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    assert [(d["session_id"], d["provider"]) for d in docs] == \
        [(s, p) for s in ("b", "a") for p in PROVIDERS]
    assert all(d["accepted"] and d["violations"] == [] for d in docs[:5])
    a = {d["provider"]: d for d in docs[5:]}
    assert a["openai-responses"]["violations"] == [{
        "rule": "openai-responses.no-output", "message_index": 1, "content_index": None,
        "call_ids": ["x9"], "text": "No tool output found for function call x9.",
        "events": [[2, 0]]}]
    assert a["anthropic"]["violations"][0]["text"].startswith("messages.1: `tool_use` ids")
    assert not any(d["accepted"] for d in docs[5:])


def test_validate_status_provider_and_strategy(capsys, tmp_path):
    path = jsonl(tmp_path / "s.jsonl", ROWS[:4])
    assert _run(capsys, "validate", str(path))[0] == 0
    # M0 at 50 tokens keeps the RESULT and the ASSISTANT only: an orphan result
    status, out, _ = _run(capsys, "validate", str(path), "--strategy", "M0", "--budget", "55",
                          "--provider", "openai-chat", "--json")
    (doc,) = [json.loads(line) for line in out.splitlines()]
    assert status == 1 and doc["violations"][0]["rule"] == "openai-chat.orphan"
    status, _, err = _run(capsys, "validate", str(path), "--provider", "openai")
    assert status == 2 and "unknown provider 'openai'" in err
    status, _, err = _run(capsys, "validate", str(path), "--strategy", "nope")
    assert status == 2
    status, out, _ = _run(capsys, "validate", str(path), "--strategy", "recorded",
                          "--provider", "gemini")
    assert status == 0 and out.strip() == "b  gemini: accepted"


def test_validate_agrees_with_the_windows_check(capsys, tmp_path):
    status, out, _ = _run(capsys, "validate", str(CODEX_EOF), "--json", "--junit",
                          str(tmp_path / "v.xml"))
    docs = [json.loads(line) for line in out.splitlines()]
    assert status == 1
    store = Store()
    try:
        load(store, CODEX_EOF)
        for strategy, budget in ((None, None), ("M1", 3000), ("recorded", 10**6)):
            if strategy:
                status, out, _ = _run(capsys, "validate", str(CODEX_EOF), "--json",
                                      "--strategy", strategy, "--budget", str(budget))
                docs = [json.loads(line) for line in out.splitlines()]
            for d in docs:
                log = load_session(store, d["session_id"]).log   # as the window loads it
                found = check_session(log, (d["provider"],), strategy, budget)[d["provider"]]
                assert d["violations"] == [v.as_dict() for v in found]
    finally:
        store.close()
    suite = ET.parse(tmp_path / "v.xml").getroot().find("testsuite")
    (case,) = suite.findall("testcase")
    assert suite.get("failures") == "1" and "openai-responses.no-output" in case.find("failure").text


def test_validate_agrees_with_the_window_on_every_corpus_session(capsys):
    """Issue 18's Done-when: every session of ../shared/corpus (the folder, as a user
    passes it), as logged and as one strategy's view."""
    store = Store()
    try:
        load(store, CORPUS)
        sessions = {row[0] for row in store.con.execute(
            "SELECT DISTINCT session_id FROM events").fetchall()}
        assert len(sessions) > 40
        for strategy, budget in ((None, None), ("M1", 2000)):
            extra = ["--strategy", strategy, "--budget", str(budget)] if strategy else []
            status, out, _ = _run(capsys, "validate", str(CORPUS), "--json", *extra)
            docs = [json.loads(line) for line in out.splitlines()]
            assert status == (1 if any(not d["accepted"] for d in docs) else 0)
            assert sorted((d["session_id"], d["provider"]) for d in docs) == \
                sorted((s, p) for s in sessions for p in PROVIDERS)
            logs = {s: load_session(store, s).log for s in sessions}   # as the window loads
            for d in docs:
                found = check_session(logs[d["session_id"]], (d["provider"],), strategy,
                                      budget)[d["provider"]]
                assert d["violations"] == [v.as_dict() for v in found], (d["session_id"],
                                                                         d["provider"])
                assert d["accepted"] == (not found)
    finally:
        store.close()


def test_audit_fail_on_thresholds(capsys, tmp_path):
    path = str(jsonl(tmp_path / "s.jsonl", ROWS))
    status, _, err = _run(capsys, "audit", path, "--fail-on", "dangling_calls")
    assert status == 1 and "dangling_calls is 1, more than 0" in err
    assert _run(capsys, "audit", path, "--fail-on", "dangling_calls:1,orphan_results")[0] == 0
    assert _run(capsys, "audit", path, "--json", "--fail-on", "sessions:1")[0] == 1
    status, _, err = _run(capsys, "audit", path, "--fail-on", "orphans")
    assert status == 2 and "'orphans' is not an AUDITS.md count" in err
    assert _run(capsys, "audit", path, "--fail-on", "sessions:x")[0] == 2


@pytest.mark.parametrize("findings", [False, True])
def test_audit_junit_has_one_case_per_session(capsys, tmp_path, findings):
    path = str(jsonl(tmp_path / "s.jsonl", ROWS))
    report = tmp_path / "a.xml"
    _run(capsys, "audit", path, "--junit", str(report), *(["--findings"] if findings else []))
    suite = ET.parse(report).getroot().find("testsuite")
    cases = {c.get("name"): c.find("failure") for c in suite.findall("testcase")}
    assert list(cases) == ["b", "a"]
    assert cases["b"] is None and "dangling_calls" in cases["a"].text
