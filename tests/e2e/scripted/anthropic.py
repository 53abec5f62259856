"""The Anthropic Messages wire format of the scripted provider (see the package docstring): what Claude Code
(and litellm's Anthropic client, for aider) sends to ``POST /v1/messages`` and ``/v1/messages/count_tokens``.

The script, decided from the conversation each request carries (no state between requests):

1. a request that declares tools and holds no tool result yet: a ``tool_use`` of the declared read tool
   (Claude Code's ``Read``: ``file_path``, absolute) on the edited file in the checkout, whose path the CLI
   states in its system prompt ("Primary working directory: /…");
2. once the read's ``tool_result`` is there: a ``tool_use`` of the declared edit tool (Claude Code's ``Edit``:
   ``file_path``, ``old_string``, ``new_string``) with :attr:`Edit.old` and :attr:`Edit.new`;
3. once the edit's ``tool_result`` is there (or a tool failed): a final text, :attr:`Edit.summary`,
   ``stop_reason: end_turn``.

A request without tools (a title, a quota check) gets a short text; one whose system prompt asks for
SEARCH/REPLACE blocks (aider through litellm) gets :func:`.chat.edit_block_text` when that exists.

Answers stream as server-sent events when the request says ``"stream": true`` (``message_start``,
``content_block_start``/``_delta``/``_stop`` per block, ``message_delta`` with the stop reason and the output
usage, ``message_stop``), else as one JSON message. Every answer carries ``usage``:
``provider.input_tokens`` in, ``provider.output_tokens`` out, so a test knows what the healer must count.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import TYPE_CHECKING, Any

from . import Recorded, Reply

if TYPE_CHECKING:
    from . import ScriptedProvider

PLAIN_TEXT = "OK."
# Claude Code 2.1 states its checkout as " - Primary working directory: /path" in a system message. Read from
# the decoded text (the raw JSON body writes the newline after the path as the two characters `\n`).
_CWD = re.compile(r"[Ww]orking directory: *(/[^\s`'\"<>]+)")


def answer(provider: ScriptedProvider, request: Recorded) -> Reply:
    bare = request.path.split("?", 1)[0]
    body = request.body if isinstance(request.body, dict) else {}
    if request.method != "POST":
        return _error(404, "not_found_error", f"scripted provider: no route {request.method} {bare}")
    if bare == "/v1/messages/count_tokens":
        return Reply.json({"input_tokens": provider.input_tokens})
    if bare != "/v1/messages":
        return _error(404, "not_found_error", f"scripted provider: no route POST {bare}")
    if not isinstance(body.get("messages"), list):
        return _error(400, "invalid_request_error", "scripted provider: messages: a list is required")
    blocks = script(provider, request, body)
    return _stream(provider, body, blocks) if body.get("stream") is True else _message(provider, body, blocks)


def script(provider: ScriptedProvider, request: Recorded, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of the answer to this conversation."""
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name")]
    if not tools:
        return [{"type": "text", "text": _text_only(provider, body)}]
    read_tool, edit_tool = _tool(tools, "read"), _tool(tools, "edit")
    uses, results = _tool_uses(body["messages"])
    done = [uses[i] for i in results if i in uses]
    if edit_tool is None or any(results[i] for i in results) or any(u["name"] == edit_tool for u in done):
        # the edit is made, a tool failed, or there is nothing to edit with: the final word
        failed = [uses.get(i, {}).get("name", i) for i, error in results.items() if error]
        text = provider.edit.summary if not failed else f"The scripted edit failed ({', '.join(failed)})."
        return [{"type": "text", "text": text}]
    path = _path_of(provider, request, body)
    if read_tool is not None and not any(u["name"] == read_tool for u in done):
        return [
            {"type": "text", "text": f"Reading {provider.edit.path}."},
            _use(read_tool, {"file_path": path}),
        ]
    change = {"file_path": path, "old_string": provider.edit.old, "new_string": provider.edit.new}
    return [{"type": "text", "text": f"Fixing {provider.edit.path}."}, _use(edit_tool, change)]


def cwd_of(provider: ScriptedProvider, request: Recorded, body: dict[str, Any]) -> str | None:
    """The checkout the CLI works in, from the text of its system prompt and messages (decoded), else from
    what :meth:`ScriptedProvider.cwd_of` finds in the raw request."""
    for text in _texts(body):
        if found := _CWD.search(text):
            return found.group(1).rstrip(".,;:)")
    return provider.cwd_of(request)


