"""Harbor's Agent Trajectory Interchange Format, ATIF v1.x (docs/FORMATS.md, "ATIF"): one
trajectory document ``{schema_version: "ATIF-v1.…", session_id, agent, steps: [...]}``, or
JSON Lines of them (Turnscope's export of several sessions). Each step is a record: a
``user`` step is USER, a ``system`` step SYSTEM; an ``agent`` step is its message
(ASSISTANT), its ``tool_calls`` (CALL) and its ``observation.results`` (RESULT), in that
order. ``is_copied_context`` steps are archived; embedded ``subagent_trajectories`` are
sessions of their own (``<session>/<trajectory_id>``) under the call whose result refers to
them. Turnscope's ``extra.turnscope`` fields (explorer.formats.extension) are read back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from explorer.formats.extension import apply_extension, read_extension
from explorer.formats.genai_messages import as_text
from explorer.formats.record import Record
from explorer.formats.swe_agent import json_prefix, load_documents
from explorer.formats.typed import WrongType, items, obj, objects, opt_obj, rejected, scalar

NAME = "atif"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_KINDS = {"user": "USER", "system": "SYSTEM", "agent": "ASSISTANT"}


def matches(path: Path, head: bytes) -> bool:
    first = head.split(b"\n", 1)[0] if head.lstrip()[:1] == b"{" else head
    for text in (head, first):
        doc = json_prefix(text)
        if isinstance(doc, dict) and str(doc.get("schema_version", "")).startswith("ATIF"):
            return True
    return False


def records(path: Path) -> Iterator[Record]:
    docs = load_documents(path)
    if isinstance(docs, Record):
        yield docs
        return
    line = 0
    for doc in docs:
        if isinstance(doc, Record):   # a JSON Lines line that cannot be read
            line += 1
            doc.line = line
            yield doc
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("steps"), list):
            line += 1
            yield Record(line, error="not an ATIF trajectory (no steps)",
                         text=json.dumps(doc, ensure_ascii=False)[:2000])
            continue
        session = str(doc.get("session_id") or doc.get("trajectory_id") or path.stem)
        for rec in _trajectory(doc, session, {}, line):
            line = max(line, rec.line)
            yield rec


def _trajectory(doc: dict, session: str, owner: dict, line: int) -> Iterator[Record]:
    """The records of one trajectory's steps (numbered after ``line``), then those of its
    embedded subagent trajectories."""
    root = opt_obj(doc.get("extra"), "extra").get("turnscope")
    for name in ("parent_session", "parent_call"):
        if isinstance(root, dict) and isinstance(root.get(name), str):
            owner = {**owner, name: root[name]}
    parents: dict[str, str] = {}   # subagent trajectory_id -> the call id that started it
    for seq, step in enumerate(doc["steps"], start=line + 1):
        try:
            evs = _step(obj(step, f"steps[{seq - line - 1}]"), parents)
        except WrongType as exc:
            yield rejected(seq, exc, json.dumps(step, ensure_ascii=False)[:2000])
            continue
        if not evs:
            yield Record(seq, skipped="empty step")
            continue
        for sub, ev in enumerate(evs):
            ev.update(session_id=session, seq=seq, sub=sub, **owner)
        evs[0]["raw"] = _raw(step, doc if seq == line + 1 else None)
        yield Record(seq, events=evs)
    line += len(doc["steps"])
    for sub_doc in items(doc.get("subagent_trajectories"), "subagent_trajectories"):
        if not isinstance(sub_doc, dict) or not isinstance(sub_doc.get("steps"), list):
            continue
        tid = str(sub_doc.get("trajectory_id") or sub_doc.get("session_id") or "subagent")
        child = {"parent_session": session, "branch": tid}
        if tid in parents:
            child["parent_call"] = parents[tid]
        for rec in _trajectory(sub_doc, f"{session}/{tid}", child, line):
            line = max(line, rec.line)
            yield rec


def _step(step: dict, parents: dict[str, str]) -> list[dict]:
    source = scalar(step.get("source"), "source")
    ext = read_extension(step.get("extra"))
    ts = scalar(step.get("timestamp"), "timestamp")
    evs = []
    text = _message(step.get("message"))
    bare = source != "agent" and not step.get("tool_calls") and not step.get("observation")
    if text or ext is not None or bare:
        evs.append(apply_extension({"kind": _KINDS.get(source, "OTHER"), "text": text}, ext))
    for n, call in enumerate(objects(step.get("tool_calls"), "tool_calls")):
        evs.append(apply_extension({
            "kind": "CALL", "call_id": scalar(call.get("tool_call_id"), f"tool_calls[{n}].tool_call_id") or None,
            "tool": scalar(call.get("function_name"), f"tool_calls[{n}].function_name"),
            "text": as_text(call.get("arguments"))}, read_extension(call.get("extra"))))
    observation = opt_obj(step.get("observation"), "observation")
    for n, result in enumerate(objects(observation.get("results"), "observation.results")):
        call_id = scalar(result.get("source_call_id"), f"observation.results[{n}].source_call_id")
        for ref in objects(result.get("subagent_trajectory_ref"), "subagent_trajectory_ref"):
            if isinstance(ref.get("trajectory_id"), str) and call_id:
                parents[ref["trajectory_id"]] = call_id
        evs.append(apply_extension({"kind": "RESULT", "call_id": call_id or None,
                                    "text": _message(result.get("content"))},
                                   read_extension(result.get("extra"))))
    for ev in evs:
        ev.setdefault("ts", ts)
        if step.get("is_copied_context") is True:
            ev.setdefault("archived", True)
    return evs


def _raw(step: dict, doc: dict | None) -> dict:
    """What the first event of a step keeps: the step but its message and observation, its
    metrics as reported usage, and on a trajectory's first step the trajectory's own fields
    (agent, notes, final_metrics, continued_trajectory_ref)."""
    raw = {k: v for k, v in step.items() if k not in ("message", "observation")}
    metrics = step.get("metrics")
    if isinstance(metrics, dict):
        raw["usage"] = {name: metrics[key] for name, key in (
            ("input", "prompt_tokens"), ("output", "completion_tokens"),
            ("cached", "cached_tokens")) if isinstance(metrics.get(key), int)}
    if doc is not None:
        raw["trajectory"] = {k: v for k, v in doc.items()
                             if k not in ("steps", "subagent_trajectories")}
    return raw


def _message(value) -> str | None:
    """A step message or result content: a string, or the text of its ContentParts."""
    if isinstance(value, list):
        return "\n".join(p["text"] for p in value if isinstance(p, dict)
                         and isinstance(p.get("text"), str))
    return value if isinstance(value, str) or value is None else as_text(value)
