"""explorer.process_memory: a big array freed leaves no resident heap behind (glibc)."""

from __future__ import annotations

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
