"""A provider's error text pasted by the user: which provider, which message index.

Recognises the texts of PROVIDERS.md and their other versions (Anthropic's older
``Did not find K `tool_result` block(s)``, OpenAI's newer "preceding" spelling, Claude on
Bedrock's ``The model returned the following errors:`` prefix, read as Anthropic's: the
messages are numbered alike)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_PATTERNS = (
    # (provider, rule, pattern; group "n" the index, "shift" to add to it)
    ("anthropic", "anthropic.unanswered",
     re.compile(r"messages\.(?P<n>\d+): `?tool_use`? ids were found without"), 0),
    ("anthropic", "anthropic.unanswered",
     re.compile(r"messages\.(?P<n>\d+): Did not find \d+ `?tool_result`? block"), -1),
    ("anthropic", "anthropic.unexpected",
     re.compile(r"messages\.(?P<n>\d+)\.content\.(?P<m>\d+): unexpected `?tool_use_id`?"), 0),
    ("anthropic", "anthropic.duplicate",
     re.compile(r"messages\.(?P<n>\d+)\.content\.(?P<m>\d+): `?tool_use`? ids must be unique"), 0),
    ("anthropic", "anthropic.multiple-results",
     re.compile(r"messages\.(?P<n>\d+)\.content\.(?P<m>\d+): each tool_use must have a single"),
     0),
    ("bedrock", "bedrock.expected",
     re.compile(r"Expected toolResult blocks at messages\.(?P<n>\d+)\.content"), 0),
    ("bedrock", "bedrock.exceeds",
     re.compile(r"number of toolResult blocks at messages\.(?P<n>\d+)\.content exceeds"), 0),
    ("bedrock", "bedrock.duplicate",
     re.compile(r"toolUse blocks at messages\.(?P<n>\d+)\.content contain duplicate"), 0),
    ("bedrock", "bedrock.first-user",
     re.compile(r"conversation must start with a user message"), None),
    ("openai-chat", "openai-chat.unanswered",
     re.compile(r"assistant message with 'tool_calls' must be followed by tool messages"), None),
    ("openai-chat", "openai-chat.foreign-id",
     re.compile(r"'tool_call_id' of '(?P<id>[^']*)' not found in 'tool_calls'"), None),
    ("openai-chat", "openai-chat.orphan",
     re.compile(r"[Mm]essages with role 'tool' must be a response to a (?:preceeding|preceding)"),
     None),
    ("openai-responses", "openai-responses.no-output",
     re.compile(r"No tool output found for function call (?P<id>[^\s.]+)"), None),
    ("openai-responses", "openai-responses.no-call",
     re.compile(r"No tool call found for function call output with call_id (?P<id>[^\s.]+)"),
     None),
    ("gemini", "gemini.count", re.compile(r"number of function response parts is equal"), None),
    ("gemini", "gemini.response-order",
     re.compile(r"function response turn comes immediately after"), None),
    ("gemini", "gemini.call-order", re.compile(r"function call turn comes immediately after"),
     None),
)
_INDEX = re.compile(r"messages\[(?P<n>\d+)\]|messages\.(?P<m>\d+)|input\[(?P<i>\d+)\]")


@dataclass(frozen=True)
class Pasted:
    """What a pasted error says: the rule (None: not recognised), its provider, the message
    index it names (None: it names none) and the call id it quotes."""

    provider: str | None
    rule: str | None
    message_index: int | None
    call_id: str | None = None


def read_error(text: str) -> Pasted:
    """The rule, provider, message index and id in ``text`` (a provider's error, any JSON
    or log line around it)."""
    for provider, rule, pattern, shift in _PATTERNS:
        found = pattern.search(text)
        if found is None:
            continue
        groups = found.groupdict()
        n = int(groups["n"]) + shift if groups.get("n") is not None and shift is not None \
            else (0 if rule == "bedrock.first-user" else _any_index(text))
        return Pasted(provider, rule, n, groups.get("id"))
    return Pasted(None, None, _any_index(text))


def _any_index(text: str) -> int | None:
    """A message index the text names elsewhere (``messages[3]``, ``input[7]``)."""
    found = _INDEX.search(text)
    if found is None:
        return None
    return int(next(g for g in found.groups() if g is not None))
