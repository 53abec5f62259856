"""OpenAI Responses (``POST /v1/responses``) for the scripted provider, as Codex CLI speaks it.

The answer depends only on the ``input`` array the CLI sends (no state between requests):

- no tool output in it yet → the scripted edit, as a call of the edit tool the request declares;
- a ``function_call_output`` or ``custom_tool_call_output`` in it → a final assistant message,
  ``provider.edit.summary``.

Which tool makes the edit follows what the request declares (in ``tools``, or in an ``additional_tools`` item
of ``input``, where Codex 0.171 declares its tools for its default model):

- ``apply_patch`` (a freeform ``custom`` tool, or a ``function`` taking ``input``) → a call with the patch;
- ``exec`` (Codex's "code mode": a ``custom`` tool running JavaScript, whose nested tools include
  ``apply_patch``) → ``await tools.apply_patch(<patch>)``;
- otherwise a shell tool (``exec_command``, ``shell_command``, ``shell``) → a command that edits the file.

The patch is Codex's own format (``*** Begin Patch`` … ``*** End Patch``), with the changed line taken from
the file in the checkout the CLI named as its working directory, so that its indentation is kept.

Streamed (``"stream": true``, which Codex always asks for) the answer is server-sent events:
``response.created``, ``response.output_item.added``, the item's deltas, ``response.output_item.done`` and
``response.completed`` carrying ``usage`` (``input_tokens``, ``output_tokens``, ``total_tokens``); otherwise
the same response as one JSON body.
"""

from __future__ import annotations

import json
import shlex
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import Recorded, Reply

if TYPE_CHECKING:
    from . import Edit, ScriptedProvider

_OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
_SHELLS = ("exec_command", "shell_command", "shell")


def answer(provider: ScriptedProvider, request: Recorded) -> Reply:
    if request.method != "POST":
        said = f"scripted provider: no route {request.method} {request.path}"
        return Reply.json({"error": {"message": said, "type": "invalid_request_error"}}, 404)
    body = request.body if isinstance(request.body, dict) else {}
    items = body.get("input") if isinstance(body.get("input"), list) else []
    if any(isinstance(item, dict) and item.get("type") in _OUTPUTS for item in items):
        item = _message(provider.edit.summary)
    else:
        item = _edit_call(provider.edit, declared_tools(body), provider.cwd_of(request))
    response = {
        "id": f"resp_{uuid.uuid4().hex}",
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": str(body.get("model") or "scripted"),
        "output": [item],
        "usage": {
            "input_tokens": provider.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": provider.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": provider.input_tokens + provider.output_tokens,
        },
    }
    if body.get("stream") is not True:
        return Reply.json(response)
    return Reply.events(_stream(response, item))


