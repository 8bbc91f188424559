"""The NumPy split of a block of canonical JSON Lines (explorer.formats.canonical_jsonl
._fast_split) gives exactly what the line-by-line split gives: the same line numbers,
texts and indexes, blank and white-space-only lines dropped, CRLF ends cut, a BOM skipped."""

from __future__ import annotations

import random

from explorer.formats import canonical_jsonl, lines
from explorer.formats.canonical_jsonl import _fast_split, _split

PIECES = ['{"a": 1}', '{"text": "é 日本 \\u00e9"}', "", " ", "\t", "\r", "\u00a0", "\u3000",
          '  {"lead": "space"}', "[1, 2]", "not json", '{"crlf": 1}\r', "x\r", "{", "}"]


def _slow(block: lines.Block):
    """_split with the fast path switched off."""
    fast = canonical_jsonl._fast_split
    canonical_jsonl._fast_split = lambda *_: None
    try:
        return _split(block, False)
    finally:
        canonical_jsonl._fast_split = fast


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


def test_a_block_that_is_not_utf8_takes_the_line_split():
    data = b'{"a": 1}\n{"b": "\xff"}\n'
    block = lines.Block(data, 0, 1, len(data))
    assert _fast_split(block, data) is None
    staged = _split(block, False)
    assert staged.errs[0] is None and "invalid UTF-8" in staged.errs[1]
