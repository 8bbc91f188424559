"""One session checked as ``turnscope validate`` and the window check it: the whole log in
the order being viewed, or a strategy's view at a budget, against each provider asked."""

from __future__ import annotations

from explorer.compaction import CompactionSettings, SessionLog, Strategy, window
from explorer.providers import PROVIDERS, Violation, check, violations
from explorer.providers.request import Request, from_log, from_window

DEFAULT_SETTINGS = CompactionSettings()


def session_request(log: SessionLog, strategy: str | None = None, budget: int | None = None,
                    settings: CompactionSettings = DEFAULT_SETTINGS) -> Request:
    """The request of the whole log (``strategy`` None) or of the strategy's view."""
    if strategy is None:
        return from_log(log)
    if budget is None or budget < 1:
        raise ValueError("the budget is a positive number of tokens")
    return from_window(log, window(log, Strategy.parse(strategy), budget, settings))


def check_session(log: SessionLog, providers=PROVIDERS, strategy: str | None = None,
                  budget: int | None = None,
                  settings: CompactionSettings = DEFAULT_SETTINGS
                  ) -> dict[str, list[Violation]]:
    """Per provider asked (PROVIDERS.md's order), the violations of the session's request."""
    req = session_request(log, strategy, budget, settings)
    return {p: violations(req, f) for p, f in check(req, providers).items()}
