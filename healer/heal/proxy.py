"""The model proxy: the agent reaches its model through the healer, which holds the key.

For the duration of the agent command, the healer serves HTTP on a loopback port (``127.0.0.1``, a port the
kernel picks) from a thread of its own process. The agent is given the proxy's address in the variables its
CLI reads (``ANTHROPIC_BASE_URL`` for Claude Code, ``GOOGLE_GEMINI_BASE_URL`` for Gemini CLI,
``ANTHROPIC_API_BASE`` and ``OPENAI_API_BASE`` for aider's litellm, ``OPENAI_BASE_URL`` for the SDKs and
Codex CLI's recipe, which names a model provider at that address) and, in place of each key it was
configured with, a random token made for this heal. The proxy accepts only that token (in ``x-api-key``,
``x-goog-api-key`` or ``Authorization: Bearer``), and no longer once the agent command has ended. It
forwards Anthropic Messages (``/v1/messages``), OpenAI Responses (``/v1/responses``) and Chat Completions
(``/v1/chat/completions``), and Gemini's ``models/<model>:generateContent``, ``:streamGenerateContent`` and
``:countTokens`` to the provider (or to ``model-api-url``, a gateway's base URL), with the real key added,
and relays the answer as it arrives: server-sent events chunk by chunk, each flushed at once. Before
forwarding it asks the :class:`~healer.heal.usage.Meter`; past a budget it answers ``400`` in the provider's
error shape, with ``x-should-retry: false``: measured against the real CLIs (docs/agents.md), a 400 ends
Claude Code, Codex CLI, aider and Gemini CLI at once, where a 403 made Codex retry five times and aider for
over a minute, and Claude Code call it an authentication failure. A WebSocket upgrade (Codex CLI tries one
first) is answered at once with ``426`` and neither forwarded nor counted; a route the proxy does not serve
gets a ``404`` that names it.

Why a thread of the healer rather than a process of its own: the key must be where the code from the pull
request cannot read it. That code runs as the throwaway user, another uid. Linux lets a process read another's
``/proc/<pid>/environ``, ``mem`` and ``maps`` (and ``/proc/<pid>/task/<tid>/…``, the same memory) only with
ptrace access (``PTRACE_MODE_ATTACH_FSCREDS``): same uid and a dumpable target, or ``CAP_SYS_PTRACE``. The
throwaway user has neither (another uid, no sudo), and the healer makes itself non-dumpable before any code
of the pull request runs (:func:`healer.text.tokens.protect_process`), which closes those files even to
processes of its own uid: they belong to root. A thread shares exactly that protection; a child process would
have to re-establish it (``exec`` resets the dumpable flag) and would put the key in a second place. The proxy
writes no file and puts no key on any command line. What every user can do is connect to the loopback port:
without the heal's token that gets a ``401``.
"""

from __future__ import annotations

import contextlib
import hmac
import http.client
import secrets
import socket
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from healer.change.outcomes import Spend
from healer.heal.modelkeys import ModelKeys
from healer.heal.providers import SERVED, Upstreams, error_body, is_websocket, route, with_stream_usage
from healer.heal.usage import Limits, Meter, UsageReader

MAX_REQUEST_BYTES = 32 * 1024 * 1024  # Anthropic's own request limit
MAX_IN_FLIGHT = 4  # concurrent upstream requests: the token budget is exceeded by at most these responses
UPSTREAM_TIMEOUT = 600.0  # seconds without a byte from the provider (a long generation streams all along)
_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
     "transfer-encoding", "upgrade", "host", "content-length"}
)  # fmt: skip
# never forwarded: the agent's token (replaced by the key) and encodings the usage reader could not read
_REQUEST_DROPPED = _HOP_BY_HOP | {
    "x-api-key", "authorization", "api-key", "x-goog-api-key", "accept-encoding", "cookie"
}  # fmt: skip
_RESPONSE_DROPPED = _HOP_BY_HOP | {"content-encoding", "set-cookie"}


