"""The audits of AUDITS.md on small hand-checked logs, in every ordering mode."""

from __future__ import annotations

import pytest

from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.tokens.session_events import session_events
from tests import reference
from tests.helpers import events_as_dicts, finding_counts, jsonl, load

ORDERS = ("seq", "ts", "ts-unstable")


def _row(seq, kind, call_id=None, ts=None, session="p", **more):
    row = {"session_id": session, "seq": seq, "kind": kind, "chars": 10}
    if call_id is not None:
        row["call_id"] = call_id
    if ts is not None:
        row["ts"] = ts
    row.update(more)
    return row


PAIRING = [
    _row(1, "USER"), _row(2, "CALL", "c1"), _row(3, "RESULT", "c1"),
    _row(4, "RESULT", "c2"),                      # orphan: no CALL c2 at all
    _row(5, "CALL", "c3"),                        # dangling: no RESULT c3
    _row(6, "RESULT", "c4"), _row(7, "CALL", "c4"),  # mispair: the CALL comes later
    _row(8, "CALL", "c5"), _row(9, "CALL", "c5"), _row(10, "RESULT", "c5"),  # duplicate id
    _row(11, "CALL"),                             # no id: counts in calls only
    _row(12, "RESULT", ""),                       # "" is no id: counts in results only
]


def test_pairing_rules_count_what_audits_md_defines(store, tmp_path):
    load(store, jsonl(tmp_path / "p.jsonl", PAIRING))
    counts = audits.corpus_counts(store, "seq")
    assert (counts["events"], counts["sessions"], counts["turns"]) == (12, 1, 1)
    assert (counts["calls"], counts["results"]) == (6, 5)
    assert counts["orphan_results"] == 1
    assert counts["dangling_calls"] == 1
    assert counts["mispair"] == 1
    assert counts["duplicate_call_ids"] == 1


def test_pairing_findings_point_at_the_events(store, tmp_path):
    load(store, jsonl(tmp_path / "p.jsonl", PAIRING))
    found = {f["rule"]: f for f in audits.findings(store, "seq")}
    assert found["orphan_results"]["events"] == [
        {"seq": 4, "sub": 0, "kind": "RESULT", "call_id": "c2"}]
    assert found["dangling_calls"]["events"][0]["seq"] == 5
    assert found["mispair"]["events"] == [{"seq": 6, "sub": 0, "kind": "RESULT", "call_id": "c4"}]
    assert [e["seq"] for e in found["duplicate_call_ids"]["events"]] == [8, 9, 10]


ORDERING = [
    _row(1, "USER", ts=1000, session="t"),
    _row(2, "CALL", "a", ts=1010, session="t"),
    _row(3, "RESULT", "a", ts=1010, session="t"),     # tie with seq 2
    _row(4, "ASSISTANT", ts=1005, session="t"),       # clock regression
    _row(5, "USER", session="t"),                     # no ts: after all timestamped ones
    _row(6, "ASSISTANT", ts=1020, session="t"),
]


@pytest.mark.parametrize("order, expected", [
    ("seq", {"tie_inversions": 0, "mispair": 0}),
    ("ts", {"tie_inversions": 0, "mispair": 0}),
    ("ts-unstable", {"tie_inversions": 1, "mispair": 1}),
])
def test_ordering_rules_in_each_mode(store, tmp_path, order, expected):
    load(store, jsonl(tmp_path / "t.jsonl", ORDERING))
    counts = audits.corpus_counts(store, order)
    assert {k: counts[k] for k in expected} == expected
    # clock_regressions and ts_ties are read in seq order whatever the view.
    assert (counts["clock_regressions"], counts["ts_ties"], counts["turns"]) == (1, 1, 2)


