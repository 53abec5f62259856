"""The stand-in's pull request operations: listing, opening (with GitHub's 422s), reading, updating, the
files a pull request changes (from its diff, as GitHub lists them), reviews (whose line comments must sit on
the PR's diff, as GitHub checks it with git), the pull requests of a commit, and deleting a branch (what
that does to open pull requests)."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from typing import Any

from healer.change.diff import parse_diff
from healer.demo import shapes
from healer.demo.routes import Reply, error, paginate
from healer.demo.state import Pull, Repo, Review, ReviewComment, pull_diff
from healer.demo.views import Views

# GitHub lists at most 3,000 files of a pull request ("List pull requests files": "Responses include a maximum
# of 3000 files"); the rest are not listed at all
MAX_LISTED_FILES = 3000


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

    def op_pulls_list_files(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        """The files of the pull request's diff against the merge base, in git's order, 30 a page unless
        asked, at most :data:`MAX_LISTED_FILES` in all (GitHub's ``pulls/list-files``; renames are not
        detected, as the diff is read with ``--no-renames``)."""
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        head_repo = self.s.repos.get(pull.head_repo.lower()) if pull.head_repo else None
        base_ref = (
            f"refs/heads/{pull.base_ref}" if repo.resolve(f"refs/heads/{pull.base_ref}") else pull.base_sha
        )
        files = []
        for change in parse_diff(pull_diff(repo, head_repo, base_ref, pull.head_sha) or ""):
            path = change.new_path or change.old_path or ""
            added = sum(1 for hunk in change.hunks for line in hunk if line.kind == "+")
            removed = sum(1 for hunk in change.hunks for line in hunk if line.kind == "-")
            status = "added" if change.old_path is None else "modified"
            status = "removed" if change.new_path is None else status
            entry = shapes.diff_entry(
                repo.full_name, pull.head_sha, path, status, added, removed, self.api, self.web
            )
            files.append(entry)
        page, links = paginate(
            files[:MAX_LISTED_FILES], query, self._url(repo, f"/pulls/{pull.number}/files")
        )
        return Reply(200, page, headers=links)

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

    def op_pulls_request_reviewers(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        """GitHub asks collaborators only, never the pull request's own author (both a 422, which leaves
        nobody requested); a request notifies each reviewer."""
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        logins = body.get("reviewers", []) if isinstance(body, dict) else None
        if not isinstance(logins, list) or not all(isinstance(login, str) for login in logins):
            return error(422, "Validation Failed")
        if any(login.lower() == pull.author.lower() for login in logins):
            return error(422, "Review cannot be requested from pull request author.")
        if not all(self._collaborator(repo, login) for login in logins):
            return error(
                422,
                "Reviews may only be requested from collaborators. One or more of the users or teams you "
                f"specified is not a collaborator of the {repo.full_name} repository.",
            )
        for login in logins:
            if login.lower() not in (r.lower() for r in pull.requested_reviewers):
                pull.requested_reviewers.append(login)
        return Reply(201, self.pull_shape(pull))

    def _collaborator(self, repo: Repo, login: str) -> bool:
        """A login given a role on the repository (its owner has every role)."""
        role = self.s.permissions.get((repo.full_name.lower(), login.lower()), "none")
        return login.lower() == repo.owner.lower() or role != "none"

    def op_pulls_create_review(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        pull = self._pull(repo, params["number"])
        if pull is None:
            return error(404, "Not Found")
        body = body if isinstance(body, dict) else {}
        commit_id = str(body.get("commit_id") or pull.head_sha)
        raw = body.get("comments") or []
        if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
            return error(422, "Validation Failed")
        comments: list[ReviewComment] = []
        if raw:
            hunks = self._review_hunks(repo, pull, commit_id)
            problems: list[str] = []
            for item in raw:
                found = _review_comment(item, hunks)
                if isinstance(found, ReviewComment):
                    comments.append(found)
                else:
                    problems.extend(p for p in found if p not in problems)
            if problems:
                # GitHub refuses the whole review and joins its reasons into one sentence (parkerbxyz/
                # suggest-changes#28, warpdotdev/oz-for-oss#310, ubuntu/WSL#244)
                return error(
                    422,
                    "Unprocessable Entity",
                    errors=[_sentence(problems)],
                    documentation_url=_REVIEW_DOCS,
                )
        review = Review(
            repo.full_name,
            pull.number,
            self.s.next_id(),
            str(body.get("body") or ""),
            str(body.get("event") or "PENDING"),
            commit_id,
            tuple(comments),
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

    def _review_hunks(self, repo: Repo, pull: Pull, commit_id: str) -> dict[tuple[str, str], list[range]]:
        """The lines a review comment may sit on, per (path, side): each hunk of the PR's diff at
        ``commit_id`` against the merge base with the base branch (nothing when git cannot tell)."""
        head_repo = self.s.repos.get(pull.head_repo.lower()) if pull.head_repo else None
        base_ref = (
            f"refs/heads/{pull.base_ref}" if repo.resolve(f"refs/heads/{pull.base_ref}") else pull.base_sha
        )
        diff = pull_diff(repo, head_repo, base_ref, commit_id) or ""
        out: dict[tuple[str, str], list[range]] = {}
        for change in parse_diff(diff):
            delta = 0  # lines added minus lines removed so far: a context line's old number is new - delta
            for hunk in change.hunks:
                right = [line.number for line in hunk if line.kind != "-"]
                left = []
                for line in hunk:
                    if line.kind == "-":
                        left.append(line.number)
                        delta -= 1
                    elif line.kind == "+":
                        delta += 1
                    else:
                        left.append(line.number - delta)
                if change.new_path is not None and right:
                    out.setdefault((change.new_path, "RIGHT"), []).append(range(right[0], right[-1] + 1))
                if change.old_path is not None and left:
                    out.setdefault((change.old_path, "LEFT"), []).append(range(left[0], left[-1] + 1))
        return out

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


_REVIEW_DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
_OFF_DIFF = "Pull request review thread line must be part of the diff"
_BLANK_HUNK = "Pull request review thread diff hunk can't be blank"
_SAME_HUNK = "Pull request review thread start line must be part of the same hunk as the line."
_PRECEDE = "Pull request review thread start line must precede the end line."
_NO_PATH = "Path could not be resolved"


def _review_comment(
    item: dict[str, Any], hunks: dict[tuple[str, str], list[range]]
) -> ReviewComment | list[str]:
    """One comment of a review, checked as GitHub checks it: its path in the PR's diff, its line (and
    start line) inside one hunk of its side, the start line before the line; else GitHub's reasons."""
    path, side = str(item.get("path") or ""), str(item.get("side") or "RIGHT").upper()
    line, start = item.get("line"), item.get("start_line")
    start_side = str(item.get("start_side") or side).upper()
    if not isinstance(line, int) or not (start is None or isinstance(start, int)):
        # a `position` (the older way to place a comment) is not modelled: the healer sends lines
        return [_OFF_DIFF, _BLANK_HUNK]
    if not any(key[0] == path for key in hunks):
        return [_NO_PATH]
    holding = [h for h in hunks.get((path, side), []) if line in h]
    problems = [] if holding else [_OFF_DIFF]
    if start is not None:
        if start >= line and start_side == side:
            problems.append(_PRECEDE)
        elif start_side != side or not any(start in h for h in holding):
            problems.append(_SAME_HUNK)
    if not holding:
        problems.append(_BLANK_HUNK)
    if problems:
        return problems
    return ReviewComment(
        path, line, str(item.get("body") or ""), side, start, start_side if start is not None else None
    )


def _sentence(parts: list[str]) -> str:
    """Parts joined as GitHub joins its reasons: "A", "A and B", "A, B, and C"."""
    if len(parts) <= 2:
        return " and ".join(parts)
    return ", ".join(parts[:-1]) + ", and " + parts[-1]