class _Pool:
    """Idle connections to the provider, kept for the next request: a TLS handshake per request would add tens
    of milliseconds to each of the agent's turns."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, str, int], list[http.client.HTTPConnection]] = {}
        self._lock = threading.Lock()

    def _take(self, where: tuple[str, str, int]) -> http.client.HTTPConnection | None:
        with self._lock:
            idle = self._idle.get(where)
            return idle.pop() if idle else None

    def send(
        self, where: tuple[str, str, int], method: str, path: str, body: bytes | None, headers: dict[str, str]
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send one request: on an idle connection if there is one (again on a new one when the provider had
        closed it meanwhile: nothing of the request was answered), else on a new connection."""
        connection = self._take(where)
        if connection is not None:
            try:
                connection.request(method, path, body=body, headers=headers)
                return connection, connection.getresponse()
            except (OSError, http.client.HTTPException):
                connection.close()
        scheme, host, port = where
        factory = http.client.HTTPSConnection if scheme == "https" else http.client.HTTPConnection
        connection = factory(host, port, timeout=UPSTREAM_TIMEOUT)
        try:
            connection.request(method, path, body=body, headers=headers)
            return connection, connection.getresponse()
        except BaseException:
            connection.close()
            raise

    def give_back(self, where: tuple[str, str, int], connection: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(where, [])
            if len(idle) < MAX_IN_FLIGHT:
                idle.append(connection)
                return
        connection.close()

    def close(self) -> None:
        with self._lock:
            connections = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for connection in connections:
            connection.close()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, proxy: ModelProxy) -> None:
        self.proxy = proxy
        super().__init__(("127.0.0.1", 0), _Handler)


class ModelProxy:
    """One heal's proxy: its address, its token, what it has spent. Start with :func:`model_proxy`."""

    def __init__(self, upstreams: Upstreams, limits: Limits) -> None:
        self.upstreams = upstreams
        self.meter = Meter(limits)
        self.token = f"ci-healer-{secrets.token_urlsafe(32)}"
        self.retired = False
        self.in_flight = threading.BoundedSemaphore(MAX_IN_FLIGHT)
        self.pool = _Pool()
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Refuse the token from now on, then stop serving."""
        self.retired = True
        self._server.shutdown()
        self._server.server_close()
        self.pool.close()

    def accepts(self, headers: Mapping[str, str]) -> bool:
        given = headers.get("x-api-key") or headers.get("api-key") or headers.get("x-goog-api-key") or ""
        auth = headers.get("authorization") or ""
        if not given and auth[:7].lower() == "bearer ":
            given = auth[7:].strip()
        return hmac.compare_digest(given.encode(), self.token.encode())

    def spend(self, ended: float | None = None) -> Spend:
        """What the agent spent (``ended``: when it ended, see :meth:`Meter.spend`)."""
        return self.meter.spend(ended)

    def agent_variables(self, key_names: tuple[str, ...]) -> dict[str, str]:
        """What the agent's environment gets: the proxy's address where each CLI looks for its endpoint, and
        the heal's token in place of every key it was configured with."""
        variables = {
            "ANTHROPIC_BASE_URL": self.url,  # Claude Code, the Anthropic SDKs (they add /v1/messages)
            "ANTHROPIC_API_BASE": self.url,  # litellm (aider)
            "OPENAI_BASE_URL": f"{self.url}/v1",  # the OpenAI SDKs, litellm; Codex CLI through its recipe
            "OPENAI_API_BASE": f"{self.url}/v1",  # aider, older litellm
            "GOOGLE_GEMINI_BASE_URL": self.url,  # Gemini CLI (with an API-key auth type; it adds /v1beta)
            "GEMINI_API_BASE": self.url,  # litellm's Gemini provider
            "HEALER_MODEL_URL": self.url,  # for a script of your own
            "HEALER_MODEL_TOKEN": self.token,
            # Claude Code: no requests beyond the work (a session title would carry the whole frame)
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            # Gemini CLI: the checkout is the workspace it may edit (else it turns --yolo off)
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
        }
        variables.update({name: self.token for name in key_names})
        return variables


