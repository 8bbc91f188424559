"""explorer.process_memory: a big array freed leaves no resident heap behind (glibc)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

_CHILD = """
import sys
import numpy as np
from explorer.process_memory import return_freed_blocks
def resident():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmRSS")) / 1024
if sys.argv[1] == "set":
    assert return_freed_blocks()
first = np.ones(3_000_000)   # 24 MB: its free raises glibc's own threshold to 24 MB
del first
before = resident()
a = np.ones(3_000_000)   # 24 MB each, every page touched; b holds the top of the heap
b = np.ones(3_000_000)
del a                    # as a session's temporaries are freed while others live
print(resident() - before - 24)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_a_freed_array_of_a_session_does_not_stay_resident():
    def kept(mode: str) -> float:
        done = subprocess.run([sys.executable, "-c", _CHILD, mode], check=True,
                              capture_output=True, text=True)
        return float(done.stdout.split()[-1])

    assert kept("set") < 4   # MB
    assert kept("unset") > 20   # what glibc does by itself: the reason for the call


_POLARS_CHILD = """
import os, sys
if sys.argv[1] == "explorer-first":
    import explorer   # as the window and the command line start
import polars as pl
def resident():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith("VmRSS")) / 1024
before = resident()
frame = pl.DataFrame({"a": range(10_000_000)}).with_columns(b=pl.col("a").cast(pl.String))
del frame   # as a session's frames of one step are freed before the next step's
print(os.environ.get("_RJEM_MALLOC_CONF"), resident() - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="polars's jemalloc")
def test_polars_hands_a_freed_frame_back_when_explorer_is_imported_first():
    def kept(mode: str) -> tuple[str, float]:
        env = {k: v for k, v in os.environ.items() if k != "_RJEM_MALLOC_CONF"}
        done = subprocess.run([sys.executable, "-c", _POLARS_CHILD, mode], check=True,
                              capture_output=True, text=True, env=env)
        conf, mb = done.stdout.split()
        return conf, float(mb)

    conf, mb = kept("explorer-first")
    # polars puts its own defaults first (dirty_decay_ms:500,...): the last one counts
    assert conf.endswith(",dirty_decay_ms:0,muzzy_decay_ms:0") and mb < 30   # MB
    conf, mb = kept("polars-first")
    assert "decay_ms:0" not in conf and mb > 100   # what polars keeps: the reason for it
