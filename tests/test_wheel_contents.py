"""The wheel holds every module, query and demo file: `pip install .` (the README's first
command) must give a working `turnscope`, not one missing a subpackage."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = ("explorer/**/*.py", "widgets/**/*.py", "queries/*.py", "queries/*.sql",
            "sample_data/*.py", "sample_data/*.jsonl.gz")


@pytest.mark.slow
def test_the_wheel_holds_every_module_query_and_demo_file(tmp_path):
    # Built from a copy without build/ and *.egg-info, as on a clean checkout: setuptools
    # would otherwise reuse what an earlier build (or the editable install) left there.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", ".venv", ".git", "__pycache__", "*.duckdb", "docs",
        ".pytest_cache", ".hypothesis", ".import_linter_cache"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    wheel = next(tmp_path.glob("turnscope-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(p.relative_to(ROOT)) for pattern in PATTERNS for p in ROOT.glob(pattern)
                if "__pycache__" not in p.parts}
    assert len(expected) > 150
    assert expected - names == set()
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)
