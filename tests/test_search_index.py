"""The corpus search's index (explorer/search, issue 17): its answers are the scan's, on the
real corpus and on generated text, for words, prefixes, substrings, phrases, any case,
non-ASCII and control characters; it follows later imports and changed files; its case
folding is RE2's (checked over every cased code point)."""

from __future__ import annotations

import random
import re
from collections import Counter

import duckdb
import pytest

from explorer.ingest.imports import import_paths
from explorer.jobs import Cancelled
from explorer.search import index
from explorer.search.words import CASELESS, COARSE, FOLD, TOKEN, plan
from explorer.session.corpus_search import MAX_RUNS, find, search, steps
from explorer.store.db import Store
from explorer.store.save_as import save_as
from tests.conftest import CORPUS
from tests.helpers import imported_generated

#: Searches any corpus is asked: case, RE2's special folds (Kelvin sign, long s, final
#: sigma, dotted and dotless i), accents composed and not, CJK, control characters,
#: punctuation alone and beside words or CJK, an RE2 quote inside the words, phrases.
FIXED = ("the", "THE", "The", "otel", "OTEL", "conf", "ile", "error:", "def ", " import",
         '{"', "a b", "i", "I", "İ", "ı", "K", "k", "\u212a", "s", "ſ", "ß", "ẞ", "σ", "ς",
         "Σ", "é", "e\u0301", "日本", "的", "的一", "、", "\x1b[", "\x1b", "\t", "\x07", "...",
         "x", "_", "tool_use", "Tool_Use", "\\E", "a\\Eb", "\\Q", "zqxjvk", "--", "0",
         "http", "https://", "://", "ьд", "Привет", "über", "中文abc", "abc中", "->", "()",
         '":', "));", ". ", "a.b", "、。", "。", "的是", "想发目过", "the file", "check the file",
         "a to", "x = 1", "-->", "中。", "。中")


