"""The REST operations the healer uses, as methods returning the healer's dataclasses."""

from __future__ import annotations

import base64
from collections.abc import Collection, Sequence
from typing import Any, Protocol
from urllib.parse import quote

import github.IssueComment
import github.PullRequest

from healer.github import logdownload
from healer.github.blob import BlobLogSource
from healer.github.changes import ChangeCalls
from healer.github.commands import CommandCalls
from healer.github.convert import (
    annotation_from,
    check_body_length,
    comment_from,
    is_stale,
    job_from,
    prefer_head,
    pull_from,
    with_records_of,
)
from healer.github.errors import GitHubError
from healer.github.history import HistoryCalls
from healer.github.logdownload import LOG_KEEP_LIMIT
from healer.github.proving import ProofCalls
from healer.github.transport import PER_PAGE, Transport, last_page
from healer.logsource import DEFAULT_READ_LIMIT
from healer.model import Annotation, Comment, Job, LogTail, PullRequest, Repository, RunEvent

COMMENT_PAGES = 10  # requests one comment listing may cost: the first page and the newest nine
_PR_READ = "pull-requests: read"
_PR_WRITE = "pull-requests: write"
# what GitHub says when a review comment is not on the PR's diff (the wording has varied: "Pull request review
# thread line must be part of the diff", "… start line must be part of the same hunk as the line", "… path is
# invalid", "Path could not be resolved")
_OFF_DIFF = ("review thread", "path could not be resolved", "part of the diff")


class LineComment(Protocol):
    """A review comment on lines ``start_line``..``line`` of the PR's head (the RIGHT side of its diff), such
    as :class:`healer.deliver.suggestions.Suggestion`."""

    @property
    def path(self) -> str: ...
    @property
    def start_line(self) -> int | None: ...
    @property
    def line(self) -> int: ...
    @property
    def body(self) -> str: ...


