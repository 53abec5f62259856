"""End to end with the real Codex CLI (``codex``): ``healer run`` with the recipe exactly as docs/agents.md's
table writes it, as the heal's throwaway user (``isolation: user``), through the healer's model proxy, against
the scripted OpenAI Responses provider (tests/e2e/scripted/responses.py) on loopback.

Codex CLI 0.171 no longer reads ``OPENAI_BASE_URL`` (openai/codex PR #16720); the recipe passes it on as
``-c openai_base_url=…`` (PR #12031), which the shell expands from the variable the healer sets.
``codex exec`` authenticates from ``CODEX_API_KEY``, which the healer replaces by the heal's token. Through
``openai_base_url`` Codex first asks for a WebSocket (``GET /v1/responses`` with ``Upgrade: websocket``):
the proxy answers it at once with 426 on loopback, neither forwarding nor counting it, and Codex falls back
to HTTPS for the session. For its default model Codex declares its tools in "code mode" (one ``exec`` tool
running JavaScript, whose nested tools include ``apply_patch``); the scripted model edits widgets/calc.py
through it and says so: two requests a heal, about a tenth of a second apart. Skipped where the CLI is not
installed (see tests/e2e/realagents.py).
"""

from __future__ import annotations

import re
import secrets

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

from healer.demo.sandbox import Sandbox, git

AGENT = "Codex CLI"
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 50
REQUESTS = 2  # the edit (apply_patch through `exec`), the final message
_OUTPUTS = ("function_call_output", "custom_tool_call_output")


def _key() -> str:
    # made at run time and distinctive: a leak anywhere is found by its text
    return "sk-proj-CodexE2eKey" + secrets.token_hex(20)


def _answered(request: Recorded) -> bool:
    """The request carries the output of a tool call (the edit has been made)."""
    items = request.body.get("input") if isinstance(request.body, dict) else None
    return any(isinstance(i, dict) and i.get("type") in _OUTPUTS for i in items or [])


def test_the_documented_recipe_heals_through_the_proxy_without_the_cli_holding_the_key(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("codex")
    command, env_column = recipe(AGENT)
    assert command.startswith("codex exec ") and re.findall(r"`([A-Z_]+)`", env_column) == ["CODEX_API_KEY"]
    box = public_box
    pull, run = failing_test_pull(box)
    key = _key()

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        watch = CliWatch(provider, box, "codex")
        # a minute for the agent: a heal takes about one second, and a recipe that misses the proxy leaves
        # Codex waiting for the network until the agent's time is up
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"CODEX_API_KEY": key},
            inputs={"agent-timeout-minutes": "1"}, timeout=150,
        )  # fmt: skip

    # the CLI reached the provider through the proxy (a recipe that no longer points it there fails here)
    asked = provider.model_requests()
    assert asked, f"Codex never reached the provider with {command!r}:\n{result.stdout[-4000:]}"
    assert result.decision == "healed", result.stdout[-4000:]
    # HTTPS only: the proxy kept the WebSocket upgrade to itself
    assert len(asked) == len(provider.requests) == REQUESTS, [(r.method, r.path) for r in provider.requests]
    assert not [r for r in provider.requests if "upgrade" in r.headers or r.method != "POST"]
    assert {r.path.split("?", 1)[0] for r in asked} == {"/v1/responses"}
    assert all(r.key == key for r in asked)  # the proxy added the real key; the CLI sent the heal's token
    assert [_answered(r) for r in asked] == [False, True]
    assert watch.times[-1] - watch.times[0] < 30

    # one fix PR, exactly the scripted edit (nothing Codex writes in its home or the checkout)
    fix = the_scripted_fix(box)
    posted = comments_of(box, pull.number) + "\n" + (fix.body or "")
    assert Edit().summary in posted  # the CLI's own last words are posted

    # the budget counted what the provider said each answer cost
    tokens = REQUESTS * (INPUT_TOKENS + OUTPUT_TOKENS)
    assert result.outputs["agent-tokens"] == str(tokens)
    assert f"{tokens:,} tokens in {REQUESTS} requests" in result.summary

    # the CLI never held the key: its environment had the heal's token and the proxy's address
    assert watch.seen, "no codex process was found at the first request"
    for env in watch.seen:
        assert env.get("CODEX_API_KEY", "").startswith("ci-healer-"), sorted(env)
        assert env.get("OPENAI_BASE_URL", "").startswith("http://127.0.0.1:")
    assert not watch.holding(key)
    assert key not in posted and key not in result.summary
    shown = [line for line in result.stdout.splitlines() if not line.startswith("::add-mask::")]
    assert key not in "\n".join(shown)


def test_the_request_budget_stops_codex_at_once_with_the_budgets_words(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("codex")
    box = public_box
    pull, run = failing_test_pull(box)

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"CODEX_API_KEY": _key()},
            inputs={"agent-request-budget": "1", "agent-timeout-minutes": "5"}, timeout=120,
        )  # fmt: skip

    [asked] = provider.model_requests()  # the first request (the edit) only; the proxy refused the next
    assert not _answered(asked)
    # Codex made the edit with the answer to its first request: a budget stop delivers what the agent changed
    # the usual way
    [fix] = box.standin.created_pulls(box.repo)
    assert git(box.origin, "diff", "--name-only", f"{fix.head_sha}^", fix.head_sha).split() == [Edit().path]
    assert "stopped at `agent-request-budget`" in result.summary, result.summary
    ended_soon_after_the_refusal(result)
    posted = comments_of(box, pull.number)
    assert "the model budget of this heal is spent" in posted  # Codex's own output, posted
    assert "authenticat" not in posted.lower()
