"""GitHub's REST object shapes of users, repositories, labels, file contents, permissions and errors (the
pieces :mod:`healer.demo.pullshapes` and :mod:`healer.demo.runshapes` build on). Pure functions: values in,
dicts out.
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
