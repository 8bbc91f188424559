"""Reader of OpenAI Codex CLI rollouts (LOG-FORMATS.md §3): ``{timestamp, type, payload}``
lines (and the un-enveloped items of very old versions) mapped to canonical events.

Only the ``response_item`` side becomes events; the ``event_msg`` mirrors of it, progress,
``turn_context`` configuration and ``ghost_snapshot`` items are skipped, by reason. ``raw``
is the line's record; on the first event of a response the reader adds, under
``raw["turnscope"]``, ``reasoning`` (the response's reasoning records) and ``reported_usage``
(the ``token_count`` record that reported its usage; never put in ``tokens``).

A ``compacted`` line is one synthetic SUMMARY standing for its ``replacement_history`` (the
copies are not events), so the recorded view of STRATEGIES.md starts there. User-role items
the harness injects (environment context, instructions, the IDE context item of newer
versions) are synthetic SYSTEM events: a user-role item is a prompt when an
``event_msg``/``user_message`` mirrors it (or, in a file with no mirrors, when it does not
open with one of the harness's tags).

Unified exec (explorer.formats.codex_cli_scan): a non-zero exit is an error of the
``exec_command`` call's RESULT, whether its code came in an ``exec_command_end`` event or in
the output of a ``write_stdin`` poll; a poll's RESULT is no error for it. An
``exec_command_end`` event (the record carrying the code) is an OTHER event with note
``exec end``. A record of an envelope type the reader does not know is an OTHER event with
note ``unknown type: X`` (format drift).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from explorer.formats.codex_cli_scan import (
    ENVELOPES,
    EXEC,
    ITEMS,
    POLL,
    SKIP_USAGE_LOST,
    Plan,
    envelope,
    header_exit,
    lines,
    scan,
    split,
    texts,
)
from explorer.formats.record import Record, reason_word
from explorer.formats.typed import WrongType, items, opt_text, rejected

NAME = "codex-cli"
BINARY = False
KIND = "records"  # explorer.formats.reader.RecordReader
#: The key of ``raw`` under which the reader adds what other lines say about an event.
ADDED = "turnscope"

#: Model-output items: each opens (or continues) the response whose usage is reported.
_CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
_RESULTS = frozenset({"function_call_output", "custom_tool_call_output"})
#: event_msg types that are events (SYSTEM markers); the rest are skipped.
_MARKERS = {"turn_aborted", "context_compacted", "error"}
_MIRRORS = {"user_message", "agent_message", "agent_reasoning", "agent_reasoning_raw_content",
            "agent_reasoning_section_break"}
#: Openings of user-role items that the harness injects (used when no item is mirrored).
_ENVELOPE_HEAD = re.compile(rb'\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"('
                            + b"|".join(e.encode() for e in sorted(ENVELOPES)) + rb')"')

SKIP_MIRROR = "event_msg mirror of a response_item"
SKIP_PROGRESS = "event_msg progress"
SKIP_CONFIG = "turn_context (configuration)"
SKIP_SNAPSHOT = "ghost_snapshot (snapshot)"
SKIP_STATE = "state record"
SKIP_UNKNOWN = "not a known rollout record"
SKIP_REASONING = "reasoning (kept in raw of the next event)"
def matches(path: Path, head: bytes) -> bool:
    """A first line that is a rollout envelope, or an old rollout's session header."""
    lines = [ln for ln in head.removeprefix(b"\xef\xbb\xbf").split(b"\n") if ln.strip()]
    if not lines:
        return False
    try:
        first = json.loads(lines[0])
    except ValueError:    # a first line longer than the head: judge by its opening
        return bool(_ENVELOPE_HEAD.match(lines[0].strip()))
    if not isinstance(first, dict):
        return False
    if envelope(first):
        return first["type"] != "session_meta" or "id" in first["payload"]
    if {"id", "timestamp"} <= first.keys() and "type" not in first and "kind" not in first:
        try:
            second = json.loads(lines[1]) if len(lines) > 1 else None
        except ValueError:
            return False
        kind = second.get("type") if isinstance(second, dict) else None
        return isinstance(second, dict) and ((isinstance(kind, str) and kind in ITEMS)
                                             or second.get("record_type") == "state")
    return False


def records(path: Path) -> Iterator[Record]:
    """One Record per non-blank line (seq = its line number)."""
    plan = scan(path)
    reasoning: list[dict] = []
    for line, rec, text, error, glued in lines(path):
        if rec is None:
            yield Record(line, error=error or "not a JSON object", text=text)
            continue
        try:
            yield _record(line, rec, glued, plan, reasoning)
        except WrongType as exc:   # a value of the wrong type: this record only is rejected
            yield rejected(line, exc, text)


def _record(line: int, rec: dict, glued: int, plan: Plan, reasoning: list[dict]) -> Record:
    """The Record of one line; ``reasoning`` gathers the reasoning items until the next
    response item, whose raw keeps them."""
    kind, payload = split(rec)
    if kind == "response_item" and payload.get("type") == "reasoning":
        reasoning.append(rec)
        return Record(line, skipped=SKIP_REASONING)
    event = _event(kind, payload, line, plan)
    if isinstance(event, str):
        return Record(line, skipped=event)
    added: dict = {}
    if reasoning and kind in ("response_item", "compacted"):
        added["reasoning"] = list(reasoning)
        reasoning.clear()
    if line in plan.usage:
        added["reported_usage"] = plan.usage[line]
    raw = {**rec, ADDED: added} if added else rec
    # A record glued onto another's line (a torn write) shares its seq, not its sub.
    event.update(session_id=plan.session_id, seq=line, ts=rec.get("timestamp"), raw=raw,
                 sub=glued or None)
    return Record(line, events=[{k: v for k, v in event.items() if v is not None}])




