"""Helpers of the end-to-end tests of ``/ci-healer`` comment commands: a comment on a pull request, its
``issue_comment`` payload, and ``healer run`` started by it (with the checks every run must pass)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from harness import assert_no_token, check_contract

from healer.demo.api import Api
from healer.demo.commandops import issue_comment_event
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.state import Comment, Pull


def comment_payload(
    box: Sandbox, pull: Pull, comment: Comment, *, action: str = "created"
) -> dict[str, object]:
    api = Api(box.standin)
    with box.standin._lock:
        return issue_comment_event(
            api.comment_shape(comment),
            api.pull_shape(pull),
            api.repo_shape(box.standin.repos[box.repo.lower()]),
            action=action,
        )


def command(
    box: Sandbox,
    pull: Pull,
    body: str,
    *,
    author: str = "maintainer",
    inputs: Mapping[str, str] | None = None,
    action: str = "created",
    payload: dict[str, object] | None = None,
    expect_exit: int = 0,
) -> tuple[HealerRun, Comment]:
    """``author`` comments ``body`` on ``pull``; ``healer run`` runs on that ``issue_comment`` event."""
    comment = box.standin.add_comment(box.repo, pull.number, body, author=author)
    data = payload if payload is not None else comment_payload(box, pull, comment, action=action)
    tag = f"comment-{comment.id}-{len(box.standin.requests)}"
    event = box.root / f"event-{tag}.json"
    event.write_text(json.dumps(data, indent=2), encoding="utf-8")
    env = box.environment(event, inputs or {}, tag=tag)
    env["GITHUB_EVENT_NAME"] = "issue_comment"
    env["GITHUB_RUN_ID"] = str(910_000 + comment.id)  # each command is its own run of the healer's workflow
    result = box.run_env(env, timeout=90)
    box.standin.idle()
    detail = f"\n--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    assert result.returncode == expect_exit, f"exit code {result.returncode}{detail}"
    assert "Traceback (most recent call last)" not in result.stderr + result.stdout, detail
    assert_no_token(box, result)
    check_contract(result.requests, box.standin.api_url)
    return result, comment


def operations(result: HealerRun) -> list[str]:
    """The REST operations a run made, in order."""
    return [r.operation for r in result.requests]


def reactions(box: Sandbox, comment: Comment) -> list[str]:
    return [r.content for r in box.standin.reactions if r.comment_id == comment.id]


def bot_comments_after(box: Sandbox, pull: Pull, comment: Comment) -> list[Comment]:
    return [c for c in box.standin.comments(box.repo, pull.number) if c.id > comment.id]
