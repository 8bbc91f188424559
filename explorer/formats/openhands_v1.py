"""OpenHands V1 agent-SDK events (docs/FORMATS.md §C): JSON Lines (one event a line), a JSON
list of events, one ``event-NNNNN-<uuid>.json`` file, or a folder of them (the SDK's
``events/``: one conversation, :func:`folder_records`).

Each event names its class in ``kind`` (``MessageEvent``, ``ActionEvent``, ``ObservationEvent``
…). Messages are USER / ASSISTANT / SYSTEM by role; an action is its ``thought`` (ASSISTANT)
and a CALL; an observation, an agent error or a rejection a RESULT, paired by
``tool_call_id`` (or through ``action_id``). Thinking stays in ``raw``; cumulative usage on
state updates is an OTHER of cost 0; pure state is skipped; an unknown class is an OTHER.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from explorer.formats.lines import json_lines
from explorer.formats.record import Record, reason_word
from explorer.formats.swe_agent import event, json_prefix, load_document, unreadable
from explorer.formats.typed import WrongType, items, obj, opt_obj, opt_text, rejected, scalar, whole
from explorer.formats.typed import text as typed_text

NAME = "openhands-v1"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader

#: The event classes of the SDK this reader knows (docs/FORMATS.md §C).
KNOWN = {"SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent",
         "AgentErrorEvent", "UserRejectObservation", "Condensation", "CondensationSummaryEvent",
         "CondensationRequest", "ConversationStateUpdateEvent", "PauseEvent"}
_CLASS = re.compile(r"[A-Z][A-Za-z]*(?:Event|Observation|Condensation|Request)\Z")
#: The one-file-per-event name the SDK writes.
EVENT_FILE = re.compile(r"event-(\d+)-[^/]*\.json\Z")


def is_event(value) -> bool:
    """Whether a JSON value is a V1 event: an object naming an event class in ``kind``, with
    ``id`` and ``source`` (a V0 event has ``action``/``observation`` strings and no class)."""
    return (isinstance(value, dict) and isinstance(value.get("kind"), str)
            and bool(_CLASS.match(value["kind"])) and "id" in value and "source" in value)


def matches(path: Path, head: bytes) -> bool:
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"["):
        first = json_prefix(text)
        return isinstance(first, list) and bool(first) and is_event(first[0])
    if text.startswith(b"{"):
        line = text.split(b"\n", 1)[0]
        try:   # JSON Lines: the first line is an event
            return is_event(json.loads(line))
        except ValueError:   # one pretty-printed event (an event-*.json file)
            return is_event(json_prefix(text))
    return False


def is_event_folder(path: Path) -> bool:
    """Whether ``path`` is a folder of the SDK's ``event-*.json`` files (one conversation)."""
    return bool(folder_files(path))


def folder_files(path: Path) -> list[Path]:
    """The ``event-*.json`` files of a folder (one conversation, read whole: the import's
    one input, explorer.formats.log_files); [] for a folder that holds none, or a file."""
    if not path.is_dir():
        return []
    return [p for p in path.iterdir() if EVENT_FILE.match(p.name) and p.is_file()]


def session_of(path: Path) -> str:
    """The session of a file: the folder's name for an ``event-*.json`` file (so that the
    files of one conversation give one session), else the file name without extension."""
    if EVENT_FILE.match(path.name):
        return path.parent.name
    return path.name.removesuffix(".gz").removesuffix(".jsonl").removesuffix(".json")


def records(path: Path) -> Iterator[Record]:
    if path.is_dir():
        yield from folder_records(path)
        return
    match = EVENT_FILE.match(path.name)
    head = path.read_bytes()[:64 * 1024].lstrip(b"\xef\xbb\xbf \t\r\n")
    if match or head.startswith(b"["):
        doc = load_document(path)
        if isinstance(doc, Record):
            yield doc
            return
        if isinstance(doc, dict):   # one event: its place is the number in its name
            seq = int(match.group(1)) + 1 if match else 1
            yield from _mapped([(seq, seq, doc)], session_of(path), {})
            return
        if not isinstance(doc, list):
            yield unreadable(path.read_bytes(), "not an OpenHands V1 event list")
            return
        yield from _mapped(((n, n, e) for n, e in enumerate(doc, start=1)), session_of(path), {})
        return
    yield from _jsonl_records(path)


