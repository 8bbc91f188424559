"""The strategy registry, and its decisions against the per-session oracle.

Each family decides for a whole corpus (explorer/compaction/strategies); one session's
Window is that decision on a one-session corpus. tests/strategy_oracle.py decides the same
one session at a time in plain per-session code; the two must agree on every field.
"""

from __future__ import annotations

import numpy as np
import pytest

from explorer.cli.demo import demo_paths
from explorer.compaction import CompactionSettings, Strategy, window
from explorer.compaction.strategies import DEFAULTS, FAMILIES, texts
from explorer.model import Order
from explorer.session.data import load_session
from explorer.store.db import Store
from tests import strategy_oracle
from tests.helpers import jsonl, load

TEXTS = (*texts(), "spring-turns:1", "spring-events:3", "spring-summary:2", "agentscope:3:2",
         "agentscope:1:50", "agentscope-tokens:2", "memory-window:3:1.x", "memory-window:2:2.0")
BUDGETS = (1, 40, 400, 4000, 100_000)
SETTINGS = (CompactionSettings(), CompactionSettings(keep_latest_turn=False, summary_cost=7))


def _random_rows(rng) -> list[dict]:
    """Small random sessions with SYSTEM events, message ids and call ids (the demo has
    no SYSTEM event)."""
    rows = []
    for s in range(30):
        for seq in range(1, int(rng.integers(1, 25))):
            kind = str(rng.choice(["SYSTEM", "USER", "ASSISTANT", "CALL", "RESULT", "SUMMARY"],
                                  p=[0.1, 0.2, 0.2, 0.2, 0.25, 0.05]))
            row = {"session_id": f"r{s}", "seq": seq, "kind": kind,
                   "tokens": int(rng.integers(0, 60))}
            if kind in ("CALL", "RESULT") and rng.random() < 0.9:
                row["call_id"] = f"c{rng.integers(0, 4)}"
            if rng.random() < 0.4:
                row["message_id"] = f"m{rng.integers(0, 3)}"
            rows.append(row)
    return rows


@pytest.fixture(scope="module")
def demo_logs(tmp_path_factory):
    """Every third demo session and random small sessions, in two orders."""
    path = tmp_path_factory.mktemp("random") / "random.jsonl"
    jsonl(path, _random_rows(np.random.default_rng(3)))
    store = Store()
    load(store, *demo_paths(), path)
    names = [r[0] for r in store.run("session_names")]
    picked = [n for n in names if n.startswith("r")] + [n for n in names if not n.startswith("r")][::3]
    logs = [load_session(store, name, order).log for name in picked
            for order in (Order.SEQ, Order.TS_UNSTABLE)]
    store.close()
    return logs


def _fields(w) -> tuple:
    mask = None if w.mask is None else w.mask.tolist()
    return (w.cut, w.raw_cut, w.pinned, mask, tuple(w.placeholders), w.front, w.fallback,
            w.partial_dropped, w.repaired)


def test_every_decision_equals_the_per_session_oracle(demo_logs):
    compared = 0
    for log in demo_logs:
        for text in TEXTS:
            strategy = Strategy.parse(text)
            for settings in SETTINGS:
                for budget in BUDGETS:
                    ours = window(log, strategy, budget, settings)
                    theirs = strategy_oracle.window(log, strategy, budget, settings)
                    if text == "recorded":  # the oracle leaves the raw cut unset there
                        theirs.raw_cut = theirs.cut
                        if theirs.mask is None:
                            assert ours.mask is None
                    assert _fields(ours) == _fields(theirs), (log.session_id, text, budget)
                    compared += 1
    assert compared > 1000 and any(log.is_system.any() for log in demo_logs)


def test_the_registry_lists_every_family_once_in_display_order():
    names = [f.name for f in FAMILIES]
    assert names[:6] == ["M0", "M1", "M2", "M3", "M4", "recorded"] and len(set(names)) == 13
    assert {Strategy.parse(t).family for t in texts()} == set(names)
    assert DEFAULTS == ("spring-turns:10", "spring-events:20", "spring-summary:10",
                        "agentscope:50:20", "agentscope-tokens:50", "memory-window:20:2.0")
    for family in FAMILIES:
        assert Strategy.parse(family.default).spec is family
        assert family.uses_budget == (family.name in ("M0", "M1", "M2", "M3", "M4",
                                                      "spring-tokens", "agentscope-tokens"))


def test_a_decision_is_typed_and_has_one_entry_per_session(demo_logs):
    from explorer.compaction.strategies.one_session import corpus_of
    c = corpus_of(demo_logs[0])
    for text in texts():
        d = Strategy.parse(text).corpus_decision(c, 400)
        assert d.cut.shape == d.raw.shape == d.partial.shape == (1,)
        assert np.all((d.cut >= c.start) & (d.cut <= c.ends))
