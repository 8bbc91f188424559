"""Inspect AI eval logs (LOG-FORMATS.md §8): a ``.json`` log ``{version, status, eval, plan,
results, stats, samples[]}``, or an ``.eval`` zip holding ``header.json`` and one
``samples/<id>_epoch_<n>.json`` per sample (the same sample JSON).

Each sample is a session ``eval_id/sample id/epoch``; its ``messages[]`` give the events (same
shape as Chat Completions: assistant ``tool_calls[]`` are CALLs, ``tool`` messages RESULTs,
``error`` making one an error). Messages carry no time: an assistant message takes the
``completed`` time of the ``model`` event that produced it, a RESULT that of the ``tool`` event
of its call id, the sample's input that of ``sample_init``. The raw provider requests inside
``model`` events are copies and are not imported; ``attachment://`` references are resolved.
Reported usage (the model event's ``output.usage``, the sample's ``model_usage``) goes in the
``raw`` of the message's (the sample's) first event, never into ``tokens``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Iterator

from explorer.formats.record import Record, reason_word
from explorer.formats.swe_agent import event, json_prefix, load_document, text_of, unreadable
from explorer.formats.typed import WrongType, items, obj, objects, opt_obj, rejected, scalar, whole
from explorer.formats.zip_entries import Archive, EntryError

NAME = "inspect-ai"
BINARY = True  # also reads the .eval zip archive (formats.detect lets it see ZIP files)
KIND = "records"  # explorer.formats.reader.RecordReader
_ZIP = b"PK\x03\x04"
_ATTACHMENT = "attachment://"


def matches(path: Path, head: bytes) -> bool:
    if head.startswith(_ZIP):
        return b"_journal/start.json" in head or b"header.json" in head or (
            path.suffix == ".eval" and b"samples/" in head)
    doc = json_prefix(head)
    return (isinstance(doc, dict) and isinstance(doc.get("eval"), dict)
            and bool({"eval_id", "run_id", "task"} & doc["eval"].keys())
            and ("version" in doc or "samples" in doc))


def records(path: Path) -> Iterator[Record]:
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic == _ZIP:
        yield from _eval_zip(path)
        return
    doc = load_document(path)
    if isinstance(doc, Record):
        yield doc
        return
    if not isinstance(doc, dict) or "eval" not in doc:
        yield unreadable(path.read_bytes(), "not an Inspect AI eval log (no eval header)")
        return
    try:
        run = run_id(doc)
        samples = items(doc.get("samples") or None, "samples")
    except WrongType as exc:
        yield unreadable(path.read_bytes(), str(exc))
        return
    yield from _samples(run, samples)


def run_id(header) -> str:
    """The run a log's samples belong to: the header's ``eval.eval_id``, else
    ``eval.run_id`` ("" when neither is given); WrongType naming the path of a value of the
    wrong type (an ``eval`` that is no object, an id that is no string or number)."""
    header = obj(header, "header")
    run = opt_obj(header.get("eval"), "eval")
    value = scalar(run.get("eval_id"), "eval.eval_id") or scalar(run.get("run_id"), "eval.run_id")
    return str(value or "")


def _eval_zip(path: Path) -> Iterator[Record]:
    """The samples of an ``.eval`` archive, one entry at a time: a damaged entry (or one past
    a limit) is one rejected record naming it and why, the others imported; an archive cut
    short gives its whole entries and one rejected record saying where the cut fell."""
    try:
        archive = Archive(path)
        names = archive.names()
        run = run_id(_header(archive, names))
    except WrongType as exc:   # a header value of the wrong type: its path said
        yield Record(1, error=f"the .eval archive's header: {exc}", text=path.name)
        return
    except (zipfile.BadZipFile, OSError, EntryError, ValueError, RecursionError) as exc:
        yield Record(1, error=f"not a readable Inspect AI .eval archive ({exc})",
                     text=path.name)
        return
    line = 0
    for name in sorted((n for n in names if n.startswith("samples/") and n.endswith(".json")),
                       key=_sample_order):
        try:
            sample = _entry(archive, name)
        except (EntryError, ValueError, RecursionError) as exc:
            line += 1
            yield Record(line, error=f"entry {name}: {exc}", text=name)
            continue
        last = line
        for record in _samples(run, [sample]):
            record.line += line  # _samples numbers the records of each sample from 1
            last = record.line
            yield record
        line = last
    if archive.problem:
        yield Record(line + 1, error=f"the .eval archive is cut short: {archive.problem}",
                     text=path.name)


def _header(archive: Archive, names: list[str]) -> dict:
    """The run's header: ``header.json`` (written last), else ``_journal/start.json``
    (written first: an archive cut short, or whose header.json is damaged, still has it)."""
    why = "it has neither header.json nor _journal/start.json"
    for name in ("header.json", "_journal/start.json"):
        if name in names:
            try:
                return _entry(archive, name)
            except (EntryError, ValueError) as exc:
                why = f"{name}: {exc}"
    raise EntryError(why)


def _entry(archive: Archive, name: str) -> dict:
    """One entry's JSON object; ValueError (or EntryError) saying why it is none."""
    try:
        value = json.loads(archive.read(name))
    except UnicodeDecodeError as exc:
        raise ValueError(f"not UTF-8 text (invalid byte at {exc.start}): not a JSON entry") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc})") from exc
    except RecursionError as exc:
        raise ValueError("JSON nested too deep for Python's parser") from exc
    if not isinstance(value, dict):
        raise EntryError(f"a JSON {type(value).__name__}, not an object")
    return value


