"""The model proxy: usage read from the providers' own fields, budgets, keys, and the proxy itself on
loopback in front of the model stand-in (:mod:`healer.demo.fakemodel`)."""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator

import pytest

from healer.demo.fakemodel import FakeModel
from healer.heal.modelkeys import KEY_VARIABLES, find_keys, without_keys
from healer.heal.providers import ProxyError, route, upstream_base, with_stream_usage
from healer.heal.proxy import ModelProxy, model_proxy
from healer.heal.usage import Limits, Meter, Usage, UsageReader

KEY = "sk-ant-RealKeyThatMustStayWithTheHealer-0123456789"
OPENAI_KEY = "sk-proj-RealOpenAIKeyThatMustStayWithTheHealer-42"


def sse(*events: tuple[str, dict[str, object]]) -> bytes:
    return b"".join(
        ((f"event: {name}\n" if name else "") + f"data: {json.dumps(data)}\n\n").encode()
        for name, data in events
    )


ANTHROPIC_STREAM = sse(
    (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "usage": {
                    "input_tokens": 12,
                    "cache_creation_input_tokens": 100,
                    "cache_read_input_tokens": 1000,
                    "output_tokens": 1,
                }
            },
        },
    ),
    ("content_block_delta", {"type": "content_block_delta", "delta": {"type": "text_delta", "text": "hi"}}),
    ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 7}}),
    ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 30}}),
    ("message_stop", {"type": "message_stop"}),
)
RESPONSES_STREAM = sse(
    ("response.created", {"type": "response.created", "response": {"usage": None}}),
    ("response.output_text.delta", {"type": "response.output_text.delta", "delta": "hi"}),
    (
        "response.completed",
        {"type": "response.completed", "response": {"usage": {"input_tokens": 50, "output_tokens": 5}}},
    ),
)
CHAT_STREAM = (
    sse(
        ("", {"choices": [{"delta": {"content": "hi"}}]}),
        ("", {"choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 4}}),
    )
    + b"data: [DONE]\n\n"
)
# Gemini: usageMetadata in every chunk, cumulative; the last holds the whole (thinking is output)
GEMINI_CHUNKS = [
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}, "index": 0}],
        "usageMetadata": {"promptTokenCount": 70, "candidatesTokenCount": 1, "totalTokenCount": 71},
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "!"}]}, "finishReason": "STOP"}],
        "usageMetadata": {
            "promptTokenCount": 70,
            "cachedContentTokenCount": 60,
            "candidatesTokenCount": 6,
            "thoughtsTokenCount": 4,
            "totalTokenCount": 80,
        },
    },
]
GEMINI_STREAM = sse(*(("", chunk) for chunk in GEMINI_CHUNKS))
GEMINI_TOTAL_ONLY = {"promptTokenCount": 5, "toolUsePromptTokenCount": 2, "totalTokenCount": 12}


@pytest.mark.parametrize(
    ("data", "streamed", "expected"),
    [
        pytest.param(ANTHROPIC_STREAM, True, (1112, 30), id="anthropic-stream-cache-counts-as-input"),
        pytest.param(RESPONSES_STREAM, True, (50, 5), id="responses-completed"),
        pytest.param(CHAT_STREAM, True, (40, 4), id="chat-final-chunk"),
        pytest.param(CHAT_STREAM.replace(b"\n", b"\r\n"), True, (40, 4), id="crlf-lines"),
        pytest.param(
            b'{"usage": {"input_tokens": 9, "output_tokens": 3}}', False, (9, 3), id="anthropic-json"
        ),
        pytest.param(
            b'{"usage": {"prompt_tokens": 8, "completion_tokens": 2}}', False, (8, 2), id="chat-json"
        ),
        pytest.param(GEMINI_STREAM, True, (70, 10), id="gemini-sse-last-chunk"),
        pytest.param(GEMINI_STREAM.replace(b"\n", b"\r\n"), True, (70, 10), id="gemini-sse-crlf"),
        pytest.param(json.dumps(GEMINI_CHUNKS).encode(), False, (70, 10), id="gemini-stream-as-array"),
        pytest.param(json.dumps(GEMINI_CHUNKS[-1]).encode(), False, (70, 10), id="gemini-json"),
        pytest.param(
            json.dumps({"usageMetadata": GEMINI_TOTAL_ONLY}).encode(), False, (7, 5), id="gemini-total-only"
        ),
        pytest.param(b'{"totalTokens": 31000}', False, (0, 0), id="gemini-count-tokens-costs-nothing"),
    ],
)
def test_usage_comes_from_the_providers_own_fields_however_the_bytes_are_cut(
    data: bytes, streamed: bool, expected: tuple[int, int]
) -> None:
    for step in (1, 7, len(data)):
        reader = UsageReader(streamed=streamed)
        for start in range(0, len(data), step):
            reader.feed(data[start : start + step])
        usage = reader.finish(request_size=400)
        assert (usage.input_tokens, usage.output_tokens) == expected
        assert not usage.estimated


