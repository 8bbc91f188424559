"""The corpus search (the box over the window's session list): the sessions whose events'
text holds some words, each with its number of matching events and the first of them.

The words are one literal substring, case folded (RE2's ``(?i)``). They are looked up in
the index of every text's words (:mod:`explorer.search`, brought in step with the events
first: built on the first search after an import), ``queries/corpus_index_search.sql``:
its words and symbols narrow the events, whose texts are then matched when the index's
answer is not the match itself. Words of CJK and white space alone give the index nothing
to ask: they are a *bounded* scan (``queries/corpus_text_search.sql``) of the texts of the
last :data:`SCAN_TEXTS` import positions (a full scan of 1.4 M texts costs 2 CPU-s); words
the index narrows to more than :data:`VERIFY_TEXTS` texts to match (common words side by
side, CJK beside punctuation) have those texts matched among the same last positions only,
and words whose terms have more than :data:`MOST_POSTINGS` postings are looked up there.
:func:`find` says where a bounded search began. ``benchmarks/bench_corpus_search.py`` prints what each
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
#: The import positions a search the index cannot narrow reads (the last ones). On
#: ``generate --sessions 5000 --turns 50 --text`` 300,000 cost 0.4-0.6 CPU-s of CJK text,
#: and CJK beside punctuation 0.7 (over 1 s wall at a load of 4 on 2 cores): 200,000.
SCAN_TEXTS = 200_000
#: The most texts the index's candidates may have matched before the search is bounded to
#: the last :data:`SCAN_TEXTS` import positions ('the file' on 5000x50: 287,000, 0.7 CPU-s).
VERIFY_TEXTS = 300_000
#: The most postings the words' terms may have before the search is bounded so (a word's
#: start or middle of one letter: 'e' has 12.5 M on 5000x50, 0.9 CPU-s; 'the' 211,000).
MOST_POSTINGS = 2_000_000


@dataclass(frozen=True)
class Found:
    """What a search found, and where it began reading when it read only the texts of the
    last import positions (``bounded_from``; None: it read or asked every text); ``bound``:
    how many import positions such a search reads."""

    hits: list[SessionHit]
    bounded_from: int | None
    bound: int


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
_VERIFIED = {False: "SELECT eid FROM kept",
             True: "SELECT c.eid FROM kept c JOIN event_details d USING (eid)"
                   " GROUP BY c.eid HAVING bool_or(/*MATCH*/)"}


def search(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
           bound: int | None = None, most: int | None = None, postings: int | None = None,
           progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> list[SessionHit]:
    """The sessions whose text holds ``words`` (one substring, case folded): :func:`find`'s
    hits."""
    return find(db, words, limit, indexed=indexed, bound=bound, most=most,
                postings=postings, progress=progress, should_stop=should_stop).hits


def find(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
         bound: int | None = None, most: int | None = None, postings: int | None = None,
         progress: ProgressHook | None = None,
         should_stop: StopHook | None = None) -> Found:
    """The sessions whose text holds ``words`` (one substring, case folded). ``indexed``
    False: a scan of every text whatever the words (what the index is tested against).
    Words the index cannot narrow read the texts of the last ``bound`` import positions
    only, and so do words it narrows to more than ``most`` texts to match, or whose terms
    have more than ``postings`` postings (None: :data:`SCAN_TEXTS`, :data:`VERIFY_TEXTS`,
    :data:`MOST_POSTINGS`). ``progress`` and ``should_stop`` see the index being brought in
    step."""
    bound = SCAN_TEXTS if bound is None else bound
    words = words.strip()
    needle = words.lower()
    if not needle:
        return Found([], None, bound)
    asked = plan(words)
    caseless = asked.caseless and indexed     # the scan it is tested against: RE2's
    match = {"match": _MATCH[caseless]}
    value = {"words": words} if caseless else {"pattern": literal_pattern(words)}
    most = VERIFY_TEXTS if most is None else most
    postings = MOST_POSTINGS if postings is None else postings
    start = db.one("corpus_scan_from", bound=bound)
    if not indexed or asked.scan:
        first = start["first"] if indexed and start["bounded"] else None
        rows = db.run("corpus_text_search", match, first=first or 0, limit=limit, **value)
    else:
        index.ensure(db, progress, should_stop)
        verified = {"verified": _VERIFIED[asked.verify].replace("/*MATCH*/", match["match"])}
        rows = db.run("corpus_index_search", verified, runs=list(asked.runs[:MAX_RUNS]),
                      modes=list(asked.modes[:MAX_RUNS]), limit=limit, first=start["first"],
                      most=most if asked.verify and start["bounded"] else 2**62,
                      postings=postings if start["bounded"] else 2**62,
                      **(value if asked.verify else {}))
        first = start["first"] if rows[0][-1] else None
        rows = [row[:-1] for row in rows if row[0] is not None]
    return Found(_hits(rows, needle), first, bound)


def _hits(rows: list[tuple], needle: str) -> list[SessionHit]:
    return [SessionHit(sid, events, {"seq": seq, "sub": sub, "kind": kind, "call_id": call},
                       snippet(text or "", needle))
            for sid, events, seq, sub, kind, call, text in rows]
