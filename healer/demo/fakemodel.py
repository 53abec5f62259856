"""A stand-in for the model APIs, on a loopback port: Anthropic Messages (``/v1/messages``), OpenAI Responses
(``/v1/responses``) and Chat Completions (``/v1/chat/completions``), each plain or streamed (server-sent
events) in the provider's own event shapes, with the usage fields the providers send. It records every
request it receives (headers and body), so that a test can see which key reached it.

The tests of the model proxy and the benchmark use it as the provider behind ``model-api-url``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class ModelRequest:
    """One request the stand-in received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)
    port: int = 0  # the client's port: one connection, one port


class FakeModel:
    """The stand-in server. ``input_tokens``/``output_tokens``: the usage every answer reports; ``chunks``:
    how many text deltas a streamed answer has, ``delay`` seconds apart."""

    def __init__(
        self,
        *,
        input_tokens: int = 100,
        output_tokens: int = 20,
        chunks: int = 3,
        delay: float = 0.0,
        text: str = "I changed widgets/calc.py.",
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.chunks = chunks
        self.delay = delay
        self.text = text
        self.requests: list[ModelRequest] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.model = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self) -> FakeModel:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def record(self, request: ModelRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def pieces(self) -> list[str]:
        words = self.text.split(" ")
        step = max(1, -(-len(words) // max(1, self.chunks)))
        return [" ".join(words[i : i + step]) + " " for i in range(0, len(words), step)]

    # -- the providers' shapes ------------------------------------------------------------------------------

    def anthropic(self, request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]] | dict[str, Any]:
        usage_in = {"input_tokens": self.input_tokens, "output_tokens": 1}
        message = {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": request.get("model", ""),
        }
        if not request.get("stream"):
            return {
                **message,
                "content": [{"type": "text", "text": self.text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
            }

        def events() -> Iterator[tuple[str, dict[str, Any]]]:
            yield (
                "message_start",
                {"type": "message_start", "message": {**message, "content": [], "usage": usage_in}},
            )
            yield (
                "content_block_start",
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            )
            for piece in self.pieces():
                yield (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                )
            yield "content_block_stop", {"type": "content_block_stop", "index": 0}
            yield (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": self.output_tokens},
                },
            )
            yield "message_stop", {"type": "message_stop"}

        return events()

    def responses(self, request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]] | dict[str, Any]:
        usage = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }
        output = [
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": self.text}]}
        ]
        done = {
            "id": "resp_fake",
            "object": "response",
            "status": "completed",
            "output": output,
            "usage": usage,
        }
        if not request.get("stream"):
            return done

        def events() -> Iterator[tuple[str, dict[str, Any]]]:
            yield (
                "response.created",
                {
                    "type": "response.created",
                    "response": {**done, "status": "in_progress", "output": [], "usage": None},
                },
            )
            for piece in self.pieces():
                yield "response.output_text.delta", {"type": "response.output_text.delta", "delta": piece}
            yield "response.completed", {"type": "response.completed", "response": done}

        return events()

    def chat(self, request: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]] | dict[str, Any]:
        usage = {
            "prompt_tokens": self.input_tokens,
            "completion_tokens": self.output_tokens,
            "total_tokens": self.input_tokens + self.output_tokens,
        }
        base = {"id": "chatcmpl-fake", "object": "chat.completion", "model": request.get("model", "")}
        if not request.get("stream"):
            choice = {
                "index": 0,
                "message": {"role": "assistant", "content": self.text},
                "finish_reason": "stop",
            }
            return {**base, "choices": [choice], "usage": usage}
        include = bool((request.get("stream_options") or {}).get("include_usage"))

        def events() -> Iterator[tuple[str, dict[str, Any]]]:
            for piece in self.pieces():
                delta = {"index": 0, "delta": {"content": piece}, "finish_reason": None}
                yield "", {**base, "object": "chat.completion.chunk", "choices": [delta]}
            if include:
                yield "", {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}

        return events()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def setup(self) -> None:
        super().setup()
        # as the providers' servers do: each event leaves at once, not when the last one was acknowledged
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:  # noqa: N802
        model: FakeModel = self.server.model  # type: ignore[attr-defined]
        headers = {k.lower(): v for k, v in self.headers.items()}
        model.record(ModelRequest("GET", self.path, headers, port=self.client_address[1]))
        self._json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    def do_POST(self) -> None:  # noqa: N802
        model: FakeModel = self.server.model  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        model.record(ModelRequest("POST", self.path, headers, body, port=self.client_address[1]))
        bare = self.path.split("?", 1)[0]
        shape = {
            "/v1/messages": model.anthropic,
            "/v1/responses": model.responses,
            "/v1/chat/completions": model.chat,
        }.get(bare)
        if shape is None:
            return self._json(404, {"error": {"message": f"no such path {bare}"}})
        answer = shape(body)
        if isinstance(answer, dict):
            return self._json(200, answer)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for name, data in answer:
            event = (f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n"
            self._chunk(event.encode())
            if model.delay:
                time.sleep(model.delay)
        if bare == "/v1/chat/completions":
            self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
