"""Replay per provider (REPLAY.md "Figures", PROVIDERS.md): each call's ``rejected_<provider>``,
the session's count, and ``sweep --trigger --provider``'s sums, against a per-session loop
that checks each call's request with the independent oracle (tests/provider_oracle.py)."""

from __future__ import annotations

import json

import pytest

from explorer.cli.generate import generate
from explorer.cli.main import main
from explorer.compaction.corpus import load
from explorer.compaction.settings import CompactionSettings
from explorer.compaction.strategies import Strategy
from explorer.model import CostSettings, Order
from explorer.providers.replay_checks import ReplayJudge
from explorer.providers.rules import PROVIDERS
from explorer.providers.sweep_figures import figure_name
from explorer.replay import sweep as sw
from explorer.replay.run import replay
from explorer.replay.triggers import Trigger
from tests import provider_oracle
from tests.helpers import load as load_files
from tests.test_replay import COMPACTED, make  # noqa: F401  (the fixture)

NAMES = [figure_name(p) for p in PROVIDERS]


def oracle_rejected(rp) -> dict[str, list[bool]]:
    """Per figure, per call: the oracle finds a violation in the call's request."""
    out = {n: [] for n in NAMES}
    for j in range(len(rp.calls)):
        items = [(i["kind"], i["call_id"], i["synthetic"]) for i in rp.items(j)]
        found = provider_oracle.check(items)
        for p in PROVIDERS:
            out[figure_name(p)].append(bool(found[p]))
    return out


def test_each_call_is_judged_as_the_oracle_judges_its_request(make):  # noqa: F811
    # U C:a R:a A U C:b C:c R:b R:c A U A: M0 cuts split the pairs at some calls
    log = make("U", "C:a@m1", "R:a=40", "A", "U", "C:b@m2", "C:c@m2", "R:b", "R:c=30", "A",
               "U", "A")
    for strategy, budget in (("M0", 45), ("M0", 60), ("M1", 45), ("M2", 45),
                             ("spring-summary:2", None)):
        for fast in (True, False):
            rp = replay(log, "always" if budget else "turns:1", strategy, budget,
                        judge=ReplayJudge(), fast=fast)
            want = oracle_rejected(rp)
            for n in NAMES:
                assert [c.figures[n] for c in rp.calls] == want[n], (strategy, budget, n)
                assert rp.figures[n] == sum(want[n])
    # M0 at 45 keeps R:a (40) alone at call 1: every provider rejects that request
    rp = replay(log, "always", "M0", 45, judge=ReplayJudge())
    assert [i["kind"] for i in rp.items(1)] == ["RESULT"]
    assert all(rp.calls[1].figures[n] for n in NAMES)
    assert rp.figures["first_invalid_call"] == 1


def test_an_interrupted_call_is_rejected_until_a_cut_drops_it(make):  # noqa: F811
    # C:a is never answered; the cut of M0 at 25 drops it from call 2's request on
    log = make("U", "C:a@m1", "C:b@m2", "R:b", "A", "U", "A")    # calls before 1, 2, 4, 6
    asked = ("anthropic", "bedrock", "openai-responses")
    names = [figure_name(p) for p in asked]
    whole = replay(log, "turns:100", "M0", 1000, judge=ReplayJudge(asked))
    assert [[c.figures[n] for n in names] for c in whole.calls] == \
        [[False] * 3, [True] * 3, [True] * 3, [True] * 3]
    cut = replay(log, "always", "M0", 25, judge=ReplayJudge(asked))
    # call 2: C:b R:b and call 3: A U start with the assistant, which only bedrock minds
    assert [i["call_id"] for i in cut.items(2)] == ["b", "b"]
    assert [c.figures["rejected_bedrock"] for c in cut.calls] == [False, True, True, True]
    assert [c.figures["rejected_openai_responses"] for c in cut.calls] == \
        [False, True, False, False]
    assert cut.figures["rejected_anthropic"] == sum(oracle_rejected(cut)["rejected_anthropic"])
    assert list(cut.calls[0].figures)[-3:] == names


