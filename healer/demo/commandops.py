"""The stand-in's operations behind comment commands: reactions on comments, removing a label, and the
``issue_comment`` payload a command arrives in.

As on GitHub: a reaction is created once per (user, comment, content) — 201 the first time, 200 with the same
reaction after; an unknown content is 422; removing a label the issue does not carry is 404 ``Label does not
exist``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from healer.demo import shapes
from healer.demo.routes import Reply, error

if TYPE_CHECKING:
    from healer.demo.standin import StandIn
    from healer.demo.state import Comment, Pull, Repo

REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes")


@dataclass(frozen=True)
class Reaction:
    id: int
    comment_id: int
    user: str
    content: str
    created_at: str


class CommandOps:
    """Mixed into :class:`healer.demo.api.Api`."""

    s: StandIn
    api: str
    web: str

    if TYPE_CHECKING:  # provided by Api

        def _pull(self, repo: Repo, number: str) -> Pull | None: ...

        def _comment(self, repo: Repo, comment_id: str) -> Comment | None: ...

    def op_reactions_create_for_issue_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        comment = self._comment(repo, params["comment_id"])
        if comment is None:
            return error(404, "Not Found")
        content = body.get("content") if isinstance(body, dict) else None
        if content not in REACTIONS:
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "Reaction", "field": "content", "code": "invalid"}],
            )
        user = self.s.comment_author
        for reaction in self.s.reactions:
            if (reaction.comment_id, reaction.user, reaction.content) == (comment.id, user, content):
                return Reply(200, self.reaction_shape(reaction))
        reaction = Reaction(self.s.next_id(), comment.id, user, content, self.s._now())
        self.s.reactions.append(reaction)
        return Reply(201, self.reaction_shape(reaction))

    def reaction_shape(self, reaction: Reaction) -> dict[str, Any]:
        return {
            "id": reaction.id,
            "node_id": shapes.node_id("REA", reaction.id),
            "user": shapes.user(reaction.user, self.api, self.web),
            "content": reaction.content,
            "created_at": reaction.created_at,
        }

    def op_issues_remove_label(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        if params["name"] not in pull.labels:
            return error(404, "Label does not exist")
        pull.labels.remove(params["name"])
        return Reply(200, [shapes.label(name, self.api, repo.full_name) for name in pull.labels])


def issue_comment_event(
    comment: dict[str, Any], pull: dict[str, Any], repository: dict[str, Any], *, action: str = "created"
) -> dict[str, Any]:
    """An ``issue_comment`` payload for a comment on a pull request (``issue.pull_request`` set), shaped like
    GitHub's: the issue is the pull request seen through the issues API."""
    number = pull["number"]
    issue = {
        "url": pull["issue_url"],
        "repository_url": repository["url"],
        "labels_url": pull["issue_url"] + "/labels{/name}",
        "comments_url": pull["comments_url"],
        "events_url": pull["issue_url"] + "/events",
        "html_url": pull["html_url"],
        "id": pull["id"],
        "node_id": pull["node_id"],
        "number": number,
        "title": pull["title"],
        "user": pull["user"],
        "labels": pull["labels"],
        "state": pull["state"],
        "locked": False,
        "assignee": None,
        "assignees": [],
        "milestone": None,
        "comments": 0,
        "created_at": pull["created_at"],
        "updated_at": pull["updated_at"],
        "closed_at": pull["closed_at"],
        "author_association": pull["author_association"],
        "active_lock_reason": None,
        "draft": pull["draft"],
        "body": pull["body"],
        "performed_via_github_app": None,
        "reactions": {**comment["reactions"], "url": pull["issue_url"] + "/reactions", "total_count": 0},
        "pull_request": {
            "url": pull["url"],
            "html_url": pull["html_url"],
            "diff_url": pull["diff_url"],
            "patch_url": pull["patch_url"],
            "merged_at": pull["merged_at"],
        },
    }
    # the webhook's repository is the REST one without REST-only keys, with the webhook's own (as in
    # healer.demo.sample.workflow_run_event)
    repo = {
        k: v for k, v in repository.items() if k not in ("network_count", "subscribers_count", "permissions")
    }
    repo.update({"web_commit_signoff_required": False, "custom_properties": {}})
    return {
        "action": action,
        "issue": issue,
        "comment": {**comment, "performed_via_github_app": None},
        "repository": repo,
        "sender": comment["user"],
    }
