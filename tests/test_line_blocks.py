"""The lines of a file do not depend on the size of the blocks it is read in
(explorer.formats.lines.LINE_BLOCK): read in blocks smaller than one line, a real log and a
damaged copy of it (records glued on one line, a CRLF end, a torn tail), plain and gzip,
give the same lines, numbers, offsets and errors as read in one block."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from explorer.formats import lines
from tests.conftest import CORPUS

REAL = [CORPUS / "codex-cli" / ("jnarowski-agentcmd__rollout-2025-09-24T19-22-20-"
                                "01997e76-d124-7592-9cac-2ec05abbca08.jsonl"),
        CORPUS / "claude-code" / "jnarowski-agentcmd__full-session.jsonl"]


def _damaged(seed: Path, out: Path) -> Path:
    rows = seed.read_bytes().splitlines()[:200]
    rows[3] = rows[3] + rows[4]          # two records glued onto one line
    rows[5] = rows[5] + b"\r"            # a CRLF line end
    out.write_bytes(b"\n".join(rows) + b"\n\n   \n" + rows[6][: len(rows[6]) // 2])
    return out


def _read(path: Path, block: int, monkeypatch) -> list[tuple]:
    """Every line and record as the agent readers take them (json_lines)."""
    monkeypatch.setattr(lines, "LINE_BLOCK", block)
    return list(lines.json_lines(path))


@pytest.mark.parametrize("seed", REAL, ids=["codex-cli", "claude-code"])
@pytest.mark.parametrize("shape", ["real", "damaged", "damaged-gzip"])
def test_lines_are_the_same_in_any_block_size(seed, shape, tmp_path, monkeypatch):
    path = seed if shape == "real" else _damaged(seed, tmp_path / seed.name)
    if shape.endswith("gzip"):
        packed = tmp_path / (seed.name + ".gz")
        packed.write_bytes(gzip.compress(path.read_bytes()))
        path = packed
    whole = _read(path, 1 << 30, monkeypatch)
    small = _read(path, 97, monkeypatch)
    assert len(whole) > 40 and any(line.tail for line, _ in whole) == (shape != "real")
    assert small == whole
