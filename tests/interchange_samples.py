"""Sample files of the interchange formats no real file with a permissive license was found
for (ATIF, raw OTLP JSON): built here from the specifications, and said so.

- ATIF: Harbor's RFC 0001 (Agent Trajectory Interchange Format), built with the ``atif``
  package's models (ATIF v1.8) so that the sample is what the specification allows: the
  RFC's example shape (a user question, an agent step with two parallel tool calls and
  their observation, the answer), a step copied from an earlier trajectory, and an
  embedded subagent trajectory referred to by an observation result.
- OTLP JSON: the OpenTelemetry trace protocol's JSON encoding (``resourceSpans`` /
  ``scopeSpans`` / ``spans``, attributes as ``{key, value: {stringValue | intValue}}``,
  times in nanoseconds as text), with the GenAI semantic conventions in their three
  shapes: the current ``gen_ai.input.messages`` / ``gen_ai.output.messages`` parts, the
  older span events (``gen_ai.user.message`` … ``gen_ai.choice``), and OpenLLMetry's
  ``gen_ai.prompt.{i}.*`` / ``gen_ai.completion.{i}.*``. Spans are written out of time
  order, and the later model call's input repeats the earlier messages, as real traces do.
"""

from __future__ import annotations

import json
from pathlib import Path

T0 = 1_760_000_000_000   # epoch ms of the samples' first span


def atif_sample(path: Path) -> Path:
    """An ATIF trajectory (validated by the atif models before it is written)."""
    from atif import Trajectory
    doc = {
        "schema_version": "ATIF-v1.8", "session_id": "atif-sample",
        "agent": {"name": "harbor-agent", "version": "1.0.0", "model_name": "gemini-2.5-flash"},
        "steps": [
            {"step_id": 1, "timestamp": "2025-10-11T10:29:00Z", "source": "user",
             "message": "Earlier question", "is_copied_context": True},
            {"step_id": 2, "timestamp": "2025-10-11T10:30:00Z", "source": "user",
             "message": "What is the current trading price of Alphabet (GOOGL)?"},
            {"step_id": 3, "timestamp": "2025-10-11T10:30:02Z", "source": "agent",
             "model_name": "gemini-2.5-flash",
             "message": "I will search for the current price and volume for GOOGL.",
             "reasoning_content": "Two searches in parallel.",
             "tool_calls": [
                 {"tool_call_id": "call_price_1", "function_name": "financial_search",
                  "arguments": {"ticker": "GOOGL", "metric": "price"}},
                 {"tool_call_id": "call_volume_2", "function_name": "financial_search",
                  "arguments": {"ticker": "GOOGL", "metric": "volume"}}],
             "observation": {"results": [
                 {"source_call_id": "call_price_1", "content": "GOOGL is trading at $185.35"},
                 {"source_call_id": "call_volume_2", "content": "GOOGL volume: 1.5M shares"}]},
             "metrics": {"prompt_tokens": 520, "completion_tokens": 80, "cached_tokens": 200}},
            {"step_id": 4, "timestamp": "2025-10-11T10:30:05Z", "source": "agent",
             "message": "Let me ask a researcher.",
             "tool_calls": [{"tool_call_id": "call_research_3", "function_name": "delegate",
                             "arguments": {"task": "news"}}],
             "observation": {"results": [
                 {"source_call_id": "call_research_3",
                  "subagent_trajectory_ref": [{"trajectory_id": "researcher-1"}]}]}},
            {"step_id": 5, "timestamp": "2025-10-11T10:30:09Z", "source": "agent",
             "message": "GOOGL is at $185.35 on 1.5M shares."}],
        "subagent_trajectories": [{
            "schema_version": "ATIF-v1.8", "trajectory_id": "researcher-1",
            "agent": {"name": "researcher", "version": "1.0.0"},
            "steps": [
                {"step_id": 1, "source": "user", "message": "Find news on GOOGL"},
                {"step_id": 2, "source": "agent", "message": "No news today."}]}],
    }
    Trajectory.model_validate(doc)
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


