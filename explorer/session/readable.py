"""How an event reads in the window: a tree row's label in words, and a text (tool arguments,
tool output, a raw record) laid out for reading: JSON indented, escaped newlines as line
breaks, terminal colour codes taken out.

Still plain text: the callers make control and bidi characters visible
(:mod:`explorer.text_escape`) after this; nothing here is read as markup.
"""

from __future__ import annotations

import json
import re

#: ANSI escape sequences (CSI such as colours and cursor moves, OSC such as titles, and
#: two-character ESC sequences): a terminal's drawing, not the output's text.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: The longest text laid out as JSON (a bigger one is shown as it is: parsing and indenting
#: megabytes on the GUI thread would stall the window).
PRETTY_MAX = 2_000_000
_INDENT = "  "


def strip_ansi(text: str) -> str:
    """``text`` without its ANSI escape sequences."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def parsed_json(text: str | None):
    """The JSON object or array ``text`` holds, else None (a scalar, or not JSON)."""
    if not text or len(text) > PRETTY_MAX or text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def pretty(text: str | None, ansi: bool = False) -> str:
    """``text`` for reading: a JSON object or array indented, one member a line, a string
    holding line breaks written over several lines (each marked ``|``); any other text as it
    is. ANSI codes are stripped either way, unless ``ansi`` (a raw record: kept, for the
    caller to show escaped)."""
    if text is None:
        return ""
    value = parsed_json(text)
    keep = (lambda t: t) if ansi else strip_ansi
    if value is None:
        return keep(text)
    return "\n".join(_lines(value, 0, "", keep))


def _lines(value, depth: int, head: str = "", keep=strip_ansi) -> list[str]:
    """The lines of one JSON value at ``depth``, the first starting with ``head``."""
    pad = _INDENT * depth
    if isinstance(value, dict) and value:
        out = [f"{pad}{head}{{"]
        for i, (key, item) in enumerate(value.items()):
            comma = "," if i < len(value) - 1 else ""
            out += _member(item, depth + 1, json.dumps(key, ensure_ascii=False) + ": ", comma,
                           keep)
        return [*out, f"{pad}}}"]
    if isinstance(value, list) and value:
        out = [f"{pad}{head}["]
        for i, item in enumerate(value):
            out += _member(item, depth + 1, "", "," if i < len(value) - 1 else "", keep)
        return [*out, f"{pad}]"]
    if isinstance(value, str) and "\n" in value:
        lines = keep(value).split("\n")
        return [f"{pad}{head}", *(f"{pad}{_INDENT}| {line}" for line in lines)]
    text = json.dumps(keep(value) if isinstance(value, str) else value, ensure_ascii=False)
    return [f"{pad}{head}{text}"]


def _member(value, depth: int, head: str, comma: str, keep) -> list[str]:
    lines = _lines(value, depth, head, keep)
    if comma:
        lines[-1] += comma
    return lines


def one_line(text: str | None) -> str:
    """``text`` on one line for a preview: a JSON object's members as ``key: value``
    separated by `` · `` (strings unquoted), other text with its whitespace runs made one
    space; ANSI codes stripped. Not cut: the caller cuts."""
    if not text:
        return ""
    value = parsed_json(text[:PRETTY_MAX + 1])
    if isinstance(value, dict):
        return " · ".join(f"{k}: {_flat(v)}" for k, v in value.items())
    if isinstance(value, list):
        return " · ".join(_flat(v) for v in value)
    return " ".join(strip_ansi(text).split())


def _flat(value) -> str:
    if isinstance(value, str):
        return " ".join(strip_ansi(value).split())
    return " ".join(json.dumps(value, ensure_ascii=False).split())


#: What a SUMMARY and an OTHER row say of themselves in the tree, by note (FORMAT.md) or kind.
SUMMARY_LABEL = "SUMMARY (compaction summary)"
ERROR_MARK = "✗ error"


def event_label(kind: str, tool: str | None, note: str | None, is_error: bool | None,
                preview: str) -> str:
    """A tree row's words: ``CALL Bash — command: ls`` (the tool and the start of its
    arguments), ``RESULT ✗ error — No such file`` (the start of the output and the error
    mark), ``OTHER (thinking) — …`` (an event's note, FORMAT.md), ``SUMMARY (compaction summary)``.
    ``tool`` and ``note`` are log text: the caller makes them visible first."""
    head = kind
    if kind == "SUMMARY":
        head = SUMMARY_LABEL
    elif note:
        head = f"{kind} ({note})"
    if kind in ("CALL", "RESULT") and tool:
        head += f" {tool}"
    if kind == "RESULT" and is_error:
        head += f" {ERROR_MARK}"
    return f"{head} — {preview}" if preview else head
