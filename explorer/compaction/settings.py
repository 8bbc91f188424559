"""Strategy names as written on the command line, and the settings every strategy reads."""

from __future__ import annotations

from dataclasses import dataclass

#: Strategy families and how many integer arguments each takes (memory-window: N, variant).
FAMILIES = {
    "M0": 0, "M1": 0, "M2": 0, "M3": 0, "M4": 0, "recorded": 0,
    "spring-turns": 1, "spring-events": 1, "spring-tokens": 0, "spring-summary": 1,
    "agentscope": 2, "agentscope-tokens": 1, "memory-window": 2,
}
#: The starting value of each framework strategy in the app (the frameworks' defaults).
DEFAULTS = ("spring-turns:10", "spring-events:20", "spring-summary:10", "agentscope:50:20",
            "agentscope-tokens:50", "memory-window:20:2.0")


@dataclass(frozen=True)
class Strategy:
    """A strategy as written (``text``), its family and its arguments."""

    text: str
    family: str
    args: tuple

    @classmethod
    def parse(cls, text: str) -> "Strategy":
        """``M2``, ``spring-events:40``, ``agentscope:50:20``, ``memory-window:20:1.x`` ..."""
        family, *raw = text.strip().split(":")
        if family not in FAMILIES:
            raise ValueError(f"unknown strategy {text!r}: use one of {', '.join(FAMILIES)}")
        if len(raw) != FAMILIES[family]:
            raise ValueError(f"strategy {family} takes {FAMILIES[family]} argument(s), as in "
                             f"{_example(family)}; got {text!r}")
        args: list = []
        for i, value in enumerate(raw):
            if family == "memory-window" and i == 1:
                if value not in ("1.x", "2.0"):
                    raise ValueError(f"memory-window's variant is 1.x or 2.0, got {value!r}")
                args.append(value)
                continue
            try:
                number = int(value)
            except ValueError:
                raise ValueError(f"{text!r}: {value!r} is not an integer") from None
            if number < 1:
                raise ValueError(f"{text!r}: arguments are >= 1")
            args.append(number)
        return cls(text.strip(), family, tuple(args))


def _example(family: str) -> str:
    return next((d for d in DEFAULTS if d.startswith(family + ":")), family)


#: AgentScope's defaults: tools whose results are never evicted / never pruned.
EVICT_EXCLUDED = ("read_file", "write_file", "edit_file", "grep_files", "glob_files",
                  "list_files", "memory_search", "memory_get", "session_search")
PRUNE_EXCLUDED = ("read_file", "memory_search", "memory_get", "session_search")


@dataclass(frozen=True)
class CompactionSettings:
    """Every setting of STRATEGIES.md other than N, T, K (which the strategy text holds),
    with the frameworks' defaults. The two transforms are off unless switched on."""

    placeholder_cost: int = 8
    summary_cost: int = 300
    keep_latest_turn: bool = True
    evict: bool = False
    evict_chars: int = 80_000        # a RESULT over this many characters is evicted
    evict_keep: int = 2_000          # ... keeping its first and last min(this, len/2)
    evict_excluded: tuple[str, ...] = EVICT_EXCLUDED
    prune: bool = False
    prune_protect: int = 40_000      # tokens of the newest RESULTs never pruned
    prune_minimum: int = 20_000      # prune only when the candidates total this many tokens
    prune_chars: int = 2_000         # a RESULT over this many characters can be pruned
    prune_keep: int = 1_000          # ... to its first and last min(this, len/2)
    prune_excluded: tuple[str, ...] = PRUNE_EXCLUDED

    def transform_params(self) -> dict:
        """The named parameters of queries/transform_costs.sql for these settings."""
        return {"evict_chars": self.evict_chars, "evict_keep": self.evict_keep,
                "evict_excluded": list(self.evict_excluded), "prune_chars": self.prune_chars,
                "prune_keep": self.prune_keep, "prune_excluded": list(self.prune_excluded),
                "notice_chars": len(EVICTION_NOTICE)}


#: The notice an evicted tool result is replaced by (around its first and last characters).
EVICTION_NOTICE = "\n[... tool result evicted: the middle of this output was removed ...]\n"
