"""OpenTelemetry traces saved as OTLP JSON (docs/FORMATS.md, "OpenTelemetry GenAI"): one
``{resourceSpans: [{resource, scopeSpans: [{scope, spans: [...]}]}]}`` document, or JSON
Lines of them (the collector's file exporter). Each span is a record; the GenAI (and
OpenInference, OpenLLMetry) spans among them become a conversation per
``gen_ai.conversation.id`` (explorer.formats.spans).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from explorer.formats import spans as span_records
from explorer.formats.record import Record
from explorer.formats.swe_agent import load_documents, unreadable
from explorer.formats.typed import WrongType, items, obj, opt_obj

NAME = "otel-json"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_MARK = b'"resourceSpans"'
#: Attributes too bulky for the raw of an event (the messages are the events).
_BULKY = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")


def matches(path: Path, head: bytes) -> bool:
    start = head.lstrip()[:1]
    return start == b"{" and _MARK in head[:4096] and b'"scopeSpans"' in head


def records(path: Path) -> Iterator[Record]:
    docs = load_documents(path)
    if isinstance(docs, Record):
        yield docs
        return
    unread = [d for d in docs if isinstance(d, Record)]   # JSON Lines lines not read
    spans, bad = [], []
    n = 0
    for n, (resource, scope, span) in enumerate(
            _spans([d for d in docs if not isinstance(d, Record)]), start=1):
        try:
            spans.append(_span(n, resource, scope, obj(span, "span")))
        except WrongType as exc:
            bad.append(Record(n, error=str(exc), text=json.dumps(span, ensure_ascii=False)[:2000]))
        except _Malformed as exc:
            bad.append(Record(n, error=str(exc), text=json.dumps(span, ensure_ascii=False)[:2000]))
    for place, rec in enumerate(unread, start=n + 1):
        rec.line = place
        bad.append(rec)
    if not spans and not bad:
        yield unreadable(path.read_bytes(), "an OTLP JSON document without spans")
        return
    yield from sorted([*span_records.records(spans), *bad], key=lambda r: r.line)


class _Malformed(ValueError):
    """A span without what every OTLP span has (its trace id)."""


def _spans(docs: list) -> Iterator[tuple[dict, dict, object]]:
    for doc in docs:
        for rs in items(opt_obj(doc, "record").get("resourceSpans"), "resourceSpans"):
            rs = obj(rs, "resourceSpans[]")
            resource = attributes(opt_obj(rs.get("resource"), "resource").get("attributes"))
            for ss in items(rs.get("scopeSpans"), "scopeSpans"):
                ss = obj(ss, "scopeSpans[]")
                scope = opt_obj(ss.get("scope"), "scope")
                for span in items(ss.get("spans"), "spans"):
                    yield resource, scope, span


def _span(n: int, resource: dict, scope: dict, span: dict) -> span_records.Span:
    trace = span.get("traceId")
    if not isinstance(trace, str) or not trace:
        raise _Malformed("span without a traceId")
    attrs = attributes(span.get("attributes"))
    events = [(str(e.get("name")), attributes(e.get("attributes")))
              for e in items(span.get("events"), "events") if isinstance(e, dict)]
    status = opt_obj(span.get("status"), "status")
    raw = {"span": span.get("name"), "spanId": span.get("spanId"), "traceId": trace,
           "scope": scope.get("name"),
           "attributes": {k: v for k, v in attrs.items() if k not in _BULKY}}
    return span_records.Span(
        n, trace, _str(span.get("spanId")), _str(span.get("parentSpanId")),
        _str(span.get("name")), _ms(span.get("startTimeUnixNano")),
        _ms(span.get("endTimeUnixNano")), attrs, events,
        status.get("code") in (2, "STATUS_CODE_ERROR"), raw=raw)


def attributes(values) -> dict:
    """OTLP ``[{key, value: {stringValue | intValue | …}}]`` as a flat dict."""
    out = {}
    for kv in items(values, "attributes"):
        if isinstance(kv, dict) and isinstance(kv.get("key"), str):
            out[kv["key"]] = any_value(kv.get("value"))
    return out


def any_value(value):
    """An OTLP AnyValue as a Python value (intValue, which JSON writes as text, as int)."""
    if not isinstance(value, dict):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        try:
            return int(value["intValue"])
        except (TypeError, ValueError):
            return None
    for key in ("boolValue", "doubleValue", "bytesValue"):
        if key in value:
            return value[key]
    if isinstance(value.get("arrayValue"), dict):
        return [any_value(v) for v in items(value["arrayValue"].get("values"), "arrayValue")]
    if isinstance(value.get("kvlistValue"), dict):
        return attributes(value["kvlistValue"].get("values"))
    return None


def _ms(nanos) -> int | None:
    """Epoch nanoseconds (integer or text) as epoch milliseconds; None for 0 or absent."""
    try:
        value = int(nanos)
    except (TypeError, ValueError):
        return None
    return value // 1_000_000 if value > 0 else None


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None
