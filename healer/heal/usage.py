"""What the agent spends: tokens read from the provider's own usage fields, and the budgets that bound them.

Pure: the proxy (:mod:`.proxy`) feeds each response's bytes to a :class:`UsageReader` as they pass and
asks the :class:`Meter` before forwarding a request. Where the providers say what a response cost:

- Anthropic Messages: ``usage`` of the response, or, streamed, ``message.usage`` of ``message_start`` (the
  input) and ``usage`` of ``message_delta`` (the output so far, cumulative). Input counts
  ``input_tokens`` plus the cached ``cache_creation_input_tokens`` and ``cache_read_input_tokens`` (a
  caching agent sends most of its input as those, and they are input like any other);
- OpenAI Responses: ``usage.input_tokens`` and ``output_tokens`` of the response, or of ``response`` in the
  ``response.completed`` (or ``response.incomplete``/``response.failed``) event;
- Chat Completions: ``usage.prompt_tokens`` and ``completion_tokens``, streamed in the last chunk when
  ``stream_options.include_usage`` is set (the proxy sets it on every streamed request);
- Gemini (``generateContent``, ``streamGenerateContent``): ``usageMetadata`` of the response, or of each
  chunk of the stream (``data:`` events with ``?alt=sse``, else one JSON array of chunks), where it repeats
  cumulatively, the last chunk holding the whole. Input is ``promptTokenCount`` (cached content is part of
  it) plus ``toolUsePromptTokenCount``; output is ``candidatesTokenCount`` plus ``thoughtsTokenCount``, or
  whatever of ``totalTokenCount`` the input does not account for, if that is more. A ``countTokens`` answer
  (``totalTokens``, no candidates) costs nothing: Google does not bill it.

For each field the largest value seen in one response counts (streamed counts are cumulative). A successful
response that says nothing about its usage is counted by size (four bytes a token, request and response),
so that no request shape makes the agent's spending free.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

from healer.change.outcomes import Spend

# An event or body beyond this is not parsed (a usage record is small; `response.completed` repeats the
# whole response, a few hundred KiB at most).
MAX_PARSED = 8 * 1024 * 1024
_INPUT_FIELDS = ("input_tokens", "prompt_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
_OUTPUT_FIELDS = ("output_tokens", "completion_tokens")


@dataclass(frozen=True)
class Usage:
    """Tokens one response cost."""

    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False  # counted by size: the response named no usage

    @property
    def total(self) -> int:
        return self.input_tokens + self.output_tokens


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _gemini_usage(meta: dict[str, Any]) -> tuple[int, int]:
    """(input, output) of a Gemini ``usageMetadata``."""
    read = _count(meta.get("promptTokenCount")) + _count(meta.get("toolUsePromptTokenCount"))
    written = _count(meta.get("candidatesTokenCount")) + _count(meta.get("thoughtsTokenCount"))
    return read, max(written, _count(meta.get("totalTokenCount")) - read)


def _usage_records(event: object) -> list[tuple[int, int]]:
    """(input, output) of each usage record an event or body carries: its own ``usage``, its ``message``'s,
    its ``response``'s, its ``usageMetadata`` (Gemini); a JSON array (a Gemini stream read in one piece)
    carries its items'. A Gemini token count carries a record of nothing."""
    if isinstance(event, list):
        return [record for item in event if isinstance(item, dict) for record in _usage_records(item)]
    if not isinstance(event, dict):
        return []
    found = []
    for holder in (event, event.get("message"), event.get("response")):
        if isinstance(holder, dict) and isinstance(usage := holder.get("usage"), dict):
            read = sum(_count(usage.get(f)) for f in _INPUT_FIELDS)
            found.append((read, sum(_count(usage.get(f)) for f in _OUTPUT_FIELDS)))
    if isinstance(meta := event.get("usageMetadata"), dict):
        found.append(_gemini_usage(meta))
    elif "totalTokens" in event and "candidates" not in event:
        found.append((0, 0))  # countTokens
    return found


