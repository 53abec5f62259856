"""End to end with the real aider: ``healer run`` with the recipe exactly as docs/agents.md's table writes
it, as the heal's throwaway user (``isolation: user``), through the healer's model proxy, against the
scripted provider (tests/e2e/scripted/) on loopback.

aider talks to its model through litellm, which sends an Anthropic model's requests to
``ANTHROPIC_API_BASE`` + ``/v1/messages`` and an OpenAI model's to ``OPENAI_API_BASE`` +
``/chat/completions``; the healer sets both to the proxy, and each key variable to the heal's token. With no
``--model``, aider picks its model from the key it finds (``aider/onboarding.py``: ``ANTHROPIC_API_KEY`` →
``sonnet``, ``OPENAI_API_KEY`` → ``gpt-4o``), both in its ``diff`` edit format: it gives its model no tools
and applies the SEARCH/REPLACE blocks of the reply. The recipe names no file, so the scripted reply names
widgets/calc.py in its block: aider adds the file to the chat (``--yes-always``), asks again with its
content, and applies the same block: two requests a heal, in about 5 s of agent time (most of it aider's
start).

Three aider sessions: the documented key heals (Anthropic Messages), an OpenAI key heals (Chat Completions),
and a request budget of 1 refuses the request that would make the edit. Skipped where the CLI is not
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
from scripted import Edit, ScriptedProvider

from healer.demo.running import HealerRun
from healer.demo.sandbox import Sandbox

AGENT = "aider"
INPUT_TOKENS, OUTPUT_TOKENS = 1000, 50
# the reply names widgets/calc.py: aider adds it to the chat and asks again; the second reply's block applies
REQUESTS = 2


def _key(prefix: str) -> str:
    # made at run time and distinctive: a leak anywhere is found by its text
    return prefix + "AiderE2eKey" + secrets.token_hex(20)


def _heals(box: Sandbox, variable: str, key: str, route: str) -> tuple[ScriptedProvider, HealerRun, str]:
    """One heal with the documented recipe and ``variable=key`` in the step's ``env:``; checks what every heal
    of aider must show, and returns the provider, the run and what was posted."""
    command, _ = recipe(AGENT)
    pull, run = failing_test_pull(box)
    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        environ = CliWatch(provider, box, "aider")
        result = heal_with_cli(box, run, AGENT, provider, secrets={variable: key}, timeout=120)

    # aider reached the provider through the proxy (a recipe that no longer points it there fails here)
    asked = provider.model_requests()
    assert asked, f"aider never reached the provider with {command!r}:\n{result.stdout[-4000:]}"
    assert result.decision == "healed", result.stdout[-4000:]
    assert len(asked) == len(provider.requests) == REQUESTS, [r.path for r in provider.requests]
    assert {r.path.split("?", 1)[0] for r in asked} == {route}
    assert all(r.key == key for r in asked)  # the proxy added the real key; aider sent the heal's token
    # the first request holds no file; the second, the one aider added to the chat as the reply named it
    assert "I added these files to the chat: widgets/calc.py" not in asked[0].raw.decode()
    assert "I added these files to the chat: widgets/calc.py" in asked[1].raw.decode()

    # one fix PR, exactly the scripted edit (no .aider* file, no .gitignore line)
    fix = the_scripted_fix(box)
    posted = comments_of(box, pull.number) + "\n" + (fix.body or "")
    assert "Applied edit to widgets/calc.py" in posted and Edit().summary in posted  # aider's own output

    # the budget counted what the provider said each answer cost
    tokens = REQUESTS * (INPUT_TOKENS + OUTPUT_TOKENS)
    assert result.outputs["agent-tokens"] == str(tokens)
    assert f"{tokens:,} tokens in {REQUESTS} requests" in result.summary

    # aider never held the key: its environment had the heal's token and the proxy's address
    [*_, env] = environ.seen or [{}]
    assert env.get(variable, "").startswith("ci-healer-"), sorted(env)
    assert env.get("ANTHROPIC_API_BASE", "").startswith("http://127.0.0.1:")
    assert env.get("OPENAI_API_BASE", "").startswith("http://127.0.0.1:")
    assert not environ.holding(key)
    assert key not in posted and key not in result.summary
    assert key not in "\n".join(x for x in result.stdout.splitlines() if not x.startswith("::add-mask::"))
    return provider, result, posted


def test_the_documented_recipe_heals_through_the_proxy_without_aider_holding_the_key(
    public_box: Sandbox,  # noqa: F811
) -> None:
    cli("aider")
    command, env_column = recipe(AGENT)
    assert command.startswith("aider ") and re.findall(r"`([A-Z_]+)`", env_column) == ["ANTHROPIC_API_KEY"]

    provider, _, posted = _heals(public_box, "ANTHROPIC_API_KEY", _key("sk-ant-api03-"), "/v1/messages")

    assert {r.body.get("model") for r in provider.model_requests()} == {"claude-sonnet-4-20250514"}
    assert "Main model: anthropic/claude-sonnet-4-20250514 with diff edit format" in posted


def test_with_an_openai_key_aider_heals_through_chat_completions(public_box: Sandbox) -> None:  # noqa: F811
    cli("aider")

    provider, _, posted = _heals(public_box, "OPENAI_API_KEY", _key("sk-proj-"), "/v1/chat/completions")

    asked = provider.model_requests()
    assert {r.body.get("model") for r in asked} == {"gpt-4o"}
    # aider streams; the proxy asked for the usage that the budget counts
    assert all(r.body.get("stream") is True for r in asked)
    assert all(r.body.get("stream_options", {}).get("include_usage") is True for r in asked)
    assert "Main model: gpt-4o with diff edit format" in posted


def test_the_request_budget_stops_aider_at_once_with_the_budgets_words(public_box: Sandbox) -> None:  # noqa: F811
    cli("aider")
    box = public_box
    pull, run = failing_test_pull(box)

    with ScriptedProvider(input_tokens=INPUT_TOKENS, output_tokens=OUTPUT_TOKENS) as provider:
        result = heal_with_cli(
            box, run, AGENT, provider, secrets={"ANTHROPIC_API_KEY": _key("sk-ant-api03-")},
            inputs={"agent-request-budget": "1", "agent-timeout-minutes": "5"}, timeout=120,
        )  # fmt: skip

    # the first request only (its reply got widgets/calc.py added to the chat); the proxy refused the one that
    # would have made the edit
    [asked] = provider.model_requests()
    assert "I added these files to the chat" not in asked.raw.decode()
    assert result.decision != "healed" and not box.standin.created_pulls(box.repo)
    assert "stopped at `agent-request-budget`" in result.summary, result.summary
    ended_soon_after_the_refusal(result)
    posted = " ".join(comments_of(box, pull.number).split())  # aider wraps its error at 80 columns
    assert "the model budget of this heal is spent" in posted  # aider's own output, posted
    assert "authenticat" not in posted.lower() and "Retrying in" not in posted
