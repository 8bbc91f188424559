"""What a word is to the corpus search's index, and what the index can answer of a search.

The search matches its words as one literal substring, case folded the way RE2's ``(?i)``
folds (``explorer.session.corpus_search.literal_pattern``). The index folds a text with
:data:`FOLD` and keeps its *words*, the runs of :data:`TOKEN` (letters, digits, marks and
``_``; Han, Hiragana and Katakana are not word characters: a CJK text has no spaces, its
runs would each be new). :data:`FOLD` maps every character to one character, and two
characters RE2 folds together to the same one (``tests/test_search_index.py`` checks it
over every cased code point), so where the search's words occur in a text, their folded
form occurs in the folded text, and their runs are words of it: the middle ones whole, the
first ending one, the last beginning one (or holding it, when the search is one run).

The index also keeps the *symbol runs* of a text (:data:`SYMBOL`: characters that are no
word character, no CJK and no ASCII white space: ``{"``, ``->``, ``。``) as terms of their
own, alike: the search's runs (:data:`TERM`) are its words and its symbol runs, the
character classes are the text's, so the same holds of them.

The index is exact for a search that is one run and nothing else (``whole``): its events
are the matches; otherwise it narrows the events to those holding a term of every run,
and their texts are matched (``verify``). A search of CJK and white space alone has nothing to ask the index (:attr:`Plan.scan`): a CJK index of
character pairs would hold a term per CJK character of the texts (measured: about 390 M
postings, 900 MB and 310 CPU-s to build on ``generate --sessions 5000 --turns 50 --text``),
so such a search is a bounded scan (``explorer.session.corpus_search.SCAN_TEXTS``).
:data:`FOLD` folds İ and ı to two letters of their own, as RE2 does not fold them with
``i``; those four letters fold coarser than RE2, so a search holding one is verified.
A search made only of :data:`CASELESS` characters (CJK, punctuation, digits) has no other
case: its texts are matched with a plain substring test, not RE2's ``(?i)``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import lru_cache

import duckdb

import queries

#: The folded text, a SQL fragment over a column ``text``: one character each, RE2's
#: case folding orbits (İ and ı first set apart: upper() would make them I).
FOLD = "lower(upper(translate(text, 'İı', 'ꟷᴉ')))"
#: Where :data:`FOLD` is coarser than RE2 (İ and ꟷ, ı and ᴉ fold together).
COARSE = frozenset("İıꟷᴉ")
#: A word: a run of letters (not Han, Hiragana, Katakana), digits, marks and ``_``.
TOKEN = r"(?:[^\P{L}\p{Han}\p{Hiragana}\p{Katakana}]|[\p{N}\p{M}_])+"
#: A symbol run: characters that are no word character, no CJK letter, no ASCII white space.
SYMBOL = r"[^\p{L}\p{N}\p{M}_\s]+"
#: The runs the index keeps of a folded text (its terms): its words and its symbol runs.
TERM = f"{TOKEN}|{SYMBOL}"
#: Characters RE2's ``(?i)`` folds with no other (``tests/test_search_index.py`` checks it
#: over every code point): CJK, punctuation, spaces, controls, ASCII digits and symbols.
CASELESS = r"[\p{Han}\p{Hiragana}\p{Katakana}\p{P}\p{Zs}\p{Cc}0-9$+<=>^`|~]"


@dataclass(frozen=True)
class Plan:
    """What the index is asked of a search: its runs, each matched against the
    vocabulary as its mode says, and whether the candidates' texts must be matched."""

    runs: tuple[str, ...]    # the words' runs of TERM, in order
    modes: tuple[str, ...]   # 'exact', 'prefix', 'suffix' or 'contains' per run
    verify: bool
    caseless: bool = False   # the words have no other case: a substring test matches them

    @property
    def scan(self) -> bool:
        """Nothing to ask the index: every text is matched."""
        return not self.runs


#: A connection of its own for the plans (no table read): compiling :data:`TOKEN` costs
#: tens of milliseconds, so a search's plan is made once.
_PLANNER: list[duckdb.DuckDBPyConnection] = []   # made on the first plan
_PLANNING = threading.Lock()


@lru_cache(maxsize=1024)
def plan(words: str) -> Plan:
    """What the index can answer of ``words`` (the search, stripped)."""
    with _PLANNING:
        if not _PLANNER:
            _PLANNER.append(duckdb.connect())
        runs, open_left, open_right, whole, caseless = _PLANNER[0].execute(
            queries.render("search_needle", fold=FOLD),
            {"words": words, "term": TERM, "caseless": CASELESS},
        ).fetchone()
    runs = tuple(runs)
    if not runs:
        return Plan((), (), True, caseless)
    last = len(runs) - 1
    modes = []
    for i in range(len(runs)):
        left, right = i == 0 and open_left, i == last and open_right
        modes.append("contains" if left and right else "suffix" if left
                     else "prefix" if right else "exact")
    return Plan(runs, tuple(modes), not whole or bool(COARSE & set(words)), caseless)
