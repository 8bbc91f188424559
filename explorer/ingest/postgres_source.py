"""Spring AI sessions read live from PostgreSQL (SPRING-AI-SESSION.md): the rows of
``AI_SESSION_EVENT`` in ``seq`` order, each with its session's ``AI_SESSION.user_id``,
mapped to canonical events by :func:`explorer.formats.spring_ai.row_events` (the one mapping
of the dumps' reader, so a database and its dump give the same events).

Read-only: the connection's transactions are ``READ ONLY`` and nothing is ever written.
The rows come through a server-side (named) cursor a block at a time, so memory stays
bounded whatever the table holds; progress is counted against ``count(*)`` and a stop is
seen between blocks. The statement is PostgreSQL's, not DuckDB's, so it lives here and not
in ``queries/`` (whose every file runs against the DuckDB demo database).
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
from collections.abc import Callable, Iterator

from explorer.formats import LogFileError, spring_ai
from explorer.formats.record import Record
from explorer.ingest.postgres_url import with_password, without_password
from explorer.jobs import Cancelled, ProgressHook, StopHook

NAME = "spring-ai-session-postgresql"
BLOCK = 2_000
_COUNT = "SELECT count(*) FROM ai_session_event"
_EVENTS = """
SELECT e.seq, e.id, e.session_id, e."timestamp", e.message_type, e.message_content,
       e.message_data, e.synthetic, e.archived, e.branch, e.metadata,
       s.user_id AS turnscope_owner
FROM ai_session_event AS e LEFT JOIN ai_session AS s ON s.id = e.session_id
ORDER BY e.seq
"""
#: ``ask_password(shown_url)``: the password typed by the user, or None to give up.
PasswordPrompt = Callable[[str], "str | None"]


def connect(url: str, ask_password: PasswordPrompt | None = None):
    """A read-only connection; the password from the URL, PGPASSWORD, .pgpass (libpq), or
    asked once when the server wants one. LogFileError (naming the URL without its
    password) says why it cannot connect."""
    import psycopg  # only a database import needs the driver

    shown = without_password(url)
    try:
        try:
            con = psycopg.connect(url, connect_timeout=10)
        except psycopg.OperationalError as exc:
            if ask_password is None or "password" not in str(exc).lower():
                raise
            password = ask_password(shown)
            if password is None:
                raise
            con = psycopg.connect(with_password(url, password), connect_timeout=10)
    except psycopg.Error as exc:
        raise LogFileError(shown, f"cannot connect to the database: {_said(exc)}") from exc
    con.read_only = True   # every transaction BEGINs READ ONLY: nothing can be written
    return con


def records(url: str, progress: ProgressHook | None = None,
            should_stop: StopHook | None = None,
            ask_password: PasswordPrompt | None = None, block: int | None = None
            ) -> Iterator[Record]:
    """One record per ``AI_SESSION_EVENT`` row, in ``seq`` order (record numbers from 1),
    fetched ``block`` rows at a time (default :data:`BLOCK`)."""
    import psycopg

    block = block or BLOCK
    shown = without_password(url)
    con = connect(url, ask_password)
    try:
        with con.transaction():
            try:
                total = con.execute(_COUNT).fetchone()[0]
            except psycopg.Error as exc:
                raise LogFileError(shown, "cannot read the Spring AI session tables "
                                          f"(AI_SESSION_EVENT): {_said(exc)}") from exc
            with con.cursor(name="turnscope_spring_ai_events") as cur:
                cur.itersize = block
                cur.execute(_EVENTS)
                names = [c.name for c in cur.description]
                number = 0
                while rows := cur.fetchmany(block):
                    for values in rows:
                        number += 1
                        yield _record(number, dict(zip(names, values)))
                    if progress:
                        progress(number, max(total, number))
                    if should_stop and should_stop():
                        raise Cancelled(shown)
    except psycopg.Error as exc:
        raise LogFileError(shown, f"the database read failed: {_said(exc)}") from exc
    finally:
        con.close()


def _record(number: int, row: dict) -> Record:
    owner = row.pop("turnscope_owner")
    row = {k: _plain(v) for k, v in row.items()}
    text = json.dumps(row, ensure_ascii=False)
    owners = {str(row["session_id"]): str(owner)} if owner not in (None, "") else {}
    try:
        return Record(number, events=spring_ai.row_events(row, owners))
    except ValueError as exc:
        return Record(number, error=str(exc)[:300], text=text)


def _plain(value):
    """A column value as a dump holds it: timestamps (no zone) as ``YYYY-MM-DD hh:mm:ss``."""
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _said(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
