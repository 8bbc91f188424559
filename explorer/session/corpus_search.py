"""The corpus search (the box over the window's session list): the sessions whose events'
text holds some words, each with its number of matching events and the first of them.

The words are one literal substring, case folded (RE2's ``(?i)``). They are looked up in
the index of every text's words (:mod:`explorer.search`, brought in step with the events
first: built on the first search after an import), ``queries/corpus_index_search.sql``:
its words and symbols narrow the events, whose texts are then matched when the index's
answer is not the match itself. Words of CJK and white space alone give the index nothing
to ask: they are a scan (``queries/corpus_text_search.sql``). A search is made in
:func:`steps`, each a result: when it cannot be answered at once (≤ 1 s), its first step
reads the texts of the last :data:`SCAN_TEXTS` import positions only (a full scan of 1.4 M
texts costs 2 CPU-s): CJK alone; words the index narrows to more than
:data:`VERIFY_TEXTS` texts to match (common words side by side, CJK beside punctuation);
words whose terms have more than :data:`MOST_POSTINGS` postings. Its next steps read the
older texts, :data:`SCAN_TEXTS` import positions each, newest first, adding up what each
finds, until the last step's result is complete. :func:`find` is the complete result (or
the first). ``benchmarks/bench_corpus_search.py`` prints what each costs. Run off the GUI
thread: it takes ``progress`` and ``should_stop``; a stop interrupts the statement running.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import duckdb

import queries
from explorer.jobs import Cancelled, ProgressHook, StopHook, check
from explorer.search import index
from explorer.search.words import plan
from explorer.store.db import Db, run_watched

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
    """What a search found so far: its hits; ``bounded_from``, the first import position
    it read when it read only the texts of the last ones (None: it read or asked every
    text, the result is complete); ``bound``: how many import positions a bounded first
    step reads; ``older``: how many import positions the first step left to the next
    steps (0: none), and ``read``: how many of them were read."""

    hits: list[SessionHit]
    bounded_from: int | None
    bound: int
    older: int = 0
    read: int = 0

    @property
    def complete(self) -> bool:
        return self.bounded_from is None


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


#: An import position past every event: the end of a range that reads them all.
_LAST = 2**62


def search(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
           bound: int | None = None, most: int | None = None, postings: int | None = None,
           progress: ProgressHook | None = None,
           should_stop: StopHook | None = None) -> list[SessionHit]:
    """The sessions whose text holds ``words`` (one substring, case folded): the hits of
    :func:`find`'s complete result."""
    return find(db, words, limit, indexed=indexed, bound=bound, most=most,
                postings=postings, progress=progress, should_stop=should_stop).hits


def find(db: Db, words: str, limit: int = LIMIT, *, complete: bool = True, **how) -> Found:
    """The last of :func:`steps` (its complete result), or with ``complete`` False the
    first (within 1 s, maybe bounded). ``how``: :func:`steps`'s keywords."""
    found = None
    for found in steps(db, words, limit, **how):
        if not complete:
            break
    return found


def steps(db: Db, words: str, limit: int = LIMIT, *, indexed: bool = True,
          bound: int | None = None, most: int | None = None, postings: int | None = None,
          progress: ProgressHook | None = None,
          should_stop: StopHook | None = None) -> Iterator[Found]:
    """The sessions whose text holds ``words`` (one substring, case folded), step by step:
    one result, complete, or a first one read from the last ``bound`` import positions,
    then one per ``bound`` older import positions read, the last complete. ``indexed``
    False: a scan of every text whatever the words (what the index is tested against).
    The first step is bounded for words the index cannot narrow, words it narrows to more
    than ``most`` texts to match, or whose terms have more than ``postings`` postings
    (None: :data:`SCAN_TEXTS`, :data:`VERIFY_TEXTS`, :data:`MOST_POSTINGS`). ``progress``
    sees the index being brought in step; once ``should_stop()`` is true the statement
    running is interrupted and :class:`~explorer.jobs.Cancelled` raised."""
    bound = SCAN_TEXTS if bound is None else bound
    words = words.strip()
    if not words:
        yield Found([], None, bound)
        return
    search = _Search(db, words, indexed, should_stop)
    tally = _Tally(db, words.lower(), limit)
    start = db.one("corpus_scan_from", bound=bound)
    first = start["first"] if start["bounded"] else None
    if search.asked is None:
        if not indexed or first is None:
            tally.add(search.scan(0, _LAST))
            yield tally.found(None, bound)
            return
        tally.add(search.scan(first, _LAST))
    else:
        index.ensure(db, progress, should_stop)
        most = _LAST if first is None else VERIFY_TEXTS if most is None else most
        postings = _LAST if first is None else MOST_POSTINGS if postings is None else postings
        rows = search.indexed(0, _LAST, first or 0, most, postings)
        tally.add(rows)
        if not rows[0][-1]:
            yield tally.found(None, bound)
            return
    older = first - start["low"]
    yield tally.found(first, bound, older, 0)
    for high in range(first - 1, start["low"] - 1, -bound):
        low = max(start["low"], high - bound + 1)
        check(should_stop, "the corpus search")
        tally.add(search.scan(low, high) if search.asked is None else
                  search.indexed(low, high, 0, _LAST, _LAST))
        yield tally.found(low if low > start["low"] else None, bound, older, first - low)