@contextlib.contextmanager
def model_proxy(keys: ModelKeys, limits: Limits, model_api_url: str = "") -> Iterator[ModelProxy]:
    """A proxy for one agent command: serving on entry, its token refused and the port closed on exit."""
    proxy = ModelProxy(Upstreams.of(keys, model_api_url), limits)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    server_version = "ci-healer-proxy"
    sys_version = ""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass  # the agent's requests are not the job log's business

    def setup(self) -> None:
        super().setup()
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:  # noqa: N802 - the base class's name
        self._serve()

    def do_GET(self) -> None:  # noqa: N802
        self._serve()

    def _reply(self, api: str, status: int, kind: str, message: str) -> None:
        body = error_body(api or "openai", kind, message, status)
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("x-should-retry", "false")
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes | None:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            data = bytearray()
            while True:
                size = int(self.rfile.readline(64).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline(1024).strip():
                        pass  # trailers
                    return bytes(data)
                if len(data) + size > MAX_REQUEST_BYTES:
                    return None
                data += self.rfile.read(size)
                self.rfile.readline(4)
        length = int(self.headers.get("content-length") or 0)
        if length > MAX_REQUEST_BYTES:
            return None
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        proxy = self.server.proxy
        headers = {k.lower(): v for k, v in self.headers.items()}
        if is_websocket(headers):
            # answered here, neither forwarded nor counted: the CLI falls back to HTTPS at once
            self.close_connection = True
            return self._reply("openai", 426, "websocket_unsupported",
                               "ci-healer: the model proxy speaks HTTPS only, not WebSockets")  # fmt: skip
        api = route(self.command, self.path, headers)
        try:
            body = self._body()
        except ValueError:
            body = None
        if body is None:
            self.close_connection = True
            return self._reply(api, 413, "request_too_large", "ci-healer: the request is too large")
        if proxy.retired:
            return self._reply(
                api, 403, "permission_error", "ci-healer: this heal is over; its token is void"
            )
        if not proxy.accepts(headers):
            return self._reply(api, 401, "authentication_error", "ci-healer: not this heal's token")
        if not api:
            shown = self.path.split("?", 1)[0][:200]
            return self._reply(api, 404, "not_found_error", f"ci-healer: the model proxy does not serve "
                               f"{self.command} {shown!r}; it serves {SERVED}")  # fmt: skip
        _, key = proxy.upstreams.of_api(api)
        if key is None:
            return self._reply(api, 400, "invalid_request_error", f"ci-healer: no key for the {api} API is "
                               "set in the healer's step (see docs/agents.md)")  # fmt: skip
        refusal = proxy.meter.admit()
        if refusal:
            # 400, not 403: Codex CLI retries a 403 five times and aider for over a minute, and Claude Code
            # words a 403 as an authentication failure; a 400 ends each of them at once
            return self._reply(api, 400, "invalid_request_error", refusal)
        if api == "openai" and self.path.split("?", 1)[0] == "/v1/chat/completions":
            body = with_stream_usage(body)
        with proxy.in_flight:
            self._forward(api, key, headers, body)

    def _forward(self, api: str, key: tuple[str, str], headers: Mapping[str, str], body: bytes) -> None:
        proxy = self.server.proxy
        (scheme, host, port, prefix), _ = proxy.upstreams.of_api(api)
        sent = {k: v for k, v in headers.items() if k not in _REQUEST_DROPPED}
        sent.update(
            {
                key[0]: key[1],
                "accept-encoding": "identity",
                "host": host if port in (80, 443) else f"{host}:{port}",
            }
        )
        if self.command == "POST":
            sent["content-length"] = str(len(body))
        payload = body if self.command == "POST" else None
        try:
            upstream, response = proxy.pool.send(
                (scheme, host, port), self.command, prefix + self.path, payload, sent
            )
        except (OSError, http.client.HTTPException) as exc:
            self.close_connection = True
            return self._reply(
                api, 502, "api_error", f"ci-healer: the model API could not be reached ({type(exc).__name__})"
            )
        released = False
        try:
            streamed = "text/event-stream" in (response.getheader("content-type") or "")
            reader = UsageReader(streamed=streamed)
            self.send_response(response.status, response.reason)
            for name, value in response.getheaders():
                if name.lower() not in _RESPONSE_DROPPED:
                    self.send_header(name, value)
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            client_gone = False
            try:
                while chunk := response.read1(65536):
                    reader.feed(chunk)
                    if not client_gone:
                        try:
                            # one write per chunk (size line, data, end): no Nagle delay between them
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                        except OSError:
                            # read on to the end: the tokens are spent whether or not the agent listens
                            client_gone = True
            except (OSError, http.client.HTTPException):
                client_gone = True
            # counted before the agent sees the end of the answer: its next request finds the budget updated
            proxy.meter.add(reader.finish(len(body), ok=200 <= response.status < 300))
            if client_gone:
                self.close_connection = True
                return None
            if not response.will_close and (response.isclosed() or response.length == 0):
                # read to its end: back in the pool before the agent sees the end, so that its next request
                # finds it there
                response.close()
                proxy.pool.give_back((scheme, host, port), upstream)
                released = True
            with contextlib.suppress(OSError):
                self.wfile.write(b"0\r\n\r\n")
        finally:
            if not released:
                upstream.close()
        return None
