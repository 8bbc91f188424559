"""One session as numpy arrays in the order being viewed, with what every strategy reuses.

Built once per session and order (STRATEGIES.md: suffix costs, turn starts, pair positions
and messages do not depend on the budget); a budget change only reads these arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import polars as pl

from explorer.compaction.positions import next_flagged, position_type
from explorer.model import KINDS

SYSTEM, USER, ASSISTANT, CALL, RESULT, SUMMARY, OTHER = range(len(KINDS))
#: A USER event with a note (FORMAT.md: text the harness wrote in the user's role; sent to
#: the model like any USER event, but it opens no turn): a code of its own here, so that
#: every ``kind == USER`` of the strategies (turn starts, snapping, messages) is a turn start.
NOTED = len(KINDS)
#: The kind name of each code (a noted USER is a USER).
KIND_NAMES = (*KINDS, "USER")
#: Kinds whose presence makes a view non-empty (STRATEGIES.md, ``empty``).
CONTENT_KINDS = (USER, ASSISTANT, CALL, RESULT, NOTED)


class CodedStrings(Sequence):
    """A column of strings read like a list (None where absent), held as a code per event
    into its distinct values, kept as one compact polars column: a session of 3M events
    keeps no pointer per event, nor a Python string per distinct call id (~110 MB).

    With ``at``, ``values`` is the column the codes were made of and ``at`` a row holding
    each code's value: the frame's own column, shared (the window's session: 27 MB less
    than its 963,000 distinct call ids gathered)."""

    def __init__(self, codes: np.ndarray, values: pl.Series, at: np.ndarray | None = None):
        self.codes, self.values, self.at = codes, values, at

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        code = self.codes[i]
        if code < 0:
            return None
        return self.values[int(code) if self.at is None else int(self.at[code])]

    def __iter__(self):
        distinct = self.values if self.at is None else self.values.gather(self.at)
        values = [*distinct.to_list(), None]   # code -1: the None at the end
        return (values[c] for c in self.codes.tolist())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None   # type: ignore[assignment]   # equal to a list: not hashable


def _codes(column: pl.Series, values: bool = True,
           share: bool = False) -> tuple[np.ndarray, CodedStrings | None]:
    """Small integer codes (32 bits) for a column, equal values equal codes, numbered in the
    values' sorted order (None -> -1), and (``values``) the column read like a list
    (:class:`CodedStrings`: the distinct values, one row of each taken by its code; with
    ``share``, the column itself and that row of each code).

    A dense rank, not a look-up of each value among the distinct ones: a session of 3M
    events' call ids (963,000 distinct) took 0.71 s through ``replace_strict``, 0.18 s so
    (``benchmarks/bench_first_open.py --shape session-steps``). Only equality of codes is
    read (pairing, messages, users): no code's number means anything."""
    codes = column.rank("dense").fill_null(0).cast(pl.Int32).to_numpy() - np.int32(1)
    if not values:
        return codes, None
    rows = np.flatnonzero(codes >= 0)
    at = np.empty(int(codes.max(initial=-1)) + 1, dtype=position_type(len(column)))
    at[codes[rows]] = rows   # per code, a row holding its value
    return codes, CodedStrings(codes, column, at) if share else CodedStrings(codes,
                                                                           column.gather(at))


def _few_codes(column: pl.Series) -> CodedStrings:
    """:func:`_codes`'s list for a column of few distinct values (the tools), numbered in
    order of first appearance: a rank of 3M strings of 7 values took 0.22 s, this 0.10 s."""
    first = column.is_first_distinct() & column.is_not_null()
    distinct = column.filter(first)
    codes = column.replace_strict(distinct, pl.int_range(len(distinct), eager=True),
                                  default=-1, return_dtype=pl.Int32).to_numpy()
    return CodedStrings(codes, distinct)


def _key(frame: pl.DataFrame, name: str) -> str:
    """The column telling the ``name`` ids apart: ``<name>_key`` (numbers, a session read
    compact: queries/session_events_rest.sql) when the frame has it, else ``<name>_id``."""
    return f"{name}_key" if f"{name}_key" in frame.columns else f"{name}_id"


def _kind_codes(frame: pl.DataFrame, kinds: dict[str, int]) -> np.ndarray:
    """The kind codes of a frame's events, a USER with a note as NOTED."""
    column = frame["kind"]
    if isinstance(column.dtype, (pl.Categorical, pl.Enum)):
        # through the few physical codes present (a session of 3M events: 0.12 s -> 0.01 s)
        present = column.unique()
        physical = present.to_physical().to_numpy()
        table = np.zeros(int(physical.max(initial=0)) + 1, dtype=np.int8)
        table[physical] = [kinds[k] for k in present.cast(pl.String).to_list()]
        codes = table[column.to_physical().to_numpy()]
    else:
        codes = column.cast(pl.String).replace_strict(kinds, return_dtype=pl.Int8).to_numpy()
    if "note" in frame.columns and frame["note"].null_count() < frame.height:
        noted = frame["note"].is_not_null().to_numpy() & (codes == USER)
        codes = np.where(noted, np.int8(NOTED), codes)
    return codes


