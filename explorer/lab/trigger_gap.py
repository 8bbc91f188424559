"""``lab trigger-gap`` (LAB.md): the check-act gap of a turn-count trigger.

One iteration per arrival slot t, with ``random.Random(seed)``: (1) randint(1, W) turns
arrive; (2) a delete due at t removes the excess its check recorded (lock fix: the excess
now; compare-and-set fix: the recorded excess if nothing arrived since the read, else the
excess re-read now); (3) if no check is in flight and the count is over maxTurns, a check
records the excess and schedules its delete at t + G (G = 0: at once). Figures: the largest
count right after a delete (``peak``), ``peak / maxTurns``, the largest end-of-slot count.
"""

from __future__ import annotations

import random

from explorer.jobs import check

#: LAB.md's default table: (maxTurns, W, G).
DEFAULT_CASES = ((8, 1, 0), (8, 1, 2), (8, 1, 5), (8, 4, 5), (8, 8, 0), (8, 8, 2), (8, 8, 5),
                 (16, 5, 5))
DEFAULT_SLOTS = 200_000
FIXES = ("none", "lock", "cas")
KEYS = ("max_turns", "writers", "gap", "peak", "peak_ratio", "end_of_slot_max", "bound",
        "peak_lock", "peak_cas")


def simulate(max_turns: int, writers: int, gap: int, slots: int, seed: int,
             fix: str = "none", should_stop=None) -> tuple[int, int]:
    """(peak after a delete, largest end-of-slot count) of one run."""
    if fix not in FIXES:
        raise ValueError(f"unknown fix {fix!r}: use one of {', '.join(FIXES)}")
    rng = random.Random(seed)
    count = peak = end_max = 0
    due = -1                 # the slot of the delete in flight (-1: none)
    recorded = read_at = 0   # its recorded excess, and the arrivals counter at its read
    arrived = 0
    for t in range(slots):
        if t % 65536 == 0:
            check(should_stop, "lab trigger-gap")
        n = rng.randint(1, writers)
        count += n
        arrived += n
        if due == t:
            count = _delete(count, max_turns, recorded, fix, arrived == read_at)
            peak = max(peak, count)
            due = -1
        if due < 0 and count > max_turns:
            recorded, read_at = count - max_turns, arrived
            if gap == 0:
                count = _delete(count, max_turns, recorded, fix, True)
                peak = max(peak, count)
            else:
                due = t + gap
        end_max = max(end_max, count)
    return peak, end_max


def _delete(count: int, max_turns: int, recorded: int, fix: str, unchanged: bool) -> int:
    if fix == "lock" or (fix == "cas" and not unchanged):
        return count - max(count - max_turns, 0)
    return max(count - recorded, 0)


def run(cases=DEFAULT_CASES, slots: int = DEFAULT_SLOTS, seed: int = 1, should_stop=None,
        progress=None) -> list[dict]:
    """One row per (maxTurns, W, G) (KEYS); the same arrivals under each fix."""
    rows = []
    for max_turns, writers, gap in cases:
        if max_turns < 1 or writers < 1 or gap < 0:
            raise ValueError("maxTurns and W are >= 1, G >= 0")
        peak, end_max = simulate(max_turns, writers, gap, slots, seed, "none", should_stop)
        lock, _ = simulate(max_turns, writers, gap, slots, seed, "lock", should_stop)
        cas, _ = simulate(max_turns, writers, gap, slots, seed, "cas", should_stop)
        rows.append({"max_turns": max_turns, "writers": writers, "gap": gap, "peak": peak,
                     "peak_ratio": round(peak / max_turns, 3), "end_of_slot_max": end_max,
                     "bound": max_turns + gap * writers, "peak_lock": lock, "peak_cas": cas})
        if progress:
            progress(len(rows), len(cases))
    return rows
