"""orjson where it gives exactly what the json module gives, for the hot loops of the line
readers (a record per line parsed, an event per record written): the json module is the
reference, and its path is taken whenever orjson's could differ.

- Parsing: a line is taken from orjson only when it is one object that orjson writes back
  byte for byte. That proves it holds no key repeated (orjson keeps the last value silently;
  the readers reject such a record, explorer.formats.json_values), no NaN or Infinity, no
  integer past 64 bits, no escape the json module would read otherwise. Compact JSON as
  Claude Code and Codex write it round-trips; anything else takes the reference path.
- Writing: an event is written by orjson unless it holds what orjson writes otherwise than
  ``json.dumps(ensure_ascii=False, default=str)`` (a lone surrogate, a non-string key, an
  integer past 64 bits, an object json.dumps gives to ``str``: orjson refuses those), or a
  NaN or Infinity was parsed since the import started (orjson writes ``null`` for those:
  :func:`note_constant` counts them, and the reference writer is used from then on).

``REFERENCE`` turns the fast paths off (tests/test_fast_import.py compares the two).
"""

from __future__ import annotations

import json

import orjson

#: The deepest nesting orjson writes (one level more raises): a line :func:`compact_object`
#: gives a value for nests no deeper (tests/test_fast_import.py holds it to this).
ORJSON_DEPTH = 254
#: True: every caller takes the json module's path.
REFERENCE = False
#: How many NaN / Infinity literals the json module parsed (see :func:`note_constant`).
constants = 0


def note_constant(name: str) -> float:
    """The json module's ``parse_constant`` hook: counts a NaN / Infinity it reads."""
    global constants
    constants += 1
    return float(name)


def compact_object(data: bytes) -> dict | None:
    """The object a line's bytes hold when orjson writes it back exactly; else None (the
    caller parses the line the reference way, which says what is wrong with it)."""
    if REFERENCE:
        return None
    try:
        value = orjson.loads(data)
        if type(value) is dict and orjson.dumps(value) == data:
            return value
    except (orjson.JSONDecodeError, TypeError):   # TypeError: nested past orjson's limits
        pass
    return None


def loads(data: bytes):
    """``json.loads(data)``, by orjson when it gives the same (a repeated key keeps its
    last value, as json.loads does)."""
    value = compact_object(data)
    return value if value is not None else json.loads(data, parse_constant=note_constant)


#: Types orjson writes its own way (a datetime as ISO 8601, where ``str`` puts a space) are
#: handed to :func:`_refuse` instead.
_OWN = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _refuse(value):
    raise TypeError(type(value).__name__)


def dumps(value, since: int) -> bytes | None:
    """orjson's UTF-8 for ``value`` when it means the same JSON as ``json.dumps(value,
    ensure_ascii=False, default=str)`` (the same values, keys and order: DuckDB reads the
    text back); None when the caller must write it the reference way. ``since``: the
    :data:`constants` count when the caller started (a NaN parsed since: None)."""
    if REFERENCE or constants != since:
        return None
    try:
        return orjson.dumps(value, default=_refuse, option=_OWN)
    except orjson.JSONEncodeError:
        return None