def _corpus_figures(store, triggers, strategies, budgets):
    c, _ = load(store, Order.SEQ, CostSettings())
    logs = sw._replay_logs(store, c, Order.SEQ, CostSettings(), CompactionSettings())
    rows = sw.sweep_triggered(store, triggers, strategies, budgets, judge=ReplayJudge())
    for row in rows:
        want = dict.fromkeys(NAMES, 0)
        for rlog in logs:
            rp = replay(rlog, Trigger.parse(row["trigger"]), Strategy.parse(row["strategy"]),
                        row["budget"], fast=False)
            for n, v in oracle_rejected(rp).items():
                want[n] += sum(v)
        assert {n: row[n] for n in NAMES} == want, row
        assert list(row)[-len(NAMES):] == NAMES
    return rows


def test_sweep_trigger_provider_figures_equal_a_per_session_loop(store, tmp_path):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=8, turns=6, p_result=0.8, p_lost_call=0.05, seed=5)
    load_files(store, path)
    rows = _corpus_figures(store, ("always", "turns:2", "tokens:3000"),
                           ("M0", "M1", "spring-summary:2"), (400, 4000))
    assert any(r["rejected_anthropic"] for r in rows)
    assert any(r["rejected_gemini"] < r["calls"] for r in rows)


def test_sweep_trigger_provider_figures_on_a_real_log(store):
    load_files(store, COMPACTED)
    rows = _corpus_figures(store, ("always",), ("M0",), (1600,))
    assert rows[0]["calls"] > 20 and rows[0]["rejected_openai_responses"] > 0


def test_replay_and_sweep_take_provider_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=3, turns=4, seed=2)
    assert main(["sweep", str(path), "--trigger", "always", "--strategies", "M0",
                 "--budgets", "400", "--provider", "gemini,anthropic", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert list(row)[-3:] == ["sessions_with_invalid_call", "rejected_anthropic",
                              "rejected_gemini"]
    session = json.loads(path.read_text().splitlines()[0])["session_id"]
    assert main(["replay", str(path), "--session", session, "--trigger", "always",
                 "--strategy", "M0", "--budget", "400", "--provider", "bedrock",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out["calls"][0])[-1] == "rejected_bedrock"
    assert out["figures"]["rejected_bedrock"] == sum(c["rejected_bedrock"] for c in out["calls"])
    assert main(["replay", str(path), "--session", session, "--strategy", "M0", "--budget",
                 "400", "--provider", "all"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert "anthropic" in head and "openai_responses" in head
    assert main(["replay", str(path), "--session", session, "--strategy", "M0", "--budget",
                 "400", "--provider", "nobody"]) == 2
    assert "provider" in capsys.readouterr().err


@pytest.mark.parametrize("strategy", ["M1"])
def test_sweep_trigger_without_provider_has_no_provider_keys(capsys, tmp_path, strategy):
    path = tmp_path / "gen.jsonl"
    generate(path, sessions=2, turns=3, seed=2)
    assert main(["sweep", str(path), "--trigger", "always", "--strategies", strategy,
                 "--budgets", "400", "--json"]) == 0
    assert not any(k.startswith("rejected_") for k in json.loads(capsys.readouterr().out)[0])


def test_a_noted_user_event_is_sent_as_a_user_message():
    # compaction.log's NOTED code (a USER with a note) is a user turn to every provider
    import numpy as np

    from explorer.compaction.log import ASSISTANT, NOTED, USER
    from explorer.providers import rejected
    from explorer.providers.request import Request

    def req(first):
        kind = np.array([first, ASSISTANT])
        return Request(kind, np.full(2, -1), np.zeros(2, bool), np.zeros(2, np.int64),
                       np.arange(2), 1, np.array([False]))
    assert not any(v[0] for v in rejected(req(USER)).values())
    assert not any(v[0] for v in rejected(req(NOTED)).values())
    assert rejected(req(ASSISTANT))["bedrock"][0]