class _Search:
    """How the texts of a range of import positions are searched for some words: a scan,
    or through the index (:attr:`asked`, None for a scan)."""

    def __init__(self, db: Db, words: str, indexed: bool, should_stop: StopHook | None) -> None:
        self.db, self.should_stop = db, should_stop
        asked = plan(words)
        self.asked = asked if indexed and not asked.scan else None
        caseless = asked.caseless and indexed     # the scan it is tested against: RE2's
        self.match = _MATCH[caseless]
        self.value = {"words": words} if caseless else {"pattern": literal_pattern(words)}

    def scan(self, low: int, high: int) -> list[tuple]:
        """Per session of the texts ``low..high`` holding the words: its id, events, first."""
        return self._run("corpus_text_search", {"match": self.match}, low=low, high=high,
                         **self.value)

    def indexed(self, low: int, high: int, first: int, most: int,
                postings: int) -> list[tuple]:
        """As :meth:`scan`, through the index, each row ending with whether the candidates
        were bounded to those from ``first`` on (more than ``most`` texts to match, or
        their terms more than ``postings`` postings); one row at least."""
        asked = self.asked
        verified = _VERIFIED[asked.verify].replace("/*MATCH*/", self.match)
        return self._run("corpus_index_search", {"verified": verified},
                         runs=list(asked.runs[:MAX_RUNS]), modes=list(asked.modes[:MAX_RUNS]),
                         low=low, high=high, first=first,
                         most=most if asked.verify else _LAST, postings=postings,
                         **(self.value if asked.verify else {}))

    def _run(self, name: str, fragments: dict, **params) -> list[tuple]:
        try:
            return run_watched(self.db, queries.render(name, **fragments), params, None,
                               self.should_stop)
        except duckdb.InterruptException as exc:
            raise Cancelled("the corpus search") from exc


class _Tally:
    """The matching events per session over the steps read, and the first of them; a
    result of the most matching (with their first match's snippet)."""

    def __init__(self, db: Db, needle: str, limit: int) -> None:
        self.db, self.needle, self.limit = db, needle, limit
        self.sessions: dict[str, list] = {}      # session id: [events, (seq, sub, eid)]
        self.texts: dict[int, tuple] = {}        # eid: kind, call_id, text of a first match

    def add(self, rows: list[tuple]) -> None:
        for sid, events, first, *_bounded in rows:
            if sid is None:
                continue
            had = self.sessions.get(sid)
            if had is None:
                self.sessions[sid] = [events, tuple(first)]
            else:
                had[0] += events
                had[1] = min(had[1], tuple(first))

    def found(self, bounded_from: int | None, bound: int, older: int = 0,
              read: int = 0) -> Found:
        top = sorted(self.sessions.items(), key=lambda kv: (-kv[1][0], kv[0]))[:self.limit]
        wanted = [first[2] for _sid, (_events, first) in top if first[2] not in self.texts]
        if wanted:
            for eid, *row in self.db.run("corpus_search_firsts", eids=wanted):
                self.texts[eid] = tuple(row)
        hits = []
        for sid, (events, (seq, sub, eid)) in top:
            kind, call, text = self.texts[eid]
            hits.append(SessionHit(sid, events, {"seq": seq, "sub": sub, "kind": kind,
                                                 "call_id": call},
                                   snippet(text or "", self.needle)))
        return Found(hits, bounded_from, bound, older, read)
