"""Langfuse trace exports (docs/FORMATS.md, "Langfuse"): ``{trace, observations: [...]}``
as Langfuse's UI and its ``download_traces`` script write it, the public API's
``{data: [observations]}`` or a trace with its ``observations``, a session ``{id, traces}``,
or a list of these. Each observation is a record: GENERATIONs are model calls
(their messages from the OpenTelemetry or OpenInference attributes kept in ``metadata``,
else from the recorded ``input``/``output``), TOOLs are tool runs, the rest (SPAN, AGENT,
EVENT…) carry no message and are skipped (explorer.formats.spans).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Iterator

from explorer.formats import genai_messages as gm
from explorer.formats import spans as span_records
from explorer.formats.record import Record
from explorer.formats.swe_agent import json_prefix, load_document, unreadable
from explorer.formats.typed import WrongType, obj, opt_obj, rejected

NAME = "langfuse"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_KEEP = ("id", "traceId", "type", "name", "model", "level", "statusMessage", "usageDetails",
         "costDetails")


def matches(path: Path, head: bytes) -> bool:
    doc = json_prefix(head)
    if isinstance(doc, list):
        doc = doc[0] if doc else None
    return isinstance(doc, dict) and _shape(doc)


def _shape(doc: dict) -> bool:
    """Whether a (possibly cut) document has one of the export shapes."""
    if isinstance(doc.get("trace"), dict) and "observations" in doc:
        return True
    for key in ("data", "observations", "traces"):
        first = doc.get(key)[0] if isinstance(doc.get(key), list) and doc.get(key) else None
        if isinstance(first, dict) and (
                ("traceId" in first and "parentObservationId" in first)
                or (key == "traces" and "observations" in first)):
            return True
    return False


def records(path: Path) -> Iterator[Record]:
    doc = load_document(path)
    if isinstance(doc, Record):
        yield doc
        return
    traces = _traces(doc)
    if not traces:
        yield unreadable(path.read_bytes(), "not a Langfuse export (no observations)")
        return
    spans, bad, n = [], [], 0
    for trace, session, observations in traces:
        for o in observations:
            n += 1
            try:
                spans.append(_span(n, obj(o, f"observations[{n - 1}]"), trace, session))
            except WrongType as exc:
                bad.append(rejected(n, exc, json.dumps(o, ensure_ascii=False)))
    yield from sorted([*span_records.records(spans), *bad], key=lambda r: r.line)


def _traces(doc, session: str | None = None) -> list[tuple[dict, str | None, list]] | None:
    """(trace, session id, observations) for each trace of an export: ``{trace,
    observations}``, the API's ``{data: [observations]}``, a trace with its ``observations``
    (the public trace API), a session ``{id, traces: [...]}``, or a list of any of them."""
    if isinstance(doc, list):
        out = []
        for item in doc:
            found = _traces(item, session)
            if found is None:
                return None
            out.extend(found)
        return out
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("trace"), dict) and isinstance(doc.get("observations"), list):
        return [(doc["trace"], session, doc["observations"])]
    if isinstance(doc.get("data"), list):
        return [({}, session, doc["data"])]
    if isinstance(doc.get("traces"), list):
        own = doc.get("id") if isinstance(doc.get("id"), str) else session
        return _traces(doc["traces"], own)
    if isinstance(doc.get("observations"), list):
        return [(doc, session, doc["observations"])]
    return None


def _span(n: int, o: dict, trace: dict, session: str | None) -> span_records.Span:
    meta = gm.as_json(o.get("metadata"))
    meta = meta if isinstance(meta, dict) else {}
    attrs = dict(opt_obj(meta.get("attributes"), "metadata.attributes"))
    for key, value in (("session.id", o.get("sessionId") or trace.get("sessionId") or session),
                       ("user.id", o.get("userId") or trace.get("userId"))):
        if isinstance(value, str) and value and key not in attrs:
            attrs[key] = value
    raw = {k: o[k] for k in _KEEP if o.get(k) not in (None, {}, [])}
    usage = o.get("usageDetails")
    if isinstance(usage, dict) and ("input" in usage or "output" in usage):
        raw["usage"] = {k: v for k, v in (("input", usage.get("input")),
                                         ("output", usage.get("output")),
                                         ("cached", usage.get("prompt_details.cache_read")))
                        if isinstance(v, int)}
    trace_id = o.get("traceId") if isinstance(o.get("traceId"), str) else trace.get("id")
    return span_records.Span(
        n, str(trace_id or "langfuse"), _str(o.get("id")), _str(o.get("parentObservationId")),
        _str(o.get("name")), _ms(o.get("startTime")), _ms(o.get("endTime")), attrs,
        error=o.get("level") == "ERROR", loose_input=o.get("input"),
        loose_output=o.get("output"), kind=_str(o.get("type")), raw=raw)


def _ms(text) -> int | None:
    """ISO-8601 text (no zone: UTC) as epoch milliseconds, else None."""
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return int(when.timestamp() * 1000)


def _str(value) -> str | None:
    return value if isinstance(value, str) and value else None
