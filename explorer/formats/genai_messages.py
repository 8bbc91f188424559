"""The messages of a model call as the tracing conventions record them (docs/FORMATS.md):
OpenTelemetry GenAI's ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (and
``gen_ai.system_instructions``), its older span events (``gen_ai.user.message`` …
``gen_ai.choice``), OpenLLMetry's ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``,
OpenInference's ``llm.input_messages.{i}.message.*``, and the loose shapes Langfuse keeps
as an observation's input and output (chat messages, Anthropic content blocks, Responses
items). Each reader of explorer.formats passes a span's attributes as a flat dict.
"""

from __future__ import annotations

import json
import re

from explorer.formats.conversation import Message
from explorer.formats.extension import apply_extension, read_extension
from explorer.formats.record import reason_word

_KINDS = {"system": "SYSTEM", "developer": "SYSTEM", "user": "USER", "human": "USER",
          "assistant": "ASSISTANT", "ai": "ASSISTANT", "model": "ASSISTANT"}
_TOOL_ROLES = {"tool", "function", "ipython"}


def as_json(value):
    """A value that may be JSON written as text, parsed (the text itself when it is not)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def as_text(value) -> str | None:
    """A string as itself, any other JSON value as JSON text, None as None."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


# --- OpenTelemetry GenAI (current) -----------------------------------------------------------

def otel_messages(value) -> list[Message] | None:
    """``gen_ai.input.messages`` / ``output.messages``: ``[{role, parts: [...]}]``."""
    value = as_json(value)
    if not isinstance(value, list):
        return None
    return [Message(str(m.get("role")), [e for p in _list(m.get("parts"))
                                         if (e := _part_event(str(m.get("role")), p))])
            for m in value if isinstance(m, dict)]


def system_instructions(value) -> list[Message]:
    """``gen_ai.system_instructions`` (a list of parts) as one system message."""
    value = as_json(value)
    if isinstance(value, str):
        return [Message("system", [{"kind": "SYSTEM", "text": value}])]
    parts = [e for p in _list(value) if (e := _part_event("system", p))]
    return [Message("system", parts)] if parts else []


def _part_event(role: str, part) -> dict | None:
    if not isinstance(part, dict):
        return None
    kind, ext = part.get("type"), read_extension(part)
    if kind == "tool_call":
        ev = {"kind": "CALL", "call_id": _str(part.get("id")), "tool": _str(part.get("name")),
              "text": as_text(part.get("arguments"))}
    elif kind == "tool_call_response":
        ev = {"kind": "RESULT", "call_id": _str(part.get("id")),
              "text": as_text(part.get("response"))}
    elif kind == "text":
        ev = {"kind": _role_kind(role), "text": as_text(part.get("content"))}
    elif kind == "reasoning" and ext is None:
        return None   # thinking stays in the raw (LOG-FORMATS.md §1)
    else:
        ev = {"kind": "OTHER", "note": reason_word(kind), "text": as_text(part.get("content"))}
    return apply_extension({k: v for k, v in ev.items() if v is not None}, ext)


def _role_kind(role: str) -> str:
    if role in _TOOL_ROLES:
        return "RESULT"
    return _KINDS.get(role, "OTHER")


# --- OpenTelemetry GenAI span events (before v1.37) -----------------------------------------

_EVENT_ROLES = {"gen_ai.system.message": "system", "gen_ai.user.message": "user",
                "gen_ai.assistant.message": "assistant", "gen_ai.tool.message": "tool"}


def event_messages(events: list[tuple[str, dict]]) -> tuple[list[Message], list[Message]] | None:
    """The input and output of a span's ``gen_ai.*.message`` / ``gen_ai.choice`` events
    (name, attributes), or None when it has none."""
    inputs, outputs = [], []
    for name, attrs in events:
        body = as_json(attrs.get("gen_ai.event.content") or attrs.get("event.body"))
        body = body if isinstance(body, dict) else attrs
        if name in _EVENT_ROLES:
            inputs.append(flat_message(_EVENT_ROLES[name], body))
        elif name == "gen_ai.choice":
            msg = as_json(body.get("message"))
            outputs.append(flat_message("assistant", msg if isinstance(msg, dict) else body))
    return (inputs, outputs) if inputs or outputs else None


def flat_message(role, msg: dict) -> Message:
    """A chat message ``{role, content, tool_calls, tool_call_id}`` (OpenAI shape; the older
    GenAI events; the flattened conventions once unflattened)."""
    role = str(msg.get("role") or role)
    content, events = msg.get("content"), []
    if role in _TOOL_ROLES:
        events.append({"kind": "RESULT", "call_id": _str(msg.get("tool_call_id") or msg.get("id")),
                       "text": _content_text(content)})
    elif isinstance(content, list) and any(isinstance(b, dict) and "type" in b for b in content):
        events.extend(_blocks(role, content))
    elif content not in (None, ""):
        events.append({"kind": _role_kind(role), "text": _content_text(content)})
    for call in _list(as_json(msg.get("tool_calls"))):
        if isinstance(call, dict):
            fn = call.get("function") if isinstance(call.get("function"), dict) else call
            events.append({"kind": "CALL", "call_id": _str(call.get("id")),
                           "tool": _str(fn.get("name")), "text": as_text(fn.get("arguments"))})
    return Message(role, [{k: v for k, v in e.items() if v is not None} for e in events])


