"""The window's provider checks through their memo (explorer/providers/view_checks.py): the
compare table's columns, every strategy's view checked at once, and one view's violations
(as arrays and spelt out), equal the plain oracle on each view's items, whether computed or
answered from the memo (the same view again, or another strategy's view that sends the
same request)."""

from __future__ import annotations

from explorer.cli.generate import generate_table
from explorer.compaction import SessionLog, Strategy, view, window
from explorer.compaction.window import in_view
from explorer.model import Order
from explorer.providers import PROVIDERS, violations
from explorer.providers.view_checks import checked, error_counts, spelled, view_key
from explorer.session.preview import strategy_texts
from explorer.tokens.session_events import session_events
from tests import provider_oracle
from tests.helpers import imported_rows

BUDGETS = (150, 900, 5000, 10**9)


def _rows() -> list[dict]:
    """Generated sessions with lost results and calls and reused ids, a SYSTEM event first
    in each (kept before the cut by the strategies that pin it, not by M0-M4) and some
    ASSISTANT events made SYSTEM (in view, openai-chat's message 0)."""
    rows = generate_table(sessions=6, turns=6, max_calls=3, p_result=0.8, p_lost_call=0.1,
                          id_space=40, seed=11).to_pylist()
    firsts = {}
    for r in rows:
        firsts.setdefault(r["session_id"], r)
    for i, r in enumerate(rows):
        if r["kind"] == "ASSISTANT" and i % 7 == 0:
            r["kind"] = "SYSTEM"
    system = [{**r, "seq": 0, "kind": "SYSTEM", "call_id": None, "tool": None,
               "event_id": "evt-0"} for r in firsts.values()]
    return system + rows


def _oracle(log, text, budget) -> dict[str, list[tuple]]:
    items, _ = view(log, text, budget)
    return provider_oracle.check([(i.kind, i.call_id, i.synthetic) for i in items])


def _logs(db):
    return [SessionLog.from_frame(n, session_events(db, n, Order.SEQ, texts=False))
            for (n, *_) in db.run("session_names")]


def test_the_compare_tables_columns_equal_the_oracle_computed_or_remembered(tmp_path):
    texts = strategy_texts()
    rejected = 0
    with imported_rows(tmp_path, _rows()) as db:
        for log in _logs(db):
            assert log.is_system.any()
            for budget in BUDGETS:
                windows = [window(log, Strategy.parse(t), budget) for t in texts]
                keeps = [in_view(log, w) for w in windows]
                expected = [{p: len(v) for p, v in _oracle(log, t, budget).items()}
                            for t in texts]
                assert error_counts(log, windows, keeps) == expected, (log.session_id, budget)
                # again: every view from the memo; one provider alone
                assert error_counts(log, windows, keeps) == expected
                assert error_counts(log, windows, keeps, ("gemini",)) == [
                    {"gemini": e["gemini"]} for e in expected]
                rejected += sum(any(e.values()) for e in expected)
    assert rejected > 20   # the views break rules: the counts are not all zero


def test_one_views_violations_equal_the_oracle_computed_or_remembered(tmp_path):
    with imported_rows(tmp_path, _rows()) as db:
        shared = 0
        for log in _logs(db):
            for budget in BUDGETS:
                seen: dict = {}
                for text in strategy_texts():
                    w = window(log, Strategy.parse(text), budget)
                    keep = in_view(log, w)
                    key = view_key(log, w, keep)
                    shared += key in seen
                    seen[key] = text
                    for asked in (("openai-chat",), PROVIDERS):
                        req, found = checked(log, w, keep, asked)
                        assert tuple(found) == asked
                        got = {p: [(v.rule, v.message_index, v.content_index, v.call_ids)
                                   for v in violations(req, f)] for p, f in found.items()}
                        want = _oracle(log, text, budget)
                        assert got == {p: want[p] for p in asked}, (text, budget)
                    for provider in ("anthropic", "openai-chat"):   # as the window shows it
                        _, spelt = spelled(log, w, keep, provider)
                        assert [(v.rule, v.message_index, v.content_index, v.call_ids)
                                for v in spelt] == want[provider], (text, budget)
        # views of two strategies sent as one request (M3/M4, spring-tokens...) were met
        assert shared > 10