class UsageReader:
    """Reads one response's usage from its bytes as they pass: server-sent events or one JSON body."""

    def __init__(self, *, streamed: bool) -> None:
        self.streamed = streamed
        self.input_tokens = 0
        self.output_tokens = 0
        self.seen = False  # some usage field was read
        self.size = 0
        self._pending = bytearray()  # the unfinished line (events) or the body so far (JSON)
        self._data: list[bytes] = []  # the data lines of the event being read
        self._data_size = 0
        self._overflow = False

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if not self.streamed:
            if len(self._pending) + len(chunk) <= MAX_PARSED:
                self._pending += chunk
            else:
                self._overflow = True
            return
        self._pending += chunk
        while (end := self._pending.find(b"\n")) >= 0:
            line = bytes(self._pending[:end]).rstrip(b"\r")
            del self._pending[: end + 1]
            self._line(line)
        if len(self._pending) > MAX_PARSED:
            self._pending.clear()  # one line beyond any event: skip it

    def _line(self, line: bytes) -> None:
        if not line:
            self._dispatch()
        elif line.startswith(b"data:"):
            data = line[5:]
            data = data[1:] if data.startswith(b" ") else data
            self._data_size += len(data)
            if self._data_size <= MAX_PARSED:
                self._data.append(data)

    def _dispatch(self) -> None:
        data, self._data, self._data_size = b"\n".join(self._data), [], 0
        if data and data != b"[DONE]":
            self._take(data)

    def _take(self, data: bytes) -> None:
        try:
            event = json.loads(data)
        except (ValueError, RecursionError):
            return
        for read, written in _usage_records(event):
            self.seen = True
            self.input_tokens = max(self.input_tokens, read)
            self.output_tokens = max(self.output_tokens, written)

    def finish(self, request_size: int = 0, *, ok: bool = True) -> Usage:
        """The response's usage, once it has been read to its end (or as far as it went)."""
        if self.streamed:
            if self._pending:
                self._line(bytes(self._pending).rstrip(b"\r"))
                self._pending.clear()
            self._dispatch()
        elif self._pending and not self._overflow:
            self._take(bytes(self._pending))
            self._pending.clear()
        if self.seen or not ok:
            return Usage(self.input_tokens, self.output_tokens)
        return Usage(request_size // 4, self.size // 4, estimated=True)


@dataclass(frozen=True)
class Limits:
    """The budgets of one heal; 0 (or None) is no limit."""

    tokens: int = 0  # agent-token-budget
    requests: int = 0  # agent-request-budget
    pr_tokens: int = 0  # max-agent-tokens-per-pr
    pr_spent: int = 0  # what the pull request's earlier attempts spent (from their markers)


class Meter:
    """Counts one heal's requests and tokens against its :class:`Limits` (thread-safe: the proxy serves
    requests on threads)."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._tokens = 0
        self._requests = 0
        self._refused = 0
        self._stopped = ""
        self._limit = 0
        self._estimated = False
        self.first_refusal: float | None = None  # time.monotonic() of the first refused request

    def _spent_budget(self) -> tuple[str, int, str]:
        """The first budget already spent: (input name, its figure, the sentence for the agent)."""
        limits = self.limits
        if limits.requests and self._requests >= limits.requests:
            return (
                "agent-request-budget",
                limits.requests,
                f"this heal's request budget is spent ({self._requests:,} of {limits.requests:,} requests)",
            )
        if limits.tokens and self._tokens >= limits.tokens:
            return (
                "agent-token-budget",
                limits.tokens,
                f"this heal's token budget is spent ({self._tokens:,} of {limits.tokens:,} tokens)",
            )
        if limits.pr_tokens and limits.pr_spent + self._tokens >= limits.pr_tokens:
            spent = limits.pr_spent + self._tokens
            return (
                "max-agent-tokens-per-pr",
                limits.pr_tokens,
                f"this pull request's token budget is spent ({spent:,} of {limits.pr_tokens:,} tokens over "
                "its heal attempts)",
            )
        return "", 0, ""

    def admit(self) -> str:
        """Count one request, or refuse it: returns ``""`` (go on) or the message that says which budget
        is spent."""
        with self._lock:
            name, figure, message = self._spent_budget()
            if name:
                self._refused += 1
                if self.first_refusal is None:
                    self.first_refusal = time.monotonic()
                if not self._stopped:
                    self._stopped, self._limit = name, figure
                return (
                    f"ci-healer: the model budget of this heal is spent: {message}. This is final, not an "
                    "error to retry: stop here and report what you found and changed so far"
                )
            self._requests += 1
            return ""

    def add(self, usage: Usage) -> None:
        with self._lock:
            self._tokens += usage.total
            self._estimated = self._estimated or usage.estimated

    def spend(self, ended: float | None = None) -> Spend:
        """What was spent; ``ended``: the ``time.monotonic()`` at which the agent ended, to say how long it
        went on after the budget's first refusal."""
        with self._lock:
            after = None
            if ended is not None and self.first_refusal is not None:
                after = max(0.0, ended - self.first_refusal)
            spent = (self._tokens, self._requests, self._refused)
            return Spend(*spent, self._stopped, self._limit, self._estimated, after)
