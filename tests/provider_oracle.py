"""PROVIDERS.md read a second time, plainly: a view's items (kind, call_id, synthetic) ->
per provider the (rule, message_index, content_index, ids) it breaks. Pure Python, one loop
per rule, sharing nothing with explorer/providers (the independent oracle of its tests)."""

from __future__ import annotations

ORDER = ("anthropic.unanswered", "anthropic.unexpected", "anthropic.duplicate",
         "anthropic.multiple-results", "bedrock.expected", "bedrock.exceeds",
         "bedrock.duplicate", "bedrock.first-user", "openai-chat.unanswered",
         "openai-chat.foreign-id", "openai-chat.orphan", "openai-responses.no-output",
         "openai-responses.no-call", "gemini.count", "gemini.response-order",
         "gemini.call-order")


def _blocks(items):
    """(role, block) per item sent: block = ('use'|'result'|'text', id)."""
    body, prev = [], None
    for kind, cid, synthetic in items:
        if kind in ("SYSTEM", "OTHER"):
            continue
        if kind == "USER":
            role, block = "user", ("text", None)
        elif kind == "SUMMARY":
            shadow = prev is not None and prev[0] == "USER" and prev[2]
            role, block = ("assistant" if shadow else "user"), ("text", None)
        elif kind == "ASSISTANT":
            role, block = "assistant", ("text", None)
        elif kind == "CALL":
            role, block = "assistant", ("use", cid) if cid is not None else ("text", None)
        else:
            role, block = ("tool", ("result", cid)) if cid is not None else ("user", ("text", None))
        body.append((role, block))
        prev = (kind, cid, synthetic)
    return body


def _runs(pairs):
    msgs = []
    for role, block in pairs:
        if msgs and msgs[-1][0] == role:
            msgs[-1][1].append(block)
        else:
            msgs.append((role, [block]))
    return msgs


def _uniq(ids):
    return tuple(dict.fromkeys(ids))


def anthropic(items, bedrock=False):
    msgs = _runs([("user" if r == "tool" else r, b) for r, b in _blocks(items)])
    out = []
    seen = set()
    for n, (role, blocks) in enumerate(msgs):
        uses = [i for k, i in blocks if k == "use"]
        nxt = msgs[n + 1][1] if n + 1 < len(msgs) else []
        if bedrock:
            res_next = {i for k, i in nxt if k == "result"}
            miss = [u for u in uses if u not in res_next]
            if miss:
                out.append(("bedrock.expected", n + 1, None, _uniq(miss)))
            results = [i for k, i in blocks if k == "result"]
            prev_uses = len([1 for k, _ in msgs[n - 1][1] if k == "use"]) \
                if n > 0 and msgs[n - 1][0] == "assistant" else 0
            if len(results) > prev_uses:
                out.append(("bedrock.exceeds", n, None, _uniq(results)))
            dups = [u for j, u in enumerate(uses) if u in uses[:j]]
            if dups:
                out.append(("bedrock.duplicate", n, None, _uniq(dups)))
            if n == 0 and role != "user":
                out.append(("bedrock.first-user", 0, None, ()))
            continue
        lead = []
        for k, i in nxt:
            if k != "result":
                break
            lead.append(i)
        miss = [u for u in uses if u not in lead]
        if miss:
            out.append(("anthropic.unanswered", n, None, _uniq(miss)))
        prev_uses = [i for k, i in msgs[n - 1][1] if k == "use"] if n > 0 else []
        res_seen = set()
        for m, (k, i) in enumerate(blocks):
            if k == "result":
                if i not in prev_uses:
                    out.append(("anthropic.unexpected", n, m, (i,)))
                if i in res_seen:
                    out.append(("anthropic.multiple-results", n, m, (i,)))
                res_seen.add(i)
            if k == "use":
                if i in seen:
                    out.append(("anthropic.duplicate", n, m, (i,)))
                seen.add(i)
    return out


def openai_chat(items):
    body = _blocks(items)
    msgs = [("system", [])] if any(k == "SYSTEM" for k, _, _ in items) else []
    for role, block in body:
        if role == "tool" or not msgs or msgs[-1][0] != role:
            msgs.append((role, [block]))
        else:
            msgs[-1][1].append(block)
    out = []
    for n, (role, blocks) in enumerate(msgs):
        if role == "tool":
            h = n - 1
            while h >= 0 and msgs[h][0] == "tool":
                h -= 1
            calls = [i for k, i in msgs[h][1] if k == "use"] if h >= 0 else []
            if h < 0 or msgs[h][0] != "assistant" or not calls:
                out.append(("openai-chat.orphan", n, None, (blocks[0][1],)))
            elif blocks[0][1] not in calls:
                out.append(("openai-chat.foreign-id", n, None, (blocks[0][1],)))
        calls = [i for k, i in blocks if k == "use"]
        if role == "assistant" and calls:
            answered, j = set(), n + 1
            while j < len(msgs) and msgs[j][0] == "tool":
                answered.add(msgs[j][1][0][1])
                j += 1
            miss = [c for c in calls if c not in answered]
            if miss:
                out.append(("openai-chat.unanswered", n, None, _uniq(miss)))
    return out


def openai_responses(items):
    body = _blocks(items)
    out = []
    for n, (_, (k, i)) in enumerate(body):
        if k == "use" and not any(kk == "result" and ii == i for _, (kk, ii) in body[n + 1:]):
            out.append(("openai-responses.no-output", n, None, (i,)))
        if k == "result" and not any(kk == "use" and ii == i for _, (kk, ii) in body[:n]):
            out.append(("openai-responses.no-call", n, None, (i,)))
    return out


def gemini(items):
    turns = _runs(_blocks(items))
    out = []
    for n, (role, blocks) in enumerate(turns):
        calls = [i for k, i in blocks if k == "use"]
        prev = turns[n - 1] if n > 0 else None
        if role == "assistant" and calls:
            nxt = turns[n + 1] if n + 1 < len(turns) else None
            parts = len(nxt[1]) if nxt and nxt[0] == "tool" else 0
            if parts != len(calls):
                out.append(("gemini.count", n, None, _uniq(calls)))
            if prev is None or prev[0] == "assistant":
                out.append(("gemini.call-order", n, None, _uniq(calls)))
        after_call = prev and prev[0] == "assistant" and any(k == "use" for k, _ in prev[1])
        if role == "tool" and not after_call:
            out.append(("gemini.response-order", n, None, _uniq(i for _, i in blocks)))
    return out


def check(items) -> dict[str, list[tuple]]:
    """Per provider, its violations in PROVIDERS.md's order."""
    found = {"anthropic": anthropic(items), "bedrock": anthropic(items, bedrock=True),
             "openai-chat": openai_chat(items), "openai-responses": openai_responses(items),
             "gemini": gemini(items)}
    key = lambda v: (v[1], -1 if v[2] is None else v[2], ORDER.index(v[0]))
    return {p: sorted(vs, key=key) for p, vs in found.items()}
