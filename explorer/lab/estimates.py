"""``lab estimates`` (LAB.md): which conclusions depend on the token estimate.

One sweep (STRATEGIES.md) per cost estimate -- ``CJK:OTHER`` characters per token, or a
tokenizer's name -- and, per strategy and budget, every figure under each estimate, with
the figures that change among them named.
"""

from __future__ import annotations

from explorer.compaction.sweep import FIGURES, VECTORIZED, sweep
from explorer.model import TOKENIZERS, CostSettings, Order
from explorer.store.db import Db

DEFAULT_ESTIMATES = "1.5:4,2.5:4,o200k"
BUDGETS = (400, 1600, 4000, 8000)


def parse_estimates(text: str) -> list[tuple[str, CostSettings]]:
    """``1.5:4,2.5:4,o200k`` -> [(text, CostSettings)]."""
    out = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part in TOKENIZERS:
            out.append((part, CostSettings(tokenizer=part)))
            continue
        try:
            cjk, other = (float(v) for v in part.split(":"))
        except ValueError:
            raise ValueError(f"estimate {part!r}: use CJK:OTHER characters per token (1.5:4) "
                             f"or a tokenizer ({', '.join(TOKENIZERS)})") from None
        out.append((part, CostSettings(cjk, other)))
    if len(out) < 2:
        raise ValueError("give at least two estimates to compare")
    return out


def run(db: Db, estimates: list[tuple[str, CostSettings]], strategies=VECTORIZED,
        budgets=BUDGETS, order: Order = Order.SEQ, should_stop=None, progress=None) -> list[dict]:
    """One row per (strategy, budget): ``figures`` maps each figure to its value under each
    estimate (in the order given), ``changed`` lists the figures that differ."""
    sweeps = []
    for i, (_, costs) in enumerate(estimates):
        sweeps.append(sweep(db, strategies, budgets, order, costs, should_stop=should_stop))
        if progress:
            progress(i + 1, len(estimates))
    rows = []
    for at, first in enumerate(sweeps[0]):
        figures = {f: {name: s[at][f] for (name, _), s in zip(estimates, sweeps)}
                   for f in FIGURES}
        changed = [f for f, values in figures.items() if len(set(values.values())) > 1]
        rows.append({"strategy": first["strategy"], "budget": first["budget"],
                     "figures": figures, "changed": changed})
    return rows
