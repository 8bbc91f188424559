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

from explorer.formats.record import Record
from explorer.formats.swe_agent import event, json_prefix, load_document, text_of, unreadable
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
    if not isinstance(doc, dict) or not isinstance(doc.get("eval"), dict):
        yield unreadable(path.read_bytes(), "not an Inspect AI eval log (no eval header)")
        return
    yield from _samples(doc["eval"], doc.get("samples") or [])


def _eval_zip(path: Path) -> Iterator[Record]:
    """The samples of an ``.eval`` archive, one entry at a time: a damaged entry (or one past
    a limit) is one rejected record naming it and why, the others imported; an archive cut
    short gives its whole entries and one rejected record saying where the cut fell."""
    try:
        archive = Archive(path)
        names = archive.names()
        header = _header(archive, names)
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
        for record in _samples(header.get("eval") or {}, [sample]):
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


def _samples(header: dict, samples: list) -> Iterator[Record]:
    run = str(header.get("eval_id") or header.get("run_id") or "")
    line = 0
    for sample in samples:
        session = "/".join([run, str(sample.get("id")), str(sample.get("epoch", 1))])
        attachments = sample.get("attachments") or {}
        times, usage = _times(sample.get("events") or [])
        for index, msg in enumerate(sample.get("messages") or []):
            line += 1
            if not isinstance(msg, dict):
                yield Record(line, error="message is not an object", text=json.dumps(msg))
                continue
            evs = _message_events(msg, attachments, times)
            for sub, ev in enumerate(evs):
                ev.update(session_id=session, seq=index + 1, sub=sub, message_id=msg.get("id"))
                if msg.get("id"):
                    ev["event_id"] = msg["id"] if len(evs) == 1 else f"{msg['id']}#{sub}"
            raw = {"message": msg}
            if msg.get("id") in usage:
                raw["usage"] = usage[msg["id"]]
            if index == 0:
                raw["model_usage"] = sample.get("model_usage")
            evs[0]["raw"] = raw
            yield Record(line, events=evs)
        for _ in sample.get("events") or []:
            line += 1
            yield Record(line, skipped="sample event (span, model call, tool, state, score)")


def _times(sample_events: list) -> tuple[dict, dict]:
    """When each message and tool result appeared (by message id, by tool call id), and the
    usage each model event reported (by the id of the message it produced)."""
    times: dict = {}
    usage: dict = {}
    for ev in sample_events:
        kind = ev.get("event")
        stamp = ev.get("completed") or ev.get("timestamp")
        if kind == "sample_init":
            for msg in ((ev.get("state") or {}).get("messages") or []):
                times.setdefault(msg.get("id"), ev.get("timestamp"))
        elif kind == "model":
            output = ev.get("output") or {}
            for choice in output.get("choices") or []:
                mid = (choice.get("message") or {}).get("id")
                times.setdefault(mid, stamp)
                if output.get("usage") is not None:
                    usage.setdefault(mid, output["usage"])
        elif kind == "tool" and ev.get("id"):
            times.setdefault(("tool", ev["id"]), stamp)
    return times, usage


def _message_events(msg: dict, attachments: dict, times: dict) -> list[dict]:
    role = msg.get("role")
    text = _resolve(text_of(msg.get("content")), attachments)
    ts = times.get(msg.get("id"))
    if role == "tool":
        call_id = msg.get("tool_call_id") or None
        error = msg.get("error")
        if error and not text:
            text = error.get("message", "") if isinstance(error, dict) else str(error)
        return [event(kind="RESULT", call_id=call_id, tool=msg.get("function"), text=text,
                      is_error=bool(error), ts=times.get(("tool", call_id), ts))]
    if role == "assistant":
        calls = msg.get("tool_calls") or []
        evs = [event(kind="ASSISTANT", text=text, ts=ts)] if text or not calls else []
        for call in calls:
            args = call.get("arguments")
            args = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
            evs.append(event(kind="CALL", call_id=call.get("id") or None,
                             tool=call.get("function"), text=_resolve(args, attachments),
                             ts=ts, raw=call))
        return evs
    kind = {"system": "SYSTEM", "user": "USER"}.get(role, "OTHER")
    return [event(kind=kind, text=text, ts=ts)]


def _resolve(text: str, attachments: dict) -> str:
    """The text with every ``attachment://<hash>`` replaced by the attachment it names."""
    if _ATTACHMENT not in text:
        return text
    for key, value in attachments.items():
        text = text.replace(_ATTACHMENT + key, value if isinstance(value, str) else "")
    return text


