"""The registry of compaction strategies: every family of STRATEGIES.md, in display order.

Each family lives in its own module with its arguments, what it reads and its decision for
a whole corpus; a session's decision is that of a one-session corpus. The command line,
``Strategy.parse``, the strategy picker, the preview, its comparison table and the sweep
take their lists from :data:`FAMILIES`. A new family is its module plus one line here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from explorer.compaction.corpus import Corpus
from explorer.compaction.log import SessionLog
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import agentscope, memory_window, recorded, reference, spring
from explorer.compaction.strategies.decision import Argument, Decision, Family
from explorer.compaction.strategies.one_session import window_of
from explorer.compaction.window import Window

#: Every family, in the order the app offers them: M0-M4, recorded, the framework families.
FAMILIES: tuple[Family, ...] = (*reference.FAMILIES, *recorded.FAMILIES, *spring.FAMILIES,
                                *agentscope.FAMILIES, *memory_window.FAMILIES)
BY_NAME = {f.name: f for f in FAMILIES}


@dataclass(frozen=True)
class Strategy:
    """A strategy as written (``text``), its family's name and its arguments."""

    text: str
    family: str
    args: tuple
    spec: Family = field(compare=False, repr=False, default=None)

    @classmethod
    def parse(cls, text: str) -> "Strategy":
        """``M2``, ``spring-events:40``, ``agentscope:50:20``, ``memory-window:20:1.x`` ..."""
        name, *raw = text.strip().split(":")
        spec = BY_NAME.get(name)
        if spec is None:
            raise ValueError(f"unknown strategy {text!r}: use one of {', '.join(BY_NAME)}")
        if len(raw) != len(spec.arguments):
            raise ValueError(f"strategy {name} takes {len(spec.arguments)} argument(s), as in "
                             f"{spec.default}; got {text!r}")
        args = tuple(a.read(v, text, name) for a, v in zip(spec.arguments, raw))
        return cls(text.strip(), name, args, spec)

    def corpus_decision(self, c: Corpus, budget: int,
                        settings: CompactionSettings = CompactionSettings()) -> Decision:
        """The decision for every session of ``c`` at ``budget``."""
        return self.spec.decide(c, self.args, budget, settings)

    def decide(self, log: SessionLog, budget: int,
               settings: CompactionSettings = CompactionSettings()) -> Window:
        """The decision for one session at ``budget``."""
        return window_of(log, self.spec.decide, self.args, budget, settings)


def parse(text: str) -> Strategy:
    return Strategy.parse(text)


#: The starting value of each family with arguments in the app (the frameworks' defaults).
DEFAULTS = tuple(f.default for f in FAMILIES if f.arguments)


def texts(values: dict[str, tuple] | None = None) -> list[str]:
    """Every strategy the app offers, each family with ``values[name]`` as its arguments
    (its defaults when absent), some in more than one form (``Family.compared``)."""
    out = []
    for f in FAMILIES:
        args = (values or {}).get(f.name, tuple(a.default for a in f.arguments))
        out += [f.text(a) for a in f.compared(args)]
    return out


__all__ = ["Argument", "BY_NAME", "DEFAULTS", "Decision", "FAMILIES", "Family", "Strategy",
           "parse", "texts"]