def _event(kind: str, p: dict, line: int, plan: Plan) -> dict | str:
    """The canonical fields of one record's event, or why the record gives none."""
    if kind == "session_meta":
        instructions = p.get("base_instructions", p.get("instructions"))
        if isinstance(instructions, dict):
            instructions = instructions.get("text")
        return {"kind": "SYSTEM", "synthetic": True, "text": _str(instructions)}
    if kind == "compacted":
        return {"kind": "SUMMARY", "synthetic": True, "text": _replacement_text(p)}
    if kind == "event_msg":
        return _event_msg(p, line, plan)
    if kind == "response_item":
        return _item(p, line, plan)
    if kind in ("turn_context", "state"):
        return {"turn_context": SKIP_CONFIG, "state": SKIP_STATE}[kind]
    if kind == "unknown" and isinstance(p.get("type"), str) and isinstance(p.get("payload"), dict):
        return {"kind": "OTHER", "note": f"unknown type: {reason_word(p['type'])}"}
    return SKIP_UNKNOWN


def _event_msg(p: dict, line: int, plan: Plan) -> dict | str:
    """A SYSTEM marker for an abort, a compaction notice or an error; else why it is skipped."""
    etype = opt_text(p.get("type"), "payload.type")
    if etype == "token_count":
        return plan.usage_fate.get(line, SKIP_USAGE_LOST)
    if etype in _MIRRORS:
        return SKIP_MIRROR
    if etype == "exec_command_end":   # carries the command's exit code (kept on its RESULT)
        code = p.get("exit_code")
        return {"kind": "OTHER", "note": "exec end",
                "text": f"exit code {code}" if isinstance(code, int) else None}
    if etype not in _MARKERS:
        return SKIP_PROGRESS
    detail = p.get("reason") if etype == "turn_aborted" else p.get("message")
    text = etype.replace("_", " ") + (f": {detail}" if isinstance(detail, str) and detail else "")
    return {"kind": "SYSTEM", "synthetic": True, "text": text}


def _item(p: dict, line: int, plan: Plan) -> dict | str:
    """The event of a ``response_item`` (reasoning is handled by the caller)."""
    itype = opt_text(p.get("type"), "payload.type")
    if itype == "ghost_snapshot":
        return SKIP_SNAPSHOT
    event: dict = {"event_id": _str(p.get("id"))}
    if itype == "message":
        role, text = p.get("role"), "\n".join(texts(p.get("content")))
        if role == "assistant":
            event.update(kind="ASSISTANT", text=text)
        elif role == "user":   # a prompt, or context the harness injected
            prompt = line in plan.prompts
            event.update(kind="USER" if prompt else "SYSTEM", text=text, synthetic=not prompt or None)
        else:
            event.update(kind="SYSTEM" if role in ("developer", "system") else "OTHER", text=text)
    elif itype in _CALLS:
        event.update(kind="CALL", call_id=_str(p.get("call_id")), tool=_str(p.get("name")),
                     text=_str(p.get(_CALLS[itype])))
    elif itype in ("local_shell_call", "web_search_call"):   # a web search has no id
        call_id = _str(p.get("call_id")) if itype == "local_shell_call" else None
        event.update(kind="CALL", call_id=call_id, tool=itype.removesuffix("_call"),
                     text=_json(p.get("action")))
    elif itype in _RESULTS:
        call_id = _str(p.get("call_id"))
        text, is_error = _output(p.get("output"))
        tool = plan.tools.get(call_id or "")
        if tool == POLL:   # a poll's exit code is its command's (unified exec)
            is_error = None
        elif tool == EXEC and call_id in plan.exit_codes:
            is_error = plan.exit_codes[call_id] != 0
        event.update(kind="RESULT", call_id=call_id, text=text, is_error=is_error)
    elif itype == "compaction":   # encrypted: no readable text
        event.update(kind="SUMMARY", synthetic=True)
    else:
        event.update(kind="OTHER", text=_json(p))
    return event


def _replacement_text(p: dict) -> str | None:
    """The summary message, then the messages of the replacement history, one per paragraph
    (``role: text``); encrypted items have no readable text."""
    parts = [p["message"]] if _str(p.get("message")) else []
    history = items(p.get("replacement_history") or None, "payload.replacement_history")
    for n, item in enumerate(history):
        if isinstance(item, dict) and item.get("type") == "message":
            content = texts(item.get("content"), f"payload.replacement_history[{n}].content")
            parts.append(f"{item.get('role')}: " + "\n".join(content))
    return "\n\n".join(parts) or None


def _output(out) -> tuple[str | None, bool | None]:
    """A tool output's text and error flag: an exit code says it (0.40 JSON metadata, or a
    ``Process exited with code N`` header); ``success`` where given; else unknown."""
    if isinstance(out, dict):
        success = out.get("success")
        return ("\n".join(texts(out.get("content"), "payload.output.content")) or None,
                (not success) if isinstance(success, bool) else None)
    if isinstance(out, list):
        return "\n".join(texts(out, "payload.output")), None
    if not isinstance(out, str):
        return _json(out), None
    code = None
    if out.startswith("{"):
        try:
            meta = json.loads(out).get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
        except (ValueError, AttributeError):
            pass
    else:
        code = header_exit(out)
    return out, (code != 0) if isinstance(code, int) and not isinstance(code, bool) else None


def _str(value) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def _json(value) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)
