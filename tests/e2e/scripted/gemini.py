"""Gemini API wire format of the scripted provider (see the package docstring).

Routes ``POST /v1beta/models/<model>:generateContent`` (one ``GenerateContentResponse``),
``:streamGenerateContent`` (with ``?alt=sse``, as the Google GenAI SDK asks, server-sent ``data:`` events each
holding a ``GenerateContentResponse`` chunk; without it, a JSON array of the chunks) and ``:countTokens``
(``{"totalTokens": n}``, which costs nothing). Every answer carries ``usageMetadata`` (``promptTokenCount``,
``candidatesTokenCount``, ``totalTokenCount``); in a stream it repeats in each chunk, cumulative, the last
chunk holding the whole figures, as Gemini sends it.

The script, from the request's ``contents`` alone:

- a request that asks for JSON (``generationConfig.responseMimeType`` ``application/json``: Gemini CLI's model
  router, its next-speaker check, its loop check) gets a JSON value built from its schema (the next speaker is
  the user, the task is simple, there is no loop), so that the CLI goes on at once;
- a conversation with no ``functionResponse`` yet gets a ``functionCall`` of the CLI's edit tool (``replace``
  with an absolute ``file_path`` in the checkout, ``old_string``, ``new_string``, ``instruction``; or
  ``write_file`` where no ``replace`` is declared);
- once the call's ``functionResponse`` is in the conversation, the final text (``Edit.summary``).
"""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from . import Recorded, Reply

if TYPE_CHECKING:
    from . import ScriptedProvider

# Gemini CLI's session context: "- **Workspace Directories:**\n  - /path/of/the/checkout"
_WORKSPACE = re.compile(r"Workspace Directories:\**\s*\n\s*-\s*(/[^\n]+)")
_EDIT_TOOLS = ("replace", "write_file")


def answer(provider: ScriptedProvider, request: Recorded) -> Reply:
    bare = request.path.split("?", 1)[0]
    model, _, method = bare.rsplit("/", 1)[-1].partition(":")
    body = request.body if isinstance(request.body, dict) else {}
    if method == "countTokens":
        return Reply.json({"totalTokens": provider.input_tokens})
    if method not in ("generateContent", "streamGenerateContent"):
        return _error(404, "NOT_FOUND", f"scripted provider: no method {method!r}")
    parts = _json_parts(body) if _wants_json(body) else _script(provider, request, body)
    if isinstance(parts, Reply):
        return parts
    chunks = _chunks(provider, model, parts)
    if method == "generateContent":
        return Reply.json(_whole(chunks))
    if "alt=sse" in request.path:
        return Reply.events([(None, chunk) for chunk in chunks])
    return Reply.json(chunks)


def checkout_of(provider: ScriptedProvider, request: Recorded) -> str | None:
    """The checkout the CLI works in, as its session context names it to the model."""
    body = request.body if isinstance(request.body, dict) else {}
    texts = [
        part["text"]
        for content in [*(body.get("contents") or []), body.get("systemInstruction")]
        if isinstance(content, dict)
        for part in content.get("parts") or []
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]
    for text in texts:
        if found := _WORKSPACE.search(text):
            return found.group(1).strip()
    return provider.cwd_of(request)


def edit_tool(request: Recorded) -> str | None:
    """The edit tool the request declares (``replace`` before ``write_file``), or None."""
    body = request.body if isinstance(request.body, dict) else {}
    declared = {
        f.get("name")
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for f in tool.get("functionDeclarations") or []
        if isinstance(f, dict)
    }
    return next((name for name in _EDIT_TOOLS if name in declared), None)


def function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``functionResponse`` parts of the conversation, in order."""
    return [
        part["functionResponse"]
        for content in body.get("contents") or []
        if isinstance(content, dict)
        for part in content.get("parts") or []
        if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict)
    ]


def asks_for_json(request: Recorded) -> bool:
    """The request is one of the CLI's own JSON questions (router, next speaker, loop check)."""
    return _wants_json(request.body if isinstance(request.body, dict) else {})


