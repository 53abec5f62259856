"""The providers' side of the model proxy (:mod:`.proxy`): which API a request is for, where its requests
go and which header carries its key, and an error in each provider's own shape.

Pure: no socket is opened here. The routes are the ones the agents' CLIs call (docs/agents.md): Anthropic
Messages, OpenAI Responses and Chat Completions, and Gemini's ``generateContent``, ``streamGenerateContent``
and ``countTokens``.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from healer.heal.modelkeys import ModelKeys

ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com"
GEMINI_URL = "https://generativelanguage.googleapis.com"
_GEMINI_METHODS = ("generateContent", "streamGenerateContent", "countTokens")


SERVED = (
    "POST /v1/messages (Anthropic), POST /v1/responses and /v1/chat/completions (OpenAI), "
    "POST /v1beta/models/<model>:generateContent, :streamGenerateContent and :countTokens (Gemini)"
)


class ProxyError(Exception):
    """The proxy could not be set up (a bad ``model-api-url``); the message names the input."""


def upstream_base(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path prefix)`` of ``model-api-url``: https, or http to a loopback address
    only (the key must not cross a network in clear text)."""
    parsed = urllib.parse.urlsplit(url.strip())
    host = parsed.hostname or ""
    if parsed.scheme not in ("https", "http") or not host or parsed.query or parsed.fragment:
        raise ProxyError(
            f"input `model-api-url` must be an https URL such as https://gateway.example, not {url!r}"
        )
    if parsed.scheme == "http" and host not in ("127.0.0.1", "localhost", "::1"):
        raise ProxyError("input `model-api-url` must use https (http only to a loopback address)")
    if parsed.username or parsed.password:
        raise ProxyError("input `model-api-url` must not hold credentials; pass the key as `agent-api-key`")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return parsed.scheme, host, port, parsed.path.rstrip("/")


def route(method: str, path: str, headers: Mapping[str, str]) -> str:
    """Which API a request is for (``anthropic``, ``openai``, ``gemini``), or ``""`` for anything else
    (refused)."""
    bare = path.split("?", 1)[0]
    if method == "POST" and bare.startswith(("/v1beta/models/", "/v1/models/")):
        model, _, verb = bare.split("/", 3)[-1].rpartition(":")
        if model and "/" not in model and verb in _GEMINI_METHODS:
            return "gemini"
    if method == "POST" and (bare == "/v1/messages" or bare == "/v1/messages/count_tokens"):
        return "anthropic"
    if method == "POST" and bare == "/v1/chat/completions":
        return "openai"
    if method in ("POST", "GET") and (bare == "/v1/responses" or bare.startswith("/v1/responses/")):
        return "openai"
    if method == "GET" and (bare == "/v1/models" or bare.startswith("/v1/models/")):
        return "anthropic" if "anthropic-version" in {k.lower() for k in headers} else "openai"
    return ""


def is_websocket(headers: Mapping[str, str]) -> bool:
    """A WebSocket upgrade (Codex CLI tries one on ``GET /v1/responses`` before falling back to HTTPS)."""
    return "websocket" in headers.get("upgrade", "").lower()


_GEMINI_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                  413: "INVALID_ARGUMENT", 426: "FAILED_PRECONDITION", 502: "UNAVAILABLE"}  # fmt: skip


def error_body(api: str, kind: str, message: str, status: int = 400) -> bytes:
    """An error in the provider's own shape, so that the agent's CLI shows the message."""
    if api == "gemini":
        state = _GEMINI_STATUS.get(status, "INVALID_ARGUMENT")
        return json.dumps({"error": {"code": status, "message": message, "status": state}}).encode()
    if api == "anthropic":
        return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    return json.dumps({"error": {"message": message, "type": kind, "param": None, "code": kind}}).encode()


def with_stream_usage(body: bytes) -> bytes:
    """A streamed Chat Completions request with ``stream_options.include_usage`` on: without it the stream
    carries no usage, and the budget could not count it."""
    try:
        request = json.loads(body)
    except (ValueError, RecursionError):
        return body
    if not isinstance(request, dict) or request.get("stream") is not True:
        return body
    options = request.get("stream_options")
    request["stream_options"] = {**(options if isinstance(options, dict) else {}), "include_usage": True}
    return json.dumps(request, separators=(",", ":")).encode()


@dataclass(frozen=True)
class Upstreams:
    """Where each API is forwarded to, and the header that carries its key."""

    anthropic: tuple[str, str, int, str]
    openai: tuple[str, str, int, str]
    anthropic_key: tuple[str, str] | None
    openai_key: tuple[str, str] | None
    gemini: tuple[str, str, int, str] = ("https", "generativelanguage.googleapis.com", 443, "")
    gemini_key: tuple[str, str] | None = None

    @classmethod
    def of(cls, keys: ModelKeys, model_api_url: str = "") -> Upstreams:
        anthropic = upstream_base(model_api_url or ANTHROPIC_URL)
        openai = upstream_base(model_api_url or OPENAI_URL)
        gemini = upstream_base(model_api_url or GEMINI_URL)
        return cls(anthropic, openai, keys.anthropic(), keys.openai(), gemini, keys.gemini())

    def of_api(self, api: str) -> tuple[tuple[str, str, int, str], tuple[str, str] | None]:
        """Where ``api``'s requests go, and the header that carries its key (None: no key was given)."""
        if api == "anthropic":
            return self.anthropic, self.anthropic_key
        if api == "gemini":
            return self.gemini, self.gemini_key
        return self.openai, self.openai_key
