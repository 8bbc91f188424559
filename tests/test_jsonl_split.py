"""The NumPy split of a block of canonical JSON Lines (explorer.formats.canonical_jsonl
._fast_split) gives exactly what the line-by-line split gives: the same line numbers,
texts and indexes, blank and white-space-only lines dropped, CRLF ends cut, a BOM skipped."""

from __future__ import annotations

import random

from explorer.formats import fast_json, lines
from explorer.formats.canonical_jsonl import _fast_split, _split, _whole_split

PIECES = ['{"a": 1}', '{"text": "é 日本 \\u00e9"}', "", " ", "\t", "\r", "\u00a0", "\u3000",
          '  {"lead": "space"}', "[1, 2]", "not json", '{"crlf": 1}\r', "x\r", "{", "}"]


def _slow(block: lines.Block):
    """_split with the fast paths switched off (explorer.formats.fast_json.REFERENCE)."""
    fast_json.REFERENCE = True
    try:
        return _split(block, False)
    finally:
        fast_json.REFERENCE = False


def test_the_numpy_split_is_the_line_split():
    rng = random.Random(15)
    for case in range(300):
        text = "\n".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12)))
        if rng.random() < 0.5:
            text += "\n"
        data = (lines.BOM if case % 7 == 0 else b"") + text.encode("utf-8")
        block = lines.Block(data, 0, 1 + case, len(data))
        body = data.removeprefix(lines.BOM)
        fast, slow = _fast_split(block, body), _slow(block)
        assert fast is not None
        assert list(fast.lines) == slow.lines, text
        assert fast.texts.to_pylist() == slow.texts, text
        assert list(fast.index) == slow.index and fast.errs.to_pylist() == slow.errs


def test_the_uncopied_split_is_the_line_split():
    """Issue 15: the split that keeps each line's end (the block's bytes staged uncopied)
    gives the line split's lines once the ends are taken off; a block with a blank line
    is left to the copying split."""
    rng = random.Random(16)
    taken = 0
    for case in range(300):
        text = "\n".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 12)))
        if rng.random() < 0.5:
            text += "\n"
        data = (lines.BOM if case % 7 == 0 else b"") + text.encode("utf-8")
        block = lines.Block(data, 0, 1 + case, len(data))
        whole, slow = _whole_split(block, data.removeprefix(lines.BOM)), _slow(block)
        if whole is None:
            assert len(slow.lines) < len([x for x in text.split("\n")]) or not text, text
            continue
        taken += 1
        assert whole.line_ends and list(whole.lines) == slow.lines, text
        texts = [t.removesuffix("\n").removesuffix("\r") for t in whole.texts.to_pylist()]
        assert texts == slow.texts, text
        assert list(whole.index) == slow.index and whole.errs.to_pylist() == slow.errs
    assert taken > 20


def test_a_block_that_is_not_utf8_takes_the_line_split():
    data = b'{"a": 1}\n{"b": "\xff"}\n'
    block = lines.Block(data, 0, 1, len(data))
    assert _fast_split(block, data) is None
    staged = _split(block, False)
    assert staged.errs[0] is None and "invalid UTF-8" in staged.errs[1]
