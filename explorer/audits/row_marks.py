"""The marks of a frame's rows, held as a small code per row into their distinct sets."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

#: The marks of a row no rule points at.
NONE: frozenset[str] = frozenset()


class RowMarks(Sequence):
    """Per row, the set of rules that point at its event, read like a list of frozensets.

    Held as one code per row into the distinct sets (code 0: none): few rows carry marks and
    few sets occur, so a session of 3M events holds 3 MB of codes instead of a list of 3M
    pointers (23 MB)."""

    def __init__(self, codes: np.ndarray, sets: tuple[frozenset[str], ...]) -> None:
        self.codes, self.sets = codes, sets

    @classmethod
    def none(cls, n: int) -> RowMarks:
        """``n`` rows without marks."""
        return cls(np.zeros(n, dtype=np.uint8), (NONE,))

    @classmethod
    def of(cls, n: int, marked: dict[int, frozenset[str]]) -> RowMarks:
        """``n`` rows, those of ``marked`` with their sets, the others none."""
        sets = (NONE, *dict.fromkeys(s for s in marked.values() if s))
        code = {s: i for i, s in enumerate(sets)}
        codes = np.zeros(n, dtype=np.min_scalar_type(len(sets) - 1))
        for row, marks in marked.items():
            codes[row] = code[marks]
        return cls(codes, sets)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self.sets[c] for c in self.codes[i].tolist()]
        return self.sets[self.codes[i]]

    def __iter__(self):
        sets = self.sets
        return (sets[c] for c in self.codes.tolist())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and len(self) == len(other) and list(self) == list(other)

    __hash__ = None   # type: ignore[assignment]   # equal to a list: not hashable

    def marked(self) -> np.ndarray:
        """Whether each row carries a mark."""
        return self.codes > 0


def marked_rows(marks: Iterable[frozenset[str]]) -> np.ndarray:
    """Whether each row of ``marks`` (a :class:`RowMarks` or a list of sets) carries a mark."""
    if isinstance(marks, RowMarks):
        return marks.marked()
    marks = list(marks)
    return np.fromiter(map(bool, marks), dtype=bool, count=len(marks))
