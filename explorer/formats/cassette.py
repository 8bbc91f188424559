"""Recorded API exchanges (VCR YAML cassettes, as vcrpy and pydantic-ai write them, and HAR
files, explorer.formats.har): the request and response bodies of each interaction, the file
line of each request message, and which requests only replay history that a later request
re-sends (LOG-FORMATS.md §4, §5). A body that cannot be decoded is kept with its reason: the
readers reject it as a record (explorer.formats.recorded_bodies)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from explorer.formats import har, limits
from explorer.formats.recorded_bodies import BodyError, recorded_body

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_START = re.compile(rb"\A(?:\xef\xbb\xbf)?(?:(?:#[^\n]*|---[ \t]*|[ \t]*)\r?\n)*"
                    rb"(?:interactions:[ \t]*\r?\n|\{\s*\"interactions\"\s*:)")
#: What each API's interactions show in their text (host, path, body fields).
_SIGNS = {
    "anthropic": re.compile(rb"api\.anthropic\.com|/v1/messages\b|anthropic-version|"
                            rb"\bstop_reason\b|\btype\"?:\s*\"?(?:tool_use|tool_result)\b"),
    "openai": re.compile(rb"/chat/completions\b|\bchat\.completion\b|\bfinish_reason\b|"
                         rb"\btool_call_id\b"),
}
_URI = re.compile(rb"^\s*\"?ur[il]\"?:\s*\"?(\S+?)\"?,?\s*$", re.MULTILINE)
_URI_KINDS = (("anthropic", re.compile(rb"/v1/messages\b")),
              ("openai", re.compile(rb"/chat/completions\b")),
              ("openai-responses", re.compile(rb"/v1/responses\b")))


def is_cassette(head: bytes) -> bool:
    """Whether the text starts like a recording: a VCR cassette (``interactions:`` at the
    top) or a HAR file."""
    return _START.match(head) is not None or har.is_har(head)


def api(path: Path, head: bytes) -> str | None:
    """Which chat API a cassette records ("anthropic" or "openai"), from its text.

    The request URIs decide, the last one seen winning (a cassette may start on another
    API); without a URI in the first 64 KB (one huge prompt), the rest of the file's URI
    lines are read; failing that, the hosts and body fields of the head."""
    kinds = _uri_kinds(head)
    if not kinds:
        kinds = _uri_kinds_in_file(path)
    if kinds:
        return kinds[-1]
    found = [name for name, sign in _SIGNS.items() if sign.search(head)]
    return found[0] if len(found) == 1 else None


def _uri_kinds(text: bytes) -> list[str]:
    out = []
    for match in _URI.finditer(text):
        out += [name for name, pattern in _URI_KINDS if pattern.search(match.group(1))]
    return out


def _uri_kinds_in_file(path: Path) -> list[str]:
    out: list[str] = []
    with open(path, "rb") as fh:
        for line in fh:
            if b"uri" in line[:40] or b"url" in line[:40]:
                out += _uri_kinds(line)
    return out


@dataclass
class Exchange:
    """One interaction: ``number`` from 1, its file ``line`` (a HAR entry: its number), the
    request and response bodies (None when absent or empty), why a body present could not
    be decoded (``request_error``, ``response_error``), the file line of each request
    message, and (HAR) when the request started."""

    number: int
    line: int
    request: dict | None
    response: dict | None
    message_lines: list[int] = field(default_factory=list)
    response_line: int = 0
    request_error: str | None = None
    response_error: str | None = None
    started: str | None = None


def load(path: Path) -> list[Exchange]:
    """The interactions of a cassette or HAR file; ValueError (with the line) when it cannot
    be read."""
    with open(path, "rb") as fh:
        if har.is_har(fh.read(64 * 1024)):
            return _har_exchanges(path)
    loader = _Loader(path.read_text(encoding="utf-8"))
    try:
        node = loader.get_single_node()
        if node is not None:
            _check_aliases(node)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"not readable as a YAML cassette{where}: {exc}") from exc
    finally:
        loader.dispose()
    items = data.get("interactions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise ValueError("the cassette has no list of interactions")
    item_nodes = _child(node, "interactions")
    out = []
    for i, item in enumerate(items):
        item_node = item_nodes.value[i] if item_nodes is not None else None
        req = item.get("request") if isinstance(item, dict) else None
        res = item.get("response") if isinstance(item, dict) else None
        body, body_error = _body(req)
        lines = []
        if body is not None and "parsed_body" in (req or {}):
            msgs = _child(_child(_child(item_node, "request"), "parsed_body"), "messages")
            # messages of the wrong type are the reader's to reject; they have no lines here
            lines = ([m.start_mark.line + 1 for m in msgs.value]
                     if isinstance(msgs, yaml.SequenceNode) else [])
        line = item_node.start_mark.line + 1 if item_node is not None else i + 1
        res_node = _child(item_node, "response")
        res_line = res_node.start_mark.line + 1 if res_node is not None else line
        reply, reply_error = _body(res)
        out.append(Exchange(i + 1, line, body, reply, lines, res_line, body_error, reply_error))
    return out


def _har_exchanges(path: Path) -> list[Exchange]:
    out = []
    for i, entry in enumerate(har.entries(path)):
        try:
            _, request, response = har.parts(entry)
        except ValueError as exc:
            out.append(Exchange(i + 1, i + 1, None, None, [], i + 1, str(exc)))
            continue
        body, body_error = _decoded(request)
        reply, reply_error = _decoded(response)
        out.append(Exchange(i + 1, i + 1, body, reply, [], i + 1, body_error, reply_error,
                            har.started(entry)))
    return out


def _check_aliases(root: yaml.Node) -> None:
    """ValueError when the document's aliases repeat more nodes than the limit allows (a
    billion-laughs file: 1.5 KB that the texts built from it would expand to gigabytes), or
    an alias refers to a node that contains it. The composed nodes share what aliases refer
    to, so this counts without expanding anything: each node's size once, from its children."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in _children(node))
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise ValueError("not readable as a YAML cassette: an alias refers to a node that "
                             "contains it")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node) if id(c) not in sizes)
    repeated = sizes[id(root)] - len(sizes)
    if repeated > limits.current().max_yaml_alias_nodes:
        raise ValueError("not readable as a YAML cassette: " + limits.past(
            "max_yaml_alias_nodes", f"its aliases repeat {repeated:,} nodes, more than"))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return list(node.value) if isinstance(node, yaml.SequenceNode) else []


