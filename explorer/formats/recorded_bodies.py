"""Recorded HTTP bodies as the object they hold: plain JSON, a streamed reply (server-sent
events) put back together, or either of them gzip-compressed (VCR keeps a compressed body as
bytes, written base64 under ``!!binary``; a HAR file marks base64 with ``encoding``).

A streamed Anthropic Messages reply (``message_start``, ``content_block_start``,
``content_block_delta`` …, ``message_delta``, ``message_stop``) becomes the ``message`` object
the same request without ``stream`` returns; a streamed OpenAI Chat Completions reply
(``chat.completion.chunk`` lines, then ``[DONE]``) becomes the ``chat.completion`` object; a
streamed OpenAI Responses reply (``response.created`` … ``response.completed``) the
``response`` object. A body that is none of these raises :class:`BodyError` with the reason,
which the reader keeps as a rejected record: a body is never dropped without a word.
"""

from __future__ import annotations

import json

from explorer.formats import limits
from explorer.formats.inflate import MAGIC, Cut, gunzip_bytes
from explorer.formats.json_values import loads


class BodyError(ValueError):
    """A recorded body that cannot be read as any of the forms above; says why."""


def recorded_body(body: str | bytes) -> dict | None:
    """The object a recorded body holds (a request, or a reply put back together); None for
    an empty body (a 204 answer); :class:`BodyError` for one that is none of the forms above
    or is longer than ``--max-line-bytes``."""
    if isinstance(body, bytes):
        if body[:2] == MAGIC:
            try:
                body = gunzip_bytes(body, "body")
            except Cut as exc:
                raise BodyError(f"a gzip-compressed body that cannot be read: {exc}") from None
        if len(body) > limits.current().max_line_bytes:
            raise BodyError(limits.past("max_line_bytes", "body longer than"))
        body = body.decode("utf-8", "replace")
    elif len(body) > limits.current().max_line_bytes:
        raise BodyError(limits.past("max_line_bytes", "body longer than"))
    if not body.strip():
        return None
    try:
        value = loads(body)
    except ValueError as exc:
        value = _from_events(body)
        if value is None:
            raise BodyError(f"neither JSON ({exc}) nor a stream of server-sent events of "
                            f"a known API") from None
        return value
    except RecursionError:
        raise BodyError("JSON nested too deeply to read") from None
    if not isinstance(value, dict):
        raise BodyError(f"JSON that is not an object (a {type(value).__name__})")
    return value


def _events(text: str) -> list[dict]:
    """The JSON ``data:`` payloads of a server-sent event stream, in order."""
    out = []
    for line in text.splitlines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if not payload or payload == "[DONE]":
            continue
        try:
            value = json.loads(payload)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _from_events(text: str) -> dict | None:
    events = _events(text)
    if not events:
        return None
    if any(e.get("type") == "message_start" for e in events):
        return _anthropic_message(events)
    if any(e.get("object") == "chat.completion.chunk" for e in events):
        return _chat_completion(events)
    if any(str(e.get("type", "")).startswith("response.") for e in events):
        return _response(events)
    return None


def _anthropic_message(events: list[dict]) -> dict | None:
    """Anthropic's message, from its stream (the documented event types; others ignored)."""
    message: dict | None = None
    blocks: dict[int, dict] = {}
    partial: dict[int, str] = {}
    for event in events:
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = dict(event["message"])
        elif kind == "content_block_start" and isinstance(event.get("content_block"), dict):
            blocks[_index(event)] = dict(event["content_block"])
        elif kind == "content_block_delta" and isinstance(event.get("delta"), dict):
            block = blocks.setdefault(_index(event), {})
            _apply_delta(block, event["delta"], partial, _index(event))
        elif kind == "message_delta" and message is not None:
            delta = event.get("delta") if isinstance(event.get("delta"), dict) else {}
            message.update(delta)
            if isinstance(event.get("usage"), dict):
                message["usage"] = {**(message.get("usage") or {}), **event["usage"]}
    if message is None:
        return None
    for index, text in partial.items():
        try:
            blocks[index]["input"] = json.loads(text) if text.strip() else {}
        except ValueError:
            blocks[index]["input"] = text   # cut short: kept as the text that came
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _index(event: dict) -> int:
    index = event.get("index")
    return index if isinstance(index, int) else 0