def _attrs(values: dict) -> list[dict]:
    return [{"key": k, "value": {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}}
            for k, v in values.items()]


def _span(span_id: str, name: str, start: int, end: int, attrs: dict, parent="root0000",
          events=()) -> dict:
    span = {"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": span_id,
            "parentSpanId": parent, "name": name, "kind": 3,
            "startTimeUnixNano": str((T0 + start) * 1_000_000),
            "endTimeUnixNano": str((T0 + end) * 1_000_000), "attributes": _attrs(attrs)}
    if events:
        span["events"] = [{"timeUnixNano": str((T0 + start) * 1_000_000), "name": n,
                           "attributes": _attrs(a)} for n, a in events]
    return span


def _document(spans: list[dict]) -> dict:
    return {"resourceSpans": [{"resource": {"attributes": _attrs({"service.name": "sample"})},
                               "scopeSpans": [{"scope": {"name": "sample.genai"},
                                               "spans": spans}]}]}


_USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
_CALL = {"role": "assistant", "parts": [{"type": "tool_call", "id": "call_1",
                                         "name": "get_weather", "arguments": {"city": "Paris"}}],
         "finish_reason": "tool_call"}
_RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                      "response": "rainy, 57F"}]}
_ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "It is rainy in Paris."}],
           "finish_reason": "stop"}


def otlp_current(path: Path) -> Path:
    """Current conventions: two chat spans (the later one written first) and the tool span."""
    conv = {"gen_ai.conversation.id": "conv-current"}
    spans = [
        _span("root0000", "invoke_agent weather", 0, 900,
              {"gen_ai.operation.name": "invoke_agent", **conv}, parent=None),
        _span("chat0002", "chat gpt-4o", 500, 900, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
            "gen_ai.input.messages": json.dumps([_USER, _CALL, _RESULT]),
            "gen_ai.output.messages": json.dumps([_ANSWER]),
            "gen_ai.usage.input_tokens": 97, "gen_ai.usage.output_tokens": 9}),
        _span("tool0001", "execute_tool get_weather", 300, 450, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1"}),
        _span("chat0001", "chat gpt-4o", 10, 290, {
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o",
            "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
            "gen_ai.input.messages": json.dumps([_USER]),
            "gen_ai.output.messages": json.dumps([_CALL]),
            "gen_ai.usage.input_tokens": 47, "gen_ai.usage.output_tokens": 12}),
    ]
    path.write_text(json.dumps(_document(spans)), encoding="utf-8")
    return path


def otlp_events(path: Path) -> Path:
    """The older form: messages as span events with their body in attributes."""
    spans = [_span("chat0001", "chat gpt-4o", 10, 290, {
        "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "conv-events"},
        parent=None, events=[
            ("gen_ai.system.message", {"content": "Be brief."}),
            ("gen_ai.user.message", {"content": "Weather in Paris?"}),
            ("gen_ai.assistant.message", {"tool_calls": json.dumps([{
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}])}),
            ("gen_ai.tool.message", {"id": "call_1", "content": "rainy, 57F"}),
            ("gen_ai.choice", {"index": 0, "finish_reason": "stop",
                               "message": json.dumps({"content": "It is rainy in Paris."})}),
        ])]
    path.write_text(json.dumps(_document(spans)), encoding="utf-8")
    return path


def otlp_openllmetry(path: Path) -> Path:
    """OpenLLMetry's flattened ``gen_ai.prompt.{i}`` / ``gen_ai.completion.{i}``."""
    spans = [_span("chat0001", "openai.chat", 10, 290, {
        "llm.request.type": "chat", "gen_ai.conversation.id": "conv-openllmetry",
        "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "Weather in Paris?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.finish_reason": "tool_calls",
        "gen_ai.completion.0.tool_calls.0.id": "call_1",
        "gen_ai.completion.0.tool_calls.0.name": "get_weather",
        "gen_ai.completion.0.tool_calls.0.arguments": "{\"city\": \"Paris\"}"}, parent=None)]
    path.write_text(json.dumps(_document(spans)), encoding="utf-8")
    return path