@dataclass
class SessionLog:
    """A session's events in viewed order and the derived arrays (all length n or n + 1)."""

    session_id: str
    seq: np.ndarray
    sub: np.ndarray
    kind: np.ndarray          # index into KIND_NAMES (NOTED: a USER that opens no turn)
    cost: np.ndarray          # int64 tokens
    call: np.ndarray          # call_id code, -1 when the event has no id
    message: np.ndarray       # message_id code, -1 when none
    user: np.ndarray          # user_id code, -1 when none
    turn: np.ndarray          # logged turn, -1 when none (int32 or int64, as read)
    archived: np.ndarray      # bool
    call_ids: Sequence        # the call_id strings (None when no id): a CodedStrings or list
    tools: Sequence
    chars: np.ndarray         # content length in code points (cjk + other)
    eid: np.ndarray | None = None   # import positions (to find the event in the store)
    notes: dict | None = None       # index -> "evicted" / "pruned" (transforms applied)

    def __post_init__(self) -> None:
        # Positions fit in 32 bits (a session under 2**31 events): half the memory of a
        # session of 3M events' position arrays. What only the tests' oracles read (the
        # suffix costs, messages, pair groups) is built when first read.
        n = self.n = len(self.kind)
        pos = position_type(n)
        is_user = self.kind == USER
        self.turn_start = (np.maximum.accumulate(np.where(is_user, np.arange(n, dtype=pos), 0))
                           if n else np.arange(0, dtype=pos))
        self.next_user = next_flagged(is_user, np.array([n]), pos)
        self.prev_call, self.next_result, self.call_order = _pairs(self.kind, self.call, pos)
        self.is_system = self.kind == SYSTEM

    @cached_property
    def prefix(self) -> np.ndarray:
        """n + 1: the cost of the events before i (built once: the one-session corpus and
        the replay's stretch cuts share it; 23 MB in a session of 3M events)."""
        return np.r_[0, np.cumsum(self.cost, dtype=np.int64)]

    @cached_property
    def suffix(self) -> np.ndarray:
        """n + 1: the cost of the events at i and after."""
        return np.concatenate([np.cumsum(self.cost[::-1], dtype=np.int64)[::-1], [0]])

    @cached_property
    def content_suffix(self) -> np.ndarray:
        """n + 1: the number of content events (CONTENT_KINDS) at i and after."""
        content = np.isin(self.kind, CONTENT_KINDS).astype(np.int64)
        return np.concatenate([np.cumsum(content[::-1])[::-1], [0]])

    @cached_property
    def _message_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return _messages(self.kind, self.message)

    @property
    def message_no(self) -> np.ndarray:
        """Message number of each non-SYSTEM event (SYSTEM: -1)."""
        return self._message_arrays[0]

    @property
    def message_start(self) -> np.ndarray:
        """Each message's first index."""
        return self._message_arrays[1]

    @cached_property
    def _pair_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return _pair_groups(self.kind, self.call)

    @property
    def pair_order(self) -> np.ndarray:
        """CALL/RESULT events with an id, ordered by (call id, position)."""
        return self._pair_arrays[0]

    @property
    def pair_group(self) -> np.ndarray:
        """The group number (call id) of each of :attr:`pair_order`."""
        return self._pair_arrays[1]

    @classmethod
    def from_frame(cls, session_id: str, frame: pl.DataFrame,
                   share_ids: bool = False) -> SessionLog:
        """From :func:`explorer.tokens.session_events.session_events` (any order).
        ``share_ids``: the call ids read off the frame's own column (kept as long as the
        log; for a frame kept beside it, as the window keeps its session's)."""
        kinds = {k: i for i, k in enumerate(KINDS)}
        # text_chars: the text's code points as DuckDB counts them (a narrow frame has no text)
        chars = frame["text_chars"] + frame["chars"].fill_null(0)
        call, call_ids = _codes(frame["call_id"], share=share_ids)
        # Read-only where polars lends its buffer (seq, cost, eid: shared with the frame);
        # codes in 32 bits, kinds in 8: a session of 3M events holds 200 MB less.
        return cls(
            session_id=session_id,
            seq=frame["seq"].to_numpy(), sub=frame["sub"].to_numpy(),
            kind=_kind_codes(frame, kinds),
            cost=frame["cost"].to_numpy().astype(np.int64, copy=False),
            call=call, message=_codes(frame[_key(frame, "message")], values=False)[0],
            user=_codes(frame[_key(frame, "user")], values=False)[0],
            turn=frame["turn"].fill_null(-1).to_numpy(),   # 32 bits where the frame's are
            archived=frame["archived"].fill_null(False).to_numpy().astype(bool, copy=False),
            call_ids=call_ids, tools=_few_codes(frame["tool"]),
            chars=chars.to_numpy(),
            eid=frame["eid"].to_numpy().astype(np.int64, copy=False),
        )

    def columns(self) -> tuple[list, list, list, list, list]:
        """seq, sub, kind name, cost and call_id as Python lists (built once, for items)."""
        if not hasattr(self, "_columns"):
            self._columns = (self.seq.tolist(), self.sub.tolist(),
                             [KIND_NAMES[k] for k in self.kind.tolist()], self.cost.tolist(),
                             self.call_ids)
        return self._columns

    def k0(self, budget: int) -> int:
        """The naive event cut: the smallest k with suffix(k) <= budget."""
        return int(np.searchsorted(-self.suffix, -budget, side="left"))


