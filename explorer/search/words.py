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

The index is exact for a search that is one run and nothing else (``whole``), its events
are the matches; otherwise it narrows the events to those holding a word of every run, and
their texts are matched (``verify``). A search without a word character (``{"`` or
``、。``, CJK alone) has nothing to ask the index: it is a scan of every text (:data:`SCAN`).
:data:`FOLD` folds İ and ı to two letters of their own, as RE2 does not fold them with
``i``; those four letters fold coarser than RE2, so a search holding one is verified.
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


@dataclass(frozen=True)
class Plan:
    """What the index is asked of a search: its runs, each matched against the
    vocabulary as its mode says, and whether the candidates' texts must be matched."""

    runs: tuple[str, ...]
    modes: tuple[str, ...]   # 'exact', 'prefix', 'suffix' or 'contains' per run
    verify: bool

    @property
    def scan(self) -> bool:
        """Nothing to ask the index: every text is matched."""
        return not self.runs


#: The plan of a search without a word character.
SCAN = Plan((), (), True)


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
        runs, open_left, open_right, whole = _PLANNER[0].execute(
            queries.render("search_needle", fold=FOLD), {"words": words, "token": TOKEN}
        ).fetchone()
    runs = tuple(runs)
    if not runs:
        return SCAN
    last = len(runs) - 1
    modes = []
    for i in range(len(runs)):
        left, right = i == 0 and open_left, i == last and open_right
        modes.append("contains" if left and right else "suffix" if left
                     else "prefix" if right else "exact")
    return Plan(runs, tuple(modes), verify=not whole or bool(COARSE & set(words)))
