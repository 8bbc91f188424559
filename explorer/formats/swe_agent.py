"""SWE-agent trajectories (``.traj``, LOG-FORMATS.md §6): one JSON document per instance,
``{environment, trajectory[], history[], info, replay_config}``.

``history[]`` is the conversation and is imported; ``trajectory[]`` repeats its steps and is
skipped (counted as skipped), but for a step that history does not hold (its action and
its thought in no assistant entry: the final ``submit`` step), imported after the conversation
as its thought, a CALL without id and its observation. The session is the instance id, i.e. the file name; nothing
carries a timestamp. Function-calling runs pair ``tool_calls[].id`` with the tool entries'
``tool_call_ids`` (a list, and ids are reused); older runs have only ``action`` text, whose
next observation is its result by position: those are a CALL and a RESULT without id.
The run's ``info`` (exit status, reported ``model_stats``) goes in the ``raw`` of the first
event, never into ``tokens``.

This module also holds the small JSON-document helpers the other document readers use
(:func:`json_prefix`, :func:`load_document`, :func:`unreadable`, :func:`event`).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Callable, Iterator

from explorer.formats.inflate import Cut, gunzip_bytes
from explorer.formats.json_values import loads
from explorer.formats.lines import json_lines
from explorer.formats.record import Record, reason_word
from explorer.formats.typed import WrongType, items, objects, opt_obj, rejected, scalar, whole

NAME = "swe-agent"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
_DEC = json.JSONDecoder()
_WS = " \t\r\n"
#: Characters of an unreadable document kept with its error.
_KEEP = 4000


# --- JSON-document helpers (shared by the readers of whole-document formats) ---------------

class _Cut(Exception):
    """The head ends (or stops being JSON) here."""


def json_prefix(head: bytes):
    """As much of the JSON value that ``head`` starts as it holds: containers cut by the end
    of the head come back with what they hold so far, a cut scalar is left out. None when
    ``head`` does not start a JSON value."""
    text = head.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "ignore")
    holder: list = []
    try:
        _value(text, 0, holder.append)
    except (_Cut, RecursionError):
        pass
    return holder[0] if holder else None


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _scalar(text: str, i: int):
    try:
        return _DEC.raw_decode(text, i)
    except json.JSONDecodeError:
        raise _Cut from None


def _value(text: str, i: int, put: Callable) -> int:
    """Parse the value at ``i``, handing it to ``put`` (containers before they are filled)."""
    i = _skip(text, i)
    if i >= len(text):
        raise _Cut
    if text[i] == "{":
        obj: dict = {}
        put(obj)
        i = _skip(text, i + 1)
        if text[i:i + 1] == "}":
            return i + 1
        while True:
            key, i = _scalar(text, i)
            i = _skip(text, i)
            if not isinstance(key, str) or text[i:i + 1] != ":":
                raise _Cut
            i = _skip(text, _value(text, i + 1, lambda v, k=key: obj.__setitem__(k, v)))
            if text[i:i + 1] == "}":
                return i + 1
            if text[i:i + 1] != ",":
                raise _Cut
            i = _skip(text, i + 1)
    if text[i] == "[":
        arr: list = []
        put(arr)
        i = _skip(text, i + 1)
        if text[i:i + 1] == "]":
            return i + 1
        while True:
            i = _skip(text, _value(text, i, arr.append))
            if text[i:i + 1] == "]":
                return i + 1
            if text[i:i + 1] != ",":
                raise _Cut
            i += 1
    value, i = _scalar(text, i)
    put(value)
    return i


def load_document(path: Path):
    """The file's JSON value (gzip or not), or a :class:`Record` with the error when the
    document cannot be read (e.g. a copy taken while the writer rewrote it)."""
    with open(path, "rb") as fh:
        data = fh.read()
    try:
        if data[:2] == b"\x1f\x8b":
            data = _inflated(data)
            if isinstance(data, Record):
                return data
        return loads(data.decode("utf-8-sig"))
    except RecursionError:
        return unreadable(data, "JSON nested too deeply to read")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as exc:
        return unreadable(data, f"not a complete JSON document ({exc})")


def load_documents(path: Path) -> list | Record:
    """The file's JSON documents: its one document, else (when it is not one) the records
    of its JSON Lines, read through the guards of every JSON Lines reader
    (explorer.formats.lines: line size, nesting depth, repeated keys, torn last line), a
    line that cannot be read a rejected :class:`Record` in its place (line number, byte
    offset and reason in its error; numbered by the caller); the :class:`Record` of
    :func:`load_document` when no line holds a JSON object either. For formats that come
    as one document or as JSON Lines of them (ATIF, OTLP JSON)."""
    doc = load_document(path)
    if not isinstance(doc, Record):
        return [doc]
    out: list = []
    for line, value in json_lines(path):
        if value.error:
            out.append(Record(line.number, error=f"line {line.number}: {value.error}",
                              text=value.text))
        else:
            out.append(value.value)
    if not any(isinstance(item, dict) for item in out):
        return doc
    return out


def _inflated(data: bytes) -> bytes | Record:
    """A gzip document inflated within the import limits (explorer.formats.inflate: a whole
    document is one entry, bounded like the longest line), or the rejected record saying
    why it cannot be (damaged, cut, past a limit)."""
    try:
        return gunzip_bytes(data, "document")
    except Cut as exc:
        return unreadable(data, str(exc))


def unreadable(data: bytes, reason: str) -> Record:
    """The one rejected record of a document that cannot be read."""
    text = data[:_KEEP].decode("utf-8", "replace")
    return Record(line=1, error=reason, text=text + ("…" if len(data) > _KEEP else ""))


def event(**fields) -> dict:
    """A canonical event with the fields that have a value."""
    return {k: v for k, v in fields.items() if v is not None}


def text_of(content) -> str:
    """Message content as text: a string, or the text parts of a list of parts (``{type:
    "text", text}``, or Gemini's ``{text}``), one per line."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p["text"] for p in content if isinstance(p, dict)
                         and isinstance(p.get("text"), str) and p.get("type", "text") == "text")
    return json.dumps(content, ensure_ascii=False)


