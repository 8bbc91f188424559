"""The wheel holds every module, query, icon and demo file: `pip install .` (the README's
first command) must give a working `turnscope`, not one missing a subpackage; installed in a
fresh virtual environment it runs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest

from explorer.audits import counts as audits
from tests.helpers import demo_counts, png_size

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = ("explorer/**/*.py", "widgets/**/*.py", "queries/*.py", "queries/*.sql",
            "sample_data/*.py", "sample_data/*.jsonl.gz", "widgets/icons/*.svg")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy without build/ and *.egg-info, as on a clean checkout:
    setuptools would otherwise reuse what an earlier build (or the editable install) left."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        "build", "dist", "*.egg-info", ".venv", ".git", "__pycache__", "*.duckdb", "docs",
        ".pytest_cache", ".hypothesis", ".import_linter_cache"))
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(source)],
        capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    return next(tmp_path.glob("turnscope-*.whl"))


@pytest.mark.slow
def test_the_wheel_holds_every_module_query_and_demo_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {str(p.relative_to(ROOT)) for pattern in PATTERNS for p in ROOT.glob(pattern)
                if "__pycache__" not in p.parts}
    assert len(expected) > 150
    assert expected - names == set()
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_runs(wheel, tmp_path):
    """`pip install` of the wheel (not editable) into a new virtual environment, then the
    installed command, run from outside the checkout: version, audit of the demo data, and
    the window rendered offscreen."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # (a PYTHONPATH holding the checkout would have pip take turnscope as installed)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    installed = subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(wheel)],
                               capture_output=True, text=True, timeout=1200, env=env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    command = str(venv / "bin" / "turnscope")
    env["QT_QPA_PLATFORM"] = "offscreen"

    def run(*args):
        done = subprocess.run([command, *args], capture_output=True, text=True, cwd=tmp_path,
                              env=env, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    assert run("--version").split() == ["turnscope", metadata.version("turnscope")]
    audit = json.loads(run("audit", "--demo", "--json"))
    assert {k: audit[k] for k in audits.COUNT_NAMES} == demo_counts()
    run("screenshot", str(tmp_path / "window.png"), "--size", "1280x800")
    assert png_size(tmp_path / "window.png") == (1280, 800)
