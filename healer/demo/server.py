"""The stand-in's HTTP side: a request handler that reads a request, has :class:`healer.demo.api.Api` (or a
signed log URL) answer it, records it without the token, and sends the answer in chunks (noting how much a
client that stopped reading received)."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from healer.demo.api import Api
from healer.demo.routes import SIGNED_LOG_PREFIX, Reply
from healer.demo.state import RecordedRequest

if TYPE_CHECKING:
    from healer.demo.standin import StandIn

_CHUNK = 64 * 1024


def make_handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    api = Api(standin)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "GitHub.com"
        # headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and delayed ACKs
        # add 40 ms to every keep-alive request
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            return

        def do_GET(self) -> None:  # noqa: N802 - the base class's naming
            self._serve()

        def do_POST(self) -> None:  # noqa: N802
            self._serve()

        def do_PATCH(self) -> None:  # noqa: N802
            self._serve()

        def do_PUT(self) -> None:  # noqa: N802
            self._serve()

        def do_DELETE(self) -> None:  # noqa: N802
            self._serve()

        def _serve(self) -> None:
            with standin._lock:
                standin._in_flight += 1
            try:
                self._answer()
            finally:
                with standin._lock:
                    standin._in_flight -= 1

        def _answer(self) -> None:
            split = urlsplit(self.path)
            path, query = split.path, parse_qsl(split.query, keep_blank_values=True)
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            body: Any = None
            if raw_body:
                try:
                    body = json.loads(raw_body)
                except ValueError:
                    body = raw_body.decode("utf-8", "replace")
            auth = self.headers.get("Authorization")
            if path.startswith(SIGNED_LOG_PREFIX):
                operation = "signed-log"
                reply = api.signed_log(path[len(SIGNED_LOG_PREFIX) :], dict(query), self.headers.get("Range"))
            else:
                lowered = {k.lower(): v for k, v in self.headers.items()}
                operation, reply = api.dispatch(self.command, path, query, body, auth, lowered)
            payload = reply.payload()
            headers = tuple(
                (k, "<redacted>" if k.lower() == "authorization" else v) for k, v in self.headers.items()
            )
            # recorded before the answer leaves, so a client never sees an answer the record lacks
            record = RecordedRequest(
                self.command,
                path,
                tuple(query),
                headers,
                body,
                reply.status,
                len(payload),
                operation,
                auth is not None,
                standin.server_url + self.path,
                reply.body if reply.raw is None else None,
            )
            index = standin.record(record)
            sent = self._send(reply, payload)
            if sent != len(payload):
                standin.amend(index, replace(record, bytes_sent=sent))

        def _send(self, reply: Reply, payload: bytes) -> int:
            sent = 0
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("X-GitHub-Request-Id", secrets.token_hex(8).upper())
                for key, value in reply.headers:
                    self.send_header(key, value)
                self.end_headers()
                for start in range(0, len(payload), _CHUNK):
                    chunk = payload[start : start + _CHUNK]
                    self.wfile.write(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                # the client stopped reading (a bounded log download does exactly that)
                self.close_connection = True
            return sent

    return Handler