def _apply_delta(block: dict, delta: dict, partial: dict[int, str], index: int) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "input_json_delta":
        partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))
    elif kind == "citations_delta" and "citation" in delta:
        block.setdefault("citations", []).append(delta["citation"])


def _chat_completion(chunks: list[dict]) -> dict:
    """OpenAI's chat.completion, from its chunks: contents and tool-call arguments joined."""
    head = chunks[0]
    out: dict = {key: head[key] for key in ("id", "created", "model", "system_fingerprint")
                 if key in head}
    out["object"] = "chat.completion"
    choices: dict[int, dict] = {}
    for chunk in chunks:
        if isinstance(chunk.get("usage"), dict):
            out["usage"] = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            index = choice.get("index") if isinstance(choice.get("index"), int) else 0
            into = choices.setdefault(index, {"index": index, "message": {"role": "assistant"},
                                              "finish_reason": None})
            if choice.get("finish_reason") is not None:
                into["finish_reason"] = choice["finish_reason"]
            delta = choice.get("delta")
            if isinstance(delta, dict):
                _apply_chunk(into["message"], delta)
    out["choices"] = [choices[i] for i in sorted(choices)]
    for choice in out["choices"]:
        calls = choice["message"].pop("_calls", None)
        if calls:
            choice["message"]["tool_calls"] = [calls[i] for i in sorted(calls)]
    return out


def _apply_chunk(message: dict, delta: dict) -> None:
    if isinstance(delta.get("role"), str):
        message["role"] = delta["role"]
    for key in ("content", "refusal", "reasoning_content"):
        if isinstance(delta.get(key), str):
            message[key] = (message.get(key) or "") + delta[key]
        elif key == "content":
            message.setdefault("content", None)
    calls = message.setdefault("_calls", {})
    for call in delta.get("tool_calls") or []:
        if not isinstance(call, dict):
            continue
        index = call.get("index") if isinstance(call.get("index"), int) else len(calls)
        into = calls.setdefault(index, {"id": None, "type": "function",
                                        "function": {"name": "", "arguments": ""}})
        if call.get("id"):
            into["id"] = call["id"]
        if call.get("type"):
            into["type"] = call["type"]
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        if isinstance(function.get("name"), str):
            into["function"]["name"] += function["name"]
        if isinstance(function.get("arguments"), str):
            into["function"]["arguments"] += function["arguments"]


def _response(events: list[dict]) -> dict | None:
    """OpenAI's Responses object, from its stream: the last event that carries the whole
    ``response`` (``response.completed``, ``.incomplete``, ``.failed``), its ``output`` filled
    from the items the stream finished (``response.output_item.done``) when it has none, and
    failing those from the items added and their text and argument deltas (a cut stream)."""
    base = None
    done: dict[int, dict] = {}
    added: dict[int, dict] = {}
    for event in events:
        kind = event.get("type")
        if isinstance(event.get("response"), dict):
            base = dict(event["response"])
        index = event.get("output_index") if isinstance(event.get("output_index"), int) else 0
        item = event.get("item")
        if kind == "response.output_item.done" and isinstance(item, dict):
            done[index] = item
        elif kind == "response.output_item.added" and isinstance(item, dict):
            added[index] = dict(item)
        elif kind == "response.output_text.delta" and index in added:
            parts = added[index].setdefault("content", [])
            if not parts:
                parts.append({"type": "output_text", "text": ""})
            parts[-1]["text"] = str(parts[-1].get("text", "")) + str(event.get("delta", ""))
        elif kind == "response.function_call_arguments.delta" and index in added:
            added[index]["arguments"] = (str(added[index].get("arguments") or "")
                                         + str(event.get("delta", "")))
    if base is None:
        return None
    if not base.get("output"):
        items = {**added, **done}
        base["output"] = [items[i] for i in sorted(items)]
    return base
