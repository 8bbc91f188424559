"""PROVIDERS.md: would a provider accept the request built from a view?

``check(request)`` gives, per provider asked, the violations found (arrays,
:class:`~explorer.providers.found.Found`); :func:`violations` spells them out (rule, message
and block index, ids, the provider's text, the events). Build the request with
:mod:`explorer.providers.request`. One module per provider holds its messages and rules.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.providers import anthropic, bedrock, gemini, openai_chat, openai_responses
from explorer.providers.found import Found, Messages
from explorer.providers.request import Request
from explorer.providers.rules import LABELS, PROVIDERS, RULES, WITH_CONTENT, parse_providers

_MODULES = {"anthropic": anthropic, "bedrock": bedrock, "openai-chat": openai_chat,
            "openai-responses": openai_responses, "gemini": gemini}


@dataclass(frozen=True)
class Violation:
    """One broken rule as PROVIDERS.md reports it; ``rows`` are the log rows of its events
    (-1 for a synthetic item)."""

    rule: str
    message_index: int
    content_index: int | None
    call_ids: tuple[str, ...]
    text: str
    events: tuple[tuple[int | None, int | None], ...]
    rows: tuple[int, ...] = ()

    def as_dict(self) -> dict:
        return {"rule": self.rule, "message_index": self.message_index,
                "content_index": self.content_index, "call_ids": list(self.call_ids),
                "text": self.text, "events": [list(e) for e in self.events]}


def check(req: Request, providers=PROVIDERS) -> dict[str, Found]:
    """The violations of each provider asked (in PROVIDERS.md's order)."""
    return {p: _MODULES[p].check(req) for p in PROVIDERS if p in providers}


def rejected(req: Request, providers=PROVIDERS) -> dict[str, np.ndarray]:
    """Per provider, per view of ``req``: it breaks at least one rule."""
    return {p: f.rejected(req.views) for p, f in check(req, providers).items()}


def messages_of(req: Request, provider: str) -> Messages:
    """The provider's messages of ``req`` (openai-chat's system message not among them)."""
    return _MODULES[provider].messages_of(req)


def violations(req: Request, f: Found, provider: str | None = None) -> list[Violation]:
    """The violations of ``f`` (one provider's, of a one-view ``req``) spelt out."""
    ids: list[list[int]] = [[] for _ in range(len(f))]
    for v, p in zip(f.id_of.tolist(), f.id_item.tolist()):
        ids[v].append(p)
    out = []
    events_of = req.call | req.result
    for v in range(len(f)):
        r = RULES[int(f.rule[v])]
        lo, hi, extra = int(f.lo[v]), int(f.hi[v]), int(f.extra[v])
        span = np.arange(lo, hi)
        picked = span[events_of[lo:hi]]
        if extra >= 0:
            picked = np.union1d(picked, [extra])
        if not len(picked):
            picked = span
        m = int(f.content[v]) if r.name in WITH_CONTENT else None
        call_ids = req.ids(sorted(ids[v]))
        out.append(Violation(r.name, int(f.message[v]), m, call_ids,
                             r.render(int(f.message[v]), m, call_ids),
                             tuple(_event(req, p) for p in picked.tolist()),
                             tuple(int(req.row[p]) for p in picked.tolist())))
    return out


def _event(req: Request, p: int) -> tuple[int | None, int | None]:
    if req.synthetic[p] or req.seq is None:
        return (None, None)
    return (int(req.seq[p]), int(req.sub[p]))


def verdicts(req: Request, providers=PROVIDERS) -> dict[str, list[Violation]]:
    """Per provider asked, the violations of a one-view request, spelt out."""
    return {p: violations(req, f, p) for p, f in check(req, providers).items()}


__all__ = ["LABELS", "PROVIDERS", "RULES", "Request", "Violation", "check", "messages_of",
           "parse_providers", "rejected", "verdicts", "violations"]