def declared_tools(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """name → declaration of every tool the request declares, namespaces flattened (the last part of the name
    is the key; a namespaced tool also carries ``"_namespace"``)."""
    found: dict[str, dict[str, Any]] = {}

    def walk(tools: object, namespace: str | None) -> None:
        for tool in tools if isinstance(tools, list) else []:
            if not isinstance(tool, dict):
                continue
            if tool.get("type") == "namespace":
                walk(tool.get("tools"), str(tool.get("name") or ""))
                continue
            name = str(tool.get("name") or tool.get("type") or "")
            found.setdefault(name, {**tool, "_namespace": namespace} if namespace else tool)

    walk(body.get("tools"), None)
    for item in body.get("input") if isinstance(body.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            walk(item.get("tools"), None)
    return found


def patch_of(edit: Edit, cwd: str | None) -> str:
    """The edit in apply_patch's format: the whole lines that hold ``edit.old``, as the file has them."""
    lines = [edit.old]
    if cwd:
        try:
            text = (Path(cwd) / edit.path).read_text(encoding="utf-8")
        except OSError:
            text = ""
        lines = [line for line in text.splitlines() if edit.old in line] or lines
    hunk = "".join(f"-{line}\n+{line.replace(edit.old, edit.new)}\n" for line in dict.fromkeys(lines))
    return f"*** Begin Patch\n*** Update File: {edit.path}\n@@\n{hunk}*** End Patch\n"


def shell_command_of(edit: Edit) -> str:
    """A shell command that makes the edit (for a model family given only a shell)."""
    script = (
        "import pathlib,sys;p=pathlib.Path(sys.argv[1]);"
        "p.write_text(p.read_text().replace(sys.argv[2],sys.argv[3]))"
    )
    return shlex.join(["python3", "-c", script, edit.path, edit.old, edit.new])


def _edit_call(edit: Edit, tools: dict[str, dict[str, Any]], cwd: str | None) -> dict[str, Any]:
    call_id = f"call_{uuid.uuid4().hex[:24]}"
    patch = patch_of(edit, cwd)
    apply_patch = tools.get("apply_patch")
    if apply_patch is not None and apply_patch.get("type") == "custom":
        return _custom_call(call_id, apply_patch, patch)
    if apply_patch is not None and apply_patch.get("type") == "function":
        return _function_call(call_id, apply_patch, {"input": patch})
    code_mode = tools.get("exec")
    if code_mode is not None and code_mode.get("type") == "custom":
        script = f"const result = await tools.apply_patch({json.dumps(patch)});\ntext(result);\n"
        return _custom_call(call_id, code_mode, script)
    command = shell_command_of(edit)
    if "exec_command" in tools:
        return _function_call(call_id, tools["exec_command"], {"cmd": command})
    if "shell_command" in tools:
        return _function_call(call_id, tools["shell_command"], {"command": command})
    if "shell" in tools:
        return _function_call(call_id, tools["shell"], {"command": ["bash", "-lc", command]})
    if "local_shell" in tools:
        return {"type": "local_shell_call", "id": f"lsh_{call_id}", "call_id": call_id, "status": "completed",
                "action": {"type": "exec", "command": ["bash", "-lc", command]}}  # fmt: skip
    return _message(f"scripted provider: the request declares no tool to edit with ({sorted(tools)})")


def _namespaced(item: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    if tool.get("_namespace"):
        item["namespace"] = tool["_namespace"]
    return item


def _custom_call(call_id: str, tool: dict[str, Any], text: str) -> dict[str, Any]:
    item = {"type": "custom_tool_call", "id": f"ctc_{call_id}", "status": "completed", "call_id": call_id,
            "name": tool["name"], "input": text}  # fmt: skip
    return _namespaced(item, tool)


def _function_call(call_id: str, tool: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    item = {"type": "function_call", "id": f"fc_{call_id}", "status": "completed", "call_id": call_id,
            "name": tool["name"], "arguments": json.dumps(arguments)}  # fmt: skip
    return _namespaced(item, tool)


def _message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _stream(response: dict[str, Any], item: dict[str, Any]) -> list[tuple[str | None, Any]]:
    events: list[tuple[str | None, Any]] = []

    def emit(kind: str, **data: Any) -> None:
        events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

    started = {**response, "status": "in_progress", "output": [], "usage": None}
    emit("response.created", response=started)
    emit("response.in_progress", response=started)
    where = {"output_index": 0, "item_id": item["id"]}
    pending = {**item, "status": "in_progress"}
    if item["type"] == "message":
        text = item["content"][0]["text"]
        emit("response.output_item.added", output_index=0, item={**pending, "content": []})
        part = {"type": "output_text", "text": "", "annotations": []}
        emit("response.content_part.added", **where, content_index=0, part=part)
        emit("response.output_text.delta", **where, content_index=0, delta=text)
        emit("response.output_text.done", **where, content_index=0, text=text)
        emit("response.content_part.done", **where, content_index=0, part={**part, "text": text})
    elif item["type"] == "custom_tool_call":
        emit("response.output_item.added", output_index=0, item={**pending, "input": ""})
        emit("response.custom_tool_call_input.delta", **where, delta=item["input"])
        emit("response.custom_tool_call_input.done", **where, input=item["input"])
    elif item["type"] == "function_call":
        emit("response.output_item.added", output_index=0, item={**pending, "arguments": ""})
        emit("response.function_call_arguments.delta", **where, delta=item["arguments"])
        emit("response.function_call_arguments.done", **where, arguments=item["arguments"])
    else:
        emit("response.output_item.added", output_index=0, item=item)
    emit("response.output_item.done", output_index=0, item=item)
    emit("response.completed", response=response)
    return events
