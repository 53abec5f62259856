"""OpenAI Chat Completions (``POST /v1/chat/completions``) for the scripted provider, as aider (through
litellm) speaks it.

aider gives its model no tools: its system prompt asks for each change as a *SEARCH/REPLACE block* (its
``diff`` edit format, the default for the Claude Sonnet and GPT-4o models it picks from ``ANTHROPIC_API_KEY``
or ``OPENAI_API_KEY``), and it applies the blocks it finds in the reply. The answer depends only on the
request:

- a request whose messages ask for SEARCH/REPLACE blocks → :func:`edit_block_text`: the block for
  ``provider.edit``, then ``provider.edit.summary``. aider sees the file the reply names; when it is not in
  the chat yet (the recipe names no file), aider adds it and asks again with the file's content, and the same
  answer then edits it: two requests a heal;
- any other request → ``provider.edit.summary`` alone.

Streamed (``"stream": true``, which aider asks for) the answer is server-sent events, one ``data:`` line per
``chat.completion.chunk`` (the role, the content in pieces, the ``finish_reason``), then, when
``stream_options.include_usage`` is set (the healer's proxy sets it), a last chunk with no choices carrying
``usage`` (``prompt_tokens``, ``completion_tokens``, ``total_tokens``), and ``data: [DONE]``. Otherwise the
same completion as one JSON body, with its ``usage``.
"""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING, Any

from . import Recorded, Reply

if TYPE_CHECKING:
    from . import ScriptedProvider

PIECE_CHARS = 40  # content per streamed chunk: the CLI reassembles the reply from many deltas


def edit_block_text(provider: ScriptedProvider) -> str:
    """The reply that makes aider perform ``provider.edit``: the file's path on a line of its own, then a
    fenced SEARCH/REPLACE block (aider's ``diff`` format; its parser reads it for ``diff-fenced`` too, where
    the path is inside the fence), then the summary. The SEARCH part is ``edit.old`` as it is: aider restores
    an indentation missing from every line when it matches it against the file."""
    edit = provider.edit
    return (
        f"{edit.path}\n"
        "```python\n"
        "<<<<<<< SEARCH\n"
        f"{edit.old}\n"
        "=======\n"
        f"{edit.new}\n"
        ">>>>>>> REPLACE\n"
        "```\n\n"
        f"{edit.summary}\n"
    )


def _text(content: Any) -> str:
    """A message's content as text (a string, or a list of ``{"type": "text", "text": ...}`` parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def asks_for_edit_blocks(body: Any) -> bool:
    """Whether the request asks for aider's SEARCH/REPLACE blocks (its system prompt describes them)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list):
        return False
    return any("SEARCH/REPLACE" in _text(m.get("content")) for m in messages if isinstance(m, dict))


def answer(provider: ScriptedProvider, request: Recorded) -> Reply:
    body = request.body if isinstance(request.body, dict) else {}
    text = edit_block_text(provider) if asks_for_edit_blocks(body) else provider.edit.summary
    model = str(body.get("model") or "gpt-4o")
    ident = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    created = int(time.time())
    usage = {
        "prompt_tokens": provider.input_tokens,
        "completion_tokens": provider.output_tokens,
        "total_tokens": provider.input_tokens + provider.output_tokens,
    }
    if body.get("stream") is not True:
        return Reply.json(
            {
                "id": ident,
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text, "refusal": None},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage,
            }
        )

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    events: list[tuple[str | None, Any]] = [(None, chunk({"role": "assistant", "content": ""}))]
    pieces = [text[i : i + PIECE_CHARS] for i in range(0, len(text), PIECE_CHARS)]
    events += [(None, chunk({"content": piece})) for piece in pieces]
    events.append((None, chunk({}, "stop")))
    options = body.get("stream_options")
    if isinstance(options, dict) and options.get("include_usage"):
        events.append((None, {**chunk({}), "choices": [], "usage": usage}))  # the usage, with no choice
    events.append((None, "[DONE]"))
    return Reply.events(events)


__all__ = ["answer", "asks_for_edit_blocks", "edit_block_text"]
