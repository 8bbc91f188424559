"""What a strategy decides, typed: the parameters of a family (:class:`Argument`,
:class:`Family`) and its decision for every session of a corpus (:class:`Decision`).

A decision is arrays by session of global positions (see :mod:`explorer.compaction.corpus`);
one session's :class:`~explorer.compaction.window.Window` is read off the decision for a
one-session corpus (:mod:`explorer.compaction.strategies.one_session`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import CALL, SYSTEM
from explorer.compaction.positions import in_spans
from explorer.compaction.settings import CompactionSettings


@dataclass
class Decision:
    """One strategy's decision for every session of a corpus at one budget."""

    cut: np.ndarray                        # S: first event of the kept suffix (session end: none)
    raw: np.ndarray                        # S: the cut before alignment (partial_dropped)
    partial: np.ndarray                    # S: a partial turn was dropped
    pinned: bool = False                   # SYSTEM events before the cut stay in view
    front: tuple[tuple[str, int], ...] = ()  # synthetic (kind, cost) after the pinned SYSTEM
    fronted: np.ndarray | None = None      # S: the sessions whose view gets ``front``
    preamble_end: np.ndarray | None = None  # S: events before this stay (a kept preamble)
    mask: np.ndarray | None = None         # N: explicit membership (archived events)
    fallback: np.ndarray | None = None     # S: M4 fell back to M0's cut
    heads: np.ndarray | None = None        # S: M2's RESULT heads dropped
    placeholder_end: np.ndarray | None = None  # S: M2: open CALLs in [cut, this) get placeholders

    @property
    def suffix_only(self) -> bool:
        """Every view is the suffix from the cut and its placeholders: prefix sums suffice."""
        return not self.pinned and self.mask is None and self.preamble_end is None \
            and self.fronted is None

    def front_cost(self) -> np.ndarray:
        """Per session, the cost of the synthetic front items."""
        total = sum(c for _, c in self.front)
        if self.fronted is None:
            return np.zeros(len(self.cut), dtype=np.int64)
        return np.where(self.fronted, total, 0).astype(np.int64)

    def placeholders(self, c: Corpus) -> np.ndarray:
        """Per session, the number of placeholder RESULTs (open CALLs of M2's first turn)."""
        if self.placeholder_end is None:
            return np.zeros(len(self.cut), dtype=np.int64)
        return (c.dangling_prefix[self.placeholder_end] - c.dangling_prefix[self.cut]).astype(np.int64)

    def placeheld(self, c: Corpus) -> np.ndarray:
        """N: the CALLs followed by a placeholder RESULT: those with an id and no RESULT of
        it later in the log, in [cut, placeholder_end) of their session."""
        if self.placeholder_end is None:
            return np.zeros(len(c.kind), dtype=bool)
        open_call = (c.kind == CALL) & c.has_id & (c.next_result < 0)
        return open_call & in_spans(len(c.kind), self.cut, self.placeholder_end)

    def repaired(self, c: Corpus) -> np.ndarray:
        """Per session, M2's heads dropped plus placeholders added."""
        heads = self.heads if self.heads is not None else 0
        return heads + self.placeholders(c)

    def in_view(self, c: Corpus) -> np.ndarray:
        """N: which events the views hold."""
        if self.mask is not None:
            return self.mask
        keep = in_spans(len(c.kind), self.cut, c.ends)
        if self.pinned:
            keep |= c.kind == SYSTEM
        if self.preamble_end is not None:
            keep |= in_spans(len(c.kind), c.start, self.preamble_end)
        return keep


@dataclass(frozen=True)
class Argument:
    """One argument of a strategy text (``spring-events:N``): what the app shows of it, its
    default (the framework's own) and what it accepts -- an integer from ``low`` (up to
    ``high`` when given), or one of ``choices`` (value, text)."""

    name: str
    label: str
    tooltip: str
    default: int | str
    low: int = 1
    high: int | None = None
    choices: tuple[tuple[str, str], ...] = ()

    def read(self, value: str, text: str, family: str) -> int | str:
        """The argument ``value`` of the strategy ``text`` (ValueError when it is not one)."""
        if self.choices:
            allowed = [v for v, _ in self.choices]
            if value not in allowed:
                raise ValueError(f"{family}'s {self.name} is {' or '.join(sorted(allowed))}, "
                                 f"got {value!r}")
            return value
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{text!r}: {value!r} is not an integer") from None
        if number < self.low:
            raise ValueError(f"{text!r}: arguments are >= {self.low}")
        if self.high is not None and number > self.high:
            raise ValueError(f"{text!r}: arguments are <= {self.high}")
        return number


#: The corpus decision of a family: (corpus, its arguments, budget, settings) -> Decision.
Decide = Callable[[Corpus, tuple, int, CompactionSettings], Decision]


@dataclass(frozen=True)
class Family:
    """A family of strategies as the registry holds it: its name on the command line, its
    name and tooltip in the app, its arguments, whether the budget moves its cut, the
    settings it reads, and its corpus decision."""

    name: str
    label: str
    tooltip: str
    decide: Decide
    arguments: tuple[Argument, ...] = ()
    uses_budget: bool = False
    reads: tuple[str, ...] = ()          # CompactionSettings fields that change its view
    compared: Callable[[tuple], tuple[tuple, ...]] = field(default=lambda args: (args,))

    def text(self, args: tuple) -> str:
        """The strategy text of these arguments, e.g. ``agentscope:50:20``."""
        return ":".join([self.name, *map(str, args)])

    @property
    def default(self) -> str:
        """The family with its default arguments (STRATEGIES.md's starting values)."""
        return self.text(tuple(a.default for a in self.arguments))
