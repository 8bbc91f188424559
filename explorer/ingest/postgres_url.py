"""PostgreSQL connection strings as Turnscope keeps and shows them: never with a password.

A ``postgresql://`` (or ``postgres://``) URL names a database to read Spring AI sessions
from (:mod:`explorer.ingest.postgres_source`). What is stored (the ``files`` table, the
window's recent items) and shown is the URL with its password taken out; the password
itself comes from the URL given now, ``PGPASSWORD``, ``~/.pgpass`` (libpq reads both) or a
prompt, and is never written anywhere.
"""

from __future__ import annotations

import urllib.parse

SCHEMES = ("postgresql://", "postgres://")


def is_database_url(text) -> bool:
    """Whether an input names a PostgreSQL database rather than a file."""
    return isinstance(text, str) and text.lower().startswith(SCHEMES)


def without_password(url: str) -> str:
    """The URL with its password (in the authority or a ``password=`` parameter) removed."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}@{host}" if user else host
    query = urllib.parse.urlencode(
        [(k, v) for k, v in urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
         if k.lower() != "password"], safe="/")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def with_password(url: str, password: str) -> str:
    """The URL with ``password`` in place of any it holds (for the connection only)."""
    parts = urllib.parse.urlsplit(without_password(url))
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    query.append(("password", password))
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path,
                                    urllib.parse.urlencode(query, safe="/"), parts.fragment))
