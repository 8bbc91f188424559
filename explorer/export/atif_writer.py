"""ATIF trajectories (docs/FORMATS.md, "ATIF"): one trajectory per session, validated with
the ``atif`` package's models; one session is one JSON document, several are JSON Lines
(one trajectory a line).

Steps follow the events in ``seq`` order: a USER (or SUMMARY) event is a ``user`` step, a
SYSTEM (or OTHER) event a ``system`` step; an ASSISTANT event, or a CALL, opens an
``agent`` step that takes the CALLs right after it and then the RESULTs right after those
that answer them. A RESULT no step takes is a ``system`` step with that observation. The
fields ATIF has no place for ride in ``extra.turnscope`` (explorer.formats.extension), the
findings in the ``extra.turnscope_findings`` of the step of their first event (of the
trajectory, for those pointing at no exported event: the dropped duplicates).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Iterator, TextIO

from explorer.export.source import Session, findings_at
from explorer.formats.extension import KEY, extension_of
from explorer.version import version

SCHEMA = "ATIF-v1.8"
_SOURCES = {"USER": "user", "SUMMARY": "user", "SYSTEM": "system", "OTHER": "system"}
#: What the step's own fields carry (the rest goes in the extension).
_NATIVE = {"text", "call_id", "tool"}


def write(fh: TextIO, sessions: list[Session]) -> Iterator[None]:
    """Write each session's trajectory (checked by ``atif.Trajectory``); yields after each."""
    from atif import Trajectory  # the models load only for an ATIF export
    for session in sessions:
        doc = trajectory(session)
        Trajectory.model_validate(doc)
        fh.write(json.dumps(doc, ensure_ascii=False) + "\n")
        yield


def trajectory(session: Session) -> dict:
    """The ATIF document of one session."""
    steps: list[dict] = []
    found = findings_at(session)
    events = session.events
    i = 0
    while i < len(events):
        step, taken = _step(events, i)
        step["step_id"] = len(steps) + 1
        notes = [f for ev in events[i:i + taken] for f in found.get((ev["seq"], ev["sub"]), [])]
        if notes:
            step.setdefault("extra", {})["turnscope_findings"] = notes
        steps.append(step)
        i += taken
    doc = {"schema_version": SCHEMA, "session_id": session.session_id,
           "agent": {"name": "turnscope", "version": version()}, "steps": steps}
    placed = {id(f) for s in steps for f in (s.get("extra") or {}).get("turnscope_findings", [])}
    rest = [f for f in session.findings if id(f) not in placed]
    if rest:   # findings on no exported event (dropped duplicates): the trajectory's own
        doc["extra"] = {"turnscope_findings": rest}
    return doc


def _step(events: list[dict], i: int) -> tuple[dict, int]:
    ev = events[i]
    step: dict = {"source": _SOURCES.get(ev["kind"], "agent"), "message": ""}
    if ev.get("ts") is not None:
        step["timestamp"] = _iso(ev["ts"])
    if ev["kind"] == "RESULT":
        step["source"] = "system"
        step["observation"] = {"results": [_result(ev)]}
        return step, 1
    j = i
    if ev["kind"] != "CALL":
        step["message"] = ev.get("text") or ""
        step["extra"] = {KEY: _ext(ev)}
        j = i + 1
        if ev["kind"] != "ASSISTANT":
            return step, 1
    calls = []
    while j < len(events) and events[j]["kind"] == "CALL":
        calls.append(events[j])
        j += 1
    ids = {c.get("call_id") for c in calls if c.get("call_id")}
    results = []
    while j < len(events) and events[j]["kind"] == "RESULT" and events[j].get("call_id") in ids:
        results.append(events[j])
        j += 1
    if calls:
        step["tool_calls"] = [_call(c) for c in calls]
    if results:
        step["observation"] = {"results": [_result(r) for r in results]}
    return step, j - i


def _call(ev: dict) -> dict:
    text = ev.get("text")
    try:
        args = json.loads(text) if text is not None else {}
    except ValueError:
        args = None
    ext = _ext(ev)
    if not isinstance(args, dict) or json.dumps(args, ensure_ascii=False) != text:
        ext["text"] = text   # ATIF arguments are an object: the exact text rides here
    return {"tool_call_id": ev.get("call_id") or "", "function_name": ev.get("tool") or "",
            "arguments": args if isinstance(args, dict) else {}, "extra": {KEY: ext}}


def _result(ev: dict) -> dict:
    ext = _ext(ev)
    if ev.get("tool") is not None:
        ext["tool"] = ev["tool"]   # an observation result names no tool
    out = {"source_call_id": ev.get("call_id"), "content": ev.get("text"), "extra": {KEY: ext}}
    return {k: v for k, v in out.items() if v is not None}


def _ext(ev: dict) -> dict:
    ext = extension_of(ev)
    for name in _NATIVE:
        ext.pop(name, None)
    if ev.get("text") is None:
        ext["text"] = None
    if ev["kind"] == "CALL" and ev.get("call_id") is None:
        ext["call_id"] = None
    return ext


def _iso(ms: int) -> str:
    when = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
