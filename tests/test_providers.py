"""PROVIDERS.md: per rule the smallest view that breaks it and one that does not, per
provider; the numpy check equals the plain oracle (tests/provider_oracle.py) on hand-made,
random and generated views; how a view becomes messages."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.compaction.window import Item
from explorer.providers import PROVIDERS, check, messages_of, parse_providers, request, verdicts
from tests import provider_oracle

_KINDS = {"U": "USER", "A": "ASSISTANT", "C": "CALL", "R": "RESULT", "S": "SYSTEM",
          "Z": "SUMMARY", "O": "OTHER"}


def items(spec: str) -> list[Item]:
    """``"U C:a R:a"``: kinds by letter with an optional id; lower case = synthetic."""
    out = []
    for i, token in enumerate(spec.split()):
        letter, _, cid = token.partition(":")
        synthetic = letter.islower()
        out.append(Item(None if synthetic else i, None if synthetic else i,
                        None if synthetic else 0, _KINDS[letter.upper()], cid or None, 1,
                        synthetic))
    return out


def found(spec: str) -> dict[str, list[tuple]]:
    """Per provider: (rule, message_index, content_index, ids) of the core's check."""
    return {p: [(v.rule, v.message_index, v.content_index, v.call_ids) for v in vs]
            for p, vs in verdicts(request.from_items(items(spec))).items()}


def oracle(spec: str) -> dict[str, list[tuple]]:
    return provider_oracle.check([(i.kind, i.call_id, i.synthetic) for i in items(spec)])


