"""End to end: an escalation says what fails, what was tried and what to do next; its mention notifies."""

from __future__ import annotations

from harness import failing_test_pull, heal

from healer.demo.sandbox import Sandbox

TEAM = "@octo-org/maintainers"


def test_an_escalation_says_what_fails_and_what_to_do_and_mentions_in_a_created_comment(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)

    # `max-attempts: 0`: never heal, escalate at once (a check with nothing to try gets the short notice
    # instead: tests/e2e/test_notifications.py)
    result = heal(box, run, inputs={"escalation-mention": TEAM, "max-attempts": "0"})

    assert result.outputs["decision"] == "escalated"
    [comment] = box.standin.comments(box.repo, pull.number)  # the claim, edited into the outcome
    body = comment.body
    line = next(line for line in body.splitlines() if line.startswith("**Fails:**"))
    assert "`test (3.12)` (test, `python -m pytest -q`)" in line
    assert "**Tried:** nothing: All 0 heal attempt(s) are spent." in line
    assert "Add the label `ci-healer:off`" in body
    # unfolded: the news, the decisive line, one next step with one command, the mention; the rest folded
    shown = [x for x in body.split("<details>")[0].splitlines() if x.strip() and not x.startswith("<!--")]
    assert len(shown) == 4 and shown[2].startswith("**Next:** fix the failure by hand"), shown
    assert line in body.split("<details>")[1]
    assert "Earlier attempts did not make this check pass" not in body
    assert "| # |" not in body  # no table of attempts that never happened
    # GitHub notifies a mention only in a created comment: the claim is created as the escalation itself,
    # mention included, and its first visible line is the news
    [created] = [r.body["body"] for r in result.requests if r.operation == "issues/create-comment"]
    assert f"cc {TEAM}" in created
    visible = [x for x in created.splitlines() if x.strip() and not x.startswith("<!--")]
    assert visible[0] == "### :raising_hand: `test (3.12)` needs a person"
    assert f"cc {TEAM}" in body
    # the runner's markup is not evidence: the excerpt leaves it out
    assert "##[group]" not in body and "shell: /usr/bin/bash" not in body
    assert "##[error]Process completed" not in body