def folder_records(folder: Path) -> Iterator[Record]:
    """The events of a folder of ``event-*.json`` files as one conversation, in the order of
    the number in their names; ``seq`` is that number plus one, the record's line too."""
    files = sorted((int(m.group(1)), p) for p in folder.iterdir()
                   if (m := EVENT_FILE.match(p.name)) and p.is_file())
    call_of: dict = {}
    for number, path in files:
        doc = load_document(path)
        if isinstance(doc, Record):
            yield Record(number + 1, error=f"{path.name}: {doc.error}", text=doc.text)
            continue
        yield from _mapped([(number + 1, number + 1, doc)], folder.name, call_of)


def _jsonl_records(path: Path) -> Iterator[Record]:
    seq = 0
    call_of: dict = {}
    for line, value in json_lines(path):
        seq += 1
        if value.error:
            yield Record(line.number, error=value.error, text=value.text)
            continue
        yield from _mapped([(line.number, seq, value.value)], session_of(path), call_of)


def _mapped(numbered: Iterable[tuple[int, int, object]], session: str,
            call_of: dict) -> Iterator[Record]:
    """A Record per (line, seq, event)."""
    for line, seq, item in numbered:
        if not isinstance(item, dict):
            yield Record(line, error="event is not an object",
                         text=json.dumps(item, ensure_ascii=False)[:2000])
            continue
        try:
            record = _record(seq, session, item, call_of)
        except WrongType as exc:   # a value of the wrong type: this event only is rejected
            yield rejected(line, exc, json.dumps(item, ensure_ascii=False))
            continue
        record.line = line
        yield record


def _record(seq: int, session: str, item: dict, call_of: dict) -> Record:
    whole(item)
    kind = typed_text(item.get("kind"), "kind") if "kind" in item else None
    own = scalar(item.get("conversation_id"), "conversation_id")
    if kind is None:
        return Record(seq, error="not an OpenHands V1 event (no kind)",
                      text=json.dumps(item, ensure_ascii=False)[:2000])
    if kind == "PauseEvent" or (kind == "ConversationStateUpdateEvent"
                                and item.get("key") != "stats"):
        return Record(seq, skipped="agent state")
    evs = _events(kind, item, call_of)
    if not evs:
        return Record(seq, skipped=f"{reason_word(kind)} without content")
    eid = scalar(item.get("id"), "id")
    ts = opt_text(item.get("timestamp"), "timestamp")
    for sub, ev in enumerate(evs):
        ev.update(session_id=str(own) if own is not None else session, seq=seq, sub=sub, ts=ts)
        if eid is not None:
            ev["event_id"] = str(eid) if len(evs) == 1 else f"{eid}#{sub}"
        response = scalar(item.get("llm_response_id"), "llm_response_id")
        if response:
            ev["message_id"] = str(response)
    evs[0]["raw"] = item
    return Record(seq, events=evs)


