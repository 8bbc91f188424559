"""What reading one input file may cost (issue 14): bytes decompressed, the decompression
ratio, the longest line or archive entry, YAML alias expansion and JSON nesting.

Past a limit the line (record) or the rest of the file is rejected with a reason naming the
limit and its flag, never a MemoryError or a run of minutes; what was read before is kept.

The readers read :func:`current` (one module-level setting for the process): the command
line sets it from its flags before importing (:func:`configure`), the window from its saved
"Import limits…" setting. A module setting rather than an argument threaded through every
reader, the registry and the import, because the limits are the same for every file of a run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

MiB = 1024 * 1024
GiB = 1024 * MiB


@dataclass(frozen=True)
class Limits:
    """The limits of one run; each field has the flag of the same name (``--max-line-bytes``)."""

    #: Bytes a compressed file (gzip, an .eval zip) may expand to, in all.
    max_decompressed_bytes: int = 16 * GiB
    #: Decompressed bytes per compressed byte, checked once past ``ratio_floor_bytes``.
    max_ratio: int = 200
    #: Decompressed bytes below which the ratio is not checked (small, repetitive files).
    ratio_floor_bytes: int = 64 * MiB
    #: The longest line of a JSON Lines file, .eval entry or recorded HTTP body.
    max_line_bytes: int = 256 * MiB
    #: Nodes that YAML aliases may repeat in one cassette (a billion-laughs file: 10⁹).
    max_yaml_alias_nodes: int = 1_000_000
    #: The deepest JSON nesting read (Python's json would hit its recursion limit far below).
    max_json_depth: int = 512


#: What each limit is, for the flags' help, the window's dialog and the README.
DESCRIPTIONS = {
    "max_decompressed_bytes": "bytes a compressed file may expand to",
    "max_ratio": "decompressed bytes per compressed byte (past the floor)",
    "ratio_floor_bytes": "decompressed bytes before the ratio is checked",
    "max_line_bytes": "the longest line, .eval entry or recorded body",
    "max_yaml_alias_nodes": "nodes YAML aliases may repeat in one cassette",
    "max_json_depth": "the deepest JSON nesting read",
}

DEFAULTS = Limits()
_current = DEFAULTS
#: The limits given on the command line: they win over the window's saved setting.
_flags: dict[str, int] = {}


def current() -> Limits:
    """The limits the readers apply now."""
    return _current


def configure(base: Limits, flags: dict[str, int] | None = None) -> None:
    """Set the limits for every later read: ``base`` (the defaults, the window's saved
    setting) with the command line's ``flags`` on top (kept from an earlier call if None)."""
    global _current, _flags
    if flags is not None:
        _flags = dict(flags)
    _current = dataclasses.replace(base, **_flags)


def names() -> list[str]:
    return [f.name for f in dataclasses.fields(Limits)]


def flag(name: str) -> str:
    """The command-line flag of a limit: ``max_line_bytes`` → ``--max-line-bytes``."""
    return "--" + name.replace("_", "-")


_UNITS = {"": 1, "K": 1024, "KIB": 1024, "M": MiB, "MIB": MiB, "G": GiB, "GIB": GiB}


def parse(text: str) -> int:
    """A limit as typed: a positive whole number, a byte count with a binary unit
    (``256M``, ``256MiB``, ``16G``) allowed; ValueError saying what is wrong."""
    raw = text.strip().replace("_", "").replace(",", "")
    digits = raw.rstrip("KkMmGgIiBb ")
    unit = raw[len(digits):].strip().upper()
    if not digits.isdigit() or unit not in _UNITS or int(digits) <= 0:
        raise ValueError(f"not a positive number (a byte count may end in K, M or G): {text!r}")
    return int(digits) * _UNITS[unit]


def shown(name: str, value: int | None = None) -> str:
    """A limit's value as the reasons, help and dialog show it (its current one by default)."""
    value = getattr(_current, name) if value is None else value
    if name == "max_ratio":
        return f"{value}x"
    return size(value) if name.endswith("bytes") else f"{value:,}"


def size(n: int) -> str:
    """A byte count as the reasons say it: ``256 MiB``, ``16 GiB``, else bytes."""
    for unit, name in ((GiB, "GiB"), (MiB, "MiB"), (1024, "KiB")):
        if n >= unit and n % unit == 0:
            return f"{n // unit} {name}"
    return f"{n} bytes"


def past(name: str, what: str) -> str:
    """The reason for input past a limit: ``line longer than the 256 MiB limit
    (--max-line-bytes)``; ``what`` says what went past, up to "than"."""
    return f"{what} the {shown(name)} limit ({flag(name)})"


def from_values(values: dict) -> Limits:
    """Limits from ``{name: value}``, each a positive integer; others keep their default
    (a saved setting from another version, a value out of range)."""
    kept = {k: int(v) for k, v in values.items()
            if k in names() and isinstance(v, int) and not isinstance(v, bool) and v > 0}
    return dataclasses.replace(DEFAULTS, **kept)
