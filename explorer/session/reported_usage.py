"""Reported usage: the token counts a model reported for a whole response, as the readers
keep them in the ``raw`` of the response's first event (LOG-FORMATS.md §1). Shown beside
the estimate, never used as an event's cost (FORMAT.md, ``tokens``)."""

from __future__ import annotations

import json
from dataclasses import dataclass

#: Where each format keeps a response's usage inside ``raw``, tried in this order.
USAGE_PATHS = (
    ("message", "usage"),                                               # Claude Code
    ("turnscope", "reported_usage", "payload", "info", "last_token_usage"),  # Codex CLI
    ("response", "usage"),                                  # Chat Completions / Messages
    ("tool_call_metadata", "model_response", "usage"),      # OpenHands
    ("usage",),                                             # Inspect AI (per model call)
    ("raw", "usage"),           # span formats, the event kept whole (it has a note)
    ("tokens",),                                            # Gemini CLI
)
#: The names each figure goes by, in the formats above.
FIGURES = {
    "input": ("input_tokens", "prompt_tokens", "input"),
    "output": ("output_tokens", "completion_tokens", "output"),
    "cache_read": ("cache_read_input_tokens", "cached_input_tokens", "input_tokens_cache_read",
                   "cached"),
    "cache_write": ("cache_creation_input_tokens",),
}


def reported_usage(raw: str | dict | None) -> dict[str, int] | None:
    """The usage a raw record reports (figures of :data:`FIGURES` it has), else None."""
    if raw is None:
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    for path in USAGE_PATHS:
        found = raw
        for key in path:
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, dict):
            usage = {}
            for name, keys in FIGURES.items():
                value = next((found[k] for k in keys if _count(found.get(k))), None)
                if value is not None:
                    usage[name] = int(value)
            if "input" in usage or "output" in usage:
                return usage
    return None


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def usage_text(usage: dict[str, int]) -> str:
    """``input 1,124 · output 23 · cache read 0`` (the figures present)."""
    return " · ".join(f"{name.replace('_', ' ')} {usage[name]:,}" for name in FIGURES
                      if name in usage)


@dataclass(frozen=True)
class SessionUsage:
    """What the writer reported over a session: how many responses, and their output tokens
    in all. (Input counts are not summed: every response's input covers the whole prompt,
    and formats differ on whether cached tokens are part of it.)"""

    responses: int = 0
    output: int = 0

    def text(self) -> str:
        if not self.responses:
            return "no reported usage"
        return f"reported usage of {self.responses:,} response(s): {self.output:,} output tokens"


def session_usage(raws) -> SessionUsage:
    """Sum the usage of a session's events (their ``raw`` values, in any order)."""
    found = [u for u in map(reported_usage, raws) if u is not None]
    return SessionUsage(len(found), sum(u.get("output", 0) for u in found))
