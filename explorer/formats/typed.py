"""Typed access to the JSON values of a log: what a reader reads, checked for its type.

A log written by another program (or damaged, or hostile) can hold any JSON value where a
reader expects an object, a list or a string. The readers read values through these
accessors, which say what they expected and where: a :class:`WrongType` names the JSON
path (``message.content[2].input: expected object, got string``). A reader catches it at
the one place where it maps a record and rejects that record with the message
(:func:`rejected`); the rest of the file goes on. An object with a key repeated with two
values (explorer.formats.json_values.Repeated) is refused the same way, naming the key.

Lone surrogates (``"\\ud800"``, valid JSON escapes that are no Unicode text) are made
visible rather than rejected: :func:`clean` writes each as the escape ``\\ud800`` (six
characters), so that a log is never refused for one and nothing reaches the staging that
UTF-8 cannot encode (explorer.ingest.staging calls it on the values it stages).
"""

from __future__ import annotations

import re

from explorer.formats.json_values import Repeated, repeated_error
from explorer.formats.record import Record

_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number",
          float: "number", type(None): "null"}


class WrongType(ValueError):
    """A value of the log is not of the type its reader needs; the message names its path."""


def kind(value) -> str:
    """The JSON name of a value's type (``object``, ``array``, ``string``...)."""
    return _NAMES.get(type(value), type(value).__name__)


def at(path: str, key) -> str:
    """The path of ``key`` (a name or an index) inside the value at ``path``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _wrong(path: str, expected: str, value) -> WrongType:
    return WrongType(f"{path or 'record'}: expected {expected}, got {kind(value)}")


def obj(value, path: str) -> dict:
    """``value`` when it is a JSON object (one without a key repeated with two values)."""
    if not isinstance(value, dict):
        raise _wrong(path, "object", value)
    if type(value) is Repeated:
        raise WrongType(f"{path or 'record'}: {repeated_error(value.key)}")
    return value


def opt_obj(value, path: str) -> dict:
    """``value`` when it is an object; ``{}`` when it is absent (None)."""
    return {} if value is None else obj(value, path)


def items(value, path: str) -> list:
    """``value`` when it is a JSON array; ``[]`` when it is absent (None)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise _wrong(path, "array", value)
    return value


def objects(value, path: str) -> list[dict]:
    """An array of objects (``[]`` when absent): every element checked."""
    return [obj(v, at(path, i)) for i, v in enumerate(items(value, path))]


def text(value, path: str) -> str:
    """``value`` when it is a string."""
    if not isinstance(value, str):
        raise _wrong(path, "string", value)
    return value


def opt_text(value, path: str) -> str | None:
    """``value`` when it is a string, None when absent (None)."""
    return None if value is None else text(value, path)


def scalar(value, path: str) -> str | int | float | None:
    """A string or a number (an id or a count some logs write either way); None when absent."""
    if value is None or (isinstance(value, (str, int, float)) and not isinstance(value, bool)):
        return value
    raise _wrong(path, "string or number", value)


def rejected(line: int, exc: WrongType, text: str | None = None) -> Record:
    """The Record of a record rejected for a value of the wrong type."""
    return Record(line, error=str(exc)[:300], text=text)


def clean(value: str | None, json_text: bool = False) -> str | None:
    """``value`` with each lone surrogate written as its visible escape (``\\ud800``).

    ``json_text``: ``value`` is JSON text (where a surrogate can only be inside a string),
    so the backslash is itself escaped: the string then reads ``\\ud800`` once parsed."""
    if value is None or value.isascii() or not _SURROGATE.search(value):
        return value
    slash = "\\\\" if json_text else "\\"
    return _SURROGATE.sub(lambda m: f"{slash}u{ord(m.group()):04x}", value)



def whole(value, path: str = ""):
    """``value`` when no object inside it has a key repeated with two values (a document's
    record, parsed by explorer.formats.json_values.loads); else WrongType naming the first.
    The walk builds no path unless one is found (it costs a fraction of the parse)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if type(node) is Repeated:
            _find(value, path)
        if isinstance(node, dict):
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return value


def _find(node, path: str) -> None:
    """Raise WrongType at the first repeated key under ``node``."""
    if isinstance(node, dict):
        obj(node, path)
        for key, child in node.items():
            _find(child, at(path, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            _find(child, at(path, index))
