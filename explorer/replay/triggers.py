"""The triggers of REPLAY.md, parsed from their text and evaluated on a memory.

A trigger reads what a memory holds as four numbers (:class:`Reading`): its cost, its
turn-opening USER events (neither synthetic nor on a branch), its messages other than
SYSTEM and OTHER items, nothing else. ``A|B`` fires when either part does.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reading:
    """What a trigger reads of a memory."""

    cost: int
    turns: int
    messages: int


@dataclass(frozen=True)
class Trigger:
    """One trigger as written (``turns:20``, ``tokens:8000|turns:40``), and its parts."""

    text: str
    parts: tuple[tuple[str, float, int], ...]  # (name, value, window) per alternative

    @classmethod
    def parse(cls, text: str) -> Trigger:
        text = text.strip()
        if not text:
            raise ValueError("a trigger is always, turns:N, tokens:T, messages:N, "
                             "fraction:F:W or A|B")
        return cls(text, tuple(_part(p.strip(), text) for p in text.split("|")))

    def fires(self, r: Reading) -> bool:
        return any(_fires(part, r) for part in self.parts)

    @property
    def always(self) -> bool:
        return any(name == "always" for name, _, _ in self.parts)

    def threshold(self) -> tuple[str, float] | None:
        """The line a plot of the memory draws: ("cost", T) for a token trigger (the lowest
        when several), ("turns", N) for a turn trigger alone, else None."""
        costs = [v * w if name == "fraction" else v for name, v, w in self.parts
                 if name in ("tokens", "fraction")]
        if costs:
            return "cost", min(costs)
        turns = [v for name, v, _ in self.parts if name == "turns"]
        return ("turns", min(turns)) if turns else None


def _part(part: str, text: str) -> tuple[str, float, int]:
    name, *args = part.split(":")
    try:
        if name == "always" and not args:
            return name, 0, 0
        if name in ("turns", "tokens", "messages") and len(args) == 1:
            value = int(args[0])
            if value < (0 if name == "turns" else 1):
                raise ValueError
            return name, value, 0
        if name == "fraction" and len(args) == 2:
            f, w = float(args[0]), int(args[1])
            if not 0 < f <= 1 or w < 1:
                raise ValueError
            return name, f, w
    except ValueError:
        raise ValueError(f"trigger {text!r}: bad value in {part!r} (turns:N with N >= 0, "
                         f"tokens:T and messages:N >= 1, fraction:F:W with F in (0, 1], "
                         f"W >= 1)") from None
    raise ValueError(f"unknown trigger {part!r} in {text!r}: use always, turns:N, tokens:T, "
                     f"messages:N, fraction:F:W, or A|B")


def _fires(part: tuple[str, float, int], r: Reading) -> bool:
    name, value, window = part
    if name == "always":
        return True
    if name == "turns":
        return r.turns > value
    if name == "tokens":
        return r.cost >= value
    if name == "messages":
        return r.messages >= value
    return r.cost >= value * window
