"""GitHub's REST object shapes of pull requests, their refs, reviews and issue comments. Pure functions."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from healer.demo.reposhapes import EPOCH, node_id, user


def issue_comment(
    comment_id: int,
    *,
    number: int,
    body: str,
    author: str,
    created_at: str,
    updated_at: str,
    repo: str,
    api: str,
    web: str,
) -> dict[str, Any]:
    """An ``issue-comment``."""
    return {
        "id": comment_id,
        "node_id": node_id("IC", comment_id),
        "url": f"{api}/repos/{repo}/issues/comments/{comment_id}",
        "html_url": f"{web}/{repo}/pull/{number}#issuecomment-{comment_id}",
        "issue_url": f"{api}/repos/{repo}/issues/{number}",
        "body": body,
        "user": user(author, api, web),
        "created_at": created_at,
        "updated_at": updated_at,
        "author_association": "NONE" if author.endswith("[bot]") else "CONTRIBUTOR",
        "reactions": {
            "url": f"{api}/repos/{repo}/issues/comments/{comment_id}/reactions",
            "total_count": 0,
            "+1": 0,
            "-1": 0,
            "laugh": 0,
            "confused": 0,
            "heart": 0,
            "hooray": 0,
            "eyes": 0,
            "rocket": 0,
        },
    }


def pull_ref(
    *, ref: str, sha: str, repo: dict[str, Any] | None, owner: str, api: str, web: str
) -> dict[str, Any]:
    """A PR's ``head`` or ``base``; ``repo`` is None for a deleted fork, as on GitHub."""
    return {"label": f"{owner}:{ref}", "ref": ref, "sha": sha, "repo": repo, "user": user(owner, api, web)}


def pull_request(
    *,
    pr_id: int,
    number: int,
    state: str,
    title: str,
    body: str | None,
    author: str,
    draft: bool,
    labels: list[dict[str, Any]],
    head: dict[str, Any],
    base: dict[str, Any],
    merged: bool,
    created_at: str,
    updated_at: str,
    repo: str,
    api: str,
    web: str,
    merged_by: str = "",
    maintainer_can_modify: bool = False,
    requested_reviewers: tuple[str, ...] = (),
) -> dict[str, Any]:
    """A ``pull-request`` (the single-PR shape; a superset of the list item ``pull-request-simple``)."""
    url = f"{api}/repos/{repo}/pulls/{number}"
    issue = f"{api}/repos/{repo}/issues/{number}"
    html = f"{web}/{repo}/pull/{number}"
    return {
        "url": url,
        "id": pr_id,
        "node_id": node_id("PR", pr_id),
        "html_url": html,
        "diff_url": f"{html}.diff",
        "patch_url": f"{html}.patch",
        "issue_url": issue,
        "commits_url": f"{url}/commits",
        "review_comments_url": f"{url}/comments",
        "review_comment_url": f"{api}/repos/{repo}/pulls/comments" + "{/number}",
        "comments_url": f"{issue}/comments",
        "statuses_url": f"{api}/repos/{repo}/statuses/{head['sha']}",
        "number": number,
        "state": state,
        "locked": False,
        "title": title,
        "user": user(author, api, web),
        "body": body,
        "labels": labels,
        "milestone": None,
        "active_lock_reason": None,
        "created_at": created_at,
        "updated_at": updated_at,
        "closed_at": None if state == "open" else updated_at,
        "merged_at": updated_at if merged else None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [user(login, api, web) for login in requested_reviewers],
        "requested_teams": [],
        "head": head,
        "base": base,
        "_links": {
            "self": {"href": url},
            "html": {"href": html},
            "issue": {"href": issue},
            "comments": {"href": f"{issue}/comments"},
            "review_comments": {"href": f"{url}/comments"},
            "review_comment": {"href": f"{api}/repos/{repo}/pulls/comments" + "{/number}"},
            "commits": {"href": f"{url}/commits"},
            "statuses": {"href": f"{api}/repos/{repo}/statuses/{head['sha']}"},
        },
        "author_association": "CONTRIBUTOR",
        "auto_merge": None,
        "draft": draft,
        "merged": merged,
        "mergeable": None,
        "rebaseable": None,
        "mergeable_state": "unknown",
        "merged_by": user(merged_by, api, web) if merged and merged_by else None,
        "comments": 0,
        "review_comments": 0,
        "maintainer_can_modify": maintainer_can_modify,
        "commits": 1,
        "additions": 0,
        "deletions": 0,
        "changed_files": 0,
    }


def pull_summary(pr: dict[str, Any]) -> dict[str, Any]:
    """The short PR reference of ``workflow_run.pull_requests`` and ``check_run.pull_requests``."""

    def ref(side: dict[str, Any]) -> dict[str, Any]:
        repo = side["repo"] or {}
        return {
            "ref": side["ref"],
            "sha": side["sha"],
            "repo": {"id": repo.get("id", 0), "url": repo.get("url", ""), "name": repo.get("name", "")},
        }

    return {
        "id": pr["id"],
        "number": pr["number"],
        "url": pr["url"],
        "head": ref(pr["head"]),
        "base": ref(pr["base"]),
    }


def review(
    review_id: int,
    *,
    number: int,
    body: str,
    event: str,
    commit_id: str | None,
    author: str,
    repo: str,
    api: str,
    web: str,
) -> dict[str, Any]:
    state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}.get(
        event, "PENDING"
    )
    html = f"{web}/{repo}/pull/{number}#pullrequestreview-{review_id}"
    return {
        "id": review_id,
        "node_id": node_id("PRR", review_id),
        "user": user(author, api, web),
        "body": body,
        "state": state,
        "html_url": html,
        "pull_request_url": f"{api}/repos/{repo}/pulls/{number}",
        "_links": {"html": {"href": html}, "pull_request": {"href": f"{api}/repos/{repo}/pulls/{number}"}},
        "submitted_at": EPOCH,
        "commit_id": commit_id,
        "author_association": "NONE",
    }


def diff_entry(
    repo: str, head_sha: str, path: str, status: str, additions: int, deletions: int, api: str, web: str
) -> dict[str, Any]:
    """One file of ``pulls/list-files`` (``diff-entry``): its name, status and line counts, the blob's
    addresses at the head commit. The blob's own sha is not kept by the stand-in (the schema lets it be
    null), nor the patch (GitHub leaves it out of large diffs too)."""
    where = quote(path)
    return {
        "sha": None,
        "filename": path,
        "status": status,
        "additions": additions,
        "deletions": deletions,
        "changes": additions + deletions,
        "blob_url": f"{web}/{repo}/blob/{head_sha}/{where}",
        "raw_url": f"{web}/{repo}/raw/{head_sha}/{where}",
        "contents_url": f"{api}/repos/{repo}/contents/{where}?ref={head_sha}",
    }
