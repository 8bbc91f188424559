"""The corpus search (the box over the window's session list): the sessions whose events'
text holds some words, each with its number of matching events and the first of them.

A scan of every text (``queries/corpus_text_search.sql``), case folded, no index:
``benchmarks/bench_corpus_search.py`` prints what it costs. Run off the GUI thread (it takes
``should_stop`` and is interrupted through the store by the caller)."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.store.db import Db

#: The most sessions listed (the most matching first).
LIMIT = 1_000
#: The snippet of a match: this many characters around it.
AROUND = 60


@dataclass(frozen=True)
class SessionHit:
    session_id: str
    events: int          # events of the session whose text holds the words
    first: dict          # the first of them: seq, sub, kind, call_id
    snippet: str         # its text around the words, on one line (log text: escape to show)


def snippet(text: str, needle: str, around: int = AROUND) -> str:
    """``text`` around the first place that holds ``needle`` (case folded), on one line."""
    at = text.lower().find(needle.lower())
    start = max(0, at - around) if at >= 0 else 0
    cut = text[start:start + len(needle) + 2 * around]
    return ("…" if start else "") + " ".join(cut.split()) + ("…" if start + len(cut) < len(text)
                                                             else "")


def literal_pattern(words: str) -> str:
    """``words`` as an RE2 pattern matching them literally, case folded (``\\Q…\\E``; a
    ``\\E`` inside the words is closed and written escaped)."""
    return "(?i)\\Q" + words.replace("\\E", "\\E\\\\E\\Q") + "\\E"


def search(db: Db, words: str, limit: int = LIMIT) -> list[SessionHit]:
    """The sessions whose text holds ``words`` (one substring, case folded)."""
    needle = words.strip().lower()
    if not needle:
        return []
    rows = db.run("corpus_text_search", pattern=literal_pattern(words.strip()), limit=limit)
    return [SessionHit(sid, events, {"seq": seq, "sub": sub, "kind": kind, "call_id": call},
                       snippet(text or "", needle))
            for sid, events, seq, sub, kind, call, text in rows]
