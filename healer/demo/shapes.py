"""GitHub's REST object shapes, built from the stand-in's state.

The field sets follow the response schemas of GitHub's OpenAPI description (``simple-user``,
``full-repository``, ``pull-request``, ``workflow-run``, ``job``, ``issue-comment``, ``check-run``…), with
every required field present, so that PyGithub and a schema validator read them as they read GitHub's own
answers. Pure functions: values in, dicts out.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

EPOCH = "2026-01-01T00:00:00Z"


def node_id(kind: str, number: int) -> str:
    """A stable, opaque GraphQL node id (GitHub's are base64 too; nobody may parse them)."""
    return kind + "_" + base64.b64encode(f"{kind}{number}".encode()).decode().rstrip("=")


def user_id(login: str) -> int:
    """A stable numeric id for a login (so the same login always has the same id)."""
    return int.from_bytes(hashlib.sha256(login.encode()).digest()[:3], "big") + 1000


def user(login: str, api: str, web: str) -> dict[str, Any]:
    """A ``simple-user``; logins ending in ``[bot]`` are of type ``Bot`` as on GitHub."""
    uid = user_id(login)
    base = f"{api}/users/{login}"
    return {
        "login": login,
        "id": uid,
        "node_id": node_id("U", uid),
        "avatar_url": f"{web}/avatars/{login}",
        "gravatar_id": "",
        "url": base,
        "html_url": f"{web}/{login}",
        "followers_url": f"{base}/followers",
        "following_url": base + "/following{/other_user}",
        "gists_url": base + "/gists{/gist_id}",
        "starred_url": base + "/starred{/owner}{/repo}",
        "subscriptions_url": f"{base}/subscriptions",
        "organizations_url": f"{base}/orgs",
        "repos_url": f"{base}/repos",
        "events_url": base + "/events{/privacy}",
        "received_events_url": f"{base}/received_events",
        "type": "Bot" if login.endswith("[bot]") else "User",
        "site_admin": False,
    }


def repository_lite(
    full_name: str, repo_id: int, *, fork: bool, private: bool, api: str, web: str
) -> dict[str, Any]:
    """The ``minimal-repository`` field set every repository object shares (and webhook ``repository``)."""
    owner, name = full_name.split("/", 1)
    url = f"{api}/repos/{full_name}"
    return {
        "id": repo_id,
        "node_id": node_id("R", repo_id),
        "name": name,
        "full_name": full_name,
        "private": private,
        "owner": user(owner, api, web),
        "html_url": f"{web}/{full_name}",
        "description": None,
        "fork": fork,
        "url": url,
        "archive_url": url + "/{archive_format}{/ref}",
        "assignees_url": url + "/assignees{/user}",
        "blobs_url": url + "/git/blobs{/sha}",
        "branches_url": url + "/branches{/branch}",
        "collaborators_url": url + "/collaborators{/collaborator}",
        "comments_url": url + "/comments{/number}",
        "commits_url": url + "/commits{/sha}",
        "compare_url": url + "/compare/{base}...{head}",
        "contents_url": url + "/contents/{+path}",
        "contributors_url": f"{url}/contributors",
        "deployments_url": f"{url}/deployments",
        "downloads_url": f"{url}/downloads",
        "events_url": f"{url}/events",
        "forks_url": f"{url}/forks",
        "git_commits_url": url + "/git/commits{/sha}",
        "git_refs_url": url + "/git/refs{/sha}",
        "git_tags_url": url + "/git/tags{/sha}",
        "hooks_url": f"{url}/hooks",
        "issue_comment_url": url + "/issues/comments{/number}",
        "issue_events_url": url + "/issues/events{/number}",
        "issues_url": url + "/issues{/number}",
        "keys_url": url + "/keys{/key_id}",
        "labels_url": url + "/labels{/name}",
        "languages_url": f"{url}/languages",
        "merges_url": f"{url}/merges",
        "milestones_url": url + "/milestones{/number}",
        "notifications_url": url + "/notifications{?since,all,participating}",
        "pulls_url": url + "/pulls{/number}",
        "releases_url": url + "/releases{/id}",
        "stargazers_url": f"{url}/stargazers",
        "statuses_url": url + "/statuses/{sha}",
        "subscribers_url": f"{url}/subscribers",
        "subscription_url": f"{url}/subscription",
        "tags_url": f"{url}/tags",
        "teams_url": f"{url}/teams",
        "trees_url": url + "/git/trees{/sha}",
    }


def repository(
    full_name: str,
    repo_id: int,
    *,
    default_branch: str,
    clone_url: str,
    fork: bool = False,
    private: bool = False,
    api: str,
    web: str,
) -> dict[str, Any]:
    """A ``full-repository`` (also valid where a ``repository`` is expected, as in a PR's head and base)."""
    shape = repository_lite(full_name, repo_id, fork=fork, private=private, api=api, web=web)
    shape.update(
        {
            "clone_url": clone_url,
            "git_url": clone_url,
            "ssh_url": clone_url,
            "svn_url": f"{web}/{full_name}",
            "mirror_url": None,
            "homepage": None,
            "language": "Python",
            "default_branch": default_branch,
            "forks": 0,
            "forks_count": 0,
            "stargazers_count": 0,
            "watchers": 0,
            "watchers_count": 0,
            "open_issues": 0,
            "open_issues_count": 0,
            "size": 1,
            "has_issues": True,
            "has_projects": False,
            "has_wiki": False,
            "has_pages": False,
            "has_downloads": True,
            "has_discussions": False,
            "archived": False,
            "disabled": False,
            "visibility": "private" if private else "public",
            "license": None,
            "topics": [],
            "is_template": False,
            "pushed_at": EPOCH,
            "created_at": EPOCH,
            "updated_at": EPOCH,
            "network_count": 0,
            "subscribers_count": 0,
            "permissions": {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True},
        }
    )
    return shape


def label(name: str, api: str, repo_full_name: str) -> dict[str, Any]:
    lid = user_id("label:" + name)
    return {
        "id": lid,
        "node_id": node_id("LA", lid),
        "url": f"{api}/repos/{repo_full_name}/labels/{name}",
        "name": name,
        # a string, not null: the list shape ("pull-request-simple") does not allow null here
        "description": "",
        "color": "ededed",
        "default": False,
    }


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
        "requested_reviewers": [],
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
        "merged_by": None,
        "comments": 0,
        "review_comments": 0,
        "maintainer_can_modify": False,
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


def step(number: int, name: str, conclusion: str | None) -> dict[str, Any]:
    return {
        "name": name,
        "status": "completed" if conclusion else "in_progress",
        "conclusion": conclusion,
        "number": number,
        "started_at": EPOCH,
        "completed_at": EPOCH if conclusion else None,
    }


def job(
    *,
    job_id: int,
    run_id: int,
    run_attempt: int,
    name: str,
    status: str,
    conclusion: str | None,
    steps: list[dict[str, Any]],
    head_sha: str,
    head_branch: str,
    workflow_name: str,
    repo: str,
    api: str,
    web: str,
) -> dict[str, Any]:
    """A ``job`` of a workflow run (its id is also its check-run id)."""
    return {
        "id": job_id,
        "run_id": run_id,
        "run_url": f"{api}/repos/{repo}/actions/runs/{run_id}",
        "run_attempt": run_attempt,
        "node_id": node_id("CR", job_id),
        "head_sha": head_sha,
        "url": f"{api}/repos/{repo}/actions/jobs/{job_id}",
        "html_url": f"{web}/{repo}/actions/runs/{run_id}/job/{job_id}",
        "status": status,
        "conclusion": conclusion,
        "created_at": EPOCH,
        "started_at": EPOCH,
        "completed_at": EPOCH if status == "completed" else None,
        "name": name,
        "steps": steps,
        "check_run_url": f"{api}/repos/{repo}/check-runs/{job_id}",
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 1,
        "runner_group_name": "GitHub Actions",
        "workflow_name": workflow_name,
        "head_branch": head_branch,
    }


def head_commit(sha: str, message: str) -> dict[str, Any]:
    person = {"name": "Mona Lisa", "email": "mona@example.com"}
    return {
        "id": sha,
        "tree_id": sha,
        "message": message,
        "timestamp": EPOCH,
        "author": person,
        "committer": person,
    }


def workflow_run(
    *,
    run_id: int,
    run_attempt: int,
    name: str,
    path: str,
    event: str,
    status: str,
    conclusion: str | None,
    head_sha: str,
    head_branch: str,
    actor: dict[str, Any],
    head_repository: dict[str, Any],
    repository: dict[str, Any],
    pull_requests: list[dict[str, Any]],
    repo: str,
    api: str,
    web: str,
    display_title: str = "",
) -> dict[str, Any]:
    """A ``workflow-run`` (REST); the webhook's ``workflow_run`` is the same object minus REST-only keys."""
    url = f"{api}/repos/{repo}/actions/runs/{run_id}"
    suite = run_id + 7_000_000
    return {
        "id": run_id,
        "name": name,
        "node_id": node_id("WFR", run_id),
        "check_suite_id": suite,
        "check_suite_node_id": node_id("CS", suite),
        "head_branch": head_branch,
        "head_sha": head_sha,
        "path": path,
        "run_number": run_id % 1000,
        "run_attempt": run_attempt,
        "event": event,
        "display_title": display_title or name,
        "status": status,
        "conclusion": conclusion,
        "workflow_id": 161335,
        "url": url,
        "html_url": f"{web}/{repo}/actions/runs/{run_id}",
        "pull_requests": pull_requests,
        "created_at": EPOCH,
        "updated_at": EPOCH,
        "run_started_at": EPOCH,
        "actor": actor,
        "triggering_actor": actor,
        "jobs_url": f"{url}/jobs",
        "logs_url": f"{url}/logs",
        "check_suite_url": f"{api}/repos/{repo}/check-suites/{suite}",
        "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel",
        "rerun_url": f"{url}/rerun",
        "previous_attempt_url": f"{url}/attempts/{run_attempt - 1}" if run_attempt > 1 else None,
        "workflow_url": f"{api}/repos/{repo}/actions/workflows/161335",
        "head_commit": head_commit(head_sha, f"Commit {head_sha[:7]}"),
        "repository": repository,
        "head_repository": head_repository,
    }


def check_run(
    job_shape: dict[str, Any], *, annotations: int, pull_requests: list[dict[str, Any]], api: str, web: str
) -> dict[str, Any]:
    """The ``check-run`` GitHub Actions creates for a job (same id, same name)."""
    job_id = job_shape["id"]
    repo = job_shape["url"].split("/repos/", 1)[1].split("/actions/", 1)[0]
    return {
        "id": job_id,
        "head_sha": job_shape["head_sha"],
        "node_id": job_shape["node_id"],
        "external_id": None,
        "url": f"{api}/repos/{repo}/check-runs/{job_id}",
        "html_url": job_shape["html_url"],
        "details_url": job_shape["html_url"],
        "status": job_shape["status"],
        "conclusion": job_shape["conclusion"],
        "started_at": job_shape["started_at"],
        "completed_at": job_shape["completed_at"],
        "output": {
            "title": None,
            "summary": None,
            "text": None,
            "annotations_count": annotations,
            "annotations_url": f"{api}/repos/{repo}/check-runs/{job_id}/annotations",
        },
        "name": job_shape["name"],
        "check_suite": {"id": job_shape["run_id"] + 7_000_000},
        "app": {
            "id": 15368,
            "slug": "github-actions",
            "node_id": node_id("A", 15368),
            "owner": user("github", api, web),
            "name": "GitHub Actions",
            "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions",
            "html_url": f"{web}/apps/github-actions",
            "created_at": EPOCH,
            "updated_at": EPOCH,
            "permissions": {"actions": "write", "checks": "write"},
            "events": ["check_run"],
        },
        "pull_requests": pull_requests,
    }


def annotation(
    *, path: str, line: int, level: str, message: str, title: str, blob_href: str
) -> dict[str, Any]:
    return {
        "path": path,
        "blob_href": blob_href,
        "start_line": line,
        "end_line": line,
        "start_column": None,
        "end_column": None,
        "annotation_level": level,
        "title": title,
        "message": message,
        "raw_details": None,
    }


def content_file(
    *, path: str, text: bytes, sha: str, ref: str, repo: str, api: str, web: str
) -> dict[str, Any]:
    """A ``content-file`` answer of ``GET /contents/{path}`` (base64 with line breaks, as GitHub sends it)."""
    encoded = base64.encodebytes(text).decode()
    url = f"{api}/repos/{repo}/contents/{path}?ref={ref}"
    html = f"{web}/{repo}/blob/{ref}/{path}"
    git = f"{api}/repos/{repo}/git/blobs/{sha}"
    return {
        "type": "file",
        "encoding": "base64",
        "size": len(text),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": encoded,
        "sha": sha,
        "url": url,
        "git_url": git,
        "html_url": html,
        "download_url": f"{web}/{repo}/raw/{ref}/{path}",
        "_links": {"git": git, "self": url, "html": html},
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


def permission(login: str, level: str, api: str, web: str) -> dict[str, Any]:
    """A ``repository-collaborator-permission``."""
    rank = ("none", "read", "triage", "write", "maintain", "admin")
    held = rank.index(level) if level in rank else 0
    # `permission` is the legacy base role: GitHub reports maintain as "write" and triage as "read"
    legacy = {"maintain": "write", "triage": "read"}.get(level, level)
    collaborator = user(login, api, web)
    collaborator["role_name"] = level
    collaborator["permissions"] = {
        "pull": held >= 1,
        "triage": held >= 2,
        "push": held >= 3,
        "maintain": held >= 4,
        "admin": held >= 5,
    }
    return {"permission": legacy, "role_name": level, "user": collaborator}


def error(message: str, status: int, **extra: Any) -> dict[str, Any]:
    """GitHub's ``basic-error`` / ``validation-error`` body."""
    body: dict[str, Any] = {
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": str(status),
    }
    body.update(extra)
    return body
