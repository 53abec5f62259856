"""End to end with the real Gemini CLI (``gemini``): ``healer run`` with the recipe exactly as docs/agents.md
writes it, as the heal's throwaway user (``isolation: user``), through the healer's model proxy, against the
scripted Gemini API provider (tests/e2e/scripted/gemini.py) on loopback.

Gemini CLI sends its requests to ``GOOGLE_GEMINI_BASE_URL`` (``/v1beta/models/<model>:generateContent``,
``:streamGenerateContent?alt=sse``) with ``GEMINI_API_KEY`` as ``x-goog-api-key``; the healer sets both, the
key being the heal's token. It takes that base URL only with an auth type chosen in its settings (with none it
infers a "gateway" type it then refuses: google-gemini/gemini-cli#27550), which the healer writes in the
heal user's home (healer/heal/agenthome.py); ``GEMINI_CLI_TRUST_WORKSPACE=true`` from the healer keeps
``--yolo`` on. A heal is three requests (its model router's question, then the scripted ``replace`` call, then
the final text), in a few seconds of
agent time. Skipped where the CLI is not installed (see tests/e2e/realagents.py).
"""

from __future__ import annotations

import re
import secrets
import time

from harness import failing_test_pull
from realagents import (  # noqa: F401 - public_box is a fixture
    CliWatch,
    cli,
    comments_of,
    ended_soon_after_the_refusal,
    heal_with_cli,
    public_box,
    recipe,
    the_scripted_fix,
)
from scripted import Edit, Recorded, ScriptedProvider
from scripted.gemini import asks_for_json, function_responses

from healer.demo.sandbox import Sandbox

AGENT = "Gemini CLI"
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 50
# the model router's question (no --model in the recipe), the edit (`replace`), the final text
STEPS = ["router", "edit", "final"]
REQUESTS = len(STEPS)


def _key() -> str:
    # made at run time and distinctive: a leak anywhere is found by its text
    return "AIzaSyGeminiCliE2eKey" + secrets.token_hex(16)


def _step(request: Recorded) -> str:
    """What the request asks the scripted model: the CLI's own JSON question, the edit, or the final text."""
    if asks_for_json(request):
        return "router" if "complexity_score" in request.raw.decode(errors="replace") else "question"
    return "final" if function_responses(request.body) else "edit"


def test_the_documented_recipe_heals_through_the_proxy_without_the_cli_holding_the_key(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("gemini")
    command, env_column = recipe(AGENT)
    assert re.search(r"(^|&& )gemini ", command), command
    assert re.findall(r"`([A-Z_]+)`", env_column) == ["GEMINI_API_KEY"]
    box = public_box
    pull, run = failing_test_pull(box)
    key = _key()

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        environ = CliWatch(provider, box, "gemini")
        started = time.monotonic()
        result = heal_with_cli(box, run, AGENT, provider, secrets={"GEMINI_API_KEY": key}, timeout=120)
        took = time.monotonic() - started

    # the CLI reached the provider through the proxy (a recipe that no longer points it there fails here)
    asked = provider.model_requests()
    assert asked, f"Gemini CLI never reached the provider with {command!r}:\n{result.stdout[-4000:]}"
    assert result.decision == "healed", result.stdout[-4000:]
    assert len(asked) == len(provider.requests) == REQUESTS, [r.path for r in provider.requests]
    assert [_step(r) for r in asked] == STEPS
    for request in asked:
        assert re.fullmatch(
            r"/v1beta/models/[\w.-]+:(generateContent|streamGenerateContent\?alt=sse)", request.path
        ), request.path
        # the proxy put the real key in Gemini's own header; the CLI sent the heal's token there
        assert request.headers.get("x-goog-api-key") == key and request.key == key
    [edit] = [r for r in asked if _step(r) == "edit"]
    assert ":streamGenerateContent" in edit.path and {"replace", "write_file"} <= _declared(edit)

    # one fix PR, exactly the scripted edit (nothing Gemini CLI writes in its home or the checkout)
    fix = the_scripted_fix(box)
    posted = comments_of(box, pull.number) + "\n" + (fix.body or "")
    assert Edit().summary in posted  # the CLI's own last words are posted

    # the budget counted what the provider said each answer cost (usageMetadata, the last chunk's of a stream)
    tokens = REQUESTS * (INPUT_TOKENS + OUTPUT_TOKENS)
    assert result.outputs["agent-tokens"] == str(tokens)
    assert f"{tokens:,} tokens in {REQUESTS} requests" in result.summary, result.summary
    assert "estimated" not in result.summary

    # the CLI never held the key: its environment had the heal's token and the proxy's address
    [*_, env] = environ.seen or [{}]
    assert env.get("GEMINI_API_KEY", "").startswith("ci-healer-"), sorted(env)
    assert env.get("GOOGLE_GEMINI_BASE_URL", "").startswith("http://127.0.0.1:")
    assert env.get("GEMINI_CLI_TRUST_WORKSPACE") == "true"
    assert not environ.holding(key)
    assert key not in posted and key not in result.summary
    logged = "\n".join(line for line in result.stdout.splitlines() if not line.startswith("::add-mask::"))
    assert key not in logged
    assert took < 60, took  # the whole healer run; the agent itself takes a few seconds


def test_the_request_budget_stops_gemini_cli_at_once_with_the_budgets_words(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("gemini")
    box = public_box
    pull, run = failing_test_pull(box)

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"GEMINI_API_KEY": _key()},
            inputs={"agent-request-budget": "1", "agent-timeout-minutes": "5"}, timeout=120,
        )  # fmt: skip

    [asked] = provider.model_requests()  # the first (the router's question); the proxy refused the rest
    assert _step(asked) == "router"
    assert result.decision != "healed" and not box.standin.created_pulls(box.repo)
    assert "stopped at `agent-request-budget`" in result.summary, result.summary
    ended_soon_after_the_refusal(result)
    posted = comments_of(box, pull.number)
    assert "the model budget of this heal is spent" in posted  # Gemini CLI's own output, posted
    assert "authenticat" not in posted.lower()


def _declared(request: Recorded) -> set[str]:
    return {
        f.get("name")
        for tool in request.body.get("tools") or []
        for f in tool.get("functionDeclarations") or []
    }