class GitHub(HistoryCalls, CommandCalls, ProofCalls, ChangeCalls, Transport):
    """Speaks to one repository (``owner/name``) through the REST operations in rest-subset.openapi.json.

    Single objects are read and written through PyGithub's typed objects on a lazy repository (no request
    until a method is called; each call below is one request, retried by :meth:`Transport._retrying`).
    Listings are paginated here, page by number: PyGithub's ``PaginatedList`` follows the ``Link`` header's
    URLs, which GitHub writes with ``/repositories/{id}/…`` paths outside the operations the healer uses, and
    cannot read a listing from both ends (:meth:`list_comments`). One converter per type reads GitHub's JSON
    (:mod:`healer.github.convert`): the same shapes come in webhook payloads, which are no PyGithub objects.
    """

    comments_skipped = 0  # comments the last :meth:`list_comments` left out (a PR longer than it reads)

    # -- reads ---------------------------------------------------------------------------------------------
    def get_repository(self) -> Repository:
        """The repository's name, default branch and visibility."""
        repo = self._retrying(
            lambda: self._github.get_repo(self.repository).complete(),
            what="read the repository",
            need="metadata: read",
        )
        return Repository(str(repo.full_name), str(repo.default_branch), bool(repo.private))

    def get_pull(self, number: int) -> PullRequest:
        pr = self._retrying(
            lambda: self._repo.get_pull(number).complete(), what=f"read pull request #{number}", need=_PR_READ
        )
        return pull_from(pr.raw_data)  # complete: no request

    def find_pull_request(self, event: RunEvent) -> PullRequest | None:
        """The PR the run belongs to: payload PRs, then commits/{sha}/pulls, then open PRs by head (forks).

        The PR is returned even when its head has moved past the run's commit; check :func:`is_stale`.
        """
        if event.pull_requests:
            listed = []
            for number in event.pull_requests:
                pr = self.get_pull(number)
                if pr.state == "open":
                    if not is_stale(pr, event):
                        return pr
                    listed.append(pr)
            # every listed PR moved on (or closed): the first open one lets the caller say why it skips
            return listed[0] if listed else None
        if not event.is_fork:
            # GitHub answers [] here for a fork's head commit (it lives in the fork), so forks skip this read
            found = self._paginate(
                "GET",
                f"/commits/{event.head_sha}/pulls",
                what=f"list the pull requests of commit {event.head_sha[:12]}",
                need=_PR_READ,
                max_pages=1,
            )
            mine = [
                pull_from(item)
                for item in found
                if item.get("state") == "open"
                and str(item.get("base", {}).get("repo", {}).get("full_name", "")).lower()
                == self.repository.lower()
            ]
            if mine:
                return prefer_head(mine, event)
        owner = event.head_owner or event.head_repository.partition("/")[0]
        if not owner or not event.head_branch:
            return None
        candidates = [
            pr
            for pr in self.list_pulls(head=f"{owner}:{event.head_branch}", state="open")
            if pr.head_repository.lower() == event.head_repository.lower() or not event.head_repository
        ]
        return prefer_head(candidates, event) if candidates else None

    def list_pulls(
        self, *, head: str | None = None, base: str | None = None, state: str = "open"
    ) -> list[PullRequest]:
        """Pull requests of the repository; ``head`` is ``owner:branch``."""
        params: dict[str, Any] = {"state": state}
        if head is not None:
            params["head"] = head
        if base is not None:
            params["base"] = base
        found = self._paginate("GET", "/pulls", params, what="list pull requests", need=_PR_READ, max_pages=5)
        return [pull_from(item) for item in found]

    def list_jobs(self, run_id: int, attempt: int) -> list[Job]:
        """The jobs of one attempt of a workflow run."""
        found = self._paginate(
            "GET",
            f"/actions/runs/{run_id}/attempts/{attempt}/jobs",
            what=f"list the jobs of run {run_id} (attempt {attempt})",
            need="actions: read",
            key="jobs",
            max_pages=10,
        )
        return [job_from(item) for item in found]

    def list_annotations(self, job_id: int) -> list[Annotation]:
        """The check annotations of a job (a job's id is its check-run id)."""
        found = self._paginate(
            "GET",
            f"/check-runs/{job_id}/annotations",
            what=f"list the annotations of job {job_id}",
            need="checks: read",
            max_pages=3,
        )
        return [annotation_from(item) for item in found]

    def list_comments(self, number: int, *, authors: Collection[str] | None = None) -> list[Comment]:
        """The conversation comments of a PR, oldest first; on a long PR, the newest ones (see below).

        GitHub lists issue comments in ascending id order, 100 a page, so the healer's newest markers are on
        the last pages. The first page is read (its ``Link`` header names the last page), then pages from the
        last one backwards, at most :data:`COMMENT_PAGES` requests in all: a PR with up to 1,000 comments is
        read whole; on a longer one the oldest 100 and the newest 900 are read and those in between are not
        (``comments_skipped`` says how many were left out by the last listing). With ``authors``, only
        comments by those logins are kept.
        """
        wanted = None if authors is None else {login.lower() for login in authors}
        path = f"/issues/{number}/comments"
        what, need = f"list the comments of pull request #{number}", _PR_READ
        found: dict[int, Comment] = {}

        def keep(items: Any) -> int:
            if not isinstance(items, list):
                raise GitHubError(f"GitHub sent a malformed listing when asked to {what}")
            for item in items:
                comment = comment_from(item)
                if wanted is None or comment.author.lower() in wanted:
                    found[comment.id] = comment  # by id: a comment that moved to another page counts once
            return len(items)

        headers, first = self._call_with_headers(
            "GET", path, {"per_page": PER_PAGE, "page": 1}, what=what, need=need
        )
        listed = keep(first)
        last = last_page(str(headers.get("link", "")))
        self.comments_skipped = 0
        if last is None:  # no Link: one page, unless a full page says there may be more (read forwards)
            pages: range = range(2, COMMENT_PAGES + 1) if listed >= PER_PAGE else range(0)
        else:
            pages = range(last, max(1, last - COMMENT_PAGES + 1), -1)
            self.comments_skipped = max(0, last - 1 - len(pages)) * PER_PAGE
        for page in pages:
            _, items = self._call_with_headers(
                "GET", path, {"per_page": PER_PAGE, "page": page}, what=what, need=need
            )
            if keep(items) < PER_PAGE and last is None:
                break
        return [found[key] for key in sorted(found)]

    def get_file(self, path: str, ref: str) -> str | None:
        """A text file's content at ``ref``; None when it does not exist."""
        try:
            found = self._retrying(
                lambda: self._repo.get_contents(path.lstrip("/"), ref=ref),
                what=f"read {path} at {ref}",
                need="contents: read",
            )
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        if isinstance(found, list) or found.type != "file":
            kind = "a directory" if isinstance(found, list) else f"a {found.type or 'non-file'}"
            raise GitHubError(f"{path} at {ref} is {kind}, not a file")
        if found.encoding != "base64":
            raise GitHubError(f"{path} at {ref} is too large to read through the contents API (over 1 MB)")
        raw = base64.b64decode(found.content or "")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise GitHubError(f"{path} at {ref} is not UTF-8 text") from None

    def download_log_tail(
        self, job_id: int, *, keep_bytes: int = LOG_KEEP_LIMIT, read_limit: int = DEFAULT_READ_LIMIT
    ) -> LogTail:
        """The tail of a job's log, at most ``keep_bytes`` (see :func:`logdownload.download_log_tail`)."""
        return logdownload.download_log_tail(self, job_id, keep_bytes, read_limit)

    def open_log(self, job_id: int, *, limit: int = DEFAULT_READ_LIMIT) -> BlobLogSource:
        """A job's log as a :class:`~healer.logsource.LogSource` that moves at most ``limit`` bytes."""
        return BlobLogSource(self, job_id, limit=limit)

    # -- writes --------------------------------------------------------------------------------------------
    def create_comment(self, number: int, body: str) -> Comment:
        check_body_length(body, "comment")
        comment = self._retrying(
            lambda: self._repo.get_issue(number).create_comment(body),  # a lazy issue: one request
            what=f"comment on pull request #{number}",
            need=_PR_WRITE,
            # a 5xx after POST may still have created the comment: retrying could post it twice
            idempotent=False,
        )
        return comment_from(comment.raw_data)  # complete: no request

    def update_comment(self, comment_id: int, body: str) -> Comment:
        check_body_length(body, "comment")
        # Not IssueComment.edit: it keeps only the answer's parsed attributes, and the converters read
        # GitHub's JSON (one converter per type, shared with webhook payloads).
        data = self._call(
            "PATCH",
            f"/issues/comments/{comment_id}",
            body={"body": body},
            what=f"edit comment {comment_id}",
            need=_PR_WRITE,
        )
        return comment_from(data)

    def delete_comment(self, comment_id: int) -> None:
        comment = self._comment(comment_id)
        self._retrying(comment.delete, what=f"delete comment {comment_id}", need=_PR_WRITE)

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        if not labels:
            return
        # Not Issue.add_to_labels: it sends a bare array; GitHub recommends the `{"labels": [...]}` form.
        self._call(
            "POST",
            f"/issues/{number}/labels",
            body={"labels": list(labels)},
            what=f"label pull request #{number}",
            need="issues: write",
        )

    def rerun_failed_jobs(self, run_id: int) -> None:
        # Not WorkflowRun.rerun_failed_jobs: it asks without checking the answer, so a refusal (403: the run
        # is over 30 days old, 50 attempts, the workflow disabled) would pass as a re-run.
        self._call(
            "POST",
            f"/actions/runs/{run_id}/rerun-failed-jobs",
            what=f"re-run the failed jobs of run {run_id}",
            need="actions: write",
        )

    def rerun_job(self, job_id: int) -> None:
        """Re-run one job (and the jobs that depend on it), not every failed job of its run."""
        self._call(
            "POST",
            f"/actions/jobs/{job_id}/rerun",
            what=f"re-run job {job_id}",
            need="actions: write",
            # a 5xx after POST may still have queued the re-run: another one would spend an attempt of the run
            idempotent=False,
        )

    def delete_branch(self, branch: str) -> bool:
        """Delete a branch; False when it was gone already (GitHub answers 422 "Reference does not exist")."""
        try:
            self._call(
                "DELETE",
                f"/git/refs/heads/{quote(branch, safe='/')}",
                what=f"delete the branch {branch}",
                need="contents: write",
            )
        except GitHubError as exc:
            if exc.status in (404, 422) and "does not exist" in str(exc).lower():
                return False
            raise
        return True

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool = False) -> PullRequest:
        """Open a PR; when one from ``head`` into ``base`` already exists, update and return it."""
        check_body_length(body, "pull request body")
        try:
            pr = self._retrying(
                lambda: self._repo.create_pull(base=base, head=head, title=title, body=body, draft=draft),
                what=f"open a pull request from {head} into {base}",
                need=_PR_WRITE,
            )
        except GitHubError as exc:
            if exc.status != 422 or "already exists" not in str(exc):
                raise
            # idempotent delivery: a previous run (or a retried request) already opened it
            owner = self.repository.partition("/")[0]
            qualified = head if ":" in head else f"{owner}:{head}"
            existing = self.list_pulls(head=qualified, base=base, state="open")
            if not existing:
                raise
            # the hidden records at the top of its body (the healer's ledger) stay there
            return self.update_pull(
                existing[0].number, title=title, body=with_records_of(existing[0].body, body)
            )
        return pull_from(pr.raw_data)  # complete: no request

    def create_review(
        self, number: int, *, commit_id: str, body: str, comments: Sequence[LineComment]
    ) -> int:
        """Post a review (event ``COMMENT``) of ``commit_id`` with line comments on the RIGHT side of the PR's
        diff; return its id. GitHub creates a review whole or not at all: one comment off the diff refuses
        them all (422)."""
        check_body_length(body, "review body")
        items: list[dict[str, Any]] = []
        for comment in comments:
            check_body_length(comment.body, f"review comment on {comment.path}")
            item: dict[str, Any] = {"path": comment.path, "line": comment.line, "side": "RIGHT"}
            # GitHub refuses start_line == line ("start line must precede the end line"): one line, no start
            if comment.start_line is not None and comment.start_line != comment.line:
                item.update(start_line=comment.start_line, start_side="RIGHT")
            item["body"] = comment.body
            items.append(item)
        try:
            data = self._call(
                "POST",
                f"/pulls/{number}/reviews",
                body={"commit_id": commit_id, "body": body, "event": "COMMENT", "comments": items},
                what=f"review pull request #{number}",
                need=_PR_WRITE,
                # a 5xx after POST may still have created the review: retrying could post it twice
                idempotent=False,
            )
        except GitHubError as exc:
            if exc.status == 422 and any(words in str(exc).lower() for words in _OFF_DIFF):
                raise GitHubError(
                    f"{exc}: a suggested change sits on lines that are not on the diff GitHub shows for pull "
                    f"request #{number} at {commit_id[:12]} (the pull request may have moved on since the "
                    "heal, or its diff was computed from another merge base); nothing of the review was "
                    "posted, and the patch comment still holds the whole fix",
                    status=422,
                ) from None
            raise
        if not isinstance(data, dict) or not isinstance(data.get("id"), int):
            raise GitHubError(f"GitHub sent a malformed review when asked to review pull request #{number}")
        return int(data["id"])

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        """Ask ``logins`` to review pull request ``number``: GitHub notifies them (an edit would not). A 422
        means GitHub refused: a reviewer who is not a collaborator, or the pull request's own author."""
        self._call(
            "POST",
            f"/pulls/{number}/requested_reviewers",
            body={"reviewers": list(logins)},
            what=f"request a review of pull request #{number}",
            need=_PR_WRITE,
        )

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None, state: str | None = None
    ) -> PullRequest:
        changes = {k: v for k, v in (("title", title), ("body", body), ("state", state)) if v is not None}
        if body is not None:
            check_body_length(body, "pull request body")
        # Not PullRequest.edit, for the reason given in update_comment
        data = self._call(
            "PATCH", f"/pulls/{number}", body=changes, what=f"update pull request #{number}", need=_PR_WRITE
        )
        return pull_from(data)

    # -- PyGithub objects ----------------------------------------------------------------------------------
    def _comment(self, comment_id: int) -> github.IssueComment.IssueComment:
        """A lazy comment (PyGithub has no lazy getter for an issue comment by id alone)."""
        return github.IssueComment.IssueComment(
            self._requester, url=f"{self._repo.url}/issues/comments/{comment_id}"
        )