def _words_of(db, count: int, seed: int) -> list[str]:
    """Searches drawn from the texts themselves: a whole word, its start, its end, its
    middle, two words with what is between them, in the text's case and changed case, and
    a few characters cut anywhere (CJK, punctuation, words' ends)."""
    texts = [t for (t,) in db.con.execute(
        "SELECT text FROM event_details WHERE text IS NOT NULL ORDER BY eid").fetchall()]
    rng = random.Random(seed)
    found = []
    for _ in range(count):
        text = rng.choice(texts)
        words = [m for m in re.finditer(r"\w+", text)]
        if len(words) < 2:
            continue
        i = rng.randrange(len(words) - 1)
        word, after = words[i].group(), words[i + 1]
        cut = max(1, len(word) // 2)
        at = rng.randrange(len(text))
        found += [word, word[:cut], word[-cut:], word[1:-1] or word,
                  text[words[i].start():after.end()], word.upper(), word.swapcase(),
                  text[at:at + rng.choice((2, 3, 4, 6))]]
    return [w for w in found if w.strip()]


def _same(db, words) -> int:
    """Assert the index answers every search as the scan does; return how many matched."""
    matched = 0
    for w in words:
        indexed, scanned = search(db, w), search(db, w, indexed=False)
        assert indexed == scanned, repr(w)
        matched += bool(scanned)
    return matched


def _files(folder):
    return sorted(str(p) for p in folder.rglob("*") if p.is_file() and p.name != "SOURCES.md")


@pytest.fixture(scope="module")
def real():
    if not CORPUS.exists():
        pytest.skip("the shared corpus is not here")
    s = Store()
    import_paths(s, _files(CORPUS))
    yield s
    s.close()


def test_the_index_answers_as_the_scan_on_the_real_corpus(real):
    db = real.cursor()
    try:
        assert index.ensure(db) > 0
        terms, postings = db.con.execute(
            "SELECT (SELECT count(*) FROM search_terms), (SELECT count(*) FROM search_postings)"
        ).fetchone()
        assert terms > 1000 and postings > terms
        words = [*FIXED, *_words_of(db, 20, seed=17)]
        assert _same(db, words) > len(words) // 2
        # the index answered: without its postings a word is not found, though the scan finds it
        assert search(db, "otel") and not plan("otel").verify
        db.con.execute("CREATE TEMP TABLE kept AS SELECT * FROM search_postings")
        db.con.execute("DELETE FROM search_postings")
        assert search(db, "otel") == [] and search(db, "otel", indexed=False)
        db.con.execute("INSERT INTO search_postings SELECT * FROM kept")
    finally:
        db.close()


def test_the_index_answers_as_the_scan_on_generated_text(tmp_path):
    # English-ish and CJK sessions
    with imported_generated(tmp_path, sessions=12, turns=4, text=True) as store:
        db = store.cursor()
        words = [*FIXED, *_words_of(db, 12, seed=5)]
        assert _same(db, words) > len(words) // 2
        # words of more runs than the index is asked for (MAX_RUNS): still matched whole
        longest = max((t for (t,) in db.con.execute(
            "SELECT text FROM event_details WHERE text IS NOT NULL").fetchall()),
            key=lambda t: len(re.findall(r"\w+", t)))
        cut = longest[:longest.index(" ", len(longest) // 2)]
        assert len(plan(cut).runs) > MAX_RUNS and search(db, cut)
        assert _same(db, [cut, cut + "zq", "zq" + cut]) == 1
        db.close()


def _bounded(db, words, first, last=None):
    """The events per session of import positions ``first``..``last`` (None: every one
    after) whose text holds ``words`` (case folded by Python: the words here have one case
    only, or none)."""
    rows = db.con.execute("SELECT e.session_id, d.eid, d.text FROM events e"
                          " JOIN event_details d USING (eid)").fetchall()
    return Counter(sid for sid, eid, text in rows
                   if first <= eid <= (last if last is not None else eid)
                   and text and words in text.lower())


def _counts(found):
    return {h.session_id: h.events for h in found.hits}


def test_a_search_the_index_cannot_narrow_reads_the_last_texts_first(tmp_path):
    with imported_generated(tmp_path, sessions=12, turns=4, text=True) as store:
        db = store.cursor()
        # CJK alone: the last 60 import positions are read first
        found = find(db, "的", bound=60, complete=False)
        assert found.bounded_from is not None and not found.complete
        expected = _bounded(db, "的", found.bounded_from)
        assert expected and _counts(found) == expected
        every = find(db, "的", bound=10**9)
        assert every.bounded_from is None and every.hits == search(db, "的", indexed=False)
        assert sum(h.events for h in every.hits) > sum(expected.values())
        # words the index narrows to more than `most` texts: their last ones are read first
        for words in ("the a", "the", "的。"):
            found = find(db, words, bound=60, most=5, complete=False)
            narrow = plan(words).verify
            assert (found.bounded_from is not None) == narrow, words
            if narrow:
                expected = _bounded(db, words, found.bounded_from)
                assert _counts(found) == expected, words
            else:                          # the index's answer is exact: nothing to read
                assert found.hits == search(db, words, indexed=False)
            assert find(db, words, bound=60, most=10**9, complete=False).hits == \
                search(db, words, indexed=False)
        assert find(db, "zqxj", bound=60, most=0, complete=False).bounded_from is None
        # words whose terms have more than `postings` postings: the last ones are read first
        for words in ("e", "the", "e t"):
            found = find(db, words, bound=60, postings=5, complete=False)
            assert found.bounded_from is not None, words
            expected = _bounded(db, words, found.bounded_from)
            assert expected and _counts(found) == expected
            assert find(db, words, bound=60, postings=10**9,
                        complete=False).bounded_from is None
        db.close()


def test_a_bounded_search_goes_on_over_the_older_texts_until_it_found_every_match(tmp_path):
    """A CJK search (and words the index narrows too little) on more texts than the bound:
    its steps read the older texts, newest first, each result holding what the texts read
    so far hold, and the last one every match (issue 17: the box's search was left at the
    last texts)."""
    with imported_generated(tmp_path, sessions=12, turns=4, text=True) as store:
        db = store.cursor()
        low, high = db.con.execute("SELECT min(eid), max(eid) FROM event_details").fetchone()
        texts = high - low + 1
        for words, how in (("的", {}), ("的是", {}), ("the a", {"most": 5}),
                           ("e", {"postings": 5})):
            found = list(steps(db, words, bound=50, **how))
            first, last = found[0], found[-1]
            assert first.bounded_from == high - 49 and first.older == texts - 50 and \
                first.read == 0, words
            assert len(found) == 1 + -(-(texts - 50) // 50), words   # one step per 50 older
            for step in found:                 # what the texts read so far hold
                read = _bounded(db, words, step.bounded_from or low)
                assert _counts(step) == read, (words, step.bounded_from)
            assert [s.read for s in found] == [min(texts - 50, 50 * k)
                                               for k in range(len(found))]
            assert [s.complete for s in found] == [False] * (len(found) - 1) + [True]
            every = _bounded(db, words, low)
            assert every and _counts(last) == every, words
            assert sum(every.values()) > sum(_bounded(db, words, high - 49).values())
            assert last.hits == search(db, words, indexed=False), words
            assert find(db, words, bound=50, **how).hits == last.hits
        # the first match of each session and its snippet are the scan's
        hit = find(db, "的", bound=50).hits[0]
        assert "的" in hit.snippet and set(hit.first) == {"seq", "sub", "kind", "call_id"}
        # a stop between two steps ends it
        asked = []
        stopped = steps(db, "的", bound=50, should_stop=lambda: bool(asked))
        assert not next(stopped).complete            # the first result, then the stop
        asked.append(True)
        with pytest.raises(Cancelled):
            next(stopped)
        db.close()


def test_an_index_of_an_earlier_format_is_made_anew(tmp_path):
    with imported_generated(tmp_path, sessions=3, turns=3, text=True) as store:
        assert index.ensure(store) > 0 and index.pending(store) == 0
        # an index of format 1 kept words only: its symbol runs are not there
        store.con.execute("UPDATE meta SET value = '1' WHERE key = $k", {"k": index.FORMAT_KEY})
        store.con.execute("DELETE FROM search_postings WHERE term_id IN (SELECT term_id"
                          " FROM search_terms WHERE NOT regexp_full_match(term, $t))",
                          {"t": TOKEN})
        assert index.pending(store) > 0
        assert search(store, "->") == search(store, "->", indexed=False)
        assert search(store, "。") == search(store, "。", indexed=False) != []
        assert index.pending(store) == 0


def _session_ids(hits):
    return {h.session_id for h in hits}


def test_the_index_follows_a_second_import_and_a_changed_file(tmp_path, write_lines):
    first = write_lines("a.jsonl", '{"session_id": "s1", "seq": 1, "kind": "USER", '
                                   '"text": "Zebra crossing"}')
    store = Store(tmp_path / "t.duckdb")
    try:
        import_paths(store, [str(first)])
        db = store.cursor()
        assert _session_ids(search(db, "zebra")) == {"s1"}     # built on this first search
        assert index.pending(db) == 0
        second = write_lines("b.jsonl", '{"session_id": "s2", "seq": 1, "kind": "USER", '
                                        '"text": "a zebra, then a Yak"}')
        import_paths(store, [str(second)])
        assert index.pending(db) == 1
        assert _session_ids(search(db, "ZEBRA")) == {"s1", "s2"}
        assert _session_ids(search(db, "yak")) == {"s2"}
        # the first file changed on disk: imported again, its old words are forgotten
        write_lines("a.jsonl", '{"session_id": "s1", "seq": 1, "kind": "USER", '
                               '"text": "Yaks only"}')
        import_paths(store, [str(first)])
        assert _session_ids(search(db, "zebra")) == {"s2"}
        assert _session_ids(search(db, "yak")) == {"s1", "s2"}
        for words in ("zebra", "yak", "a zebra", "aks", "only", "Yaks o"):
            assert search(db, words) == search(db, words, indexed=False)
        db.close()
    finally:
        store.close()
    # the index lives in the database: reopened, it is in step, and the logs are untouched
    store = Store(tmp_path / "t.duckdb")
    try:
        assert index.pending(store) == 0
        assert _session_ids(search(store, "yak")) == {"s1", "s2"}
    finally:
        store.close()
    assert first.read_text(encoding="utf-8").count("Yaks only") == 1
    # a copy made by Save Database As… has the meta facts but not the index: built again
    copy = tmp_path / "copy.duckdb"
    store = Store(tmp_path / "t.duckdb")
    try:
        save_as(store, copy)
    finally:
        store.close()
    store = Store(copy)
    try:
        assert _session_ids(search(store, "yak")) == {"s1", "s2"}
    finally:
        store.close()


def test_a_stopped_build_keeps_its_batches_and_goes_on(tmp_path, monkeypatch):
    with imported_generated(tmp_path, sessions=4, turns=3, text=True) as store:
        monkeypatch.setattr(index, "BATCH", 10)
        total = index.pending(store)
        asked = []
        with pytest.raises(Cancelled):
            index.ensure(store, lambda d, t: asked.append(d), lambda: len(asked) > 2)
        assert 0 < index.pending(store) < total
        left = index.pending(store)
        assert index.ensure(store) == left
        assert index.pending(store) == 0
        assert search(store, "the") == search(store, "the", indexed=False)


def test_the_plan_of_a_search():
    assert plan("Config") == plan("config")
    one = plan("config")
    assert one.runs == ("config",) and one.modes == ("contains",) and not one.verify
    two = plan("foo.bar baz")
    assert two.runs == ("foo", ".", "bar", "baz") and two.verify
    assert two.modes == ("suffix", "exact", "exact", "prefix")
    assert plan(".foo.").modes == ("suffix", "exact", "prefix")
    assert plan("的一").scan and plan("的一").caseless and plan("日 本").scan
    assert plan('{"').runs == ('{"',) and not plan('{"').verify and plan('{"').caseless
    assert plan("->").modes == ("contains",) and plan(". ").modes == ("suffix",)
    assert plan("a.b").runs == ("a", ".", "b") and not plan("a.b").caseless
    assert plan("abc的").modes == ("suffix",)
    assert plan("İstanbul").verify and plan("istanbul").verify is False


def test_the_fold_is_re2s_case_folding_over_every_cased_code_point():
    """FOLD gives two characters the same letter exactly when RE2's (?i) matches one with
    the other, outside COARSE (where it is coarser, never finer)."""
    con = duckdb.connect()
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    con.execute("CREATE TABLE c AS SELECT unnest($l) AS text", {"l": chars})
    cased = [r[0] for r in con.execute(
        f"SELECT text FROM c WHERE lower(text) <> text OR upper(text) <> text "
        f"OR {FOLD} <> text").fetchall()]
    images = {r[0] for r in con.execute(
        f"SELECT unnest([lower(text), upper(text), {FOLD}]) FROM c "
        f"WHERE text IN (SELECT unnest($l))", {"l": cased}).fetchall()}
    every = sorted(set(cased) | {x for x in images if len(x) == 1})
    assert len(every) > 2500
    rows = con.execute(
        f"SELECT text, regexp_extract_all($all, '(?i)\\Q' || text || '\\E'), {FOLD} "
        f"FROM (SELECT unnest($l) AS text)", {"all": "".join(every), "l": every}).fetchall()
    folded = {c: f for c, _orbit, f in rows}
    assert all(len(f) == 1 for f in folded.values())
    for c, orbit, f in rows:
        assert {folded[d] for d in orbit} == {f}, repr(c)        # never finer than RE2
        same = {d for d in every if folded[d] == f}
        assert same == set(orbit) or c in COARSE, repr(c)       # nor coarser, but COARSE
    # CASELESS characters have no other case to RE2 (the substring test matches them)
    caseless = [r[0] for r in con.execute(
        "SELECT text FROM c WHERE regexp_full_match(text, $p)", {"p": CASELESS}).fetchall()]
    assert len(caseless) > 90_000 and "的" in caseless and "-" in caseless
    assert not set(caseless) & {c for c, orbit, _f in rows if len(orbit) > 1}
    assert not set(caseless) & set(every)
    # a word: letters but CJK, digits, marks, _
    assert con.execute(f"SELECT regexp_extract_all({FOLD}, $t) FROM (SELECT $s AS text)",
                       {"t": TOKEN, "s": "Ab_1 c的d e\u0301-x"}).fetchone()[0] == \
        ["ab_1", "c", "d", "e\u0301", "x"]