def _child(node, key: str):
    """The value node under ``key`` of a mapping node (None when absent)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if getattr(k, "value", None) == key:
            return v
    return None


def _body(part) -> tuple[dict | None, str | None]:
    """A request or response body: pydantic-ai's ``parsed_body``, else vcrpy's ``body`` (a
    string, or ``{string: …}``: JSON, a streamed reply, either gzip-compressed); and why a
    body present cannot be decoded (None when it can or there is none)."""
    if not isinstance(part, dict):
        return None, None
    if isinstance(part.get("parsed_body"), dict):
        return part["parsed_body"], None
    body = part.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    return _decoded(body)


def _decoded(body) -> tuple[dict | None, str | None]:
    if not isinstance(body, (str, bytes)):
        return None, None
    try:
        return recorded_body(body), None
    except BodyError as exc:
        return None, str(exc)


def replayed(exchanges: list[Exchange],
             messages: Callable[[Exchange], list | None]) -> dict[int, str]:
    """Why each exchange that is not imported is skipped, by exchange number.

    ``messages(ex)`` is the request's message list, or None when the exchange is not of
    the reader's API. An exchange whose messages a later, longer request re-sends as its
    prefix is a replayed copy; the others (the last of each conversation) are imported. The
    same request recorded twice (a retry, a re-recording) is two conversations: the later
    one does not re-send the earlier one's reply.
    """
    lists = [(ex, messages(ex)) for ex in exchanges]
    mine = [(ex, msgs) for ex, msgs in lists if msgs is not None]
    skipped = {ex.number: "not an exchange of this API" for ex, msgs in lists if msgs is None}
    for i, (ex, msgs) in enumerate(mine):
        if any(len(later) > len(msgs) and later[:len(msgs)] == msgs
               for _, later in mine[i + 1:]):
            skipped[ex.number] = "history re-sent in a later request"
    return skipped


@dataclass
class Conversation:
    """One conversation to import: its session key, its messages (the last request's, then
    the reply), each message's file line, and the response metadata (id, model, usage, …)
    of the messages that were a recorded reply, by message index."""

    session_id: str
    messages: list
    lines: list[int]
    replies: dict[int, dict] = field(default_factory=dict)
    #: The response id of each message that was (part of) a recorded reply, by index.
    groups: dict[int, str] = field(default_factory=dict)


Messages = Callable[[dict], "list | None"]
Reply = Callable[[dict], "tuple[dict, dict] | None"]


def read(path: Path, messages_of: Messages, reply_of: Reply, build=None):
    """Records of skipped interactions and the Conversations to import, in file order.

    ``messages_of(request body)`` gives the request's messages (None when the body is not
    of the reader's API); ``reply_of(response body)`` the reply message and its metadata.
    The session is the file name without extension, plus ``/<interaction>`` when a
    cassette holds several conversations. ``build(session, exchange, exchanges, messages by
    exchange number, reply_of)`` makes the Conversation of a last request (by default that of
    an API whose reply is one message).
    """
    from explorer.formats.record import Record

    try:
        exchanges = load(path)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        yield Record(1, error=str(exc), text=path.read_bytes()[:2000].decode("utf-8", "replace"))
        return
    msgs = {ex.number: messages_of(ex.request) if ex.request is not None else None
            for ex in exchanges}
    skipped = replayed(exchanges, lambda ex: msgs[ex.number])
    heads = [ex for ex in exchanges if ex.number not in skipped]
    for ex in exchanges:
        if ex.request_error:
            yield Record(ex.line, error=f"interaction {ex.number}, request body: "
                                        f"{ex.request_error}")
            continue
        if ex.number in skipped:
            if ex.response_error and msgs[ex.number] is not None:
                yield Record(ex.response_line, error=f"interaction {ex.number}, response "
                                                     f"body: {ex.response_error}")
            else:
                yield Record(ex.line, skipped=skipped[ex.number])
            continue
        yield (build or _conversation)(
            path.stem if len(heads) == 1 else f"{path.stem}/{ex.number}", ex, exchanges, msgs,
            reply_of)
        if ex.response_error:
            yield Record(ex.response_line, error=f"interaction {ex.number}, response body: "
                                                 f"{ex.response_error}")
        elif ex.response is not None and reply_of(ex.response) is None:
            yield Record(ex.response_line, skipped="a response without a reply (an API error)")


def _conversation(session: str, ex: Exchange, exchanges: list[Exchange], msgs: dict,
                  reply_of: Reply) -> Conversation:
    """The conversation of the last request ``ex``: its messages and reply, each assistant
    message that was a recorded reply as the API sent it when the client replayed it with
    parts left out, and as replayed when the client wrote something the reply does not
    have (an id it made up, which later results name)."""
    own = msgs[ex.number]
    lines = [ex.line] * (len(own) - len(ex.message_lines)) + ex.message_lines[:len(own)]
    conv = Conversation(session, list(own), lines)
    for other in exchanges[:ex.number]:
        earlier = msgs[other.number]
        reply = reply_of(other.response) if other.response is not None else None
        if earlier is None or reply is None or own[:len(earlier)] != earlier:
            continue
        if other is ex:
            conv.messages.append(reply[0])
            conv.lines.append(ex.response_line)
        at = conv.messages[len(earlier)] if len(earlier) < len(conv.messages) else None
        if not isinstance(at, dict) or at.get("role") != "assistant":
            continue
        if at == reply[0]:
            conv.replies[len(earlier)] = reply[1]
        elif _leaves(at) <= _leaves(reply[0]):   # blocks dropped on replay (server tools,
            # citations), nothing added: what the API sent is the fuller record
            conv.messages[len(earlier)] = reply[0]
            conv.replies[len(earlier)] = reply[1] | {"replayed_as": at}
        else:   # something the client made up (an id for ""): later results may name it
            conv.replies[len(earlier)] = reply[1] | {"reply_as_recorded": reply[0]}
    return conv


def _leaves(value) -> set:
    """The strings and numbers inside a JSON value (keys left out)."""
    if isinstance(value, dict):
        return set().union(*map(_leaves, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(_leaves, value)) if value else set()
    return {value} if isinstance(value, (str, int, float)) else set()