def _events(kind: str, item: dict, call_of: dict) -> list[dict]:
    source = item.get("source")
    if kind == "SystemPromptEvent":
        parts = [_text(item.get("system_prompt"), "system_prompt"),
                 _text(item.get("dynamic_context"), "dynamic_context")]
        return [event(kind="SYSTEM", text="\n\n".join(p for p in parts if p))]
    if kind == "MessageEvent":
        message = obj(item.get("llm_message"), "llm_message")
        role = message.get("role")
        what = {"user": "USER", "assistant": "ASSISTANT", "system": "SYSTEM"}.get(role)
        if what is None:
            raise WrongType(f"llm_message.role: unknown role {role!r}")
        return [event(kind=what, text=_text(message.get("content"), "llm_message.content"))]
    if kind == "ActionEvent":
        call_id = scalar(item.get("tool_call_id"), "tool_call_id") or None
        call_of[scalar(item.get("id"), "id")] = call_id
        thought = _text(item.get("thought"), "thought")
        head = [event(kind="ASSISTANT", text=thought)] if thought else []
        return head + [event(kind="CALL", call_id=call_id, text=_arguments(item),
                             tool=scalar(item.get("tool_name"), "tool_name"))]
    if kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
        call_id = scalar(item.get("tool_call_id"), "tool_call_id") or None
        if call_id is None:
            call_id = call_of.get(scalar(item.get("action_id"), "action_id"))
        if kind == "ObservationEvent":
            observation = obj(item.get("observation"), "observation")
            text, error = _text(observation.get("content"), "observation.content"), \
                _is_error(observation)
        else:
            text = _text(item.get("error", item.get("rejection_reason")), kind)
            error = True
        return [event(kind="RESULT", call_id=call_id, text=text, is_error=error,
                      tool=scalar(item.get("tool_name"), "tool_name"))]
    if kind in ("Condensation", "CondensationSummaryEvent"):
        summary = item.get("summary")
        return [event(kind="SUMMARY", text=_text(summary, "summary"), synthetic=True)] \
            if summary else []
    if kind == "ConversationStateUpdateEvent":   # key "stats": the cumulative usage
        return [event(kind="OTHER", text=_usage_text(item.get("value")), tokens=0)]
    if kind == "CondensationRequest":
        return []
    return [event(kind="OTHER", text=f"unknown event kind {kind} (from {source}); the "
                                     f"event is kept whole in raw")]


def _usage_text(value) -> str:
    """The cumulative usage of a stats update in words, one line per metric (``default:
    35895 prompt, 960 completion, 1115 cache-read tokens so far``); the value as JSON when
    it is not in the SDK's shape (the whole value is in raw either way)."""
    metrics = value.get("usage_to_metrics") if isinstance(value, dict) else None
    lines = []
    for name, metric in (metrics.items() if isinstance(metrics, dict) else ()):
        usage = metric.get("accumulated_token_usage") if isinstance(metric, dict) else None
        if not isinstance(usage, dict):
            continue
        counts = [f"{usage[k]} {label}" for k, label in (
            ("prompt_tokens", "prompt"), ("completion_tokens", "completion"),
            ("cache_read_tokens", "cache-read"), ("reasoning_tokens", "reasoning"))
            if isinstance(usage.get(k), int) and usage[k]]
        lines.append(f"{name}: {', '.join(counts) or 'no'} tokens so far")
    return "\n".join(lines) if lines else json.dumps(value, ensure_ascii=False)


def _arguments(item: dict) -> str:
    """What the model wrote for the call (``tool_call.arguments``), else the action as JSON."""
    call = opt_obj(item.get("tool_call"), "tool_call")
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        return arguments
    return json.dumps(item.get("action") if arguments is None else arguments,
                      ensure_ascii=False)


def _is_error(observation: dict) -> bool | None:
    """``is_error``, or an exit code (its own or its metadata's) that is a whole number ≠ 0."""
    meta = opt_obj(observation.get("metadata"), "observation.metadata")
    codes = [observation.get("exit_code"), meta.get("exit_code")]
    failed = any(isinstance(c, int) and not isinstance(c, bool) and c != 0 for c in codes)
    flag = observation.get("is_error")
    if flag is True or failed:
        return True
    return False if flag is False else None


def _text(value, path: str) -> str:
    """Content as text: a string, a text part, or the text of a list of parts (others as
    JSON, so that nothing is left out)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return (typed_text(value["text"], f"{path}.text") if value.get("type") == "text"
                else json.dumps(value, ensure_ascii=False))
    out = []
    for i, part in enumerate(items(value, path)):
        if isinstance(part, dict) and part.get("type") == "text":
            out.append(typed_text(part.get("text", ""), f"{path}[{i}].text"))
        else:
            out.append(json.dumps(part, ensure_ascii=False))
    return "\n".join(out)