#: rule -> (the smallest view breaking it, one that does not, what the rule reports)
CASES = {
    "anthropic.unanswered": ("U C:a U", "U C:a R:a U", (1, None, ("a",))),
    "anthropic.unexpected": ("R:a", "U C:a R:a", (0, 0, ("a",))),
    "anthropic.duplicate": ("U C:a R:a C:a R:a", "U C:a R:a C:b R:b", (3, 0, ("a",))),
    "anthropic.multiple-results": ("U C:a R:a R:a", "U C:a R:a", (2, 1, ("a",))),
    "bedrock.expected": ("U C:a U", "U C:a U R:a", (2, None, ("a",))),
    "bedrock.exceeds": ("U C:a R:a R:b", "U C:a C:b R:a R:b", (2, None, ("a", "b"))),
    "bedrock.duplicate": ("U C:a C:a R:a", "U C:a C:b R:a R:b", (1, None, ("a",))),
    "bedrock.first-user": ("A", "U A", (0, None, ())),
    "openai-chat.unanswered": ("U C:a U", "U C:a R:a U", (1, None, ("a",))),
    "openai-chat.foreign-id": ("U C:a R:a R:b", "U C:a C:b R:a R:b", (3, None, ("b",))),
    "openai-chat.orphan": ("U R:a", "U C:a R:a", (1, None, ("a",))),
    "openai-responses.no-output": ("U C:a", "U C:a R:a", (1, None, ("a",))),
    "openai-responses.no-call": ("U R:a C:a", "U C:a R:a", (1, None, ("a",))),
    "gemini.count": ("U C:a C:b R:a", "U C:a C:b R:a R:b", (1, None, ("a", "b"))),
    "gemini.response-order": ("U R:a", "U C:a R:a", (1, None, ("a",))),
    "gemini.call-order": ("C:a R:a", "U C:a R:a", (0, None, ("a",))),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_rule_breaks_on_its_smallest_view_and_not_on_the_fixed_one(name):
    broken, fixed, (n, m, ids) = CASES[name]
    provider = name.split(".")[0]
    got = found(broken)[provider]
    assert (name, n, m, ids) in got
    assert found(fixed)[provider] == []
    assert found(broken) == oracle(broken) and found(fixed) == oracle(fixed)


def test_the_texts_have_the_numbers_filled_in():
    vs = verdicts(request.from_items(items("U C:a R:x")))
    assert [v.text for v in vs["anthropic"]] == [
        ("messages.1: `tool_use` ids were found without `tool_result` blocks immediately "
        "after: a. Each `tool_use` block must have a corresponding `tool_result` block in the "
        "next message."),
        ("messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: x. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
        "message.")]
    assert vs["bedrock"][0].text == ("Expected toolResult blocks at messages.2.content for the "
                                     "following Ids: a")
    assert vs["openai-chat"][-1].text == ("Invalid parameter: 'tool_call_id' of 'x' not found "
                                          "in 'tool_calls' of previous message.")
    assert vs["openai-responses"][0].text == "No tool output found for function call a."


def test_leading_results_only_answer_for_anthropic_anywhere_for_bedrock():
    spec = "U C:a U R:a"   # the result after a text block of the next message
    assert [v[0] for v in found(spec)["anthropic"]] == ["anthropic.unanswered"]
    assert found(spec)["bedrock"] == []
    # an id-less RESULT is user text and counts as such
    assert found("U C:a R R:a")["anthropic"][0][0] == "anthropic.unanswered"
    assert found("U C:a R:a R")["anthropic"] == []


def test_system_items_are_message_zero_for_openai_chat_only_and_split_nothing():
    assert found("S U C:a U")["openai-chat"] == [("openai-chat.unanswered", 2, None, ("a",))]
    assert found("S U C:a U")["anthropic"] == [("anthropic.unanswered", 1, None, ("a",))]
    # a SYSTEM item between a call and its result neither splits nor joins the run
    assert found("U C:a S R:a") == {p: [] for p in PROVIDERS}
    assert found("U O C:a O R:a") == {p: [] for p in PROVIDERS}


def test_a_spring_summarys_shadow_prompt_makes_it_an_assistant_message():
    req = request.from_items(items("S u Z U C:a R:a"))
    ms = messages_of(req, "anthropic")
    assert ms.role.tolist() == [0, 1, 0, 1, 0] and ms.number.tolist() == [0, 1, 2, 3, 4]
    assert found("S u Z U C:a R:a") == {p: [] for p in PROVIDERS}
    # the same summary after a logged USER is user text: the two merge into one message
    assert messages_of(request.from_items(items("U Z A")), "anthropic").count == 2


def test_the_events_of_a_violation_are_the_calls_and_results_of_its_messages():
    vs = verdicts(request.from_items(items("U A C:a C:b R:a")))
    (v,) = vs["anthropic"]
    assert v.call_ids == ("b",) and v.events == ((2, 0), (3, 0), (4, 0))
    # a placeholder RESULT (synthetic) is a tool result with seq null
    vs = verdicts(request.from_items(items("R:z U C:a r:a")))
    assert vs["anthropic"][0].events == ((0, 0),)
    assert found("U C:a r:a") == {p: [] for p in PROVIDERS}


def test_an_empty_request_breaks_no_rule():
    assert found("") == {p: [] for p in PROVIDERS}
    assert found("S O") == {p: [] for p in PROVIDERS}


def test_parse_providers():
    assert parse_providers("all") == PROVIDERS
    assert parse_providers("gemini,anthropic") == ("anthropic", "gemini")
    with pytest.raises(ValueError, match="unknown provider 'openai'"):
        parse_providers("openai")


_TOKENS = ["U", "A", "C:a", "C:b", "C:c", "R:a", "R:b", "R:c", "S", "Z", "u", "r:a", "C", "R",
           "O"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=14))
def test_the_check_equals_the_oracle_on_random_views(tokens):
    spec = " ".join(tokens)
    assert found(spec) == oracle(spec)


def _many(specs: list[str]) -> request.Request:
    """Several views as one request (the sweep's shape)."""
    parts = [request.from_items(items(s)) for s in specs]
    seg = np.concatenate([np.full(p.n, i) for i, p in enumerate(parts)]).astype(np.int64)
    # ids are numbered per view by from_items: make one id space, as a corpus has
    offset = np.cumsum([0] + [p.ncodes for p in parts])[:-1]
    code = np.concatenate([np.where(p.code >= 0, p.code + o, -1) for p, o in zip(parts, offset)])
    cat = lambda f: np.concatenate([getattr(p, f) for p in parts])
    return request.Request(cat("kind").astype(np.int64), code.astype(np.int64),
                           cat("synthetic"), seg, cat("row"), len(parts),
                           np.concatenate([p.system for p in parts]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_TOKENS), max_size=8), min_size=1, max_size=6))
def test_many_views_at_once_are_each_view_checked_alone(views):
    specs = [" ".join(v) for v in views]
    f = check(_many(specs))
    for p in PROVIDERS:
        got = f[p].rejected(len(specs)).tolist()
        assert got == [bool(oracle(s)[p]) for s in specs]
