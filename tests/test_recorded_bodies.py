"""Recorded API bodies (cassettes and HAR; explorer.formats.recorded_bodies): nothing the API
sent is silently dropped. For every real Anthropic Messages and Chat Completions recording,
this test puts each reply together from the raw body with its own few lines (SSE ``data:``
payloads, deltas joined, gzip inflated) and checks that every text, thinking, tool input,
tool result and usage figure of every request and reply is somewhere in the imported events
(their text, or their raw). A body that cannot be decoded, or is past ``--max-line-bytes``,
is a rejected record saying so."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest
import yaml

from explorer.formats import limits
from explorer.ingest.imports import import_paths
from tests.conftest import CORPUS

RECORDINGS = sorted(p for folder in ("anthropic-messages", "openai-chat-completions")
                    for p in (CORPUS / folder).iterdir() if p.suffix in (".yaml", ".har"))
STREAMED = CORPUS / "anthropic-messages" / "traceloop-openllmetry__test_anthropic_tools_streaming_legacy.yaml"


def bodies(path: Path) -> list[tuple[str, str]]:
    """(request text, response text) of each interaction, as recorded."""
    if path.suffix == ".har":
        return [(e["request"]["postData"]["text"], e["response"]["content"]["text"])
                for e in json.loads(path.read_text())["log"]["entries"]]
    out = []
    for item in yaml.safe_load(path.read_text())["interactions"]:
        parts = []
        for side in ("request", "response"):
            part = item[side]
            if "parsed_body" in part:
                parts.append(json.dumps(part["parsed_body"]))
                continue
            text = part["body"]["string"] if isinstance(part["body"], dict) else part["body"]
            parts.append(gzip.decompress(text).decode() if isinstance(text, bytes) else text)
        out.append(tuple(parts))
    return out


def reply(text: str) -> dict:
    """A response body as an object; a stream put together by this test's own rules."""
    try:
        return json.loads(text)
    except ValueError:
        events = [json.loads(line[5:]) for line in text.splitlines()
                  if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]")]
    if any(e.get("type") == "message_start" for e in events):
        blocks: dict[int, dict] = {}
        partial: dict[int, str] = {}
        usage = {}
        for e in events:
            if e["type"] == "content_block_start":
                blocks[e["index"]] = dict(e["content_block"])
            elif e["type"] == "content_block_delta":
                d, b = e["delta"], blocks[e["index"]]
                for key in ("text", "thinking"):
                    if key in d:
                        b[key] = b.get(key, "") + d[key]
                partial[e["index"]] = partial.get(e["index"], "") + d.get("partial_json", "")
            elif e["type"] in ("message_start", "message_delta"):
                usage.update(e.get("usage") or e.get("message", {}).get("usage") or {})
        for index, joined in partial.items():
            if joined:
                blocks[index]["input"] = json.loads(joined)
        return {"content": list(blocks.values()), "usage": usage}
    content, calls, usage = "", {}, {}
    for chunk in events:
        usage = chunk.get("usage") or usage
        for choice in chunk["choices"]:
            content += choice["delta"].get("content") or ""
            for call in choice["delta"].get("tool_calls") or []:
                calls[call["index"]] = calls.get(call["index"], "") + call["function"].get(
                    "arguments", "")
    return {"choices": [{"message": {"content": content, "tool_calls": [
        {"function": {"arguments": a}} for a in calls.values()]}}], "usage": usage}


def pieces(value) -> list[str]:
    """The texts, thinking, tool inputs and outputs of a body (request or reply)."""
    out = []
    if isinstance(value, dict):
        for key in ("text", "thinking"):
            if isinstance(value.get(key), str) and value[key]:
                out.append(value[key])
        if isinstance(value.get("content"), str) and value["content"]:
            out.append(value["content"])
        if isinstance(value.get("arguments"), str) and value["arguments"]:
            out.append(value["arguments"])
        if value.get("type") in ("tool_use", "server_tool_use") and value.get("input"):
            out += [v for v in value["input"].values() if isinstance(v, str)]
        for key, child in value.items():
            if key not in ("tools", "input_schema", "encrypted_content", "signature"):
                out += pieces(child)
    elif isinstance(value, list):
        out += [p for v in value for p in pieces(v)]
    return out


def strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return [str(value)] if value is not None else []


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.name[:50])
def test_no_content_is_silently_dropped(store, path):
    report = import_paths(store, [str(path)])
    assert not report.errors
    file = report.files[0]
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    rows = store.con.execute(
        "SELECT d.text, CAST(d.raw AS VARCHAR) FROM event_details d").fetchall()
    stored = [t for t, _ in rows if t] + [s for _, raw in rows if raw
                                          for s in strings(json.loads(raw))]
    found = set(stored)
    want, usages = [], []
    for request, response in bodies(path):
        body = json.loads(request)
        if "contents" in body:   # Gemini's own API in a mixed cassette: not this reader's
            continue
        answer = reply(response)
        want += pieces(body.get("messages")) + pieces(body.get("system"))
        want += pieces(answer.get("content")) + pieces(answer.get("choices"))
        usages.append(answer.get("usage") or {})
    missing = [p for p in dict.fromkeys(want)
               if p not in found and not any(p in s for s in stored)]
    assert missing == []
    figures = {str(v) for u in usages for k, v in u.items() if k.endswith("_tokens")}
    assert figures - found == set()


@pytest.fixture
def small_bodies():
    limits.configure(dataclasses.replace(limits.DEFAULTS, max_line_bytes=2000), {})
    yield
    limits.configure(limits.DEFAULTS, {})


def test_a_body_past_the_line_limit_is_rejected_naming_the_limit(store, small_bodies):
    """The streamed reply (over 2,000 bytes) of a real cassette, with --max-line-bytes 2000:
    its interaction's response is a rejected record naming the limit, not 'not a reply'."""
    file = import_paths(store, [str(STREAMED)]).files[0]
    assert file.rejected == 1
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason == ("interaction 1, response body: body longer than the 2000 bytes limit "
                      "(--max-line-bytes)")


def test_a_body_that_is_neither_json_nor_a_stream_is_rejected(store, tmp_path):
    data = yaml.safe_load(STREAMED.read_text())
    data["interactions"][0]["response"]["body"]["string"] = "<html>502 Bad Gateway</html>"
    bad = tmp_path / STREAMED.name
    bad.write_text(yaml.safe_dump(data))
    file = import_paths(store, [str(bad)]).files[0]
    assert file.rejected == 1 and file.events > 0   # the request's messages still import
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason.startswith("interaction 1, response body: neither JSON")


HAR = CORPUS / "anthropic-messages" / "Mirascope-mirascope__streams-tool-calls-and-resumes-with-results.har"


def _events(store) -> list[tuple]:
    return store.con.execute(
        "SELECT seq, sub, CAST(kind AS VARCHAR), call_id, tool, d.text FROM events "
        "JOIN event_details d USING (eid) ORDER BY seq, sub").fetchall()


def test_a_har_body_in_base64_and_gzip_reads_as_the_plain_one(store, tmp_path):
    """HAR marks a binary body ``encoding: base64``; a compressed one is gzip under it."""
    import base64

    plain = import_paths(store, [str(HAR)]).files[0]
    want = _events(store)
    doc = json.loads(HAR.read_text())
    for entry in doc["log"]["entries"]:
        content = entry["response"]["content"]
        content["text"] = base64.b64encode(gzip.compress(content["text"].encode())).decode()
        content["encoding"] = "base64"
    packed = tmp_path / HAR.name
    packed.write_text(json.dumps(doc))
    from explorer.store.db import Store
    other = Store()
    try:
        file = import_paths(other, [str(packed)]).files[0]
        assert (file.records, file.imported, file.rejected) == (
            plain.records, plain.imported, plain.rejected)
        assert _events(other) == want and len(want) == 6
    finally:
        other.close()


def test_a_gzip_body_that_expands_past_the_line_limit_is_rejected(store, tmp_path,
                                                                  small_bodies):
    data = yaml.safe_load(STREAMED.read_text())
    text = data["interactions"][0]["response"]["body"]["string"]
    data["interactions"][0]["response"]["body"]["string"] = gzip.compress(text.encode())
    assert len(gzip.compress(text.encode())) < 2000 < len(text)
    packed = tmp_path / STREAMED.name
    packed.write_text(yaml.safe_dump(data))
    file = import_paths(store, [str(packed)]).files[0]
    assert file.rejected == 1
    (reason,), = store.con.execute("SELECT reason FROM rejected").fetchall()
    assert reason == ("interaction 1, response body: a gzip-compressed body that cannot be "
                      "read: body longer than the 2000 bytes limit (--max-line-bytes)")


def test_an_api_error_reply_is_a_skipped_record_with_its_reason(store, tmp_path):
    data = yaml.safe_load(STREAMED.read_text())
    data["interactions"][0]["response"]["body"]["string"] = json.dumps(
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    bad = tmp_path / STREAMED.name
    bad.write_text(yaml.safe_dump(data))
    file = import_paths(store, [str(bad)]).files[0]
    assert file.rejected == 0 and file.skipped == 1
    assert file.records == file.imported + file.skipped + file.rejected + file.duplicates
    assert file.skipped_by_reason == {"a response without a reply (an API error)": 1}
