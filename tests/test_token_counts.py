"""A real BPE tokenizer as the third estimator (FORMAT.md: "another setting, never a
requirement"): counts checked against the tokenizer package itself, never against ours."""

from __future__ import annotations

import json

import bpe_openai
import pytest

from explorer.audits import counts as audits
from explorer.cli.demo import demo_paths
from explorer.cli.main import main
from explorer.compaction import CompactionSettings, SessionLog
from explorer.compaction.settings import EVICTION_NOTICE
from explorer.compaction.transforms import for_log
from explorer.ingest.imports import import_paths
from explorer.jobs import Cancelled
from explorer.model import CostSettings
from explorer.tokens import counts as token_counts
from explorer.tokens.session_events import session_events
from tests.helpers import jsonl, load

O200K = CostSettings(tokenizer="o200k")
CL100K = CostSettings(tokenizer="cl100k")
TEXTS = ["Hello, world! How are you today?", "日本語のテキストです。", "def f(x):\n    return x ** 2\n",
         "<|endoftext|> is text here", ""]


def _bpe(name: str, text: str) -> int:
    return len(bpe_openai.get_encoding(name).encode_ordinary(text))


def _rows(texts):
    rows = [{"session_id": "s", "seq": i + 1, "kind": "USER", "text": t} for i, t in enumerate(texts)]
    rows += [{"session_id": "s", "seq": 90, "kind": "USER", "text": "x" * 100, "tokens": 7},
             {"session_id": "s", "seq": 91, "kind": "USER", "chars": 6}]
    return rows


