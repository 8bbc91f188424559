"""Which reader modules of :mod:`explorer.formats` are tried, in order: the first whose
``matches(path, head)`` accepts a file reads it. Agent-tool formats come first (their files
are JSON too, and the canonical JSON Lines sniffer would take any object per line)."""

#: Readers of the formats of LOG-FORMATS.md (module names under explorer.formats).
AGENT_READERS: tuple[str, ...] = (
    "claude_code",
    "swe_agent",
    "openhands",
    "inspect_ai",
    "gemini_cli",
    "codex_cli",
    "spring_ai",
    "spring_ai_owners",
    "anthropic_messages",
    "openai_chat",
)
#: The canonical formats of FORMAT.md.
CANONICAL_READERS = ("canonical_parquet", "canonical_jsonl", "canonical_csv")
READERS = (*AGENT_READERS, *CANONICAL_READERS)
