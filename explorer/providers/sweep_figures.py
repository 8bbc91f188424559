"""The sweep's provider figures (PROVIDERS.md, "Where the rules are used"):
``rejected_<provider>``, the number of windows a provider rejects, checked over every
session's view of a corpus decision at once."""

from __future__ import annotations

from collections.abc import Callable

from explorer.providers import check
from explorer.providers.request import from_decision
from explorer.providers.rules import PROVIDERS


def figure_name(provider: str) -> str:
    """``rejected_openai_chat`` for ``openai-chat``."""
    return "rejected_" + provider.replace("-", "_")


def figure_names(providers) -> tuple[str, ...]:
    """The figures of ``providers``, in PROVIDERS.md's order."""
    return tuple(figure_name(p) for p in PROVIDERS if p in providers)


def rejected_figures(providers) -> Callable:
    """``(corpus, decision) -> {rejected_<provider>: windows rejected}``, for the sweep."""
    asked = tuple(p for p in PROVIDERS if p in providers)

    def figures(corpus, decision) -> dict:
        req = from_decision(corpus, decision)
        return {figure_name(p): int(f.rejected(req.views).sum())
                for p, f in check(req, asked).items()}
    return figures
