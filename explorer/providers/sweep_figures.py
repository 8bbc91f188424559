"""The sweep's provider figures (PROVIDERS.md, "Where the rules are used"):
``rejected_<provider>``, the number of windows a provider rejects, checked over every
session's view of a corpus decision at once.

A view that is the suffix of its session from the cut (M0, M1, M3, M4, and M2 where it adds
no placeholder) depends on the cut alone: its verdict is kept on the corpus by cut position,
so that the views other strategies and budgets share are checked once.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from explorer.providers import check
from explorer.providers.request import from_decision
from explorer.providers.rules import PROVIDERS


def figure_name(provider: str) -> str:
    """``rejected_openai_chat`` for ``openai-chat``."""
    return "rejected_" + provider.replace("-", "_")


def figure_names(providers) -> tuple[str, ...]:
    """The figures of ``providers``, in PROVIDERS.md's order."""
    return tuple(figure_name(p) for p in PROVIDERS if p in providers)


def rejected_figures(providers) -> Callable:
    """``(corpus, decision) -> {rejected_<provider>: windows rejected}``, for the sweep."""
    asked = tuple(p for p in PROVIDERS if p in providers)

    def figures(corpus, decision) -> dict:
        rejected = rejected_views(corpus, decision, asked)
        return {figure_name(p): int(rejected[p].sum()) for p in asked}
    return figures


def rejected_views(c, d, providers=PROVIDERS) -> dict[str, np.ndarray]:
    """Per provider, per session: the provider rejects the session's view under ``d``."""
    sessions = len(c.start)
    if not d.suffix_only:
        req = from_decision(c, d)
        return {p: f.rejected(sessions) for p, f in check(req, providers).items()}
    # per corpus position, as a view's cut: which providers' verdicts are known (bit i for
    # the i-th of PROVIDERS) and which of those reject (bit 8 + i); one array for the five
    memo = c.__dict__.get("_provider_verdicts")
    if memo is None:
        memo = c.__dict__["_provider_verdicts"] = np.zeros(len(c.kind) + 1, dtype=np.uint16)
    placeholders = d.placeholders(c) if d.placeholder_end is not None else 0
    by_cut = np.asarray(placeholders) == 0
    cut = np.asarray(d.cut, dtype=np.int64)
    # the cut at a session's end is the next session's start: an empty view, accepted
    empty = cut >= c.ends
    by_cut = by_cut & ~empty
    bits = [PROVIDERS.index(p) for p in providers]
    known = int(sum(1 << b for b in bits))
    held = memo[cut]
    todo = ~(by_cut & (held & known == known)) & ~empty
    out = {}
    if todo.any():
        req = from_decision(c, d, todo)
        fresh = {p: f.rejected(sessions) for p, f in check(req, providers).items()}
        store = todo & by_cut
        mark = np.full(int(store.sum()), known, dtype=np.uint16)
        for p, b in zip(providers, bits):
            mark |= fresh[p][store].astype(np.uint16) << (8 + b)
        stored = cut[store]
        memo[stored] = (memo[stored] & ~np.uint16(known | known << 8)) | mark
    for p, b in zip(providers, bits):
        result = (held >> (8 + b) & 1).astype(bool) & ~empty
        if todo.any():
            result[todo] = fresh[p][todo]
        out[p] = result
    return out
