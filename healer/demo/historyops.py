"""The stand-in's repository-wide operations: a workflow's runs (filtered by branch, event and status, newest
first), every comment of the repository (``since``), and issues (list, open, edit). Issues and pull requests
share their numbers, and the issues listing holds pull requests too (with a ``pull_request`` key), as on
GitHub."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from healer.demo import shapes
from healer.demo.routes import Reply, error, paginate
from healer.demo.state import Issue, Pull, Repo
from healer.demo.views import Views

_CONCLUSIONS = frozenset(
    {"action_required", "cancelled", "failure", "neutral", "skipped", "stale", "success", "timed_out"}
)


def issue_shape(
    *,
    issue_id: int,
    number: int,
    title: str,
    body: str | None,
    author: str,
    state: str,
    labels: list[dict[str, Any]],
    created_at: str,
    updated_at: str,
    repo: str,
    api: str,
    web: str,
    pull: bool = False,
) -> dict[str, Any]:
    """An ``issue`` (REST); a pull request listed among issues carries a ``pull_request`` object."""
    url = f"{api}/repos/{repo}/issues/{number}"
    shape: dict[str, Any] = {
        "id": issue_id,
        "node_id": shapes.node_id("I", issue_id),
        "url": url,
        "repository_url": f"{api}/repos/{repo}",
        "labels_url": f"{url}/labels{{/name}}",
        "comments_url": f"{url}/comments",
        "events_url": f"{url}/events",
        "html_url": f"{web}/{repo}/{'pull' if pull else 'issues'}/{number}",
        "number": number,
        "state": state,
        "state_reason": None,
        "title": title,
        "body": body,
        "user": shapes.user(author, api, web),
        "labels": labels,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "locked": False,
        "active_lock_reason": None,
        "comments": 0,
        "closed_at": None if state == "open" else updated_at,
        "created_at": created_at,
        "updated_at": updated_at,
        "closed_by": None,
        "author_association": "NONE" if author.endswith("[bot]") else "OWNER",
    }
    if pull:
        shape["pull_request"] = {
            "url": f"{api}/repos/{repo}/pulls/{number}",
            "html_url": f"{web}/{repo}/pull/{number}",
            "diff_url": f"{web}/{repo}/pull/{number}.diff",
            "patch_url": f"{web}/{repo}/pull/{number}.patch",
            "merged_at": None,
        }
    return shape


class HistoryOps(Views):
    """Mixed into :class:`healer.demo.api.Api`."""

    def _issue_shape(self, issue: Issue) -> dict[str, Any]:
        return issue_shape(
            issue_id=issue.id,
            number=issue.number,
            title=issue.title,
            body=issue.body,
            author=issue.author,
            state=issue.state,
            labels=[shapes.label(name, self.api, issue.repo) for name in issue.labels],
            created_at=issue.created_at,
            updated_at=issue.updated_at,
            repo=issue.repo,
            api=self.api,
            web=self.web,
        )

    def _pull_as_issue(self, pull: Pull) -> dict[str, Any]:
        return issue_shape(
            issue_id=pull.id,
            number=pull.number,
            title=pull.title,
            body=pull.body,
            author=pull.author,
            state=pull.state,
            labels=[shapes.label(name, self.api, pull.repo) for name in pull.labels],
            created_at=pull.created_at,
            updated_at=pull.updated_at,
            repo=pull.repo,
            api=self.api,
            web=self.web,
            pull=True,
        )

    def op_actions_list_workflow_runs(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        wanted = params["workflow_id"]
        runs = [
            r
            for r in self.s.runs.values()
            if r.repo == repo.full_name and wanted in (PurePosixPath(r.path).name, r.path)
        ]
        if not runs and not any(PurePosixPath(r.path).name == wanted for r in self.s.runs.values()):
            return error(404, "Not Found")
        status = query.get("status")
        if status:
            runs = [
                r for r in runs if (r.conclusion == status if status in _CONCLUSIONS else r.status == status)
            ]
        for key, attribute in (("branch", "head_branch"), ("event", "event"), ("head_sha", "head_sha")):
            if query.get(key):
                runs = [r for r in runs if getattr(r, attribute) == query[key]]
        runs.sort(key=lambda r: r.id, reverse=True)  # newest first (ids grow)
        items = [self.run_shape(r) for r in runs]
        if query.get("exclude_pull_requests") == "true":
            for item in items:
                item["pull_requests"] = []
        page, links = paginate(items, query, self._url(repo, f"/actions/workflows/{wanted}/runs"))
        return Reply(200, {"total_count": len(items), "workflow_runs": page}, headers=links)

    def op_issues_list_comments_for_repo(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        since = query.get("since") or ""
        comments = [
            c
            for c in self.s.comment_store.values()
            if c.repo == repo.full_name and not c.deleted and c.updated_at >= since
        ]
        field = "updated_at" if query.get("sort") == "updated" else "created_at"
        comments.sort(key=lambda c: (getattr(c, field), c.id), reverse=query.get("direction") == "desc")
        page, links = paginate(
            [self.comment_shape(c) for c in comments], query, self._url(repo, "/issues/comments")
        )
        return Reply(200, page, headers=links)

    def op_issues_list_for_repo(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        state = query.get("state") or "open"
        labels = {name for name in (query.get("labels") or "").split(",") if name}
        creator = (query.get("creator") or "").casefold()
        found: list[tuple[str, int, dict[str, Any]]] = []
        items: list[Issue | Pull] = [i for i in self.s.issue_store.values() if i.repo == repo.full_name]
        items += list(self.s.pulls_by_repo[repo.full_name.lower()].values())
        for item in items:
            item_state = "closed" if item.state != "open" else "open"
            if state != "all" and item_state != state:
                continue
            if labels and not labels <= set(item.labels):
                continue
            if creator and item.author.casefold() != creator:
                continue
            shape = self._issue_shape(item) if isinstance(item, Issue) else self._pull_as_issue(item)
            found.append(
                (item.updated_at if query.get("sort") == "updated" else item.created_at, item.number, shape)
            )
        found.sort(key=lambda entry: (entry[0], entry[1]), reverse=query.get("direction", "desc") == "desc")
        page, links = paginate([shape for _, _, shape in found], query, self._url(repo, "/issues"))
        return Reply(200, page, headers=links)

    def op_issues_create(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        title = body.get("title") if isinstance(body, dict) else None
        if not isinstance(title, str) or not title:
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "Issue", "field": "title", "code": "missing_field"}],
            )
        text = body.get("body") or ""
        if not isinstance(text, str) or len(text) > 65_536:
            return error(422, "Validation Failed")
        issue = self.s.add_issue(
            repo.full_name,
            title=title,
            body=text,
            author=self.s.comment_author,
            labels=body.get("labels") or (),
        )
        shape = self._issue_shape(issue)
        return Reply(201, shape, headers=[("Location", shape["url"])])

    def op_issues_get(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        number = int(params["number"]) if params["number"].isdigit() else -1
        issue = self.s.issue_store.get((repo.full_name, number))
        if issue is not None:
            return Reply(200, self._issue_shape(issue))
        pull = self._pull(repo, params["number"])
        return Reply(200, self._pull_as_issue(pull)) if pull is not None else error(404, "Not Found")

    def op_issues_update(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        number = int(params["number"]) if params["number"].isdigit() else -1
        issue = self.s.issue_store.get((repo.full_name, number))
        if issue is None:
            return error(404, "Not Found")
        if not isinstance(body, dict):
            return error(422, "Validation Failed")
        text = body.get("body")
        if text is not None:
            if not isinstance(text, str) or len(text) > 65_536:
                return error(422, "Validation Failed")
            issue.body = text
        if isinstance(body.get("title"), str) and body["title"]:
            issue.title = body["title"]
        if body.get("state") in ("open", "closed"):
            issue.state = body["state"]
        issue.updated_at = self.s._now()
        return Reply(200, self._issue_shape(issue))


def issues_edited_event(
    issue: dict[str, Any], before: str, repository: dict[str, Any], sender: dict[str, Any]
) -> dict[str, Any]:
    """The ``issues`` event with ``action: edited`` for a body edit, shaped like GitHub's: the issue as it is
    after the edit, the body before it in ``changes.body.from``, and who edited it as ``sender``."""
    repo = {
        k: v for k, v in repository.items() if k not in ("network_count", "subscribers_count", "permissions")
    }
    repo.update({"web_commit_signoff_required": False, "custom_properties": {}})
    # the webhook's issue is the REST one with its reactions and without the REST-only `closed_by`
    url = issue["url"]
    counts = {k: 0 for k in ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")}
    hook_issue = {k: v for k, v in issue.items() if k != "closed_by"} | {
        "timeline_url": f"{url}/timeline",
        "performed_via_github_app": None,
        "reactions": {"url": f"{url}/reactions", "total_count": 0, **counts},
    }
    return {
        "action": "edited",
        "issue": hook_issue,
        "changes": {"body": {"from": before}},
        "repository": repo,
        "sender": sender,
    }
