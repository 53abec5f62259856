"""A scripted model provider on loopback, owned by the tests: it answers the real agent CLIs in each
provider's own wire format and, through each CLI's own tool use (or edit format), makes them perform one
scripted edit of the checkout. It records every request, so a test can see what reached the provider and
with which key.

One server serves all four wire formats, routed by path:

- Anthropic Messages: ``POST /v1/messages`` (and ``/v1/messages/count_tokens``) → :mod:`.anthropic`
- OpenAI Responses: ``POST /v1/responses`` → :mod:`.responses`
- OpenAI Chat Completions: ``POST /v1/chat/completions`` → :mod:`.chat`
- Gemini: ``POST /v1beta/models/<model>:generateContent``, ``:streamGenerateContent``, ``:countTokens``
  → :mod:`.gemini`

Each module answers from the conversation it is sent (no state of its own between requests), so a CLI that
retries or sends an extra request gets a consistent answer.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Edit:
    """The one change the scripted model makes: replace ``old`` by ``new`` in ``path`` (relative to the
    checkout), then say ``summary``."""

    path: str = "widgets/calc.py"
    old: str = "return a - b"
    new: str = "return a + b"
    summary: str = "Fixed add() in widgets/calc.py: it subtracted instead of adding."


@dataclass(frozen=True)
class Recorded:
    """One request the provider received."""

    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any  # the parsed JSON body ({} when there was none or it was not JSON)
    raw: bytes = b""

    @property
    def key(self) -> str:
        """The credential the request carried (whichever header its API uses)."""
        auth = self.headers.get("authorization", "")
        return (
            self.headers.get("x-api-key")
            or self.headers.get("x-goog-api-key")
            or (auth[7:] if auth.lower().startswith("bearer ") else auth)
        )


@dataclass
class Reply:
    """What to answer: a status, a content type and the body in pieces (each written and flushed in turn, so
    that server-sent events arrive as a stream)."""

    status: int = 200
    content_type: str = "application/json"
    pieces: list[bytes] = field(default_factory=list)

    @classmethod
    def json(cls, value: Any, status: int = 200) -> Reply:
        return cls(status, "application/json", [json.dumps(value).encode()])

    @classmethod
    def events(cls, events: list[tuple[str | None, Any]]) -> Reply:
        """Server-sent events: ``(event name or None, data)`` each; data that is not a string is JSON."""
        pieces = []
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            head = f"event: {name}\n" if name else ""
            pieces.append(f"{head}data: {text}\n\n".encode())
        return cls(200, "text/event-stream", pieces)


Answer = Callable[["ScriptedProvider", Recorded], Reply]
_CWD_PATTERNS = (
    re.compile(r"<cwd>([^<\n]+)</cwd>"),  # Codex's environment context
    re.compile(r"[Ww]orking directory: *(/[^\s`'\"<]+)"),  # Claude Code's system prompt
    re.compile(r"(?:current working directory|working in the directory)[^/\n]*(/[^\s`'\"<]+)", re.I),
)


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value (the text the CLI sent, its escapes decoded)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


class ScriptedProvider:
    """The server. Use as a context manager; ``url`` is its base (``http://127.0.0.1:<port>``)."""

    def __init__(
        self, edit: Edit | None = None, *, input_tokens: int = 1000, output_tokens: int = 50
    ) -> None:
        self.edit = edit or Edit()
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.provider = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> ScriptedProvider:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def model_requests(self) -> list[Recorded]:
        """The requests that asked the model for an answer (not a token count, not a model listing)."""
        return [r for r in self.requests if r.method == "POST" and "count_tokens" not in r.path
                and ":countTokens" not in r.path]  # fmt: skip

    @staticmethod
    def cwd_of(request: Recorded) -> str | None:
        """The working directory the CLI told its model about (the checkout), from anywhere in the request."""
        text = "\n".join(_strings(request.body))
        for pattern in _CWD_PATTERNS:
            if found := pattern.search(text):
                return found.group(1).rstrip(".,;:)")
        return None

    def answer(self, request: Recorded) -> Reply:
        from . import anthropic, chat, gemini, responses  # noqa: PLC0415 - each wire format in its own module

        bare = request.path.split("?", 1)[0]
        route: Answer | None = None
        if bare.startswith("/v1/messages"):
            route = anthropic.answer
        elif bare.startswith("/v1/responses"):
            route = responses.answer
        elif bare.startswith("/v1/chat/completions"):
            route = chat.answer
        elif bare.startswith(("/v1beta/models/", "/v1/models/")) and ":" in bare:
            route = gemini.answer
        if route is None:
            return Reply.json(
                {"error": {"message": f"scripted provider: no route {request.method} {bare}"}}, 404
            )
        return route(self, request)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802
        self._serve()

    def do_POST(self) -> None:  # noqa: N802
        self._serve()

    def _serve(self) -> None:
        provider: ScriptedProvider = self.server.provider  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        request = Recorded(
            self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body, raw
        )
        provider.record(request)
        reply = provider.answer(request)
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        if reply.content_type == "text/event-stream":
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            for piece in reply.pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        else:
            data = b"".join(reply.pieces)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
