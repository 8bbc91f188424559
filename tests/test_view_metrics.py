"""The view metrics have one implementation (explorer/compaction/view_metrics.py).

One session's metrics are the values of the corpus metrics for its one-session corpus:
they must equal the plain per-session oracle (tests/metric_oracle.py) for every strategy.
The sweep's prefix-sum form must equal the per-event form on every decision whose views
are suffixes, on the demo corpus, generated sessions and random small sessions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.cli.demo import demo_paths
from explorer.cli.generate import generate
from explorer.compaction import Strategy, evaluate, window
from explorer.compaction.corpus import load as load_corpus
from explorer.compaction.per_session import session_logs
from explorer.compaction.strategies import texts
from explorer.compaction.strategies.one_session import corpus_of
from explorer.compaction.view_metrics import ViewMetrics, figures, measure, measure_suffix
from explorer.compaction.window import in_view
from explorer.model import CostSettings, Order
from explorer.store.db import Store
from tests import metric_oracle
from tests.helpers import imported_rows, jsonl, load
from tests.test_sweep import SETTINGS, row

TEXTS = (*texts(), "spring-turns:1", "spring-events:3", "spring-summary:2", "agentscope:3:2",
         "agentscope:1:50", "agentscope-tokens:2", "memory-window:3:1.x", "memory-window:2:2.0")
BUDGETS = (1, 40, 400, 4000, 100_000)
PER_SESSION = ("cost", "empty", "orphan_results", "orphan_calls", "pair_split",
               "partial_dropped", "fallback", "repaired", "mixed_windows",
               "window_turn_collisions", "window_duplicate_call_ids")
KEY_COLLAPSE = ("mixed_windows", "window_turn_collisions", "window_duplicate_call_ids")


def _random_rows(rng) -> list[dict]:
    """Small random sessions with SYSTEM events, message, call, user ids and logged turns."""
    rows = []
    for s in range(25):
        for seq in range(1, int(rng.integers(1, 25))):
            kind = str(rng.choice(["SYSTEM", "USER", "ASSISTANT", "CALL", "RESULT", "SUMMARY"],
                                  p=[0.1, 0.2, 0.2, 0.2, 0.25, 0.05]))
            r = {"session_id": f"r{s}", "seq": seq, "kind": kind, "tokens": int(rng.integers(0, 60))}
            if kind in ("CALL", "RESULT") and rng.random() < 0.9:
                r["call_id"] = f"c{rng.integers(0, 4)}"
            if rng.random() < 0.4:
                r["message_id"] = f"m{rng.integers(0, 3)}"
            if rng.random() < 0.7:
                r["user_id"] = f"u{rng.integers(0, 3)}"
            if rng.random() < 0.7:
                r["turn"] = int(rng.integers(0, 3))
            if rng.random() < 0.05:
                r["archived"] = True
            rows.append(r)
    return rows


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """The demo corpus, two generated sessions and random small sessions, one store each."""
    where = tmp_path_factory.mktemp("metrics")
    generated = where / "generated.parquet"
    generate(generated, sessions=2, turns=60, p_result=0.8, p_lost_call=0.1, groups=2, seed=4)
    made = []
    for paths in (demo_paths(), [generated], [jsonl(where / "r.jsonl", _random_rows(np.random.default_rng(7)))]):
        store = Store()
        load(store, *paths)
        made.append(store)
    yield made
    for store in made:
        store.close()


def _equal_per_session(a: ViewMetrics, b: ViewMetrics, where) -> None:
    for name in PER_SESSION:
        assert np.array_equal(np.asarray(getattr(a, name), dtype=np.int64),
                              np.asarray(getattr(b, name), dtype=np.int64)), (name, where)


def _compare_forms(c, texts_, budgets, configs) -> set[str]:
    """Both forms on every suffix decision; the families whose decisions were compared."""
    compared = set()
    for text in texts_:
        strategy = Strategy.parse(text)
        for config in configs:
            for budget in budgets:
                d = strategy.corpus_decision(c, budget, config)
                slow = measure(c, d, config.placeholder_cost)
                if not d.suffix_only:
                    with pytest.raises(ValueError):
                        measure_suffix(c, d, config.placeholder_cost)
                    continue
                fast = measure_suffix(c, d, config.placeholder_cost)
                _equal_per_session(fast, slow, (text, budget))
                assert figures(fast, budget) == figures(slow, budget)
                compared.add(strategy.family)
    return compared


def _compare_with_oracle(log, texts_, budgets, configs) -> int:
    """The engine's per-session metrics (and orphan flags, key collapse) against the oracle."""
    checked = 0
    for text in texts_:
        strategy = Strategy.parse(text)
        for config in configs:
            for budget in budgets:
                w = window(log, strategy, budget, config)
                keep = in_view(log, w)
                want, want_result, want_call = metric_oracle.view_metrics(
                    log, w, keep, budget, config.placeholder_cost)
                items, metrics = evaluate(log, w, budget, config.placeholder_cost)
                assert metrics == want and list(metrics) == list(want), (log.session_id, text, budget)
                assert {k: type(v) for k, v in metrics.items()} == {k: type(v) for k, v in want.items()}
                flagged = {(it.index, f) for it in items for f in it.flags if f.startswith("orphan")}
                assert flagged == {(int(i), "orphan_result") for i in np.flatnonzero(want_result)} | \
                    {(int(i), "orphan_call") for i in np.flatnonzero(want_call)}
                one = measure(corpus_of(log), w.decision, config.placeholder_cost)
                assert np.array_equal(one.orphan_result, want_result)
                assert np.array_equal(one.orphan_call, want_call)
                assert {k: int(getattr(one, k)[0]) for k in KEY_COLLAPSE} == \
                    metric_oracle.key_collapse(log, keep)
                checked += 1
    return checked


def test_one_session_metrics_equal_the_oracle(stores):
    checked, collapsed = 0, 0
    for store in stores:
        for order in (Order.SEQ, Order.TS_UNSTABLE):
            logs = session_logs(store, order, CostSettings())
            for log in logs[::3]:
                checked += _compare_with_oracle(log, TEXTS, BUDGETS, SETTINGS[:2])
                keep = np.ones(log.n, dtype=bool)
                collapsed += sum(metric_oracle.key_collapse(log, keep).values())
    assert checked > 2000 and collapsed > 10


def test_the_suffix_form_equals_the_per_event_form(stores):
    for store in stores:
        for order in (Order.SEQ, Order.TS_UNSTABLE):
            c, _ = load_corpus(store, order, CostSettings())
            assert _compare_forms(c, TEXTS, BUDGETS, SETTINGS[:2]) >= {"M0", "M1", "M2", "M3", "M4"}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(row, min_size=1, max_size=30))
def test_both_forms_and_the_oracle_agree_on_generated_logs(tmp_path_factory, rows):
    with imported_rows(tmp_path_factory.mktemp("logs"), rows) as store:
        for order in (Order.SEQ, Order.TS_UNSTABLE):
            c, _ = load_corpus(store, order, CostSettings())
            _compare_forms(c, TEXTS, (3, 12, 40), SETTINGS[:2])
            for log in session_logs(store, order, CostSettings(), SETTINGS[2]):
                _compare_with_oracle(log, TEXTS, (3, 40), SETTINGS[2:])
