"""The JSON records of one line of a log: several when records were glued onto it, the
broken part (cut mid-record) with its error, and the nesting too deep to read
(explorer.formats.lines reads the lines; this splits and checks what is on one)."""

from __future__ import annotations

import json
import re
import threading
from typing import NamedTuple

from explorer.formats import fast_json, limits

#: The default deepest JSON nesting accepted (explorer.formats.limits, ``--max-json-depth``):
#: far above any real log, far below Python's recursion limit.
MAX_DEPTH = limits.DEFAULTS.max_json_depth

_state = threading.local()


class Repeated(dict):
    """A JSON object in which a key was written twice with two values (``key``). Python
    would keep the last silently: the readers reject the record holding one
    (explorer.formats.typed.obj), and :func:`split_values` a line holding one."""

    key: str


def _pairs(pairs: list) -> dict:
    """An object of the log; a :class:`Repeated` when a key is repeated with two values."""
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    for key, value in pairs:
        if out[key] != value:
            repeated = Repeated(out)
            repeated.key = key
            _state.repeated = getattr(_state, "repeated", None) or key
            return repeated
    return out


def repeated_error(key: str) -> str:
    """Why a record holding a repeated key is rejected."""
    return f"key {key[:80]!r} repeated with two values"


def loads(text: str | bytes):
    """``json.loads``, each object with a key repeated with two values a :class:`Repeated`."""
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=fast_json.note_constant)


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=fast_json.note_constant)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")
_SPACE = re.compile(r"\s*")
#: How many later record starts are tried in a line whose beginning is broken.
_TRIES = 200


class Value(NamedTuple):
    """One JSON record of a line (``text``/``value``), or its unreadable part (``error``),
    starting ``start`` bytes into the line."""

    start: int
    text: str
    value: object
    error: str | None


def depth_error(text: str) -> str | None:
    """Why a line's JSON cannot be read for its nesting, or None."""
    depth = limits.current().max_json_depth
    if text.count("{") + text.count("[") > depth and too_deep(text, depth):
        return f"JSON nested deeper than {depth} levels, the limit (--max-json-depth)"
    return None


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than ``limit``."""
    depth = 0
    for match in _BRACKETS.finditer(_STRING.sub("", text)):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    return False


def split_values(text: str) -> list[Value]:
    """The JSON records of one line: usually one; several when records were glued onto one
    line; a broken part (cut mid-record) as a Value with its error. ``start`` is in bytes.

    A complete object is a record whatever follows it; a broken part runs to where a later
    ``{`` starts a record that ends the line or is followed by another ``{``."""
    out: list[Value] = []
    pos = _SPACE.match(text, 0).end()
    while pos < len(text):
        try:
            _state.repeated = None
            value, end = _DECODER.raw_decode(text, pos)
            error = None
            if _state.repeated is not None:   # the whole record, rejected for its key
                out.append(Value(_bytes(text, pos), text[pos:end], None,
                                 repeated_error(_state.repeated)))
                pos = _SPACE.match(text, end).end()
                continue
        except ValueError as exc:
            value, end, error = None, None, exc
        except RecursionError:
            value, end, error = None, None, "JSON nested too deep for Python's parser"
        if end is not None and (isinstance(value, dict) or _SPACE.match(text, end).end() == len(text)):
            out.append(Value(_bytes(text, pos), text[pos:end], value, None))
            pos = _SPACE.match(text, end).end()
            continue
        nxt = _next_record(text, pos + 1)
        piece = text[pos:nxt].rstrip()
        if error is None:
            error = f"extra data after the JSON value at character {end - pos}"
        out.append(Value(_bytes(text, pos), piece, None, f"invalid JSON: {error}"[:200]))
        pos = nxt
    return out


def _next_record(text: str, start: int) -> int:
    """Where, after ``start``, a complete record begins that ends the line or is followed by
    another; ``len(text)`` when there is none."""
    at = start
    for _ in range(_TRIES):
        at = text.find("{", at)
        if at < 0:
            break
        try:
            _, end = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            at += 1
            continue
        after = _SPACE.match(text, end).end()
        if after == len(text) or text[after] == "{":
            return at
        at += 1
    return len(text)


def _bytes(text: str, chars: int) -> int:
    return chars if text.isascii() else len(text[:chars].encode("utf-8", "surrogateescape"))


#: A ``\uXXXX`` escape of a surrogate that has no partner (an odd run of backslashes before it).
_LONE_SURROGATE = re.compile(r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])"
                             r"|(?<![dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})")


def lone_surrogate_error(text: str) -> str | None:
    """Where ``text`` (JSON Python's decoder takes) escapes half a surrogate pair, which is
    no character and which DuckDB refuses as invalid JSON; None when it does not."""
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return None
    at = found.start(1)
    return (f"a lone surrogate {found.group(1)} (half of a UTF-16 pair, no character): "
            f"line 1 column {at + 1} (char {at})")
