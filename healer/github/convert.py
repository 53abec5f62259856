"""GitHub's JSON payloads as the healer's frozen dataclasses, and the checks on what is sent back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import takewhile
from typing import Any

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


def pull_from(data: Mapping[str, Any]) -> PullRequest:
    head, base = data.get("head") or {}, data.get("base") or {}
    head_repo, base_repo = head.get("repo") or {}, base.get("repo") or {}
    return PullRequest(
        number=int(data["number"]),
        state=str(data.get("state", "")),
        title=str(data.get("title") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        head_sha=str(head.get("sha", "")),
        head_ref=str(head.get("ref", "")),
        head_repository=str(head_repo.get("full_name", "")),
        base_ref=str(base.get("ref", "")),
        base_repository=str(base_repo.get("full_name", "")),
        labels=tuple(str(label.get("name", "")) for label in data.get("labels") or ()),
        draft=bool(data.get("draft", False)),
        html_url=str(data.get("html_url") or ""),
        body=str(data.get("body") or ""),
        default_branch=str(base_repo.get("default_branch") or ""),
        merged=bool(data.get("merged") or data.get("merged_at")),
        merged_by=str((data.get("merged_by") or {}).get("login", "")),
        base_sha=str(base.get("sha", "")),
        head_clone_url=str(head_repo.get("clone_url") or ""),
        maintainer_can_modify=data.get("maintainer_can_modify") is True,
        node_id=str(data.get("node_id") or ""),
        created_at=str(data.get("created_at") or ""),
        updated_at=str(data.get("updated_at") or ""),
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


def comment_from(data: Mapping[str, Any]) -> Comment:
    return Comment(
        id=int(data["id"]),
        author=str((data.get("user") or {}).get("login", "")),
        body=str(data.get("body") or ""),
        created_at=str(data.get("created_at") or ""),
        updated_at=str(data.get("updated_at") or ""),
        html_url=str(data.get("html_url") or ""),
    )


# the ledger's lines (a marker, healer.ledger.markers, and the account under the block, healer.ledger.memory);
# not the fix's hidden CI or state marks, whose lines the new body writes afresh
_RECORD_LINES = ("<!-- ci-healer:v1 ", "<!-- ci-healer:memory:v1 ")


def with_records_of(old: str, body: str) -> str:
    """``body`` under the hidden records that lead ``old`` (the healer's markers and attempt memory at the top
    of a fix pull request's body, which its ledger reads), for a body that replaces ``old``."""
    kept = takewhile(lambda ln: not ln.strip() or ln.lstrip().startswith(_RECORD_LINES), old.split("\n"))
    head = "\n".join(ln.strip() for ln in kept if ln.strip())
    return f"{head}\n\n{body}" if head else body