def _pairs(kind: np.ndarray, call: np.ndarray, dtype=np.int64) -> tuple[np.ndarray, ...]:
    """Nearest earlier CALL and nearest later RESULT of each event's call id (-1: none),
    and the CALL/RESULT events with an id grouped by it, positions ascending in each group
    (what :class:`~explorer.compaction.corpus.Corpus` takes as its ``call_order``)."""
    has = np.flatnonzero((call >= 0) & ((kind == CALL) | (kind == RESULT)))
    order = has[np.lexsort((has, call[has]))]
    return (*pairs_in_groups(kind, order, call[order], dtype), order)


def pairs_in_groups(kind: np.ndarray, order: np.ndarray, ids: np.ndarray,
                    dtype=np.int64) -> tuple[np.ndarray, np.ndarray]:
    """AUDITS.md pairing, given the CALL/RESULT events with an id grouped by id (``ids``)
    with positions ascending inside each group (``order``): the nearest earlier CALL and
    the nearest later RESULT of each (-1: none), as ``dtype``. The later RESULT is the
    earlier CALL's search run over the reversed order."""
    n, m = len(kind), len(order)
    prev_call = np.full(n, -1, dtype=dtype)
    next_result = np.full(n, -1, dtype=dtype)
    if not m:
        return prev_call, next_result
    step = np.arange(m, dtype=position_type(m))
    first = np.empty(m, dtype=bool)   # the first element of its group
    first[0] = True
    np.not_equal(ids[1:], ids[:-1], out=first[1:])
    last = np.empty(m, dtype=bool)
    last[-1] = True
    last[:-1] = first[1:]
    kinds = kind[order]
    places = order.astype(dtype, copy=False)
    prev_call[order] = _nearest_before(kinds == CALL, first, step, places)
    next_result[order[::-1]] = _nearest_before((kinds == RESULT)[::-1], last[::-1], step,
                                               places[::-1])
    return prev_call, next_result


def _nearest_before(flag: np.ndarray, first: np.ndarray, step: np.ndarray,
                    places: np.ndarray) -> np.ndarray:
    """For each element, ``places`` of the nearest flagged element before it in its group
    (-1: none). The running maximum of the flagged steps never looks back past the group's
    first element: a step found before it belongs to an earlier group."""
    seen = np.where(flag, step, -1)
    np.maximum.accumulate(seen, out=seen)
    start = np.where(first, step, 0)
    np.maximum.accumulate(start, out=start)
    before = np.empty_like(seen)
    before[0] = -1
    before[1:] = seen[:-1]
    return np.where(before >= start, places[before], -1)   # places[-1]: masked out


def _pair_groups(kind: np.ndarray, call: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CALL/RESULT events with an id, ordered by (call id, position), and their group number."""
    has = np.flatnonzero((call >= 0) & ((kind == CALL) | (kind == RESULT)))
    order = has[np.lexsort((has, call[has]))]
    ids = call[order]
    group = np.cumsum(np.r_[True, ids[1:] != ids[:-1]]) - 1 if len(order) else order
    return order, group


def _messages(kind: np.ndarray, message: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Message number of each non-SYSTEM event (SYSTEM: -1) and each message's first index.

    STRATEGIES.md: with SYSTEM events set aside, a message is a maximal run of consecutive
    events sharing one non-null message_id; an event without one is a message by itself.
    """
    body = np.flatnonzero(kind != SYSTEM)
    ids = message[body]
    same = np.zeros(len(body), dtype=bool)
    if len(body) > 1:
        same[1:] = (ids[1:] == ids[:-1]) & (ids[1:] >= 0)
    number = np.cumsum(~same) - 1
    message_no = np.full(len(kind), -1, dtype=np.int64)
    message_no[body] = number
    return message_no, body[~same]
