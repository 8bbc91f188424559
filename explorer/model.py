"""The vocabulary of Turnscope: event kinds, canonical columns, ordering modes, settings."""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: The kinds of the canonical format (FORMAT.md), in the order of the DuckDB enum.
KINDS = ("SYSTEM", "USER", "ASSISTANT", "CALL", "RESULT", "SUMMARY", "OTHER")

#: Accepted spellings on input (case-insensitive) and the kind each stands for.
KIND_ALIASES = {k: k for k in KINDS} | {
    "TERM": "ASSISTANT",
    "FINAL": "ASSISTANT",
    "TOOL_CALL": "CALL",
    "TOOL_RESULT": "RESULT",
    "TOOL": "RESULT",
    "COMPACTION": "SUMMARY",
}

#: Canonical input columns and the type each is parsed as.
#: ``int``/``bool``/``ts`` are coerced from text; ``str`` is kept as text.
COLUMN_TYPES = {
    "session_id": "str",
    "seq": "int",
    "sub": "int",
    "ts": "ts",
    "kind": "str",
    "call_id": "str",
    "tool": "str",
    "text": "str",
    "chars": "int",
    "cjk": "bool",
    "tokens": "int",
    "user_id": "str",
    "turn": "int",
    "message_id": "str",
    "event_id": "str",
    "is_error": "bool",
    "synthetic": "bool",
    "branch": "str",
    "archived": "bool",
    "raw": "str",
}
CANONICAL_COLUMNS = tuple(COLUMN_TYPES)


class Order(str, enum.Enum):
    """The three ways of reading one log (FORMAT.md, "Ordering modes")."""

    SEQ = "seq"
    TS = "ts"
    TS_UNSTABLE = "ts-unstable"


# ORDER BY keys over the ``events`` table, one per mode. ``eid`` is the import
# position (file order, then row order). In ts-unstable order timestamp ties are
# taken in reverse append order, to show the worst case deterministically; events
# without ts come after all timestamped ones, by append order.
ORDER_KEYS = {
    Order.SEQ: "seq, sub, eid",
    Order.TS: "ts IS NULL, ts, seq, sub, eid",
    Order.TS_UNSTABLE: (
        "ts IS NULL, ts, CASE WHEN ts IS NULL THEN seq END, "
        "CASE WHEN ts IS NULL THEN sub END, CASE WHEN ts IS NULL THEN eid END, "
        "seq DESC, sub DESC, eid DESC"
    ),
}


@dataclass(frozen=True)
class CostSettings:
    """The two ratios of the token estimate (FORMAT.md, "Token estimate")."""

    cjk_ratio: float = 1.5
    other_ratio: float = 4.0

    def __post_init__(self) -> None:
        if not (self.cjk_ratio > 0 and self.other_ratio > 0):
            raise ValueError("token ratios must be positive")

    def params(self) -> dict[str, float]:
        return {"cjk_ratio": float(self.cjk_ratio), "other_ratio": float(self.other_ratio)}
