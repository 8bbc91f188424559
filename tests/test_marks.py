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


def test_the_marks_are_held_as_a_byte_per_row_into_their_distinct_sets(store):
    """A session's marks are a code per row into the sets that occur (issue 13: 3 MB instead
    of a list of 3M pointers), read as the list of sets they stand for."""
    from explorer.audits.row_marks import NONE, RowMarks, marked_rows
    load(store, *demo_paths())
    seen = 0
    for (session,) in store.run("session_names"):
        frame = session_events(store, session, "seq")
        marks = event_marks(frame)
        as_list = list(marks)
        assert isinstance(marks, RowMarks) and len(marks) == frame.height
        assert marks.codes.nbytes == frame.height                # one byte a row
        assert marks.sets[0] == NONE and len(set(marks.sets)) == len(marks.sets)
        assert set(marks.sets) == {NONE, *as_list}               # each set that occurs, once
        assert [marks[i] for i in range(len(marks))] == as_list == marks
        assert marks[2:7] == as_list[2:7]
        assert marked_rows(marks).tolist() == [bool(m) for m in as_list] \
            == marked_rows(as_list).tolist()
        seen += len(marks.sets) > 2
    assert seen   # some session holds rows with two different sets
