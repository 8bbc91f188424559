"""Reported usage: the token counts a model reported for a whole response, as the readers
keep them in the ``raw`` of the response's first event (LOG-FORMATS.md §1). Shown beside
the estimate, never used as an event's cost (FORMAT.md, ``tokens``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import chain

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
    found = _usage_of(raw)
    return found[0] if found else None


def _usage_of(raw: str | dict | None) -> tuple[dict[str, int], str | None] | None:
    """The usage a raw record reports and the id of the response it is the usage of (the
    ``id`` beside it: ``message.id``, ``response.id``, ``model_response.id``), else None."""
    if raw is None:
        return None
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return None
    for path in USAGE_PATHS:
        found, holder = raw, None
        for key in path:
            holder = found
            found = found.get(key) if isinstance(found, dict) else None
        if isinstance(found, dict):
            usage = {}
            for name, keys in FIGURES.items():
                value = next((found[k] for k in keys if _count(found.get(k))), None)
                if value is not None:
                    usage[name] = int(value)
            if "input" in usage or "output" in usage:
                ident = holder.get("id") if isinstance(holder, dict) else None
                return usage, ident if isinstance(ident, str) and ident else None
    return None


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def usage_text(usage: dict[str, int]) -> str:
    """``input 1,124 · output 23 · cache read 0`` (the figures present)."""
    return " · ".join(f"{name.replace('_', ' ')} {usage[name]:,}" for name in FIGURES
                      if name in usage)


@dataclass(frozen=True)
class SessionUsage:
    """What the writer reported over a session (or a corpus): how many responses, and their
    input, cached input and output tokens in all, each response counted once. ``input`` is
    the writer's own input figure: Anthropic's leaves the cached reads out, OpenAI's holds
    them. Shown, never used as a cost."""

    responses: int = 0
    output: int = 0
    input: int = 0
    cached_input: int = 0

    def text(self) -> str:
        if not self.responses:
            return "no reported usage"
        return (f"reported usage of {self.responses:,} response(s): input {self.input:,} · "
                f"cached input {self.cached_input:,} · output {self.output:,} tokens")

    def __add__(self, other: SessionUsage) -> SessionUsage:
        return SessionUsage(self.responses + other.responses, self.output + other.output,
                            self.input + other.input, self.cached_input + other.cached_input)

    def as_dict(self) -> dict[str, int]:
        """The ``audit --json`` figures."""
        return {"responses": self.responses, "input": self.input,
                "cached_input": self.cached_input, "output": self.output}


def session_usage(raws) -> SessionUsage:
    """The usage of a session's events (their ``raw`` values, in file order), one count per
    response: a response's usage written again on later records (streaming writers repeat
    it on every line; OpenHands copies it onto the observation) counts once, with its last
    figures. A response is known by the id beside its usage, else by the event's
    ``message_id``; ``raws`` may give (message_id, raw) pairs or raw values alone (each its
    own response when no id is beside the usage)."""
    last: dict[object, dict[str, int]] = {}
    for n, item in enumerate(raws):
        message_id, raw = item if isinstance(item, tuple) else (None, item)
        found = _usage_of(raw)
        if found is None:
            continue
        usage, ident = found
        key = ("response", ident) if ident else ("message", message_id) if message_id else n
        last.pop(key, None)   # the last figures, at the place of the last record
        last[key] = usage
    return SessionUsage(len(last), sum(u.get("output", 0) for u in last.values()),
                        sum(u.get("input", 0) for u in last.values()),
                        sum(u.get("cache_read", 0) for u in last.values()))


def corpus_usage(rows) -> dict:
    """The ``audit --json`` ``usage``: the corpus's figures and each session's (those with
    any), from (session_id, message_id, raw) rows ordered by session, then file order."""
    sessions: dict[str, SessionUsage] = {}
    current, pending = None, []
    for session_id, message_id, raw in chain(rows, [(None, None, None)]):
        if session_id != current:
            if current is not None and (found := session_usage(pending)).responses:
                sessions[current] = found
            current, pending = session_id, []
        pending.append((message_id, raw))
    total = sum(sessions.values(), SessionUsage())
    return {**total.as_dict(), "sessions": {k: v.as_dict() for k, v in sessions.items()}}
