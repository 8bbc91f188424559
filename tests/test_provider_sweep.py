"""The sweep's ``rejected_<provider>`` figures (PROVIDERS.md) equal a per-session loop over
the check of each session's view, for every strategy family; ``sweep --provider``'s keys."""

from __future__ import annotations

import csv
import io
import json

from explorer.cli.generate import generate_table
from explorer.cli.main import main
from explorer.compaction import SessionLog
from explorer.compaction.sweep import FIGURES, sweep
from explorer.model import Order
from explorer.providers import PROVIDERS
from explorer.providers.session_check import check_session
from explorer.providers.sweep_figures import figure_names, rejected_figures
from explorer.session.preview import strategy_texts
from explorer.tokens.session_events import session_events
from tests.helpers import imported_rows, jsonl_present

BUDGETS = (150, 900, 5000)


def _rows():
    return generate_table(sessions=10, turns=6, max_calls=3, p_result=0.8, p_lost_call=0.1,
                          id_space=40, seed=11).to_pylist()


def test_rejected_figures_equal_a_per_session_loop(tmp_path):
    strategies = strategy_texts()
    with imported_rows(tmp_path, _rows()) as db:
        rows = sweep(db, strategies, BUDGETS, Order.SEQ, more=rejected_figures(PROVIDERS))
        names = [r[0] for r in db.run("session_names")]
        logs = [SessionLog.from_frame(n, session_events(db, n, Order.SEQ, texts=False))
                for n in names]
        seen = 0
        for row in rows:
            expected = dict.fromkeys(PROVIDERS, 0)
            for log in logs:
                for p, vs in check_session(log, PROVIDERS, row["strategy"],
                                           row["budget"]).items():
                    expected[p] += bool(vs)
            assert [row[f] for f in figure_names(PROVIDERS)] == list(expected.values()), row
            seen += sum(expected.values()) > 0
        assert seen > len(rows) // 2   # the corpus's faults make views rejected


def test_sweep_provider_keys_follow_the_figures(capsys, tmp_path):
    path = jsonl_present(tmp_path / "g.jsonl", _rows())
    assert main(["sweep", str(path), "--provider", "gemini,openai-chat", "--json",
                 "--strategies", "M0", "--budgets", "400"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert list(row) == ["strategy", "budget", *FIGURES, "rejected_openai_chat",
                         "rejected_gemini"]
    assert main(["sweep", str(path), "--provider", "all", "--csv", "--strategies", "M1",
                 "--budgets", "400"]) == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert header[-5:] == ["rejected_anthropic", "rejected_bedrock", "rejected_openai_chat",
                           "rejected_openai_responses", "rejected_gemini"]
    assert main(["sweep", str(path), "--json", "--strategies", "M1", "--budgets", "400"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert not any(k.startswith("rejected_") for k in row)
    assert main(["sweep", str(path), "--provider", "azure"]) == 2


def test_every_view_of_a_corpus_decision_is_the_sessions_own_request(tmp_path):
    """Not only the counts: each session's violations in the many-view request (message
    and block indices, which front items and placeholders shift) are its own view's."""
    from explorer.compaction import CompactionSettings, Strategy
    from explorer.compaction.corpus import load
    from explorer.model import CostSettings
    from explorer.providers import RULES, check
    from explorer.providers.request import from_decision
    with imported_rows(tmp_path, _rows()) as db:
        corpus, _ = load(db, Order.SEQ, CostSettings())
        names = [r[0] for r in db.run("session_names")]
        logs = [SessionLog.from_frame(n, session_events(db, n, Order.SEQ, texts=False))
                for n in names]
        fronted = 0
        for text in strategy_texts():
            strategy = Strategy.parse(text)
            for budget in BUDGETS:
                d = strategy.corpus_decision(corpus, budget, CompactionSettings())
                fronted += d.fronted is not None and bool(d.fronted.any())
                req = from_decision(corpus, d)
                for p, f in check(req).items():
                    for s, log in enumerate(logs):
                        mine = f.seg == s
                        got = [(RULES[r].name, m, c) for r, m, c in
                               zip(f.rule[mine], f.message[mine], f.content[mine])]
                        want = [(v.rule, v.message_index, -1 if v.content_index is None
                                 else v.content_index)
                                for v in check_session(log, (p,), text, budget)[p]]
                        assert got == want, (text, budget, p, s)
        assert fronted
