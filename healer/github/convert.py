"""GitHub's JSON payloads as the healer's frozen dataclasses, and the checks on what is sent back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import github.IssueComment
import github.PullRequest

from healer.github.errors import GitHubError
from healer.model import Annotation, Comment, Job, PullRequest, RunEvent, Step

COMMENT_LIMIT = 65536  # GitHub refuses longer comment and PR bodies


def is_stale(pr: PullRequest, event: RunEvent) -> bool:
    """Whether the PR has moved on since the run: its head is no longer the commit the run tested."""
    return pr.head_sha != event.head_sha


def check_body_length(body: str, kind: str) -> None:
    if len(body) > COMMENT_LIMIT:
        raise GitHubError(f"the {kind} is {len(body):,} characters; GitHub accepts at most {COMMENT_LIMIT:,}")


def prefer_head(prs: Sequence[PullRequest], event: RunEvent) -> PullRequest:
    """The PR whose head is the run's commit, else the first (the caller then sees it is stale)."""
    return next((pr for pr in prs if not is_stale(pr, event)), prs[0])


def pull_from(pr: github.PullRequest.PullRequest) -> PullRequest:
    """A PyGithub pull request (complete: from an answer, never lazy) as the healer's :class:`PullRequest`."""
    head_repo, base_repo = pr.head.repo, pr.base.repo
    return PullRequest(
        number=int(pr.number),
        state=str(pr.state or ""),
        title=str(pr.title or ""),
        author=str(pr.user.login if pr.user is not None else ""),
        head_sha=str(pr.head.sha or ""),
        head_ref=str(pr.head.ref or ""),
        head_repository=str(head_repo.full_name if head_repo is not None else ""),
        base_ref=str(pr.base.ref or ""),
        base_repository=str(base_repo.full_name if base_repo is not None else ""),
        labels=tuple(str(label.name or "") for label in pr.labels or ()),
        draft=bool(pr.draft),
        html_url=str(pr.html_url or ""),
        body=str(pr.body or ""),
        default_branch=str(base_repo.default_branch or "" if base_repo is not None else ""),
        merged=bool(pr.merged or pr.merged_at),
    )


def job_from(data: Mapping[str, Any]) -> Job:
    return Job(
        id=int(data["id"]),
        name=str(data.get("name", "")),
        status=str(data.get("status", "")),
        conclusion=data.get("conclusion"),
        run_attempt=int(data.get("run_attempt") or 1),
        steps=tuple(
            Step(
                int(s.get("number", 0)), str(s.get("name", "")), str(s.get("status", "")), s.get("conclusion")
            )
            for s in data.get("steps") or ()
        ),
        html_url=str(data.get("html_url") or ""),
        started_at=str(data.get("started_at") or ""),
        completed_at=str(data.get("completed_at") or ""),
    )


def annotation_from(data: Mapping[str, Any]) -> Annotation:
    return Annotation(
        path=str(data.get("path") or ""),
        start_line=int(data.get("start_line") or 0),
        level=str(data.get("annotation_level") or ""),
        message=str(data.get("message") or ""),
        title=str(data.get("title") or ""),
    )


def comment_from(comment: github.IssueComment.IssueComment) -> Comment:
    """A PyGithub issue comment (complete) as the healer's :class:`Comment`."""
    return Comment(
        id=int(comment.id),
        author=str(comment.user.login if comment.user is not None else ""),
        body=str(comment.body or ""),
        created_at=_timestamp(comment.created_at),
        updated_at=_timestamp(comment.updated_at),
        html_url=str(comment.html_url or ""),
    )


def _timestamp(value: datetime | None) -> str:
    """PyGithub's parsed time back in GitHub's own form (``2024-05-01T10:00:00Z``)."""
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if value is not None else ""
