"""The pull request and the failed run the planning tests decide on: one open pull request of `alice` from a
branch of the same repository, its CI run 500 failed on its head commit."""

from __future__ import annotations

from healer.config import Config
from healer.model import PullRequest, RunEvent

BOT = "github-actions[bot]"
SHA = "a" * 40
RUN_ID = 500

CONFIG = Config(agent_command="my-agent")
PULL = PullRequest(
    number=7,
    state="open",
    title="Add a feature",
    author="alice",
    head_sha=SHA,
    head_ref="feature",
    head_repository="octo/app",
    base_ref="main",
    base_repository="octo/app",
)
RUN = RunEvent(
    repository="octo/app",
    run_id=RUN_ID,
    run_attempt=1,
    workflow_name="CI",
    head_sha=SHA,
    head_branch="feature",
    head_repository="octo/app",
    is_fork=False,
    event="pull_request",
    conclusion="failure",
)
