"""One conversation rebuilt from the model calls and tool runs of a trace (OpenTelemetry
GenAI spans, OpenInference spans, Langfuse observations; docs/FORMATS.md).

A trace records each model call with the messages it was sent and the messages it gave;
spans arrive out of time order, and a model turn with parallel tool calls may be recorded
as several calls. A message's place comes from its position in the recorded input: a call
sent ``n`` messages (after ``offset`` earlier ones, Turnscope's own export) gives its
output at position ``offset + n``, and the input of a later call repeats the earlier
messages, which are read once. Where a position is not recorded (an input that cannot be
read) or two calls claim it with different messages, the calls are taken by start time and
the events say so (``note``: ``order by time``). A tool run whose result no model call was
sent goes after its call, before the first message recorded later than the run started;
one without a call id is paired with the one call of its name and arguments still
unanswered (``note``: ``paired by arguments``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

BY_TIME = "order by time"
BY_ARGUMENTS = "paired by arguments"


@dataclass
class Message:
    """One message: its role and the canonical events its parts give (no session, seq or
    sub yet); a message without events still holds its position."""

    role: str
    events: list[dict] = field(default_factory=list)


@dataclass
class ModelCall:
    """One recorded model call: the record (span, observation) holding it, its start and end
    (epoch ms), the messages sent (None: not recorded) after ``offset`` earlier ones, the
    messages it gave, and what its first output event keeps in ``raw``."""

    record: int
    start: int | None
    end: int | None
    input: list[Message] | None
    output: list[Message]
    offset: int = 0
    raw: dict | None = None


@dataclass
class ToolRun:
    """One recorded tool execution: its record, times, call id (may be None), tool name,
    arguments (a JSON value), result text and error flag."""

    record: int
    start: int | None
    end: int | None
    call_id: str | None
    name: str | None
    arguments: object
    result: str | None
    is_error: bool = False
    raw: dict | None = None


@dataclass
class _Entry:
    message: Message
    record: int
    time: int | None      # when it was recorded (ordering of tool runs)
    ts: int | None        # the time its events get unless they carry their own
    note: str | None = None
    raw: dict | None = None


def rebuild(traces: list[tuple[list[ModelCall], list[ToolRun]]]
            ) -> tuple[dict[int, list[dict]], set[int]]:
    """The events of one session's conversation by record (seq: the message's position from
    1; sub: the event's place in its message), and the records of tool runs whose result
    was already sent to a model (they give no event). ``traces``: the model calls and tool
    runs of each trace of the session; the traces follow one another by start time, and a
    trace whose messages begin with the whole conversation so far (a chat application's
    next turn) adds only what follows."""
    conv: list[_Entry] = []
    repeated: set[int] = set()
    parts = []
    for calls, runs in traces:
        part, again = _conversation(calls, runs)
        repeated |= again
        times = [t for c in calls for t in (c.start,) if t is not None]
        times += [r.start for r in runs if r.start is not None]
        parts.append((min(times) if times else -1, part))
    for _, part in sorted(parts, key=lambda p: p[0]):
        if len(part) >= len(conv) and all(_same(a.message, b.message)
                                          for a, b in zip(conv, part)):
            part = part[len(conv):]
        conv.extend(part)
    by_record: dict[int, list[dict]] = {}
    for seq, entry in enumerate(conv, start=1):
        for sub, ev in enumerate(entry.message.events):
            ev = dict(ev, seq=seq, sub=sub)
            ev.setdefault("ts", entry.ts)
            if entry.note and ev["kind"] != "USER" and "note" not in ev:
                ev["note"] = entry.note   # a USER event with a note would open no turn
            if sub == 0 and entry.raw is not None:
                ev["raw"] = entry.raw
            by_record.setdefault(entry.record, []).append(ev)
    return by_record, repeated


def _conversation(calls: list[ModelCall], runs: list[ToolRun]) -> tuple[list[_Entry], set[int]]:
    """One trace's messages in conversation order, and its tool runs already answered."""
    conv: list[_Entry] = []
    for call in _call_order(calls):
        inferred = call.input is None
        if call.input is not None:
            for i, msg in enumerate(call.input):
                if call.offset + i >= len(conv):
                    conv.append(_Entry(msg, call.record, call.start, call.start))
            base = call.offset + len(call.input)
        else:
            base = len(conv)
        for j, msg in enumerate(call.output):
            p = base + j
            if p < len(conv) and _same(conv[p].message, msg):
                continue
            note = BY_TIME if inferred or p < len(conv) else None
            conv.append(_Entry(msg, call.record, call.start, call.end, note,
                               call.raw if j == 0 else None))
    return conv, _place_runs(conv, runs)


def _call_order(calls: list[ModelCall]) -> list[ModelCall]:
    """Calls with a recorded input by the position of their output (then start time); a
    call without one after the last of those that started no later than it did."""
    known = sorted((c for c in calls if c.input is not None),
                   key=lambda c: (c.offset + len(c.input), _time(c.start), c.record))
    order = list(known)
    for call in sorted((c for c in calls if c.input is None),
                       key=lambda c: (_time(c.start), c.record)):
        at = 0
        for i, other in enumerate(order):
            if _time(other.start) <= _time(call.start):
                at = i + 1
        order.insert(at, call)
    return order


def _time(ms: int | None) -> int:
    return ms if ms is not None else -1


def _same(a: Message, b: Message) -> bool:
    def key(m: Message):
        return [(e.get("kind"), e.get("text"), e.get("call_id")) for e in m.events]
    return key(a) == key(b)


def _place_runs(conv: list[_Entry], runs: list[ToolRun]) -> set[int]:
    answered = {e["call_id"] for entry in conv for e in entry.message.events
                if e.get("kind") == "RESULT" and e.get("call_id")}
    taken: set[str] = set()
    repeated: set[int] = set()
    for run in sorted(runs, key=lambda r: (_time(r.start), r.record)):
        call_id, note = run.call_id, BY_TIME
        if not call_id:
            call_id = _call_by_arguments(conv, run, taken)
            note = BY_ARGUMENTS if call_id else BY_TIME
        if call_id and call_id in answered:
            repeated.add(run.record)
            continue
        if call_id:
            taken.add(call_id)
        after = max((i for i, entry in enumerate(conv) for e in entry.message.events
                     if e.get("kind") == "CALL" and call_id and e.get("call_id") == call_id),
                    default=-1)
        at = next((i for i in range(after + 1, len(conv)) if conv[i].time is not None
                   and run.start is not None and conv[i].time > run.start), len(conv))
        event = {"kind": "RESULT", "call_id": call_id, "tool": run.name, "text": run.result,
                 "is_error": run.is_error or None}
        event = {k: v for k, v in event.items() if v is not None}
        conv.insert(at, _Entry(Message("tool", [event]), run.record, run.start, run.end,
                               note, run.raw))
    return repeated


def _call_by_arguments(conv: list[_Entry], run: ToolRun, taken: set[str]) -> str | None:
    """The id of the one CALL of the run's tool not yet taken by a run whose arguments are the run's
    (or the run's ``{"input": arguments}``), else None."""
    wanted = [run.arguments]
    if isinstance(run.arguments, dict) and set(run.arguments) == {"input"}:
        wanted.append(run.arguments["input"])
    found = [e["call_id"] for entry in conv for e in entry.message.events
             if e.get("kind") == "CALL" and e.get("call_id") and e["call_id"] not in taken
             and e.get("tool") == run.name and _parsed(e.get("text")) in wanted]
    return found[0] if len(found) == 1 else None


def _parsed(text):
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text
