"""HTTP Archive (HAR 1.2) recordings, as Polly.JS and browsers write them, read as the same
interactions as a VCR cassette (docs/FORMATS.md §HAR): each ``log.entries[]`` element is one
exchange, its request body in ``request.postData.text``, its response body in
``response.content.text`` (base64 when ``content.encoding`` says so, then maybe gzip). The
bodies are decoded by explorer.formats.recorded_bodies, like a cassette's.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

from explorer.formats.json_values import loads

_START = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"log"\s*:\s*\{')
_ENTRIES = re.compile(rb'"entries"\s*:\s*\[')


def is_har(head: bytes) -> bool:
    """Whether the text starts like a HAR file (``{"log": {… "entries": [``)."""
    return _START.match(head) is not None and _ENTRIES.search(head) is not None


def entries(path: Path) -> list:
    """The entries of a HAR file; ValueError saying why when it cannot be read."""
    try:
        data = loads(path.read_bytes())
    except RecursionError:
        raise ValueError("not readable as a HAR file: JSON nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"not readable as a HAR file: {exc}") from None
    log = data.get("log") if isinstance(data, dict) else None
    items = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(items, list):
        raise ValueError("the HAR file has no list log.entries")
    return items


def parts(entry) -> tuple[str, str | bytes | None, str | bytes | None]:
    """An entry's request URL, request body and response body (None where absent);
    ValueError when a body marked base64 is not."""
    if not isinstance(entry, dict):
        raise ValueError("a HAR entry that is not an object")
    request = entry.get("request") if isinstance(entry.get("request"), dict) else {}
    response = entry.get("response") if isinstance(entry.get("response"), dict) else {}
    post = request.get("postData") if isinstance(request.get("postData"), dict) else {}
    content = response.get("content") if isinstance(response.get("content"), dict) else {}
    url = request.get("url") if isinstance(request.get("url"), str) else ""
    return url, _text(post, "request.postData"), _text(content, "response.content")


def _text(part: dict, where: str) -> str | bytes | None:
    text = part.get("text")
    if not isinstance(text, str):
        return None
    if part.get("encoding") == "base64":
        try:
            return base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError(f"{where}.text is marked base64 but is not ({exc})") from None
    return text


def started(entry) -> str | None:
    """When the entry's request started (``startedDateTime``, ISO 8601), if given."""
    value = entry.get("startedDateTime") if isinstance(entry, dict) else None
    return value if isinstance(value, str) else None