# --- SWE-agent ------------------------------------------------------------------------------

def matches(path: Path, head: bytes) -> bool:
    doc = json_prefix(head)
    if not isinstance(doc, dict) or not isinstance(doc.get("trajectory"), list):
        return False
    steps = doc["trajectory"]
    if steps and isinstance(steps[0], dict) and steps[0]:
        step = steps[0]
        return "source" not in step and bool(
            {"observation", "thought", "response", "execution_time"} & step.keys())
    return "history" in doc or "environment" in doc


def records(path: Path) -> Iterator[Record]:
    doc = load_document(path)
    if isinstance(doc, Record):
        yield doc
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("history"), list):
        yield unreadable(path.read_bytes(), "not a SWE-agent trajectory (no history list)")
        return
    session = path.name.removesuffix(".gz").removesuffix(".traj")
    waiting = False  # the previous entry was an action without id: this observation answers it
    for index, entry in enumerate(doc["history"]):
        seq = index + 1
        if not isinstance(entry, dict):
            yield Record(seq, error="history entry is not an object", text=json.dumps(entry))
            continue
        try:
            evs, waiting = _entry_events(whole(entry), waiting)
        except WrongType as exc:   # a value of the wrong type: this entry only is rejected
            yield rejected(seq, exc, json.dumps(entry, ensure_ascii=False))
            continue
        for sub, ev in enumerate(evs):
            ev.update(session_id=session, seq=seq, sub=sub, message_id=f"history[{index}]")
        if evs and index == 0:
            evs[0]["raw"] = {"history_entry": entry, "info": doc.get("info")}
        yield Record(seq, events=evs) if evs else Record(seq, skipped="empty message")
    steps = doc.get("trajectory")
    copied = {_stripped(e.get(k)) for e in doc["history"]
              if isinstance(e, dict) and e.get("role") == "assistant" for k in ("action", "thought")}
    for index, step in enumerate(steps if isinstance(steps, list) else []):
        if not isinstance(step, dict) or (
                {_stripped(step.get("action")), _stripped(step.get("thought"))} & copied - {""}):
            yield Record(index + 1, skipped="trajectory step (a copy of history)")
            continue
        try:   # a step history does not hold (the last, submit, step): its own events
            evs = _step_events(whole(step))
        except WrongType as exc:
            yield rejected(index + 1, exc, json.dumps(step, ensure_ascii=False))
            continue
        seq = len(doc["history"]) + index + 1   # after the conversation
        for sub, ev in enumerate(evs):
            ev.update(session_id=session, seq=seq, sub=sub, message_id=f"trajectory[{index}]")
        yield Record(index + 1, events=evs) if evs else Record(
            index + 1, skipped="empty trajectory step")


def _stripped(value) -> str:
    return value.strip() if isinstance(value, str) else ""


def _step_events(step: dict) -> list[dict]:
    """A trajectory step's thought (ASSISTANT), its action (a CALL without id) and the
    observation (its RESULT, by position)."""
    thought = text_of(step.get("thought") or step.get("response"))
    action = step.get("action")
    evs = [event(kind="ASSISTANT", text=thought)] if thought else []
    if isinstance(action, str) and action.strip():
        evs.append(event(kind="CALL", tool=action.split()[0], text=action))
        evs.append(event(kind="RESULT", text=text_of(step.get("observation"))))
    if evs:
        evs[0]["raw"] = step
    return evs


def _entry_events(entry: dict, waiting: bool) -> tuple[list[dict], bool]:
    """The events of one history entry, and whether the next observation answers a CALL."""
    role = entry.get("role")
    text = text_of(entry.get("content"))
    if role == "system":
        return [event(kind="SYSTEM", text=text, raw=entry)], False
    if role == "tool":
        # One observation answers every id listed: its text is counted once, on the first.
        ids = [scalar(i, f"tool_call_ids[{n}]")
               for n, i in enumerate(items(entry.get("tool_call_ids"), "tool_call_ids"))] or [None]
        return [event(kind="RESULT", call_id=i, text=text if n == 0 else "",
                      raw=entry if n == 0 else None) for n, i in enumerate(ids)], False
    if role == "user":
        if waiting and entry.get("message_type", "observation") == "observation":
            return [event(kind="RESULT", text=text, raw=entry)], False
        return [event(kind="USER", text=text, raw=entry)], False
    if role == "assistant":
        thought = text or text_of(entry.get("thought"))
        evs = [event(kind="ASSISTANT", text=thought)] if thought else []
        calls = objects(entry.get("tool_calls"), "tool_calls")
        for n, call in enumerate(calls):
            fn = opt_obj(call.get("function"), f"tool_calls[{n}].function")
            args = fn.get("arguments")
            evs.append(event(kind="CALL", call_id=scalar(call.get("id"), f"tool_calls[{n}].id"),
                             tool=scalar(fn.get("name"), f"tool_calls[{n}].function.name"),
                             text=args if isinstance(args, str) else json.dumps(args),
                             raw=call))
        action = entry.get("action")
        bare = not calls and isinstance(action, str) and action.strip() != ""
        if bare:
            evs.append(event(kind="CALL", tool=action.split()[0], text=action))
        if evs:
            evs[0]["raw"] = entry
        return evs, bare
    # a role SWE-agent is not known to write (format drift): kept, and said so
    return [event(kind="OTHER", text=text, raw=entry, note=f"unknown type: {reason_word(role)}")], False


