"""OpenAI Responses reader (docs/FORMATS.md §B) on the real openllmetry cassettes: a streamed
Agents-SDK handoff and a gzip-bodied cassette holding two runs. Expected figures come from the
raw files by this test's own few lines (PyYAML, gzip, the ``response.completed`` event)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from explorer import formats
from explorer.cli.demo import demo_paths
from explorer.formats import openai_responses, read_head
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS
from tests.helpers import pair_counts, stored_kinds

HERE = CORPUS / "openai-responses"
FILES = sorted(HERE.iterdir())
HANDOFF = HERE / "traceloop-openllmetry__test_music_composer_handoff_hierarchy.yaml"
GZIPPED = HERE / "traceloop-openllmetry__test_tool_call_and_result_attributes.yaml"
OTHERS = [p for p in CORPUS.rglob("*") if p.is_file() and p.parent != HERE
          and p.name != "SOURCES.md"]


def exchanges(path: Path) -> list[tuple[dict, dict | None]]:
    """(request body, response object) of each /v1/responses interaction, in file order."""
    out = []
    for item in yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))[
            "interactions"]:
        if not item["request"]["uri"].endswith("/v1/responses"):
            continue
        text = item["response"]["body"]["string"]
        if isinstance(text, bytes):
            text = gzip.decompress(text).decode()
        if text.lstrip().startswith("{"):
            reply = json.loads(text)
        else:   # a stream: the completed event holds the whole response
            events = [json.loads(line[5:]) for line in text.splitlines()
                      if line.startswith("data:")]
            reply = next(e["response"] for e in events if e["type"] == "response.completed")
        out.append((json.loads(item["request"]["body"]), reply))
    return out


def expected(path: Path) -> dict[str, tuple[Counter, int]]:
    """Per conversation (its last request: not a prefix of a later one), the events by kind
    and the number of distinct instructions along it."""
    pairs = exchanges(path)
    out = {}
    for i, (req, reply) in enumerate(pairs):
        later = [r["input"] for r, _ in pairs[i + 1:]]
        if any(x[:len(req["input"])] == req["input"] for x in later):
            continue
        chain = [r["instructions"] for r, _ in pairs[:i + 1]
                 if req["input"][:len(r["input"])] == r["input"]]
        said = [w for n, w in enumerate(chain) if n == 0 or w != chain[n - 1]]
        kinds = Counter({"SYSTEM": len(said)})
        for item in req["input"] + reply["output"]:
            kinds[{"function_call": "CALL", "function_call_output": "RESULT"}.get(
                item.get("type"), "USER" if item.get("role") == "user" else "ASSISTANT")] += 1
        out[str(i)] = (kinds, len(said))
    return out


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_corpus_files_are_detected_as_openai_responses(path):
    assert formats.detect(path).NAME == openai_responses.NAME


@pytest.mark.parametrize("path", OTHERS + demo_paths(), ids=lambda p: p.name[:40])
def test_no_other_file_is_taken_for_openai_responses(path):
    assert not openai_responses.matches(path, read_head(path))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_counts_match_the_last_requests_and_replies(store, path):
    report = import_paths(store, [str(path)])
    assert not report.errors
    file = report.files[0]
    assert file.rejected == 0
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    want = expected(path)
    assert sum(stored_kinds(store).values()) == sum(sum(k.values()) for k, _ in want.values())
    assert stored_kinds(store) == sum((k for k, _ in want.values()), Counter())
    sessions = pair_counts(store)
    assert len(sessions) == len(want)
    assert all(c["dangling_calls"] == 0 and c["orphan_results"] == 0 for c in sessions.values())


def test_a_handoff_puts_the_new_agents_instructions_before_its_reply(store):
    import_paths(store, [str(HANDOFF)])
    rows = store.con.execute("SELECT CAST(kind AS VARCHAR), tool FROM events "
                             "ORDER BY seq, sub").fetchall()
    assert rows == [("SYSTEM", None), ("USER", None),
                    ("CALL", "transfer_to_symphony_composer"),
                    ("RESULT", "transfer_to_symphony_composer"), ("SYSTEM", None),
                    ("CALL", "compose_music"), ("RESULT", "compose_music"), ("ASSISTANT", None)]


def _source_pieces(path: Path) -> list[str]:
    """Every text, tool input, tool output and usage figure of the conversations' items."""
    pieces = []
    for req, reply in exchanges(path):
        pieces.append(req["instructions"])
        for item in req["input"] + reply["output"]:
            for key in ("arguments", "output"):
                pieces += [item[key]] if key in item else []
            content = item.get("content")
            pieces += ([content] if isinstance(content, str) else
                       [p["text"] for p in content or [] if "text" in p])
    return pieces


def _usages(value) -> list:
    """Every ``usage`` object inside a JSON value."""
    if isinstance(value, dict):
        return ([value["usage"]] if isinstance(value.get("usage"), dict) else []) + [
            u for v in value.values() for u in _usages(v)]
    return [u for v in value for u in _usages(v)] if isinstance(value, list) else []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:40])
def test_no_content_is_silently_dropped(store, path):
    import_paths(store, [str(path)])
    stored = "\n".join(t or "" for row in store.con.execute(
        "SELECT d.text, CAST(d.raw AS VARCHAR) FROM event_details d").fetchall() for t in row)
    missing = [p for p in _source_pieces(path) if p not in stored]
    assert missing == []
    raws = [json.loads(r) for (r,) in store.con.execute(
        "SELECT CAST(raw AS VARCHAR) FROM event_details WHERE raw IS NOT NULL").fetchall()]
    kept = _usages(raws)
    assert [reply["usage"] for _, reply in exchanges(path) if reply["usage"] not in kept] == []


def test_an_undecodable_body_is_a_rejected_record_with_its_reason(store, tmp_path):
    data = yaml.safe_load(GZIPPED.read_text())
    data["interactions"][0]["response"]["body"]["string"] = b"\x1f\x8b\x08\x00broken"
    bad = tmp_path / GZIPPED.name
    bad.write_text(yaml.safe_dump(data))
    file = import_paths(store, [str(bad)]).files[0]
    assert file.rejected == 1
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    reason = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert len(reason) == 1 and "gzip" in reason[0][0] and "interaction 1" in reason[0][0]


def test_the_same_calls_recorded_as_har_import_alike(store, tmp_path):
    """HAR and cassettes share the body decoding: the handoff cassette written as a HAR
    file (no such real file: made from the cassette's own bodies, the SSE as plain text)
    gives the same events."""
    items = yaml.load(HANDOFF.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    entries = [{"startedDateTime": "2025-08-15T17:56:40.000Z", "time": 1,
                "request": {"method": "POST", "url": i["request"]["uri"],
                            "postData": {"mimeType": "application/json",
                                         "text": i["request"]["body"]}},
                "response": {"status": i["response"]["status"]["code"],
                             "content": {"text": i["response"]["body"]["string"]}}}
               for i in items["interactions"]]
    har = tmp_path / f"{HANDOFF.stem}.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}, indent=2))
    assert formats.detect(har).NAME == openai_responses.NAME
    query = "SELECT session_id, seq, CAST(kind AS VARCHAR), call_id, tool FROM events ORDER BY eid"
    import_paths(store, [str(HANDOFF)])
    want = store.con.execute(query).fetchall()
    from explorer.store.db import Store
    other = Store()
    try:
        assert not import_paths(other, [str(har)]).errors
        assert other.con.execute(query).fetchall() == want and len(want) == 8
    finally:
        other.close()