def _path_of(provider: ScriptedProvider, request: Recorded, body: dict[str, Any]) -> str:
    cwd = cwd_of(provider, request, body)
    return f"{cwd.rstrip('/')}/{provider.edit.path}" if cwd else provider.edit.path


def _tool(tools: list[dict[str, Any]], kind: str) -> str | None:
    """The name of the declared tool that reads a file (``kind`` "read") or replaces a string in one
    ("edit"), by its input schema: Claude Code's ``Read`` and ``Edit``."""
    for tool in tools:
        schema = tool.get("input_schema") if isinstance(tool.get("input_schema"), dict) else {}
        fields = set(schema.get("properties") or {})
        if kind == "edit" and {"file_path", "old_string", "new_string"} <= fields:
            return str(tool["name"])
        if kind == "read" and "file_path" in fields and str(tool["name"]).lower() == "read":
            return str(tool["name"])
    return None


def _tool_uses(messages: list[Any]) -> tuple[dict[str, dict[str, Any]], dict[str, bool]]:
    """The tool uses of the conversation by id, and the ids that have a result (True: an error)."""
    uses: dict[str, dict[str, Any]] = {}
    results: dict[str, bool] = {}
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use":
                uses[str(block.get("id"))] = block
            elif block.get("type") == "tool_result":
                results[str(block.get("tool_use_id"))] = block.get("is_error") is True
    return uses, results


def _texts(body: dict[str, Any]) -> list[str]:
    """The system prompt's text, then the text of the messages, system messages first."""
    found: list[str] = []

    def add(content: Any) -> None:
        if isinstance(content, str):
            found.append(content)
        elif isinstance(content, list):
            found.extend(b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str))

    add(body.get("system"))
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    for message in sorted(messages, key=lambda m: m.get("role") != "system"):
        add(message.get("content"))
    return found


def _text_only(provider: ScriptedProvider, body: dict[str, Any]) -> str:
    """The answer to a request without tools: aider's SEARCH/REPLACE block when its system prompt asks for
    one (and the chat module can write it), else a short text (a title, a quota check)."""
    system = [body.get("system")] + [m.get("content") for m in body.get("messages") or []
                                     if isinstance(m, dict) and m.get("role") == "system"]  # fmt: skip
    if "SEARCH/REPLACE" in json.dumps(system):
        from . import chat  # noqa: PLC0415 - aider's edit format lives with its usual wire format

        if hasattr(chat, "edit_block_text"):
            return str(chat.edit_block_text(provider))
    return PLAIN_TEXT


def _use(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    digest = hashlib.sha256(json.dumps([name, arguments], sort_keys=True).encode()).hexdigest()[:24]
    return {"type": "tool_use", "id": f"toolu_{digest}", "name": name, "input": arguments}


def _stop_reason(blocks: list[dict[str, Any]]) -> str:
    return "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"


def _message_id(body: dict[str, Any], blocks: list[dict[str, Any]]) -> str:
    seed = json.dumps([len(body.get("messages") or []), blocks], sort_keys=True)
    return "msg_" + hashlib.sha256(seed.encode()).hexdigest()[:24]


def _usage(provider: ScriptedProvider, output_tokens: int) -> dict[str, int]:
    return {"input_tokens": provider.input_tokens, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0, "output_tokens": output_tokens}  # fmt: skip


def _message(provider: ScriptedProvider, body: dict[str, Any], blocks: list[dict[str, Any]]) -> Reply:
    return Reply.json(
        {
            "id": _message_id(body, blocks),
            "type": "message",
            "role": "assistant",
            "model": body.get("model") or "claude-scripted",
            "content": blocks,
            "stop_reason": _stop_reason(blocks),
            "stop_sequence": None,
            "usage": _usage(provider, provider.output_tokens),
        }
    )


def _stream(provider: ScriptedProvider, body: dict[str, Any], blocks: list[dict[str, Any]]) -> Reply:
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": {
            "id": _message_id(body, blocks), "type": "message", "role": "assistant",
            "model": body.get("model") or "claude-scripted", "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": _usage(provider, 1)}}),
        ("ping", {"type": "ping"}),
    ]  # fmt: skip
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index, "content_block": start}),
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": _stop_reason(blocks), "stop_sequence": None},
                           "usage": {"output_tokens": provider.output_tokens}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return Reply.events(events)


def _error(status: int, kind: str, message: str) -> Reply:
    return Reply.json({"type": "error", "error": {"type": kind, "message": message}}, status)