def test_a_response_without_usage_is_counted_by_size_and_an_error_costs_nothing() -> None:
    reader = UsageReader(streamed=True)
    reader.feed(sse(("", {"choices": [{"delta": {"content": "x" * 400}}]})))
    estimated = reader.finish(request_size=4000)
    assert estimated.estimated and estimated.input_tokens == 1000 and estimated.output_tokens > 100
    failed = UsageReader(streamed=False)
    failed.feed(b'{"type": "error", "error": {"type": "overloaded_error"}}')
    assert failed.finish(request_size=4000, ok=False).total == 0


@pytest.mark.parametrize(
    ("limits", "usages", "stopped"),
    [
        pytest.param(Limits(requests=3), [1, 1, 1], "agent-request-budget", id="requests"),
        pytest.param(Limits(tokens=100), [60, 60], "agent-token-budget", id="tokens"),
        pytest.param(Limits(pr_tokens=1000, pr_spent=950), [60], "max-agent-tokens-per-pr", id="per-pr"),
        pytest.param(Limits(), [10**6] * 5, "", id="no-limit"),
    ],
)
def test_the_meter_refuses_the_request_after_a_budget_is_spent(
    limits: Limits, usages: list[int], stopped: str
) -> None:
    meter = Meter(limits)
    for tokens in usages:
        assert meter.admit() == ""
        meter.add(Usage(tokens, 0))
    refusal = meter.admit()
    spend = meter.spend()
    assert spend.stopped == stopped
    assert spend.requests == len(usages) + (0 if stopped else 1) and spend.tokens == sum(usages)
    if stopped:
        assert "budget is spent" in refusal and spend.refused == 1 and f"`{stopped}`" in spend.describe()
    else:
        assert refusal == "" and spend.refused == 0


def test_keys_are_recognised_by_name_and_by_the_value_of_agent_api_key() -> None:
    env = {
        "ANTHROPIC_API_KEY": KEY,
        "OPENAI_API_KEY": "",
        "MY_GATEWAY_SECRET": "gw-SecretUnderAnotherName-777",
        "WRAPPED": "run --key gw-SecretUnderAnotherName-777",
        "PATH": "/usr/bin",
    }
    keys = find_keys(env, extra="gw-SecretUnderAnotherName-777")
    assert set(keys.names) == {"ANTHROPIC_API_KEY", "MY_GATEWAY_SECRET"}
    assert without_keys(env, keys) == {"PATH": "/usr/bin"}
    assert keys.anthropic() == ("x-api-key", "gw-SecretUnderAnotherName-777")  # the input wins
    assert keys.openai() == ("authorization", "Bearer gw-SecretUnderAnotherName-777")
    assert {"ANTHROPIC_API_KEY", "CODEX_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"} <= set(
        KEY_VARIABLES
    )


def test_an_auth_token_is_sent_as_a_bearer_token() -> None:
    keys = find_keys({"ANTHROPIC_AUTH_TOKEN": KEY, "CODEX_API_KEY": OPENAI_KEY})
    assert keys.anthropic() == ("authorization", f"Bearer {KEY}")
    assert keys.openai() == ("authorization", f"Bearer {OPENAI_KEY}")
    assert not find_keys({"PATH": "/bin"})


