"""The settings every strategy reads (strategy names: :mod:`explorer.compaction.strategies`)."""

from __future__ import annotations

from dataclasses import dataclass

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
