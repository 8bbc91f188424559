"""Turnscope's extension fields: the canonical fields of an event that an interchange format
(ATIF, OpenTelemetry GenAI) has no place for, carried in that format's own extension slot
(an ATIF ``extra``, a property of an OTel message part) under the key ``turnscope``.

An export writes them (explorer.export) and the readers of those formats read them back, so
that export then import keeps every count of AUDITS.md: the order, the times, the ids, the
owner (``user_id``) and the logged ``turn``. A file without them is read by the format's
own fields alone (docs/FORMATS.md).
"""

from __future__ import annotations

KEY = "turnscope"

#: The canonical fields an extension object may carry (FORMAT.md names).
FIELDS = ("kind", "ts", "call_id", "tool", "text", "chars", "cjk", "tokens", "user_id",
          "turn", "message_id", "event_id", "is_error", "synthetic", "branch", "archived",
          "parent_session", "parent_call", "note")
_TYPES = {"kind": str, "ts": int, "call_id": str, "tool": str, "text": str, "chars": int,
          "cjk": bool, "tokens": int, "user_id": str, "turn": int, "message_id": str,
          "event_id": str, "is_error": bool, "synthetic": bool, "branch": str,
          "archived": bool, "parent_session": str, "parent_call": str,
          "note": str}


def extension_of(event: dict, *, fields=FIELDS) -> dict:
    """The extension object of an exported event: its ``fields`` that have a value; ``ts``
    is written even when absent (null), so that a reader does not take the span's time."""
    out = {k: event[k] for k in fields if event.get(k) is not None}
    if "ts" in fields:
        out["ts"] = event.get("ts")
    return out


def read_extension(holder) -> dict | None:
    """The extension object a value of the log holds under ``turnscope`` (only the fields
    of :data:`FIELDS` of the right type, null kept as null), or None when it holds none."""
    ext = holder.get(KEY) if isinstance(holder, dict) else None
    if not isinstance(ext, dict):
        return None
    out = {}
    for name, typ in _TYPES.items():
        if name not in ext:
            continue
        value = ext[name]
        if value is None or (isinstance(value, typ) and (typ is bool or not isinstance(value, bool))):
            out[name] = value
    return out


def apply_extension(event: dict, ext: dict | None) -> dict:
    """``event`` with the fields of its extension object put over the format's own."""
    if ext:
        event.update(ext)   # a null stays: the event has no value there (no span time)
    return event