@pytest.mark.parametrize(
    ("method", "path", "headers", "api"),
    [
        pytest.param("POST", "/v1/messages?beta=true", {}, "anthropic", id="messages"),
        pytest.param("POST", "/v1/messages/count_tokens", {}, "anthropic", id="count-tokens"),
        pytest.param("POST", "/v1/responses", {}, "openai", id="responses"),
        pytest.param("POST", "/v1/responses/compact", {}, "openai", id="responses-compact"),
        pytest.param("POST", "/v1/chat/completions", {}, "openai", id="chat"),
        pytest.param(
            "GET", "/v1/models", {"anthropic-version": "2023-06-01"}, "anthropic", id="models-anthropic"
        ),
        pytest.param("GET", "/v1/models", {}, "openai", id="models-openai"),
        pytest.param("POST", "/v1beta/models/gemini-2.5-pro:generateContent", {}, "gemini", id="gemini"),
        pytest.param(
            "POST",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            {},
            "gemini",
            id="gemini-stream",
        ),
        pytest.param("POST", "/v1beta/models/gemini-2.5-pro:countTokens", {}, "gemini", id="gemini-count"),
        pytest.param("POST", "/v1beta/models/gemini-2.5-pro:embedContent", {}, "", id="gemini-other-method"),
        pytest.param("POST", "/v1beta/models/a/b:generateContent", {}, "", id="gemini-odd-model"),
        pytest.param("POST", "/v1/files", {}, "", id="files-refused"),
        pytest.param("DELETE", "/v1/messages", {}, "", id="other-method"),
        pytest.param("POST", "/../v1/messages", {}, "", id="odd-path"),
    ],
)
def test_routes(method: str, path: str, headers: dict[str, str], api: str) -> None:
    assert route(method, path, headers) == api


def test_a_streamed_chat_request_asks_for_its_usage() -> None:
    body = json.dumps({"model": "m", "stream": True, "stream_options": {"include_usage": False}}).encode()
    assert json.loads(with_stream_usage(body))["stream_options"] == {"include_usage": True}
    plain = json.dumps({"model": "m"}).encode()
    assert with_stream_usage(plain) == plain


@pytest.mark.parametrize(
    "url",
    [
        "http://gateway.example",
        "ftp://x",
        "https://user:pw@gateway.example",
        "https://gw.example/?k=1",
        "gw.example",
    ],
)
def test_model_api_url_must_be_https_without_credentials(url: str) -> None:
    with pytest.raises(ProxyError, match="model-api-url"):
        upstream_base(url)


def test_model_api_url_keeps_a_gateways_path() -> None:
    assert upstream_base("https://gateway.example/acct/anthropic/") == (
        "https",
        "gateway.example",
        443,
        "/acct/anthropic",
    )
    assert upstream_base("http://127.0.0.1:9")[:3] == ("http", "127.0.0.1", 9)


# -- the proxy on loopback ------------------------------------------------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeModel]:
    with FakeModel(input_tokens=100, output_tokens=20) as model:
        yield model


def _keys() -> object:
    return find_keys({"ANTHROPIC_API_KEY": KEY, "CODEX_API_KEY": OPENAI_KEY})


