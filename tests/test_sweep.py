"""The vectorized corpus sweep equals the sum of the per-session views, for every
strategy, order and setting (keep_latest_turn, the tool-result transforms)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.cli.demo import demo_paths
from explorer.cli.main import main
from explorer.compaction.per_session import session_logs, sweep_by_sessions
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.sweep import FIGURES, VECTORIZED, sweep
from explorer.model import CostSettings
from tests.helpers import imported_rows, load

ORDERS = ("seq", "ts", "ts-unstable")
BUDGETS = (3, 12, 40, 400)

row = st.fixed_dictionaries({
    "session_id": st.sampled_from(["a", "b", "c"]),
    "seq": st.integers(1, 15),
    "kind": st.sampled_from(["USER", "ASSISTANT", "CALL", "RESULT", "SYSTEM", "SUMMARY"]),
    "call_id": st.sampled_from([None, "x", "y", "z"]),
    "ts": st.one_of(st.none(), st.integers(0, 5)),
    "tokens": st.one_of(st.none(), st.integers(0, 20)),
    "chars": st.integers(0, 40),
    "cjk": st.booleans(),
    "tool": st.sampled_from([None, "bash", "read_file"]),
    "user_id": st.sampled_from([None, "u1", "u2"]),
    "turn": st.sampled_from([None, 1, 2]),
    "message_id": st.sampled_from([None, None, "m1", "m2"]),
    "archived": st.sampled_from([None, None, None, True]),
})
FRAMEWORK = ("spring-turns:1", "spring-events:2", "spring-tokens", "spring-summary:2",
             "agentscope:2:1", "agentscope-tokens:2", "memory-window:3:1.x",
             "memory-window:3:2.0", "recorded")


SETTINGS = (
    CompactionSettings(),
    CompactionSettings(keep_latest_turn=False),
    # The transforms, with thresholds small enough to act on these small logs.
    CompactionSettings(evict=True, evict_chars=20, evict_keep=3, prune=True, prune_chars=8,
                       prune_keep=2, prune_protect=6, prune_minimum=4),
)


def _same(store, strategies=VECTORIZED + FRAMEWORK) -> None:
    for order in ORDERS:
        for config in SETTINGS:
            logs = session_logs(store, order, CostSettings(), config)
            fast = sweep(store, strategies, BUDGETS, order, settings=config)
            slow = sweep_by_sessions(logs, strategies, BUDGETS, config)
            # one row per (strategy, budget), strategies outer, budgets inner, in both
            expected = [(s, b) for s in strategies for b in BUDGETS]
            assert [(r["strategy"], r["budget"]) for r in fast] == expected, order
            assert [(r["strategy"], r["budget"]) for r in slow] == expected, order
            for a, b in zip(fast, slow, strict=True):
                assert list(a) == ["strategy", "budget", *FIGURES], a
                assert a == {k: b[k] for k in a}, (order, a, b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(row, min_size=1, max_size=30))
def test_sweep_equals_per_session_views(tmp_path_factory, rows):
    with imported_rows(tmp_path_factory.mktemp("logs"), rows) as store:
        _same(store)


def test_sweep_equals_per_session_views_on_demo(store):
    load(store, *demo_paths())
    _same(store)


def test_sweep_json_keys_follow_strategies_md(capsys):
    assert main(["sweep", "--demo", "--budgets", "4000", "--strategies", "M0,spring-events:20",
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [list(r) for r in rows] == [["strategy", "budget", *FIGURES]] * 2
    assert [r["strategy"] for r in rows] == ["M0", "spring-events:20"]


def test_view_json_shape(capsys):
    assert main(["view", "--demo", "--session", "s000002", "--strategy", "M2",
                 "--budget", "1500", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert list(doc) == ["session_id", "strategy", "budget", "order", "items", "metrics"]
    assert list(doc["items"][0]) == ["seq", "sub", "kind", "call_id", "cost", "synthetic",
                                     "pinned", "flags"]
    assert list(doc["metrics"]) == ["cost", "over", "empty", "orphan_results", "orphan_calls",
                                    "pair_split", "partial_dropped", "fallback", "repaired"]
    assert doc["metrics"]["cost"] == sum(i["cost"] for i in doc["items"])


def test_sweep_rejects_a_bad_strategy(capsys):
    assert main(["sweep", "--demo", "--strategies", "M9"]) == 2
    assert "unknown strategy 'M9'" in capsys.readouterr().err
