"""OpenTelemetry GenAI spans as OTLP JSON (docs/FORMATS.md, "OpenTelemetry GenAI"), after
the current conventions: per session one trace with an ``invoke_agent`` span
(``gen_ai.conversation.id``: the session), under it one ``chat`` span per model call and
one ``execute_tool`` span per answered tool call.

A model call is a run of ASSISTANT and CALL events (its ``gen_ai.output.messages``) with
the events before it since the previous call (its ``gen_ai.input.messages``, which the
conventions would fill with the whole history: Turnscope writes only the new messages and
says how many came before in ``turnscope.input.offset``, which keeps a long session's
export linear in size). Events after the last call are the input of a last ``chat`` span
without output. The fields the conventions have no place for ride in each message part's
``turnscope`` property (explorer.formats.extension); each finding is a ``turnscope.finding``
event of the ``invoke_agent`` span.
"""

from __future__ import annotations

import hashlib
import json
from typing import Iterator, TextIO

from explorer.export.source import Session
from explorer.formats.extension import KEY, extension_of
from explorer.version import version

_ROLES = {"USER": "user", "SUMMARY": "user", "SYSTEM": "system", "ASSISTANT": "assistant",
          "CALL": "assistant", "RESULT": "tool", "OTHER": "system"}
_OUTPUT = {"ASSISTANT", "CALL"}
_NATIVE = {"text", "call_id", "tool"}


def write(fh: TextIO, sessions: list[Session]) -> Iterator[None]:
    """Write one OTLP JSON document holding every session's trace; yields after each."""
    spans: list[dict] = []
    for session in sessions:
        spans.extend(session_spans(session))
        yield
    doc = {"resourceSpans": [{
        "resource": {"attributes": _attrs({"service.name": "turnscope"})},
        "scopeSpans": [{"scope": {"name": "turnscope", "version": version()}, "spans": spans}]}]}
    fh.write(json.dumps(doc, ensure_ascii=False) + "\n")


def session_spans(session: Session) -> list[dict]:
    """The spans of one session's trace: its ``invoke_agent`` span first."""
    sid = session.session_id
    trace = _hex(sid, 32)
    root = _hex(sid + "\0root", 16)
    times = [e["ts"] for e in session.events if e.get("ts") is not None]
    spans = [_span(trace, root, None, "invoke_agent turnscope", times, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "turnscope",
        "gen_ai.conversation.id": sid}, [_finding(f, times) for f in session.findings])]
    answered = {e.get("call_id") for e in session.events if e["kind"] == "RESULT"}
    results = {e["call_id"]: e for e in session.events
               if e["kind"] == "RESULT" and e.get("call_id")}
    offset = 0
    for n, (inputs, outputs) in enumerate(_calls(session.events)):
        ins, outs = _messages(inputs), _messages(outputs)
        span_times = [e["ts"] for e in inputs + outputs if e.get("ts") is not None]
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.conversation.id": sid,
                 "gen_ai.input.messages": json.dumps(ins, ensure_ascii=False),
                 "gen_ai.output.messages": json.dumps(outs, ensure_ascii=False),
                 f"{KEY}.input.offset": offset}
        offset += len(ins) + len(outs)
        spans.append(_span(trace, _hex(f"{sid}\0{n}", 16), root, "chat", span_times, attrs))
        for m, call in enumerate(e for e in outputs if e["kind"] == "CALL"):
            if not call.get("call_id") or call["call_id"] not in answered:
                continue   # a dangling call ran no tool that answered
            result = results[call["call_id"]]
            tool_attrs = {"gen_ai.operation.name": "execute_tool",
                          "gen_ai.conversation.id": sid, "gen_ai.tool.name": call.get("tool") or "",
                          "gen_ai.tool.call.id": call["call_id"],
                          "gen_ai.tool.call.arguments": call.get("text") or "",
                          "gen_ai.tool.call.result": result.get("text") or ""}
            tool_times = [t for t in (call.get("ts"), result.get("ts")) if t is not None]
            spans.append(_span(trace, _hex(f"{sid}\0{n}\0{m}", 16), root,
                               f"execute_tool {call.get('tool') or ''}".strip(), tool_times,
                               tool_attrs, error=bool(result.get("is_error"))))
    return spans


def _calls(events: list[dict]) -> list[tuple[list[dict], list[dict]]]:
    out, inputs, outputs = [], [], []
    for ev in events:
        if ev["kind"] in _OUTPUT:
            outputs.append(ev)
            continue
        if outputs:
            out.append((inputs, outputs))
            inputs, outputs = [], []
        inputs.append(ev)
    if inputs or outputs:
        out.append((inputs, outputs))
    return out


def _messages(events: list[dict]) -> list[dict]:
    """Consecutive events of one role and ``message_id`` as one message of parts."""
    out: list[dict] = []
    last = None
    for ev in events:
        role = _ROLES.get(ev["kind"], "system")
        key = (role, ev.get("message_id"))
        if out and key == last:
            out[-1]["parts"].append(_part(ev))
        else:
            out.append({"role": role, "parts": [_part(ev)]})
        last = key
    return out


def _part(ev: dict) -> dict:
    kind, text = ev["kind"], ev.get("text")
    if kind == "CALL":
        part = {"type": "tool_call", "id": ev.get("call_id"), "name": ev.get("tool") or "",
                "arguments": text}
    elif kind == "RESULT":
        part = {"type": "tool_call_response", "id": ev.get("call_id"), "response": text}
    elif kind == "OTHER":
        part = {"type": "turnscope.other", "content": text}
    else:
        part = {"type": "text", "content": text if text is not None else ""}
    ext = extension_of(ev)
    for name in _NATIVE:
        ext.pop(name, None)
    if text is None:
        ext["text"] = None
    if kind == "RESULT" and ev.get("tool") is not None:
        ext["tool"] = ev["tool"]
    part[KEY] = ext
    return part


def _finding(finding: dict, times: list[int]) -> dict:
    return {"name": "turnscope.finding", "timeUnixNano": _nanos(min(times) if times else None),
            "attributes": _attrs({"turnscope.rule": finding["rule"],
                                  "turnscope.events": json.dumps(finding["events"])})}


def _span(trace: str, span_id: str, parent: str | None, name: str, times: list[int],
          attrs: dict, events: list[dict] = (), error: bool = False) -> dict:
    span = {"traceId": trace, "spanId": span_id, "name": name, "kind": 1,
            "startTimeUnixNano": _nanos(min(times) if times else None),
            "endTimeUnixNano": _nanos(max(times) if times else None),
            "attributes": _attrs(attrs)}
    if parent:
        span["parentSpanId"] = parent
    if events:
        span["events"] = list(events)
    if error:
        span["status"] = {"code": 2}
    return span


def _attrs(values: dict) -> list[dict]:
    out = []
    for key, value in values.items():
        if isinstance(value, bool):
            v = {"boolValue": value}
        elif isinstance(value, int):
            v = {"intValue": str(value)}
        else:
            v = {"stringValue": str(value)}
        out.append({"key": key, "value": v})
    return out


def _nanos(ms: int | None) -> str:
    return str(ms * 1_000_000) if ms is not None else "0"


def _hex(text: str, width: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:width]
