"""The corpus search (the box over the window's session list): the sessions whose events'
text holds some words, each with its number of matching events and the first of them.

The words are one literal substring, case folded (RE2's ``(?i)``). They are looked up in
the index of every text's words (:mod:`explorer.search`, brought in step with the events
first: built on the first search after an import), ``queries/corpus_index_search.sql``;
words without a letter or digit (punctuation, CJK alone) are a scan of every text
(``queries/corpus_text_search.sql``): the same rows, slower.
``benchmarks/bench_corpus_search.py`` prints what both cost. Run off the GUI thread (it
takes ``progress`` and ``should_stop``, and is interrupted through the store by the
caller)."""

from __future__ import annotations

from dataclasses import dataclass

from explorer.jobs import ProgressHook, StopHook
from explorer.search import index
from explorer.search.words import plan
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


#: The candidates of the index, as they are kept: all of them, or those whose text matches.
_VERIFIED = {False: "SELECT eid FROM candidates",
             True: "SELECT c.eid FROM candidates c JOIN event_details d USING (eid)"
                   " WHERE regexp_matches(d.text, $pattern)"}


def search(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
           progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> list[SessionHit]:
    """The sessions whose text holds ``words`` (one substring, case folded). ``indexed``
    False: a scan of every text whatever the words (what the index is tested against);
    ``progress`` and ``should_stop`` see the index being brought in step."""
    words = words.strip()
    needle = words.lower()
    if not needle:
        return []
    asked = plan(words) if indexed else None
    if asked is None or asked.scan:
        rows = db.run("corpus_text_search", pattern=literal_pattern(words), limit=limit)
    else:
        index.ensure(db, progress, should_stop)
        pattern = {"pattern": literal_pattern(words)} if asked.verify else {}
        rows = db.run("corpus_index_search", {"verified": _VERIFIED[asked.verify]},
                      runs=list(asked.runs), modes=list(asked.modes), limit=limit, **pattern)
    return [SessionHit(sid, events, {"seq": seq, "sub": sub, "kind": kind, "call_id": call},
                       snippet(text or "", needle))
            for sid, events, seq, sub, kind, call, text in rows]
