"""End to end: an agent command that never asks its model through the healer's proxy (a recipe that misses
the proxy, a CLI that ignores the base URL) is said as that — in the attempt's comment and the job summary,
with the CLI's last lines — and recorded as ``no-model``, not as a change that happened to be empty."""

from __future__ import annotations

from harness import failing_test_pull

from healer.demo.fakemodel import FakeModel
from healer.demo.sandbox import Sandbox
from healer.ledger.markers import Kind, decode_markers

KEY = "sk-proj-NoModelTestKeyOfTheRepository-0123456789"
# what Codex CLI prints when it calls its real API in place of the proxy, in a network that reaches nothing
MISSES_THE_PROXY = (
    "echo 'Reconnecting... 1/5'; "
    "echo 'ERROR: stream disconnected before completion: error sending request for url "
    "(https://api.openai.com/v1/responses)' >&2; exit 1"
)


def test_an_agent_that_asks_its_model_nothing_through_the_proxy_is_reported_as_no_model(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)

    with FakeModel() as fake:
        result = box.run_healer(
            run,
            inputs={"agent-command": MISSES_THE_PROXY, "model-api-url": fake.url},
            secrets={"CODEX_API_KEY": KEY},
            timeout=90,
        )
        box.standin.idle()

    assert fake.requests == []
    assert result.returncode == 0, result.stdout[-3000:]
    assert box.standin.created_pulls(box.repo) == []
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if '"kind":"attempt"' in c.body]
    [attempt] = [m for m in decode_markers(comment.body) if m.kind is Kind.ATTEMPT]
    assert attempt.result == "no-model"
    for text in (comment.body, result.summary):
        assert "without a single model request through the healer's model proxy" in text
        assert "docs/agents.md" in text and "api.openai.com/v1/responses" in text
    assert "::warning title=ci-healer::the agent command made no model request" in result.stdout
    assert KEY not in comment.body + result.summary


def test_an_agent_that_asks_its_model_is_not_no_model(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    asks = (
        'python -c "import os, urllib.request; urllib.request.urlopen(urllib.request.Request('
        "os.environ['OPENAI_BASE_URL'] + '/chat/completions', b'{}', "
        "{'authorization': 'Bearer ' + os.environ['CODEX_API_KEY']})).read()\""
    )

    with FakeModel() as fake:
        result = box.run_healer(
            run,
            inputs={"agent-command": asks, "model-api-url": fake.url},
            secrets={"CODEX_API_KEY": KEY},
            timeout=90,
        )
        box.standin.idle()

    assert len(fake.requests) == 1, result.stdout[-3000:]
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if '"kind":"attempt"' in c.body]
    [attempt] = [m for m in decode_markers(comment.body) if m.kind is Kind.ATTEMPT]
    assert attempt.result == "no-change"
    assert "without a single model request" not in comment.body + result.summary
