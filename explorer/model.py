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
    "parent_session": "str",
    "parent_call": "str",
    "note": "str",
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


#: The real tokenizers an estimate can use instead of the ratios (FORMAT.md: "a real
#: tokenizer, where one is installed, is another setting"): setting name -> BPE encoding.
TOKENIZERS = {"o200k": "o200k_base", "cl100k": "cl100k_base"}


@dataclass(frozen=True)
class CostSettings:
    """How an event without ``tokens`` is costed (FORMAT.md, "Token estimate"): the two
    ratios, or a real tokenizer (``tokenizer``, a key of :data:`TOKENIZERS`) counting the
    event's text, the ratios still costing events given as ``chars`` without text."""

    cjk_ratio: float = 1.5
    other_ratio: float = 4.0
    tokenizer: str | None = None

    def __post_init__(self) -> None:
        if not (self.cjk_ratio > 0 and self.other_ratio > 0):
            raise ValueError("token ratios must be positive")
        if self.tokenizer is not None and self.tokenizer not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {self.tokenizer!r}: use one of "
                             f"{', '.join(TOKENIZERS)}")

    def params(self) -> dict[str, float]:
        return {"cjk_ratio": float(self.cjk_ratio), "other_ratio": float(self.other_ratio)}

    def fragments(self) -> dict[str, str]:
        """The cost statements' BPE (the tokenizer's count, or NULL) and BPEJOIN (the join
        of the count table, filled by :func:`explorer.tokens.counts.ensure`) markers."""
        if self.tokenizer is None:
            return {"bpe": "NULL::BIGINT", "bpejoin": ""}
        return {"bpe": "bpe.bpe_tokens",
                "bpejoin": f"LEFT JOIN tokens_{self.tokenizer} bpe USING (eid)"}

    def describe(self) -> str:
        """How an estimate is made, in words (for the detail pane and reports)."""
        if self.tokenizer is None:
            return f"{self.cjk_ratio:g} CJK / {self.other_ratio:g} other characters per token"
        return f"the {TOKENIZERS[self.tokenizer]} tokenizer"
