"""The readers :func:`explorer.formats.detect` tries, in order: the first whose
``matches(path, head)`` accepts a file reads it. Agent-tool formats come first (their files
are JSON too, and the canonical JSON Lines sniffer would take any object per line).

Adding a format is its reader module (explorer/formats/reader.py says what it holds) and
one line here.
"""

from __future__ import annotations

from explorer.formats import (
    anthropic_messages,
    atif,
    canonical_csv,
    canonical_jsonl,
    canonical_parquet,
    claude_code,
    codex_cli,
    gemini_cli,
    inspect_ai,
    langfuse,
    openai_chat,
    openai_responses,
    openhands,
    openhands_v1,
    otlp_json,
    spring_ai,
    spring_ai_owners,
    swe_agent,
    tsframes,
)
from explorer.formats.reader import Reader

#: Every reader, in precedence order: those of LOG-FORMATS.md, then those of FORMAT.md.
READERS: tuple[Reader, ...] = (
    tsframes,   # by its extension: frames, not text
    claude_code,
    swe_agent,
    openhands_v1,
    openhands,
    inspect_ai,
    gemini_cli,
    codex_cli,
    spring_ai,
    spring_ai_owners,
    anthropic_messages,
    openai_chat,
    openai_responses,
    atif,
    langfuse,
    otlp_json,
    canonical_parquet,
    canonical_jsonl,
    canonical_csv,
)
