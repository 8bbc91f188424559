"""Spring AI ``MessageWindowChatMemory`` of STRATEGIES.md: memory-window:N:1.x and
memory-window:N:2.0. SYSTEM events are kept and never evicted, but count toward N."""

from __future__ import annotations

import numpy as np

from explorer.compaction.corpus import Corpus
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies.decision import Argument, Decision, Family
from explorer.compaction.strategies.messages import at, bound, messages, pinned


def memory_window(c: Corpus, args: tuple, budget: int, settings: CompactionSettings) -> Decision:
    """Evict the oldest #SYSTEM + #messages - N non-SYSTEM messages; 2.0 then moves the cut
    to the first message at or after it holding a USER event (the view may be empty)."""
    ms, (size, variant) = messages(c), args
    count = ms.count
    total = ms.n_system + count
    nothing = total <= size
    evicted = ms.msg_off[:-1] + np.minimum(np.maximum(total - size, 0), count)
    raw = bound(c, ms, evicted)
    if variant == "1.x":
        return pinned(c, raw, raw, nothing)
    first_user = np.where(evicted < ms.msg_off[1:], at(ms.user_message, evicted), ms.msg_off[1:])
    cut = bound(c, ms, first_user)
    return pinned(c, cut, raw, nothing, cut > raw)


def _both_variants(args: tuple) -> tuple[tuple, ...]:
    """The comparison shows both variants, which STRATEGIES.md lists apart."""
    other = "1.x" if args[1] == "2.0" else "2.0"
    return args, (args[0], other)


VARIANTS = (("2.0", "2.0: start at a USER message"), ("1.x", "1.x: cut anywhere"))
FAMILIES = (
    Family("memory-window", "memory-window:N:variant", "Spring AI MessageWindowChatMemory: "
           "SYSTEM events and the newest messages, N in all.", memory_window,
           (Argument("N", "N messages", "SYSTEM events and messages kept, in all.", 20),
            Argument("variant", "Variant", "Where the cut may fall.", "2.0", choices=VARIANTS)),
           compared=_both_variants),
)
