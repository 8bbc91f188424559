"""Token estimates of FORMAT.md: CJK/other code-point counts and the ratio formula."""

from __future__ import annotations

import math
import re

from explorer.model import CostSettings

#: Code-point ranges counted as CJK (FORMAT.md).
CJK_RANGES = (
    (0x3000, 0x303F),
    (0x3040, 0x30FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),
)

_CJK_CLASS = "".join(f"\\x{{{lo:04X}}}-\\x{{{hi:04X}}}" for lo, hi in CJK_RANGES)
#: RE2 (DuckDB) pattern that removes every non-CJK code point (a run per match: one match per
#: code point made the import's count four times slower on mixed text).
NON_CJK_RE2 = f"[^{_CJK_CLASS}]+"
_CJK_PY = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in CJK_RANGES) + "]")


def count_chars(text: str) -> tuple[int, int]:
    """Return (cjk_chars, other_chars) of ``text``, counted in code points."""
    cjk = len(_CJK_PY.findall(text))
    return cjk, len(text) - cjk


def estimate(cjk_chars: int, other_chars: int, settings: CostSettings = CostSettings()) -> int:
    """FORMAT.md's estimate: floor(cjk / r_cjk + other / r_other + 0.5), halves up.

    The same double arithmetic as the SQL expression in ``queries``, so the two agree.
    """
    return math.floor(cjk_chars / settings.cjk_ratio + other_chars / settings.other_ratio + 0.5)


def cost(tokens: int | None, cjk_chars: int, other_chars: int,
         settings: CostSettings = CostSettings()) -> int:
    """An event's cost: its own ``tokens`` when given, else the estimate."""
    return tokens if tokens is not None else estimate(cjk_chars, other_chars, settings)
