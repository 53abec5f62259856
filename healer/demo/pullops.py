"""The stand-in's pull request operations: listing, opening (with GitHub's 422s), reading, updating,
reviews, the pull requests of a commit, and deleting a branch (what that does to open pull requests)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from typing import Any

from healer.demo import shapes
from healer.demo.routes import Reply, error, paginate
from healer.demo.state import Repo, Review
from healer.demo.views import Views


class PullOps(Views):
    """Mixed into :class:`healer.demo.api.Api`."""

    def op_pulls_list(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        state = query.get("state", "open")
        if state not in ("open", "closed", "all"):
            return error(422, "Validation Failed")
        pulls = [
            p
            for p in self.s.pulls_by_repo[repo.full_name.lower()].values()
            if state == "all" or p.state == state
        ]
        if "head" in query:
            # GitHub filters by "user:ref-name" (the head repository's owner and the branch)
            owner, _, ref = query["head"].rpartition(":")
            owner = owner or repo.owner
            pulls = [
                p
                for p in pulls
                if p.head_ref == ref and p.head_repo.split("/", 1)[0].lower() == owner.lower()
            ]
        if "base" in query:
            pulls = [p for p in pulls if p.base_ref == query["base"]]
        newest_first = query.get("direction", "desc") == "desc"
        if query.get("sort") == "updated":
            pulls.sort(key=lambda p: (p.updated_at, p.number), reverse=newest_first)
        else:
            pulls.sort(key=lambda p: p.number, reverse=newest_first)
        page, links = paginate([self.pull_shape(p) for p in pulls], query, self._url(repo, "/pulls"))
        return Reply(200, page, headers=links)

    def op_pulls_create(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        if not isinstance(body, dict) or not body.get("head") or not body.get("base"):
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "PullRequest", "field": "head", "code": "missing_field"}],
            )
        head_owner, _, head_ref = str(body["head"]).rpartition(":")
        head_owner = head_owner or repo.owner
        base_ref = str(body["base"])
        head_repo = repo if head_owner.lower() == repo.owner.lower() else None
        for pull in self.s.pulls_by_repo[repo.full_name.lower()].values():
            if (
                pull.state == "open"
                and pull.head_ref == head_ref
                and pull.base_ref == base_ref
                and pull.head_repo.split("/", 1)[0].lower() == head_owner.lower()
            ):
                # GitHub's own wording; clients look for it to find and update the existing PR
                return error(
                    422,
                    "Validation Failed",
                    errors=[
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": f"A pull request already exists for {head_owner}:{head_ref}.",
                        }
                    ],
                )
        if body.get("draft") and not repo.drafts:
            # "Draft pull requests need a public repository, or a private one on the Team or Enterprise plans"
            # (BEHAVIOUR.md, "Pull requests, branches and comments")
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": "Draft pull requests are not supported in this repository.",
                    }
                ],
            )
        head_sha = head_repo.resolve(f"refs/heads/{head_ref}") if head_repo else None
        base_sha = repo.resolve(f"refs/heads/{base_ref}")
        if repo.git_dir is not None and (head_sha is None or base_sha is None):
            field = "head" if head_sha is None else "base"
            return error(
                422,
                "Validation Failed",
                errors=[{"resource": "PullRequest", "field": field, "code": "invalid"}],
            )
        if head_sha is not None and head_sha == base_sha:
            return error(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"No commits between {base_ref} and {head_ref}",
                    }
                ],
            )
        pull = self.s.add_pull(
            repo.full_name,
            head_ref=head_ref,
            head_sha=head_sha or "f" * 40,
            base_ref=base_ref,
            base_sha=base_sha or "0" * 40,
            title=str(body.get("title") or head_ref),
            body=body.get("body"),
            author=self.s.bot_login,
            draft=bool(body.get("draft")),
        )
        pull.created_via_api = True
        shape = self.pull_shape(pull)
        return Reply(201, shape, headers=[("Location", shape["url"])])

    def op_git_delete_ref(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        ref = params["ref"]
        branch = ref.removeprefix("heads/") if ref.startswith("heads/") else None
        if branch == repo.default_branch:
            return error(422, "Validation Failed")  # GitHub refuses to delete the default branch
        if repo.git_dir is None or repo.resolve(f"refs/{ref}") is None:
            return error(422, "Reference does not exist")
        subprocess.run(
            ["git", "update-ref", "-d", f"refs/{ref}"], cwd=repo.git_dir, capture_output=True, check=True
        )
        if branch is not None:
            self.s.branch_deleted(repo, branch)
        return Reply(204, None)

    def op_pulls_get(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        return Reply(200, self.pull_shape(pull)) if pull else error(404, "Not Found")

    def op_pulls_update(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        if not isinstance(body, dict):
            return error(422, "Validation Failed")
        if "title" in body:
            pull.title = str(body["title"])
        if "body" in body:
            pull.body = body["body"]
        if "state" in body:
            if body["state"] not in ("open", "closed"):
                return error(422, "Validation Failed")
            pull.state = body["state"]
        if "base" in body:
            pull.base_ref = str(body["base"])
        pull.updated_at = self.s._now()
        return Reply(200, self.pull_shape(pull))

    def op_pulls_create_review(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        body = body if isinstance(body, dict) else {}
        review = Review(
            repo.full_name,
            pull.number,
            self.s.next_id(),
            str(body.get("body") or ""),
            str(body.get("event") or "PENDING"),
            body.get("commit_id") or pull.head_sha,
        )
        self.s.reviews.append(review)
        return Reply(
            200,
            shapes.review(
                review.id,
                number=pull.number,
                body=review.body,
                event=review.event,
                commit_id=review.commit_id,
                author=self.s.bot_login,
                repo=repo.full_name,
                api=self.api,
                web=self.web,
            ),
        )

    def op_repos_list_pull_requests_associated_with_commit(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        sha = params["sha"]
        # A fork's commit is not in the base repository's history: GitHub answers [] for it.
        pulls = [
            p
            for p in self.s.pulls_by_repo[repo.full_name.lower()].values()
            if not p.is_fork and (p.head_sha == sha or p.head_ref == sha)
        ]
        page, links = paginate(
            [self.pull_shape(p) for p in pulls], query, self._url(repo, f"/commits/{sha}/pulls")
        )
        return Reply(200, page, headers=links)
