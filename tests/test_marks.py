"""Per-event marks equal the findings of the corpus audit, session by session."""

from __future__ import annotations

from collections import defaultdict

import pytest

from explorer.audits import counts as audits
from explorer.audits.marks import MARKS, event_marks
from explorer.cli.demo import demo_paths
from explorer.tokens.session_events import session_events
from tests.helpers import load

PAIR_RULES = ("tie_inversions", "clock_regressions")


@pytest.mark.parametrize("order", ["seq", "ts", "ts-unstable"])
def test_marks_match_findings(store, order):
    load(store, *demo_paths())
    expected = defaultdict(set)
    for f in audits.findings(store, order):
        if f["rule"] not in MARKS:
            continue
        events = f["events"][-1:] if f["rule"] in PAIR_RULES else f["events"]
        for e in events:
            expected[(f["session_id"], f["rule"])].add((e["seq"], e["sub"]))
    sessions = {s for s, _ in expected} | {"s000000", "k0000"}
    found = defaultdict(set)
    for session in sessions:
        frame = session_events(store, session, order)
        rows = frame.select("seq", "sub").rows()
        for (seq, sub), marks in zip(rows, event_marks(frame), strict=True):  # one per row
            for rule in marks:
                found[(session, rule)].add((seq, sub))
    assert found == expected
    assert {rule for _, rule in found} >= {"orphan_results", "dangling_calls", "turn_collisions"}


@pytest.mark.parametrize("order", ["seq", "ts-unstable"])
def test_the_rules_that_found_nothing_are_not_run(store, order):
    from explorer.audits import cache as audit_cache
    from explorer.audits.marks import rules_found
    from explorer.audits.rules import MARKED
    load(store, *demo_paths())
    sessions = [r[0] for r in store.run("session_names")]
    assert rules_found(store, sessions[0], order) == MARKED   # no audit table yet: all run
    audit_cache.ensure(store, order)
    picked = {}
    for session in sessions:
        frame = session_events(store, session, order)
        rules = rules_found(store, session, order)
        picked[session] = rules
        assert event_marks(frame, rules) == event_marks(frame), session
    assert any(0 < len(r) < len(MARKED) for r in picked.values())
    assert any(not r for r in picked.values())
