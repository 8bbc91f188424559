"""The demo corpus shipped in ``sample_data/``: what ``--demo`` stands for."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: The demo files, in the order they are imported.
DEMO_FILES = ("demo_main.jsonl.gz", "demo_collapsed.jsonl.gz", "demo_late.jsonl.gz")


def demo_paths() -> list[Path]:
    """Paths of the shipped demo files."""
    root = resources.files("sample_data")
    return [Path(str(root.joinpath(name))) for name in DEMO_FILES]


def expand(paths: list[str]) -> list[str]:
    """Replace each ``--demo`` among ``paths`` by the demo files."""
    out: list[str] = []
    for p in paths:
        out.extend(str(d) for d in demo_paths()) if p == "--demo" else out.append(p)
    return out
