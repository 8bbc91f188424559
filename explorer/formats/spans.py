"""Spans of a trace into records of canonical events, for every span-based format
(OpenTelemetry OTLP JSON, Langfuse observations; docs/FORMATS.md).

A reader turns its file into :class:`Span`s (one per record, in file order); this module
says what each span is — a model call (its messages by explorer.formats.genai_messages),
a tool run, or neither (skipped, by what it is) — finds its session (``gen_ai.
conversation.id`` or OpenInference's ``session.id`` on it or an ancestor, else the trace),
and rebuilds each session's conversation (explorer.formats.conversation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from explorer.formats import genai_messages as gm
from explorer.formats.conversation import ModelCall, ToolRun, rebuild
from explorer.formats.extension import KEY
from explorer.formats.record import Record, reason_word

_CHAT_OPS = {"chat", "text_completion", "generate_content", "completion"}
_TOOL_OPS = {"execute_tool"}
#: Attributes naming a span's session, nearest first.
SESSION_KEYS = ("gen_ai.conversation.id", "session.id")
USER_KEYS = ("user.id", "enduser.id")


@dataclass
class Span:
    """One span (or observation) as the readers give it: its record number, trace and span
    ids, parent, name, start and end (epoch ms), flat attributes, events (name,
    attributes), whether its status is an error, what the format recorded as input and
    output outside the conventions (Langfuse), and its raw record."""

    record: int
    trace: str
    span_id: str | None
    parent: str | None
    name: str | None
    start: int | None
    end: int | None
    attrs: dict
    events: list[tuple[str, dict]] = field(default_factory=list)
    error: bool = False
    loose_input: object = None
    loose_output: object = None
    kind: str | None = None        # the format's own type (Langfuse GENERATION, TOOL…)
    raw: dict | None = None


def records(spans: list[Span]) -> Iterator[Record]:
    """One record per span, in order: the events its session's conversation places in it,
    or why it gives none."""
    by_id = {(s.trace, s.span_id): s for s in spans if s.span_id}
    sessions: dict[str, dict[str, tuple[list[ModelCall], list[ToolRun]]]] = {}
    owners: dict[str, dict] = {}
    skipped: dict[int, str] = {}
    for span in spans:
        session = _inherited(span, by_id, SESSION_KEYS) or span.trace
        calls, runs = sessions.setdefault(session, {}).setdefault(span.trace, ([], []))
        what = _classify(span)
        if isinstance(what, ModelCall):
            calls.append(what)
        elif isinstance(what, ToolRun):
            runs.append(what)
        else:
            skipped[span.record] = what
        owner = owners.setdefault(session, {})
        user = _inherited(span, by_id, USER_KEYS)
        if user:
            owner.setdefault("user_id", user)
        for name in ("parent_session", "parent_call"):
            if isinstance(span.attrs.get(f"{KEY}.{name}"), str):
                owner[name] = span.attrs[f"{KEY}.{name}"]
    events: dict[int, list[dict]] = {}
    for session, traces in sessions.items():
        by_record, repeated = rebuild(list(traces.values()))
        for record in repeated:
            skipped[record] = "tool result already sent to the model"
        for record, evs in by_record.items():
            for ev in evs:
                ev.setdefault("session_id", session)
                for name, value in owners[session].items():
                    ev.setdefault(name, value)
            events.setdefault(record, []).extend(evs)
    for span in spans:
        if events.get(span.record):
            yield Record(span.record, events=events[span.record])
        else:
            yield Record(span.record, skipped=skipped.get(span.record, "messages already read"))


def _inherited(span: Span, by_id: dict, keys: tuple[str, ...]) -> str | None:
    seen = 0
    while span is not None and seen < 1000:
        for key in keys:
            if isinstance(span.attrs.get(key), str) and span.attrs[key]:
                return span.attrs[key]
        span = by_id.get((span.trace, span.parent)) if span.parent else None
        seen += 1
    return None


def _classify(span: Span) -> ModelCall | ToolRun | str:
    attrs = span.attrs
    op = attrs.get("gen_ai.operation.name")
    oi_kind = attrs.get("openinference.span.kind")
    raw = dict(span.raw or {})
    if op in _TOOL_OPS or oi_kind == "TOOL" or span.kind == "TOOL":
        return ToolRun(span.record, span.start, span.end,
                       _str(attrs.get("gen_ai.tool.call.id") or attrs.get("tool_call.id")),
                       _str(attrs.get("gen_ai.tool.name") or attrs.get("tool.name") or span.name),
                       gm.as_json(_first(attrs, "gen_ai.tool.call.arguments", "input.value",
                                         default=span.loose_input)),
                       _result(_first(attrs, "gen_ai.tool.call.result", "output.value",
                                      default=span.loose_output)),
                       span.error, raw)
    found = gm.call_messages(attrs, span.events)
    if found is None and (span.loose_input is not None or span.loose_output is not None) \
            and (op in _CHAT_OPS or oi_kind == "LLM" or span.kind == "GENERATION"):
        found = (gm.loose_messages(span.loose_input, "user"),
                 gm.loose_messages(span.loose_output, "assistant") or [])
    if found is None:
        return f"{reason_word(op or oi_kind or span.kind or 'other')} span"
    inputs, outputs = found
    usage = _usage(attrs)
    if usage:
        raw["usage"] = usage
    offset = attrs.get(f"{KEY}.input.offset")
    return ModelCall(span.record, span.start, span.end, inputs, outputs,
                     offset if isinstance(offset, int) and offset >= 0 else 0, raw)


def _first(attrs: dict, *keys: str, default=None):
    return next((attrs[k] for k in keys if attrs.get(k) is not None), default)


def _result(value) -> str | None:
    """A tool's output as text: Anthropic/MCP ``{content: [{type: text, text}]}`` as its
    text, any other value as itself or JSON."""
    parsed = gm.as_json(value)
    if isinstance(parsed, dict) and isinstance(parsed.get("content"), list):
        texts = [b.get("text") for b in parsed["content"]
                 if isinstance(b, dict) and isinstance(b.get("text"), str)]
        if texts:
            return "\n".join(texts)
    return gm.as_text(value)


def _usage(attrs: dict) -> dict:
    """Reported usage (GenAI ``gen_ai.usage.*``, OpenInference ``llm.token_count.*``) with the
    names explorer.session.reported_usage reads."""
    names = {"input": ("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
                       "llm.token_count.prompt"),
             "output": ("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                        "llm.token_count.completion"),
             "cached": ("gen_ai.usage.cache_read.input_tokens",
                        "llm.token_count.prompt_details.cache_read")}
    out = {}
    for name, keys in names.items():
        for key in keys:
            value = attrs.get(key)
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                out[name] = value
                break
    return out


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None
