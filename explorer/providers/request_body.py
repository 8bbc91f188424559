"""A request as the provider's API takes it, to copy and replay: the ``messages`` (or
``input``, ``contents``) and ``system`` (``instructions``, ``systemInstruction``) with their
texts. Model, limits and tool definitions are not in logs: they are the placeholders of
:data:`PLACEHOLDERS` (listed in the README)."""

from __future__ import annotations

import json

from explorer.compaction.log import CALL, RESULT
from explorer.providers import messages_of
from explorer.providers.request import ASSISTANT_SPEAKER, TOOL_SPEAKER, Request

PLACEHOLDERS = {"model": "<model>", "max_tokens": "<max_tokens>", "tools": "<tools>"}


def _input(text: str | None) -> dict:
    """A CALL's arguments: its text when that is a JSON object, else the text in one key."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"text": text or ""}


def body(req: Request, provider: str, texts: list[str | None], system: list[str],
         tools: list[str | None]) -> dict:
    """The request body of ``req`` for ``provider``; ``texts`` and ``tools`` per item of
    ``req`` (in order), ``system`` the texts of the view's SYSTEM items."""
    ms = messages_of(req, provider)
    ids = [req.id_text[c] if c >= 0 and req.id_text else None for c in req.code.tolist()]
    kind = req.kind.tolist()
    blocks = [_block(provider, kind[p], ids[p], texts[p] or "", tools[p] or "tool",
                     bool(req.call[p]), bool(req.result[p])) for p in range(req.n)]
    starts = ms.start.tolist()
    roles = ms.role.tolist()
    system_text = "\n\n".join(system)
    if provider in ("anthropic", "bedrock"):
        messages = [{"role": "assistant" if roles[m] == ASSISTANT_SPEAKER else "user",
                     "content": blocks[starts[m]:starts[m + 1]]} for m in range(ms.count)]
        if provider == "anthropic":
            return {"model": PLACEHOLDERS["model"], "max_tokens": PLACEHOLDERS["max_tokens"],
                    "system": system_text, "tools": PLACEHOLDERS["tools"], "messages": messages}
        return {"modelId": PLACEHOLDERS["model"], "system": [{"text": system_text}],
                "inferenceConfig": {"maxTokens": PLACEHOLDERS["max_tokens"]},
                "toolConfig": PLACEHOLDERS["tools"], "messages": messages}
    if provider == "openai-chat":
        messages = [{"role": "system", "content": system_text}] if req.system[0] else []
        for m in range(ms.count):
            part = blocks[starts[m]:starts[m + 1]]
            if roles[m] == TOOL_SPEAKER:
                messages.append(part[0])
            elif roles[m] == ASSISTANT_SPEAKER:
                calls = [b for b in part if "function" in b]
                text = "\n".join(b["content"] for b in part if "content" in b)
                messages.append({"role": "assistant", "content": text or None,
                                 **({"tool_calls": calls} if calls else {})})
            else:
                messages.append({"role": "user",
                                 "content": "\n".join(b["content"] for b in part)})
        return {"model": PLACEHOLDERS["model"], "max_tokens": PLACEHOLDERS["max_tokens"],
                "tools": PLACEHOLDERS["tools"], "messages": messages}
    if provider == "openai-responses":
        items = []
        for p, b in enumerate(blocks):
            if "type" in b:
                items.append(b)
            else:
                role = "assistant" if req.speaker[p] == ASSISTANT_SPEAKER else "user"
                items.append({"type": "message", "role": role, "content": b["content"]})
        return {"model": PLACEHOLDERS["model"], "max_output_tokens": PLACEHOLDERS["max_tokens"],
                "instructions": system_text, "tools": PLACEHOLDERS["tools"], "input": items}
    role_name = {ASSISTANT_SPEAKER: "model", TOOL_SPEAKER: "function"}
    contents = [{"role": role_name.get(roles[m], "user"), "parts": blocks[starts[m]:starts[m + 1]]}
                for m in range(ms.count)]
    return {"model": PLACEHOLDERS["model"], "systemInstruction": {"parts": [{"text": system_text}]},
            "generationConfig": {"maxOutputTokens": PLACEHOLDERS["max_tokens"]},
            "tools": PLACEHOLDERS["tools"], "contents": contents}


def _block(provider: str, kind: int, cid, text: str, tool: str, call: bool, result: bool):
    if provider == "anthropic":
        if call:
            return {"type": "tool_use", "id": cid, "name": tool, "input": _input(text)}
        if result:
            return {"type": "tool_result", "tool_use_id": cid, "content": text}
        return {"type": "text", "text": text}
    if provider == "bedrock":
        if call:
            return {"toolUse": {"toolUseId": cid, "name": tool, "input": _input(text)}}
        if result:
            return {"toolResult": {"toolUseId": cid, "content": [{"text": text}]}}
        return {"text": text}
    if provider == "openai-chat":
        if call:
            return {"id": cid, "type": "function",
                    "function": {"name": tool, "arguments": json.dumps(_input(text))}}
        if result:
            return {"role": "tool", "tool_call_id": cid, "content": text}
        return {"content": text}
    if provider == "openai-responses":
        if call:
            return {"type": "function_call", "call_id": cid, "name": tool,
                    "arguments": json.dumps(_input(text))}
        if result:
            return {"type": "function_call_output", "call_id": cid, "output": text}
        return {"content": text}
    if call:
        return {"functionCall": {"name": tool, "args": _input(text)}}
    if result:
        return {"functionResponse": {"name": tool, "response": {"content": text}}}
    return {"text": text}


__all__ = ["CALL", "PLACEHOLDERS", "RESULT", "body"]
