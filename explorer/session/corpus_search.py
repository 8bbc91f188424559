"""The corpus search (the box over the window's session list): the sessions whose events'
text holds some words, each with its number of matching events and the first of them.

The words are one literal substring, case folded (RE2's ``(?i)``). They are looked up in
the index of every text's words (:mod:`explorer.search`, brought in step with the events
first: built on the first search after an import), ``queries/corpus_index_search.sql``:
its words and symbols narrow the events, whose texts are then matched when the index's
answer is not the match itself. Words of CJK and white space alone give the index nothing
to ask: they are a *bounded* scan (``queries/corpus_text_search.sql``) of the texts of the
last :data:`SCAN_TEXTS` import positions (:func:`bounded_from` says where it began; a full
scan of 1.4 M texts costs 2 CPU-s). ``benchmarks/bench_corpus_search.py`` prints what each
costs. Run off the GUI thread (it takes ``progress`` and ``should_stop``, and is
interrupted through the store by the caller)."""

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
#: The most runs the index is asked for (a bit each in a 64-bit mask): the first ones of
#: longer words, whose texts are matched all the same.
MAX_RUNS = 63
#: The import positions a search the index cannot narrow reads (the last ones): about
#: 0.5 CPU-s of CJK text on ``generate --sessions 5000 --turns 50 --text``.
SCAN_TEXTS = 300_000


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


#: Whether a text ``d.text`` holds the words: RE2's case folding, or (words without any
#: other case, explorer.search.words.CASELESS) a plain substring test, faster.
_MATCH = {False: "regexp_matches(d.text, $pattern)", True: "contains(d.text, $words)"}
#: The candidates of the index, as they are kept: all of them, or those whose text matches
#: (the match in HAVING, after the join: in WHERE DuckDB would test every text of the
#: table, not just the candidates', 2 CPU-s).
_VERIFIED = {False: "SELECT eid FROM candidates",
             True: "SELECT c.eid FROM candidates c JOIN event_details d USING (eid)"
                   " GROUP BY c.eid HAVING bool_or(/*MATCH*/)"}


def bounded_from(db: Db, words: str, bound: int = SCAN_TEXTS) -> int | None:
    """The first import position :func:`search` reads for ``words`` when it reads only the
    last ``bound`` (words the index cannot narrow, in a database of more), else None."""
    words = words.strip()
    if not words or not plan(words).scan:
        return None
    first = db.one("corpus_scan_from", bound=bound)
    return first["first"] if first["bounded"] else None


def search(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
           bound: int = SCAN_TEXTS, progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> list[SessionHit]:
    """The sessions whose text holds ``words`` (one substring, case folded). ``indexed``
    False: a scan of every text whatever the words (what the index is tested against);
    words the index cannot narrow read the texts of the last ``bound`` import positions
    only (:func:`bounded_from`); ``progress`` and ``should_stop`` see the index being
    brought in step."""
    words = words.strip()
    needle = words.lower()
    if not needle:
        return []
    asked = plan(words)
    caseless = asked.caseless and indexed     # the scan it is tested against: RE2's
    match = {"match": _MATCH[caseless]}
    value = {"words": words} if caseless else {"pattern": literal_pattern(words)}
    if not indexed or asked.scan:
        first = (bounded_from(db, words, bound) or 0) if indexed else 0
        rows = db.run("corpus_text_search", match, first=first, limit=limit, **value)
    else:
        index.ensure(db, progress, should_stop)
        verified = {"verified": _VERIFIED[asked.verify].replace("/*MATCH*/", match["match"])}
        rows = db.run("corpus_index_search", verified, runs=list(asked.runs[:MAX_RUNS]),
                      modes=list(asked.modes[:MAX_RUNS]), limit=limit,
                      **(value if asked.verify else {}))
    return [SessionHit(sid, events, {"seq": seq, "sub": sub, "kind": kind, "call_id": call},
                       snippet(text or "", needle))
            for sid, events, seq, sub, kind, call, text in rows]
