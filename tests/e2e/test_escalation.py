"""End to end: an escalation says what fails, what was tried and what to do next; its mention notifies."""

from __future__ import annotations

from harness import failing_test_pull, heal

from healer.demo.sandbox import Sandbox

TEAM = "@octo-org/maintainers"


def test_an_escalation_with_no_agent_says_nothing_was_tried_and_mentions_in_a_created_comment(
    box: Sandbox,
) -> None:
    pull, run = failing_test_pull(box)

    result = heal(box, run, inputs={"escalation-mention": TEAM})

    assert result.outputs["decision"] == "escalated"
    [comment] = box.standin.comments(box.repo, pull.number)  # the claim was withdrawn
    body = comment.body
    line = next(line for line in body.splitlines() if line.startswith("**Fails:**"))
    assert "`test (3.12)` (test, `python -m pytest -q`)" in line
    assert "**Tried:** nothing: This failure needs the agent, and no `agent-command` is configured." in line
    assert "set an `agent-command` in the workflow so that the healer can try" in line
    assert "add the label `ci-healer:off`" in line
    assert "Earlier attempts did not make this check pass" not in body
    assert "| # |" not in body  # no table of attempts that never happened
    # GitHub notifies a mention only in a created comment: it is in a POST, never added by a PATCH
    created = [r.body["body"] for r in result.requests if r.operation == "issues/create-comment"]
    edited = [r.body["body"] for r in result.requests if r.operation == "issues/update-comment"]
    assert any(f"cc {TEAM}" in text for text in created)
    assert not any(TEAM in text for text in edited)
    assert f"cc {TEAM}" in body
    # the runner's markup is not evidence: the excerpt leaves it out
    assert "##[group]" not in body and "shell: /usr/bin/bash" not in body
    assert "##[error]Process completed" not in body
