"""The file names each reader's files usually have, for the window's File → Open filters.

Readers recognise a file by its content (``matches(path, head)``), not by its name: these
patterns only choose what an open dialog lists. Every reader of
:data:`explorer.formats.registry.READERS` has its entry (a test checks it), so the default
filter, "every format Turnscope reads", lists every file one of them could take.
"""

from __future__ import annotations

from explorer.formats.registry import READERS

_GZ = ("*.gz",)
#: Reader name → (what the dialog calls it, its usual file patterns).
PATTERNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "claude-code": ("Claude Code transcripts", ("*.jsonl", "*.jsonl.gz")),
    "swe-agent": ("SWE-agent trajectories", ("*.traj", "*.traj.gz", "*.json")),
    "openhands-v1": ("OpenHands V1 agent-SDK events", ("*.jsonl", "*.json", "event-*.json")),
    "openhands": ("OpenHands event streams", ("*.json", "*.json.gz", "*.jsonl")),
    "inspect-ai": ("Inspect AI eval logs", ("*.eval", "*.json")),
    "gemini-cli": ("Gemini CLI chats", ("*.json",)),
    "codex-cli": ("Codex CLI rollouts", ("*.jsonl", "*.jsonl.gz")),
    "spring-ai-session": ("Spring AI session rows", ("*.csv", "*.tsv", "*.json", "*.jsonl")),
    "spring-ai-session-owners": ("Spring AI session owners",
                                 ("*.csv", "*.tsv", "*.txt", "*.json", "*.jsonl")),
    "anthropic-messages": ("Anthropic Messages bodies and cassettes",
                           ("*.json", "*.yaml", "*.yml", "*.har")),
    "openai-chat-completions": ("OpenAI Chat Completions bodies and cassettes",
                                ("*.json", "*.yaml", "*.yml", "*.har")),
    "openai-responses": ("OpenAI Responses cassettes and HAR files",
                         ("*.json", "*.yaml", "*.yml", "*.har")),
    "atif": ("ATIF trajectories", ("*.json", "*.jsonl")),
    "langfuse": ("Langfuse trace exports", ("*.json", "*.jsonl")),
    "otel-json": ("OpenTelemetry GenAI traces, OTLP JSON", ("*.json", "*.jsonl")),
    "tsframes": ("Turnscope framed logs", ("*.tsframes",)),
    "canonical-parquet": ("Canonical Parquet", ("*.parquet",)),
    "canonical-jsonl": ("Canonical JSON Lines", ("*.jsonl", "*.ndjson", "*.jsonl.gz",
                                                 "*.ndjson.gz")),
    "canonical-csv": ("Canonical CSV", ("*.csv",)),
}


def open_filters() -> list[str]:
    """The filters of an open dialog: every format first (the default), one per reader in
    precedence order, then all files."""
    every = list(dict.fromkeys(p for r in READERS for p in PATTERNS[r.NAME][1]))
    every += [g for g in _GZ if g not in every]
    filters = [f"Every format Turnscope reads ({' '.join(every)})"]
    filters += [f"{PATTERNS[r.NAME][0]} ({' '.join(PATTERNS[r.NAME][1])})" for r in READERS]
    return [*filters, "All files (*)"]
