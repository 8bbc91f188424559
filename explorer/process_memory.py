"""What the process's allocator keeps after big arrays are freed (glibc only).

glibc serves a large allocation with its own ``mmap`` and gives it back to the system when
freed, but raises that threshold to the size of each such block freed (up to 32 MB), so
after the first big numpy array of a session is freed, the next ones of that size come from
the heap and stay resident after they are freed. Fixing the threshold
(``mallopt(M_MMAP_THRESHOLD, …)``, the same as ``MALLOC_MMAP_THRESHOLD_`` in the
environment) stops that: the tree of a session of 3M events then leaves about 100 MB less
resident (``benchmarks/bench_first_open.py --shape session-steps``). DuckDB and polars use
their own allocators and are not affected.

polars's allocator (its own jemalloc) keeps freed pages for seconds before it hands them
back: a session's tree read in the window (3M events) peaked with the frames of the steps
before it still resident. :func:`polars_returns_freed_pages` asks it to hand them back at
once, through its environment variable, read when polars is first loaded (``explorer``
calls it on import, before any of its modules imports polars).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

#: glibc's mallopt parameter number (malloc.h) and the threshold set: blocks of 1 MiB and
#: more are mapped on their own and unmapped when freed.
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 2**20
#: polars's jemalloc (its symbols prefixed ``_rjem_``): freed pages returned at once.
POLARS_ALLOCATOR = ("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")


def polars_returns_freed_pages() -> bool:
    """Set :data:`POLARS_ALLOCATOR` unless the environment sets it already or polars is
    loaded (then too late: it is read once); whether it was set."""
    name, value = POLARS_ALLOCATOR
    if name in os.environ or "polars" in sys.modules:
        return False
    os.environ[name] = value
    return True


def return_freed_blocks() -> bool:
    """Fix glibc's mmap threshold at :data:`MMAP_THRESHOLD` unless the user's environment
    sets it; whether it was set (False off Linux, or with another C library)."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):   # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