def post(
    proxy: ModelProxy, path: str, body: dict[str, object], *, token: str | None = None, bearer: bool = False
) -> tuple[int, dict[str, str], bytes]:
    host, port = proxy.url.rsplit("/", 1)[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    secret = proxy.token if token is None else token
    auth = {"authorization": f"Bearer {secret}"} if bearer else {"x-api-key": secret}
    try:
        connection.request("POST", path, json.dumps(body), {"content-type": "application/json", **auth})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_the_provider_sees_the_real_key_and_the_agent_only_the_heal_token(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        status, headers, data = post(proxy, "/v1/messages", {"model": "m", "stream": True})
        status_o, _, data_o = post(proxy, "/v1/responses", {"model": "m", "stream": True}, bearer=True)
        status_c, _, data_c = post(proxy, "/v1/chat/completions", {"model": "m", "stream": True}, bearer=True)
        spend = proxy.spend()
    assert (status, status_o, status_c) == (200, 200, 200)
    assert headers["content-type"] == "text/event-stream"
    assert b"event: message_stop" in data and b"response.completed" in data_o and b"[DONE]" in data_c
    anthropic, responses, chat = fake.requests
    assert anthropic.headers["x-api-key"] == KEY and "authorization" not in anthropic.headers
    assert (
        responses.headers["authorization"] == f"Bearer {OPENAI_KEY}" and "x-api-key" not in responses.headers
    )
    assert chat.body["stream_options"] == {"include_usage": True}  # so that the stream says what it cost
    assert all(proxy.token not in json.dumps(r.headers) for r in fake.requests)
    assert spend.requests == 3 and spend.tokens == 3 * 120 and not spend.estimated


def test_the_proxy_refuses_another_token_and_every_token_once_the_heal_is_over(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        status, _, data = post(proxy, "/v1/messages", {"model": "m"}, token=KEY)
        wrong = post(proxy, "/v1/messages", {"model": "m"}, token="ci-healer-guess")[0]
        proxy.retired = True  # as stop() does first
        after = post(proxy, "/v1/messages", {"model": "m"})
    assert (status, wrong) == (401, 401) and b"authentication_error" in data
    assert after[0] == 403 and b"this heal is over" in after[2]
    assert fake.requests == []
    with pytest.raises(OSError):
        post(proxy, "/v1/messages", {"model": "m"})  # and the port is closed


def test_past_the_budget_the_proxy_answers_with_an_error_no_cli_retries(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(tokens=500), fake.url) as proxy:  # type: ignore[arg-type]
        statuses = []
        for _ in range(20):  # bounded: it stops at the budget long before
            status, headers, data = post(proxy, "/v1/messages", {"model": "m", "stream": True})
            statuses.append(status)
            if status != 200:
                break
        spend = proxy.spend()
    # 120 tokens each: the sixth request finds 600 of 500 spent. A 400, which every CLI takes as final
    assert statuses == [200] * 5 + [400]
    assert headers["x-should-retry"] == "false"
    error = json.loads(data)["error"]
    assert error["type"] == "invalid_request_error"
    assert "token budget is spent (600 of 500 tokens)" in error["message"]
    assert "authenticat" not in error["message"].lower() and "not an error to retry" in error["message"]
    assert len(fake.requests) == 5
    assert (spend.tokens, spend.requests, spend.stopped, spend.limit) == (600, 5, "agent-token-budget", 500)


def test_a_stream_passes_through_as_it_arrives(fake: FakeModel) -> None:
    fake.delay, fake.chunks = 0.15, 4
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        host, port = proxy.url.rsplit("/", 1)[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        started = time.monotonic()
        connection.request("POST", "/v1/messages", json.dumps({"stream": True}), {"x-api-key": proxy.token})
        response = connection.getresponse()
        first = response.read1(65536)
        first_at = time.monotonic() - started
        rest = response.read()
        total = time.monotonic() - started
        connection.close()
    assert b"message_start" in first and b"message_stop" not in first
    assert b"message_stop" in rest
    assert first_at < 0.15 and total >= 0.15 * 7  # the first event came before the stream had ended


def test_an_agent_that_hangs_up_mid_stream_is_still_charged(fake: FakeModel) -> None:
    fake.delay, fake.chunks = 0.05, 4
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        host, port = proxy.url.rsplit("/", 1)[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request("POST", "/v1/messages", json.dumps({"stream": True}), {"x-api-key": proxy.token})
        connection.getresponse().read1(10)
        connection.close()  # before message_delta, which says what the output cost
        deadline = time.monotonic() + 5
        while proxy.spend().tokens < 120 and time.monotonic() < deadline:
            time.sleep(0.02)
        spend = proxy.spend()
    assert spend.tokens == 120


def test_the_agent_is_told_the_proxy_in_each_clis_variables(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        variables = proxy.agent_variables(("ANTHROPIC_API_KEY", "CODEX_API_KEY"))
        url, token = proxy.url, proxy.token
    assert url.startswith("http://127.0.0.1:")
    assert variables["ANTHROPIC_BASE_URL"] == variables["ANTHROPIC_API_BASE"] == url
    assert variables["OPENAI_BASE_URL"] == variables["OPENAI_API_BASE"] == f"{url}/v1"
    assert variables["GOOGLE_GEMINI_BASE_URL"] == url
    assert variables["ANTHROPIC_API_KEY"] == variables["CODEX_API_KEY"] == token
    assert variables["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert variables["GEMINI_CLI_TRUST_WORKSPACE"] == "true"
    assert KEY not in json.dumps(variables) and OPENAI_KEY not in json.dumps(variables)


def test_a_gemini_request_reaches_the_provider_with_the_real_key_in_gemini_s_header(fake: FakeModel) -> None:
    gemini_key = "AIzaSy-RealGeminiKeyOfTheRepository-0123"
    keys = find_keys({"GEMINI_API_KEY": gemini_key})
    with model_proxy(keys, Limits(), fake.url) as proxy:
        host, port = proxy.url.rsplit("/", 1)[1].split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        connection.request(
            "POST",
            "/v1beta/models/gemini-2.5-pro:generateContent",
            json.dumps({"contents": []}),
            {"content-type": "application/json", "x-goog-api-key": proxy.token},
        )
        connection.getresponse().read()
        connection.close()
        spend = proxy.spend()
    [request] = fake.requests
    assert request.path == "/v1beta/models/gemini-2.5-pro:generateContent"
    assert request.headers["x-goog-api-key"] == gemini_key
    assert spend.requests == 1


def test_a_websocket_upgrade_is_answered_at_once_and_neither_forwarded_nor_counted(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(requests=1), fake.url) as proxy:  # type: ignore[arg-type]
        host, port = proxy.url.rsplit("/", 1)[1].split(":")
        started = time.monotonic()
        for _ in range(3):
            connection = http.client.HTTPConnection(host, int(port), timeout=10)
            connection.request(
                "GET", "/v1/responses",
                headers={"upgrade": "websocket", "connection": "Upgrade", "sec-websocket-version": "13",
                         "authorization": f"Bearer {proxy.token}"},
            )  # fmt: skip
            response = connection.getresponse()
            status, body = response.status, response.read()
            connection.close()
        took = time.monotonic() - started
        after = post(proxy, "/v1/responses", {"model": "m"}, bearer=True)
        spend = proxy.spend()
    assert status == 426 and b"WebSockets" in body
    assert took < 2.0
    assert after[0] == 200  # the one request of the budget was still there for HTTPS
    assert [r.method for r in fake.requests] == ["POST"] and spend.requests == 1


def test_a_route_the_proxy_does_not_serve_is_answered_at_once_with_its_name(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        status, _, data = post(proxy, "/v1/embeddings", {"input": "x"})
        spend = proxy.spend()
    assert status == 404
    message = json.loads(data)["error"]["message"]
    assert "'/v1/embeddings'" in message and "/v1/messages" in message and "generateContent" in message
    assert fake.requests == [] and spend.requests == 0


def test_a_budget_refusal_says_when_the_agent_ended_after_it() -> None:
    meter = Meter(Limits(requests=1))
    assert meter.admit() == "" and meter.admit()
    ended = time.monotonic() + 0.25
    spend = meter.spend(ended)
    assert spend.ended_after_refusal is not None and 0.2 < spend.ended_after_refusal < 5
    assert "ended 0." in spend.describe() and "after its first refused request" in spend.describe()
    assert Meter(Limits()).spend(ended).ended_after_refusal is None
    assert not spend.silent and Meter(Limits()).spend().silent


def test_the_proxy_keeps_its_connection_to_the_provider_for_the_next_request(fake: FakeModel) -> None:
    with model_proxy(_keys(), Limits(), fake.url) as proxy:  # type: ignore[arg-type]
        answers = [
            post(proxy, "/v1/messages", {"model": "m", "stream": stream})[0] for stream in (True, False, True)
        ]
    assert answers == [200, 200, 200]
    assert len({r.port for r in fake.requests}) == 1  # one connection (and one TLS handshake) for all three