def _blocks(role: str, blocks: list) -> list[dict]:
    """Content blocks: text, Anthropic ``tool_use`` / ``tool_result``, Responses
    ``output_text``; thinking and images stay in the raw."""
    out = []
    for b in blocks:
        if not isinstance(b, dict):
            continue
        kind = b.get("type")
        if kind in ("text", "output_text", "input_text"):
            out.append({"kind": _role_kind(role), "text": as_text(b.get("text"))})
        elif kind == "tool_use":
            out.append({"kind": "CALL", "call_id": _str(b.get("id")), "tool": _str(b.get("name")),
                        "text": as_text(b.get("input"))})
        elif kind == "tool_result":
            out.append({"kind": "RESULT", "call_id": _str(b.get("tool_use_id")),
                        "text": _content_text(b.get("content")),
                        "is_error": b.get("is_error") is True or None})
    return out


def _content_text(content) -> str | None:
    if isinstance(content, list):
        texts = [b.get("text") for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return as_text(content)


# --- flattened attributes: OpenLLMetry and OpenInference ------------------------------------

def indexed(attrs: dict, prefix: str) -> list[dict]:
    """The objects written flat as ``<prefix>.<i>.<key>`` (nested indices kept as lists),
    in index order: ``gen_ai.prompt.0.role`` → ``[{"role": …}]`` (the keys left flat)."""
    found: dict[int, dict] = {}
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)")
    for key, value in attrs.items():
        m = pattern.fullmatch(key)
        if m:
            found.setdefault(int(m.group(1)), {})[m.group(2)] = value
    return [found[i] for i in sorted(found)]


def _nest(flat: dict) -> dict:
    """``{"tool_calls.0.id": x}`` → ``{"tool_calls": [{"id": x}]}`` (one level of lists)."""
    out: dict = {}
    lists: dict[str, dict[int, dict]] = {}
    for key, value in flat.items():
        m = re.fullmatch(r"([^.]+)\.(\d+)\.(.+)", key)
        if m:
            lists.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = value
        else:
            out[key] = value
    for name, items in lists.items():
        out[name] = [items[i] for i in sorted(items)]
    return out


def openllmetry_messages(attrs: dict) -> tuple[list[Message], list[Message]] | None:
    """``gen_ai.prompt.{i}.*`` and ``gen_ai.completion.{i}.*`` (OpenLLMetry)."""
    prompt, completion = indexed(attrs, "gen_ai.prompt"), indexed(attrs, "gen_ai.completion")
    if not prompt and not completion:
        return None
    return ([flat_message("user", _nest(m)) for m in prompt],
            [flat_message("assistant", _nest(m)) for m in completion])


def openinference_messages(attrs: dict) -> tuple[list[Message], list[Message]] | None:
    """``llm.input_messages.{i}.message.*`` and ``llm.output_messages.{i}.message.*``."""
    def messages(prefix: str, role: str) -> list[Message]:
        out = []
        for m in indexed(attrs, prefix):
            msg = _nest({k.removeprefix("message."): v for k, v in m.items()})
            calls = [{"id": c.get("tool_call.id"),
                      "function": {"name": c.get("tool_call.function.name"),
                                   "arguments": c.get("tool_call.function.arguments")}}
                     for c in _list(msg.pop("tool_calls", None)) if isinstance(c, dict)]
            contents = [{"type": "text", "text": c.get("message_content.text")}
                        for c in _list(msg.pop("contents", None)) if isinstance(c, dict)
                        and c.get("message_content.type", "text") == "text"]
            if contents and msg.get("content") is None:
                msg["content"] = contents
            msg["tool_calls"] = calls
            out.append(flat_message(role, msg))
        return out
    inputs = messages("llm.input_messages", "user")
    outputs = messages("llm.output_messages", "assistant")
    return (inputs, outputs) if inputs or outputs else None


# --- loose JSON (Langfuse input and output) -------------------------------------------------

def loose_messages(value, role: str) -> list[Message] | None:
    """Messages from a recorded input or output of unknown shape: a chat message or a list
    of them, ``{messages: [...]}``, Responses input items or a Responses object, a Chat
    Completions object; None when nothing in it is a message."""
    value = as_json(value)
    if isinstance(value, dict):
        if isinstance(value.get("messages"), list):
            value = value["messages"]
        elif isinstance(value.get("output"), list) and value.get("object") == "response":
            value = value["output"]
        elif isinstance(value.get("choices"), list) and value["choices"]:
            choice = value["choices"][0]
            value = [choice.get("message")] if isinstance(choice, dict) else []
        else:
            value = [value]
    if not isinstance(value, list):
        return None
    out = []
    for item in value:
        if not isinstance(item, dict):
            return None
        kind = item.get("type")
        if kind == "function_call":
            out.append(Message("assistant", [{"kind": "CALL", "call_id": _str(item.get("call_id")),
                                              "tool": _str(item.get("name")),
                                              "text": as_text(item.get("arguments"))}]))
        elif kind == "function_call_output":
            out.append(Message("tool", [{"kind": "RESULT", "call_id": _str(item.get("call_id")),
                                         "text": as_text(item.get("output"))}]))
        elif isinstance(item.get("role"), str):
            out.append(flat_message(item["role"], item))
        elif kind == "reasoning":
            out.append(Message("assistant", []))
        else:
            return None
    return out or None


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None


def call_messages(attrs: dict, events: list[tuple[str, dict]]):
    """The (input, output) messages of one model-call span by the first convention that
    records them (current GenAI attributes, GenAI span events, OpenLLMetry, OpenInference);
    input None when only the output is recorded; None when the span records no message."""
    inputs = otel_messages(attrs.get("gen_ai.input.messages"))
    outputs = otel_messages(attrs.get("gen_ai.output.messages"))
    if inputs is not None or outputs is not None:
        system = system_instructions(attrs["gen_ai.system_instructions"]) \
            if "gen_ai.system_instructions" in attrs else []
        return (system + inputs if inputs is not None else None), outputs or []
    for found in (event_messages(events), openllmetry_messages(attrs),
                  openinference_messages(attrs)):
        if found is not None:
            return found
    return None