def test_tokenizer_costs_are_the_encodings_counts(store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", _rows(TEXTS)))
    for settings, name in ((O200K, "o200k_base"), (CL100K, "cl100k_base")):
        frame = session_events(store, "s", settings=settings)
        expected = [_bpe(name, t) for t in TEXTS] + [7, 2]   # own tokens; 6 chars by the ratio
        assert frame["cost"].to_list() == expected
        assert frame["cost_source"].to_list() == ["tokenizer"] * len(TEXTS) + ["tokens", "ratios"]
    ratio = session_events(store, "s")
    assert ratio["cost_source"].to_list() == ["ratios"] * len(TEXTS) + ["tokens", "ratios"]
    # The two encodings really differ on this text: the setting is not a no-op.
    assert _bpe("o200k_base", TEXTS[1]) != _bpe("cl100k_base", TEXTS[1])


def test_tokenizer_changes_budget_figures_and_no_structural_count(store):
    load(store, *demo_paths())
    ratio = audits.session_counts(store, "seq").sort("session_id")
    bpe = audits.session_counts(store, "seq", O200K).sort("session_id")
    structural = [c for c in ratio.columns if c not in ("tokens", "cost", "total_cost")]
    assert ratio.select(structural).equals(bpe.select(structural))
    cost_column = next(c for c in ("total_cost", "cost", "tokens") if c in ratio.columns)
    assert ratio[cost_column].to_list() != bpe[cost_column].to_list()


def test_counts_are_kept_and_counted_once(store, tmp_path):
    load(store, jsonl(tmp_path / "t.jsonl", _rows(TEXTS)))
    assert token_counts.ensure(store, O200K) == len(TEXTS)
    assert token_counts.ensure(store, O200K) == 0          # fresh: nothing counted again
    assert token_counts.ensure(store, O200K, "s") == 0


def test_a_file_imported_again_is_counted_again(store, tmp_path):
    """Forgetting a changed file frees its import positions and the new events take them:
    counts of the old text must not be read for the new one."""
    path = jsonl(tmp_path / "t.jsonl", _rows(["short"]))
    load(store, path)
    assert session_events(store, "s", settings=O200K)["cost"][0] == _bpe("o200k_base", "short")
    longer = "a much longer text than before, with many more words in it " * 5
    jsonl(path, _rows([longer]))
    load(store, path)
    assert session_events(store, "s", settings=O200K)["cost"][0] == _bpe("o200k_base", longer)


def test_transforms_count_the_transformed_text(store, tmp_path):
    body = "".join(f"line {i}: value {i * i}\n" for i in range(20_000))
    rows = [{"session_id": "s", "seq": 1, "kind": "USER", "text": "go"},
            {"session_id": "s", "seq": 2, "kind": "CALL", "call_id": "c", "tool": "sh", "text": "ls"},
            {"session_id": "s", "seq": 3, "kind": "RESULT", "call_id": "c", "tool": "sh", "text": body}]
    load(store, jsonl(tmp_path / "t.jsonl", rows))
    settings = CompactionSettings(evict=True)
    log = SessionLog.from_frame("s", session_events(store, "s", settings=O200K))
    evicted = for_log(store, log, settings, O200K)
    keep = min(settings.evict_keep, len(body) // 2)
    assert evicted.notes == {2: "evicted"}
    assert int(evicted.cost[2]) == _bpe("o200k_base", body[:keep] + EVICTION_NOTICE + body[-keep:])


def test_cli_takes_the_tokenizer_and_says_when_it_is_missing(tmp_path, capsys, monkeypatch):
    path = jsonl(tmp_path / "t.jsonl", _rows(TEXTS))
    assert main(["view", str(path), "--session", "s", "--budget", "100000", "--json",
                 "--tokenizer", "cl100k"]) == 0
    items = json.loads(capsys.readouterr().out)["items"]
    by_seq = {item["seq"]: item["cost"] for item in items}
    assert by_seq == {i + 1: _bpe("cl100k_base", t) for i, t in enumerate(TEXTS)} | {90: 7, 91: 2}
    monkeypatch.setattr(token_counts, "unavailable_reason", lambda: "no bpe-openai here")
    assert main(["audit", str(path), "--tokenizer", "o200k"]) == 2
    assert "no bpe-openai here" in capsys.readouterr().err


def test_a_whole_corpus_count_can_be_cancelled_and_resumed(store, monkeypatch):
    import_paths(store, [str(p) for p in demo_paths()])
    monkeypatch.setattr(token_counts, "BATCH_ROWS", 50)
    calls = []
    with pytest.raises(Cancelled):
        token_counts.ensure(store, O200K, progress=lambda d, t: calls.append((d, t)),
                            should_stop=lambda: len(calls) >= 1)
    (done, total), = calls
    assert done == 50 < total
    assert token_counts.ensure(store, O200K) == total - done   # the rest, not all again
    assert token_counts.ensure(store, O200K) == 0


def _boundary_cut(a: str, b: str) -> bool:
    letter = token_counts._ascii_letter
    return (a.endswith("\n") and letter(b[0])) or (letter(a[-1]) and b[:1] == " " and letter(b[1:2]))


def test_long_texts_counted_in_pieces_add_up(store):
    """Real long texts of the corpus, cut small: where every cut is at a line or word break,
    the pieces' counts add up to the whole text's count, in both encodings."""
    from tests.helpers import corpus_and_demo
    import_paths(store, [str(p) for p in corpus_and_demo()])
    texts = [t for (t,) in store.con.execute(
        "SELECT text FROM event_details WHERE length(text) BETWEEN 3000 AND 200000 "
        "ORDER BY eid LIMIT 60").fetchall()]
    checked = 0
    for name in ("o200k_base", "cl100k_base"):
        encoding = bpe_openai.get_encoding(name)
        for text in texts:
            parts = token_counts.pieces(text, 700)
            assert "".join(parts) == text and all(len(p) <= 700 for p in parts)
            if len(parts) > 1 and all(_boundary_cut(a, b) for a, b in zip(parts, parts[1:])):
                checked += 1
                assert sum(len(encoding.encode_ordinary(p)) for p in parts) == _bpe(name, text)
    assert checked >= 20


def test_a_text_the_package_refuses_whole_is_counted():
    text = "word " * 300_000                      # 1.5 M characters: over the package's limits
    with pytest.raises(Exception):
        bpe_openai.get_encoding("o200k_base").encode_ordinary(text)
    assert 300_000 <= token_counts.count("o200k", text) <= 300_002


def test_a_session_and_the_corpus_counted_at_once_store_each_count_once(store, monkeypatch):
    import threading
    import_paths(store, [str(p) for p in demo_paths()])
    monkeypatch.setattr(token_counts, "BATCH_ROWS", 40)
    session = store.con.execute("SELECT session_id FROM events GROUP BY 1 "
                                "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
    failures = []

    def count(*args):
        try:
            token_counts.ensure(store.cursor(), O200K, *args)
        except Exception as exc:   # noqa: BLE001 - reported by the assertion below
            failures.append(exc)
    threads = [threading.Thread(target=count), threading.Thread(target=count, args=(session,))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    rows, eids = store.con.execute(
        "SELECT count(*), count(DISTINCT eid) FROM tokens_o200k").fetchone()
    texts = store.con.execute("SELECT count(*) FROM event_details d JOIN events e USING (eid) "
                              "WHERE d.text IS NOT NULL AND e.tokens IS NULL").fetchone()[0]
    assert rows == eids == texts


def test_a_session_says_where_its_cost_comes_from(store, tmp_path):
    from explorer.session.data import load_session
    load(store, jsonl(tmp_path / "t.jsonl", _rows(TEXTS)))
    counted = sum(_bpe("o200k_base", t) for t in TEXTS)
    text = load_session(store, "s", cost_settings=O200K).cost_text()
    assert text == (f"cost {counted + 9:,} tokens (7 the writer's own; {counted:,} counted by "
                    "the o200k_base tokenizer; 2 estimated from the characters)")