def _wants_json(body: dict[str, Any]) -> bool:
    config = body.get("generationConfig") or {}
    return isinstance(config, dict) and (
        config.get("responseMimeType") == "application/json"
        or "responseJsonSchema" in config
        or "responseSchema" in config
    )


def _json_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    config = body["generationConfig"]
    schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
    return [{"text": json.dumps(_value_of(schema, ""))}]


def _value_of(schema: Any, name: str) -> Any:
    """A value that fits ``schema``, chosen so that the CLI goes on without more questions."""
    if not isinstance(schema, dict):
        return None
    kind = str(schema.get("type", "")).lower()
    choices = schema.get("enum")
    if isinstance(choices, list) and choices:
        return "user" if "user" in choices else choices[0]  # the next speaker is the user: the turn ends
    if kind == "object":
        properties = schema.get("properties") or {}
        return {key: _value_of(sub, key) for key, sub in properties.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        if "score" in name:
            return 10  # a simple task (the model router)
        return 0  # e.g. a loop check's confidence
    if name == "next_speaker":
        return "user"
    return "scripted"


def _script(
    provider: ScriptedProvider, request: Recorded, body: dict[str, Any]
) -> list[dict[str, Any]] | Reply:
    edit = provider.edit
    if function_responses(body):
        return [{"text": edit.summary}]
    tool = edit_tool(request)
    checkout = checkout_of(provider, request)
    if tool is None or checkout is None:
        return _error(
            400, "INVALID_ARGUMENT", f"scripted provider: no edit tool ({tool}) or checkout ({checkout})"
        )
    file_path = str(PurePosixPath(checkout) / edit.path)
    if tool == "replace":
        args = {
            "file_path": file_path,
            "instruction": f"In {edit.path}, replace `{edit.old}` with `{edit.new}`.",
            "old_string": edit.old,
            "new_string": edit.new,
        }
    else:
        try:
            with open(file_path, encoding="utf-8") as handle:  # the checkout as the test can read it
                text = handle.read()
        except OSError as exc:
            return _error(400, "INVALID_ARGUMENT", f"scripted provider: cannot read {file_path}: {exc}")
        args = {"file_path": file_path, "content": text.replace(edit.old, edit.new, 1)}
    return [{"functionCall": {"name": tool, "args": args}}]


def _usage(provider: ScriptedProvider, output: int) -> dict[str, int]:
    return {
        "promptTokenCount": provider.input_tokens,
        "candidatesTokenCount": output,
        "totalTokenCount": provider.input_tokens + output,
    }


def _chunks(provider: ScriptedProvider, model: str, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answer as stream chunks: the parts first (with usage so far), then the finish with the whole
    usage. A text is split in two, so that a reader must join the chunks."""
    first = parts
    last: list[dict[str, Any]] = [{"text": ""}]
    if len(parts) == 1 and "text" in parts[0] and len(parts[0]["text"]) > 1:
        text = parts[0]["text"]
        first, last = [{"text": text[: len(text) // 2]}], [{"text": text[len(text) // 2 :]}]
    so_far = max(1, provider.output_tokens // 2)
    common = {"modelVersion": model, "responseId": "scripted"}
    return [
        {
            "candidates": [{"content": {"role": "model", "parts": first}, "index": 0}],
            "usageMetadata": _usage(provider, so_far),
            **common,
        },
        {
            "candidates": [{"content": {"role": "model", "parts": last}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": _usage(provider, provider.output_tokens),
            **common,
        },
    ]


def _whole(chunks: list[dict[str, Any]]) -> dict[str, Any]:
    """The chunks as one response (texts joined, the last usage)."""
    parts: list[dict[str, Any]] = []
    for chunk in chunks:
        for part in chunk["candidates"][0]["content"]["parts"]:
            if "text" in part and parts and "text" in parts[-1]:
                parts[-1] = {"text": parts[-1]["text"] + part["text"]}
            elif part != {"text": ""}:
                parts.append(part)
    last = chunks[-1]
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
    return {**last, "candidates": [candidate]}


def _error(status: int, state: str, message: str) -> Reply:
    return Reply.json({"error": {"code": status, "message": message, "status": state}}, status)
