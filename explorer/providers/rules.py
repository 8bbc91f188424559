"""The providers and rules of PROVIDERS.md, in its order, with the texts providers return.

``{N}`` is the message index (for ``bedrock.expected`` the printed ``N+1``), ``{M}`` the
block index, ``{ID}`` the ids joined with ``, ``.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The providers, in PROVIDERS.md's order (``--provider`` names), and how the window names them.
PROVIDERS = ("anthropic", "bedrock", "openai-chat", "openai-responses", "gemini")
LABELS = {"anthropic": "Anthropic", "bedrock": "Bedrock", "openai-chat": "OpenAI Chat",
          "openai-responses": "OpenAI Responses", "gemini": "Gemini"}


@dataclass(frozen=True)
class ProviderRule:
    """One rule: its name, provider and the text the provider returns."""

    name: str
    text: str

    @property
    def provider(self) -> str:
        return self.name.split(".")[0]

    def render(self, n: int, m: int | None, ids: tuple[str, ...]) -> str:
        return self.text.format(N=n, M=m, ID=", ".join(ids))


RULES = (
    ProviderRule("anthropic.unanswered",
                 "messages.{N}: `tool_use` ids were found without `tool_result` blocks "
                 "immediately after: {ID}. Each `tool_use` block must have a corresponding "
                 "`tool_result` block in the next message."),
    ProviderRule("anthropic.unexpected",
                 "messages.{N}.content.{M}: unexpected `tool_use_id` found in `tool_result` "
                 "blocks: {ID}. Each `tool_result` block must have a corresponding `tool_use` "
                 "block in the previous message."),
    ProviderRule("anthropic.duplicate", "messages.{N}.content.{M}: `tool_use` ids must be unique"),
    ProviderRule("anthropic.multiple-results",
                 "messages.{N}.content.{M}: each tool_use must have a single result. Found "
                 "multiple `tool_result` blocks with id: {ID}"),
    ProviderRule("bedrock.expected",
                 "Expected toolResult blocks at messages.{N}.content for the following Ids: {ID}"),
    ProviderRule("bedrock.exceeds",
                 "The number of toolResult blocks at messages.{N}.content exceeds the number of "
                 "toolUse blocks of previous turn."),
    ProviderRule("bedrock.duplicate",
                 "The toolUse blocks at messages.{N}.content contain duplicate Ids: {ID}"),
    ProviderRule("bedrock.first-user",
                 "A conversation must start with a user message. Try again with a conversation "
                 "that starts with a user message."),
    ProviderRule("openai-chat.unanswered",
                 "An assistant message with 'tool_calls' must be followed by tool messages "
                 "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                 "response messages: {ID}"),
    ProviderRule("openai-chat.foreign-id",
                 "Invalid parameter: 'tool_call_id' of '{ID}' not found in 'tool_calls' of "
                 "previous message."),
    ProviderRule("openai-chat.orphan",
                 "Invalid parameter: messages with role 'tool' must be a response to a "
                 "preceeding message with 'tool_calls'."),
    ProviderRule("openai-responses.no-output", "No tool output found for function call {ID}."),
    ProviderRule("openai-responses.no-call",
                 "No tool call found for function call output with call_id {ID}."),
    ProviderRule("gemini.count",
                 "Please ensure that the number of function response parts is equal to the "
                 "number of function call parts of the function call turn."),
    ProviderRule("gemini.response-order",
                 "Please ensure that function response turn comes immediately after a function "
                 "call turn."),
    ProviderRule("gemini.call-order",
                 "Please ensure that function call turn comes immediately after a user turn or "
                 "after a function response turn."),
)
RULE_INDEX = {r.name: i for i, r in enumerate(RULES)}
#: The rules whose violations name a block (``content_index``).
WITH_CONTENT = ("anthropic.unexpected", "anthropic.duplicate", "anthropic.multiple-results")


def rule(name: str) -> int:
    """The index of rule ``name`` in :data:`RULES`."""
    return RULE_INDEX[name]


def parse_providers(text: str | None) -> tuple[str, ...]:
    """``--provider P,P|all`` as providers in PROVIDERS.md's order (ValueError naming an
    unknown one)."""
    if text is None or text.strip() == "all":
        return PROVIDERS
    asked = [p.strip() for p in text.split(",") if p.strip()]
    unknown = [p for p in asked if p not in PROVIDERS]
    if unknown or not asked:
        raise ValueError(f"unknown provider {', '.join(map(repr, unknown)) or repr(text)}; "
                         f"the providers are {', '.join(PROVIDERS)} or all")
    return tuple(p for p in PROVIDERS if p in asked)