def test_orders_follow_format_md(store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", ORDERING))
    seqs = {o: session_events(store, "t", o)["seq"].to_list() for o in ORDERS}
    assert seqs["seq"] == [1, 2, 3, 4, 5, 6]
    assert seqs["ts"] == [1, 4, 2, 3, 6, 5]
    assert seqs["ts-unstable"] == [1, 4, 3, 2, 6, 5]
    turns = session_events(store, "t", "ts")["turn_no"].to_list()
    assert turns == [1, 1, 1, 1, 1, 2]


def test_tie_inversion_finding_is_the_pair(store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", ORDERING))
    found = [f for f in audits.findings(store, "ts-unstable") if f["rule"] == "tie_inversions"]
    assert [[e["seq"] for e in f["events"]] for f in found] == [[3, 2]]
    regress = [f for f in audits.findings(store, "ts") if f["rule"] == "clock_regressions"]
    assert [[e["seq"] for e in f["events"]] for f in regress] == [[3, 4]]


COLLAPSE = [
    _row(1, "USER", session="k", user_id="u1", turn=1),
    _row(2, "USER", session="k", user_id="u2", turn=1),
    _row(3, "ASSISTANT", session="k", user_id="u1", turn=1),
    _row(4, "USER", session="k", user_id="u2", turn=2),
    _row(5, "ASSISTANT", session="k", turn=2),            # null user_id: ignored
    _row(6, "USER", session="solo", user_id="u3", turn=1),
]


def test_key_collapse(store, tmp_path):
    load(store, jsonl(tmp_path / "k.jsonl", COLLAPSE))
    counts = audits.corpus_counts(store, "seq")
    assert (counts["collapsed_keys"], counts["turn_collisions"]) == (1, 1)
    found = [f for f in audits.findings(store, "seq") if f["rule"] == "turn_collisions"]
    assert [[e["seq"] for e in f["events"]] for f in found] == [[1, 2, 3]]


def test_duplicates_and_conflicts(store, tmp_path):
    rows = [
        {"session_id": "d", "seq": 1, "kind": "USER", "event_id": "e1", "text": "hi"},
        {"session_id": "d", "seq": 2, "kind": "USER", "event_id": "e1", "text": "hi", "ts": 5},
        {"session_id": "d", "seq": 3, "kind": "ASSISTANT", "event_id": "e2", "text": "a"},
        {"session_id": "d", "seq": 4, "kind": "ASSISTANT", "event_id": "e2", "text": "b"},
        {"session_id": "d", "seq": 5, "kind": "ASSISTANT", "event_id": "e2", "text": "a"},
        {"session_id": "d2", "seq": 6, "kind": "USER", "event_id": "e1", "text": "hi"},
    ]
    report = load(store, jsonl(tmp_path / "d.jsonl", rows))
    assert (report.files[0].duplicates, report.files[0].events) == (2, 4)
    counts = audits.corpus_counts(store, "seq")
    assert (counts["events"], counts["duplicates"], counts["event_id_conflicts"]) == (4, 2, 2)
    kept = store.con.execute("SELECT seq FROM events WHERE session_id = 'd' ORDER BY seq").fetchall()
    assert kept == [(1,), (3,), (4,)]  # the first row in file order is kept


def test_duplicates_across_files_and_shared_keys(store, tmp_path):
    first = jsonl(tmp_path / "a.jsonl", [
        {"session_id": "s", "seq": 1, "kind": "USER", "event_id": "x", "chars": 5}])
    second = jsonl(tmp_path / "b.jsonl", [
        {"session_id": "s", "seq": 1, "kind": "USER", "event_id": "x", "chars": 5},
        {"session_id": "s", "seq": 2, "kind": "ASSISTANT", "event_id": "y", "chars": 5},
        {"session_id": "other", "seq": 1, "kind": "USER", "chars": 5}])
    load(store, first, second)
    counts = audits.corpus_counts(store, "seq")
    assert (counts["events"], counts["duplicates"], counts["shared_keys"]) == (3, 1, 1)


@pytest.mark.parametrize("order", ORDERS)
def test_findings_lines_match_counts_on_demo(store, order):
    load(store, *demo_paths())
    counts = audits.corpus_counts(store, order)
    assert finding_counts(store, order) == {r: counts[r] for r in audits.FINDING_RULES}


def test_demo_shows_every_count_in_some_order(store):
    """missing_child is left out: the demo is canonical JSON Lines, and only an agent reader
    names a call's sub-agent session (a Claude Code Task: tests/test_format_claude_code.py)."""
    load(store, *demo_paths())
    seen = {name: 0 for name in audits.COUNT_NAMES if name != "missing_child"}
    for order in ORDERS:
        for name, value in audits.corpus_counts(store, order).items():
            if name in seen:
                seen[name] = max(seen[name], value)
    assert all(seen.values()), [k for k, v in seen.items() if not v]


@pytest.mark.parametrize("order", ORDERS)
def test_sql_audit_matches_reference_on_demo(store, order):
    report = load(store, *demo_paths())
    dups = sum(f.duplicates for f in report.files)
    dup_files = store.con.execute("SELECT session_id, file_id FROM duplicates").fetchall()
    expected = reference.audit(events_as_dicts(store), order, dups, dup_files)
    assert audits.corpus_counts(store, order) == expected


def test_display_pairing_is_one_to_one(store, tmp_path):
    rows = [_row(1, "USER"), _row(2, "CALL", "c"), _row(3, "CALL", "c"),
            _row(4, "RESULT", "c"), _row(5, "RESULT", "c"), _row(6, "RESULT", "c")]
    load(store, jsonl(tmp_path / "o.jsonl", rows))
    frame = session_events(store, "p", "seq")
    assert frame["display_call_pos"].to_list() == [None, None, None, 3, 2, None]
    # AUDITS.md's (not one-to-one) pairing: every RESULT answers the nearest earlier CALL.
    assert frame["call_pos"].to_list() == [None, None, None, 3, 3, 3]
    assert frame["result_pos"].to_list() == [None, 4, 4, None, None, None]


def test_one_session_under_two_file_names_is_shared_not_merged(store, tmp_path):
    """Issue 5: a real log copied under a second name is reported — shared_keys, and its
    events as duplicates — not merged silently."""
    import shutil

    from tests.helpers import corpus_and_demo
    original = next(p for p in corpus_and_demo() if "claude-code" in str(p))
    copies = [shutil.copy(original, tmp_path / name) for name in ("a.jsonl", "b.jsonl")]
    report = load(store, *copies)
    counts = audits.corpus_counts(store, "seq")
    sessions = counts["sessions"]
    assert counts["shared_keys"] == sessions >= 1
    assert counts["duplicates"] == report.files[1].duplicates == report.files[0].events > 0
    assert finding_counts(store, "seq")["shared_keys"] == sessions