def _sample_order(name: str):
    """``samples/<id>_epoch_<n>.json`` by id then epoch (numbers as numbers)."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".json")
    sid, _, epoch = stem.rpartition("_epoch_")
    number = int(epoch) if epoch.isdigit() else 0
    return ((0, int(sid), "") if sid.isdigit() else (1, 0, sid)), number


def _samples(run: str, samples: list) -> Iterator[Record]:
    """The records of samples of the run ``run`` (sessions ``run/sample id/epoch``)."""
    line = 0
    for number, sample in enumerate(samples):
        try:
            sample = obj(sample, f"samples[{number}]")
            session = "/".join([run, str(scalar(sample.get("id"), "id")),
                                str(scalar(sample.get("epoch", 1), "epoch"))])
            attachments = opt_obj(sample.get("attachments") or None, "attachments")
            messages = items(sample.get("messages") or None, "messages")
            sample_events = items(sample.get("events") or None, "events")
        except WrongType as exc:   # the sample cannot be read: one rejected record for it
            line += 1
            yield rejected(line, exc, json.dumps(sample)[:4000])
            continue
        times, usage = _times(sample_events)
        for index, msg in enumerate(messages):
            line += 1
            try:
                yield _message_record(line, index, msg, sample, session, attachments, times, usage)
            except WrongType as exc:   # a value of the wrong type: this message only is rejected
                yield rejected(line, exc, json.dumps(msg))
        for _ in sample_events:
            line += 1
            yield Record(line, skipped="sample event (span, model call, tool, state, score)")


def _message_record(line: int, index: int, msg, sample: dict, session: str,
                    attachments: dict, times: dict, usage: dict) -> Record:
    """The Record of one message of a sample (paths are the message's own)."""
    msg = whole(obj(msg, f"messages[{index}]"))
    evs = _message_events(msg, attachments, times)
    mid = scalar(msg.get("id"), "id")
    for sub, ev in enumerate(evs):
        ev.update(session_id=session, seq=index + 1, sub=sub, message_id=mid)
        if mid:
            ev["event_id"] = mid if len(evs) == 1 else f"{mid}#{sub}"
    raw = {"message": msg}
    if mid in usage:
        raw["usage"] = usage[mid]
    if index == 0:
        raw["model_usage"] = sample.get("model_usage")
    evs[0]["raw"] = raw
    return Record(line, events=evs)


def _times(sample_events: list) -> tuple[dict, dict]:
    """When each message and tool result appeared (by message id, by tool call id), and the
    usage each model event reported (by the id of the message it produced). An event with a
    value of the wrong type gives no time (its messages are checked where they are read)."""
    times: dict = {}
    usage: dict = {}
    for ev in sample_events:
        try:
            _note_times(obj(ev, "event"), times, usage)
        except WrongType:
            continue
    return times, usage


def _note_times(ev: dict, times: dict, usage: dict) -> None:
    kind = ev.get("event")
    stamp = scalar(ev.get("completed") or ev.get("timestamp"), "completed")
    if kind == "sample_init":
        state = opt_obj(ev.get("state") or None, "state")
        for msg in objects(state.get("messages") or None, "state.messages"):
            times.setdefault(scalar(msg.get("id"), "id"), scalar(ev.get("timestamp"), "timestamp"))
    elif kind == "model":
        output = opt_obj(ev.get("output") or None, "output")
        for choice in objects(output.get("choices") or None, "output.choices"):
            mid = scalar(opt_obj(choice.get("message") or None, "message").get("id"), "id")
            times.setdefault(mid, stamp)
            if output.get("usage") is not None:
                usage.setdefault(mid, output["usage"])
    elif kind == "tool" and ev.get("id"):
        times.setdefault(("tool", scalar(ev["id"], "id")), stamp)


def _message_events(msg: dict, attachments: dict, times: dict) -> list[dict]:
    role = msg.get("role")
    text = _resolve(text_of(msg.get("content")), attachments)
    ts = times.get(scalar(msg.get("id"), "id"))
    if role == "tool":
        call_id = scalar(msg.get("tool_call_id"), "tool_call_id") or None
        error = msg.get("error")
        if error and not text:
            text = error.get("message", "") if isinstance(error, dict) else str(error)
        return [event(kind="RESULT", call_id=call_id, tool=msg.get("function"), text=text,
                      is_error=bool(error), ts=times.get(("tool", call_id), ts))]
    if role == "assistant":
        calls = objects(msg.get("tool_calls") or None, "tool_calls")
        evs = [event(kind="ASSISTANT", text=text, ts=ts)] if text or not calls else []
        for n, call in enumerate(calls):
            args = call.get("arguments")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            call_id = scalar(call.get("id"), f"tool_calls[{n}].id") or None
            evs.append(event(kind="CALL", call_id=call_id,
                             tool=call.get("function"), text=_resolve(args, attachments),
                             ts=ts, raw=call))
        return evs
    kind = {"system": "SYSTEM", "user": "USER"}.get(role if isinstance(role, str) else "", "OTHER")
    note = f"unknown type: {reason_word(role)}" if kind == "OTHER" else None   # format drift
    return [event(kind=kind, text=text, ts=ts, note=note)]


def _resolve(text: str, attachments: dict) -> str:
    """The text with every ``attachment://<hash>`` replaced by the attachment it names."""
    if _ATTACHMENT not in text:
        return text
    for key, value in attachments.items():
        text = text.replace(_ATTACHMENT + key, value if isinstance(value, str) else "")
    return text


