"""The stand-in's issue operations: a pull request's comments (GitHub's length limit), and the labels of an
issue or a pull request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from healer.demo import shapes
from healer.demo.routes import Reply, error, paginate
from healer.demo.state import Repo
from healer.demo.views import Views

# GitHub caps an issue comment body at 65,536 characters.
MAX_COMMENT = 65_536


class IssueOps(Views):
    """Mixed into :class:`healer.demo.api.Api`."""

    def op_issues_list_comments(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        comments = sorted(self.s.comments(repo.full_name, pull.number), key=lambda c: c.id)
        page, links = paginate(
            [self.comment_shape(c) for c in comments],
            query,
            self._url(repo, f"/issues/{pull.number}/comments"),
        )
        return Reply(200, page, headers=links)

    def op_issues_create_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text:
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "IssueComment", "field": "body", "code": "missing_field"}],
            )
        if len(text) > MAX_COMMENT:
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "IssueComment",
                        "code": "custom",
                        "field": "body",
                        "message": f"body is too long (maximum is {MAX_COMMENT} characters)",
                    }
                ],
            )
        comment = self.s.add_comment(repo.full_name, pull.number, text, author=self.s.comment_author)
        shape = self.comment_shape(comment)
        return Reply(201, shape, headers=[("Location", shape["url"])])

    def op_issues_update_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        comment = self._comment(repo, params["comment_id"])
        if comment is None:
            return error(404, "Not Found")
        text = body.get("body") if isinstance(body, dict) else None
        if not isinstance(text, str) or not text or len(text) > MAX_COMMENT:
            return error(422, "Validation Failed")
        comment.body = text
        comment.updated_at = self.s._now()
        return Reply(200, self.comment_shape(comment))

    def op_issues_delete_comment(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        comment = self._comment(repo, params["comment_id"])
        if comment is None:
            return error(404, "Not Found")
        comment.deleted = True
        return Reply(204, None)

    def op_issues_add_labels(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        # issues and pull requests share the endpoint (and their numbers)
        number = int(params["number"]) if params["number"].isdigit() else -1
        item = self._pull(repo, params["number"]) or self.s.issue_store.get((repo.full_name, number))
        if item is None:
            return error(404, "Not Found")
        names = body.get("labels") if isinstance(body, dict) else body
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            return error(422, "Validation Failed")
        for name in names:
            if name not in item.labels:
                item.labels.append(name)
        item.updated_at = self.s._now()  # labelling an issue or a pull request updates it, as on GitHub
        return Reply(200, [shapes.label(name, self.api, repo.full_name) for name in item.labels])
