"""End to end with the real Claude Code (``claude``): ``healer run`` with the recipe exactly as the table of
docs/agents.md writes it, as the heal's throwaway user (``isolation: user``), through the healer's model
proxy, against the scripted Anthropic Messages provider (tests/e2e/scripted/anthropic.py) on loopback.

Claude Code sends its requests to ``ANTHROPIC_BASE_URL`` with ``ANTHROPIC_API_KEY`` as ``x-api-key`` (its "LLM
gateway" docs); the healer sets both, the key being the heal's token. The scripted model has it ``Read``
widgets/calc.py, ``Edit`` it, and say so: three requests a heal, about a second of agent time. Skipped where
the CLI is not installed (see tests/e2e/realagents.py).
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

from healer.demo.sandbox import Sandbox

AGENT = "Claude Code"
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 50
# A CLI that misses the proxy retries its connection for minutes: the healer stops it after one, and the test
# then fails saying so.
QUICK = {"agent-timeout-minutes": "1"}
# Read, Edit, the final text (a title request is non-essential traffic, which the healer turns off)
REQUESTS = 3


def _key() -> str:
    # made at run time and distinctive: a leak anywhere is found by its text
    return "sk-ant-api03-ClaudeCodeE2eKey" + secrets.token_hex(20)


def test_the_documented_recipe_heals_through_the_proxy_without_the_cli_holding_the_key(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("claude")
    command, env_column = recipe(AGENT)
    assert re.search(r"(^|\s)claude\s", command), command
    assert re.findall(r"`([A-Z_]+)`", env_column) == ["ANTHROPIC_API_KEY"]
    box = public_box
    pull, run = failing_test_pull(box)
    key = _key()

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        environ = CliWatch(provider, box, "claude")
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"ANTHROPIC_API_KEY": key}, inputs=QUICK, timeout=120
        )

    # the CLI reached the provider through the proxy (a recipe that no longer points it there fails here)
    asked = provider.model_requests()
    assert asked, f"Claude Code never reached the provider with {command!r}:\n{result.stdout[-4000:]}"
    assert result.decision == "healed", result.stdout[-4000:]
    assert len(asked) == len(provider.requests) == REQUESTS, [r.path for r in provider.requests]
    assert {r.path.split("?", 1)[0] for r in asked} == {"/v1/messages"}
    assert all(r.key == key for r in asked)  # the proxy added the real key; the CLI sent the heal's token
    assert [_tool(r) for r in asked] == [None, "Read", "Edit"]  # the tool each request answers

    # one fix PR, exactly the scripted edit (nothing Claude Code writes in its home or the checkout)
    fix = the_scripted_fix(box)
    posted = comments_of(box, pull.number) + "\n" + (fix.body or "")
    assert Edit().summary in posted  # the CLI's own last words are posted

    # the budget counted what the provider said each answer cost
    tokens = REQUESTS * (INPUT_TOKENS + OUTPUT_TOKENS)
    assert result.outputs["agent-tokens"] == str(tokens)
    assert f"{tokens:,} tokens in {REQUESTS} requests" in result.summary

    # the CLI never held the key: its environment had the heal's token and the proxy's address
    assert environ.seen, "no claude process of this heal was found in /proc"
    [*_, env] = environ.seen
    assert env.get("ANTHROPIC_API_KEY", "").startswith("ci-healer-"), sorted(env)
    assert env.get("ANTHROPIC_BASE_URL", "").startswith("http://127.0.0.1:")
    assert not environ.holding(key)
    assert key not in posted and key not in result.summary
    logged = [line for line in result.stdout.splitlines() if not line.startswith("::add-mask::")]
    assert key not in "\n".join(logged)


def test_the_request_budget_stops_claude_code_at_once_with_the_budgets_words(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("claude")
    box = public_box
    pull, run = failing_test_pull(box)

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"ANTHROPIC_API_KEY": _key()},
            inputs={**QUICK, "agent-request-budget": "1"}, timeout=120,
        )  # fmt: skip

    [asked] = provider.model_requests()  # the first request (the Read) only; the proxy refused the rest
    assert _tool(asked) is None
    assert result.decision != "healed" and not box.standin.created_pulls(box.repo)
    assert "stopped at `agent-request-budget`" in result.summary, result.summary
    ended_soon_after_the_refusal(result)
    posted = comments_of(box, pull.number)
    assert "the model budget of this heal is spent" in posted  # Claude Code's own output, posted
    assert "authenticat" not in posted.lower()


def _tool(request: Recorded) -> str | None:
    """The tool whose result the request carries last (None: none yet)."""
    messages = request.body.get("messages") or []
    names = {b.get("id"): b.get("name") for m in messages if isinstance(m.get("content"), list)
             for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"}  # fmt: skip
    results = [b.get("tool_use_id") for m in messages if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]  # fmt: skip
    return names.get(results[-1]) if results else None
