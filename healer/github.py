"""The only client of GitHub's REST API.

INTERFACE SKELETON: the method signatures below are the contract the rest of the package codes against.
Implementation pending (PyGithub, plus ``requests`` for the log redirect).
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.model import Annotation, Comment, Job, LogTail, PullRequest, Repository, RunEvent


class GitHubError(Exception):
    """A GitHub API call failed; the message says what is missing and what to do. Never holds the token."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class GitHub:
    """Speaks to one repository (``owner/name``) through the REST operations in rest-subset.openapi.json."""

    def __init__(self, token: str, repository: str, *, api_url: str = "https://api.github.com") -> None:
        raise NotImplementedError

    # -- reads ---------------------------------------------------------------------------------------------
    def get_repository(self) -> Repository:
        raise NotImplementedError

    def get_pull(self, number: int) -> PullRequest:
        raise NotImplementedError

    def find_pull_request(self, event: RunEvent) -> PullRequest | None:
        """The PR the run belongs to: payload PRs, then commits/{sha}/pulls, then open PRs by head (forks)."""
        raise NotImplementedError

    def list_pulls(self, *, head: str | None = None, base: str | None = None, state: str = "open") -> list[PullRequest]:
        raise NotImplementedError

    def list_jobs(self, run_id: int, attempt: int) -> list[Job]:
        raise NotImplementedError

    def list_annotations(self, job_id: int) -> list[Annotation]:
        raise NotImplementedError

    def download_log_tail(self, job_id: int, *, keep_bytes: int = 256 * 1024) -> LogTail:
        raise NotImplementedError

    def list_comments(self, number: int) -> list[Comment]:
        raise NotImplementedError

    def get_file(self, path: str, ref: str) -> str | None:
        """A text file's content at ``ref``; None when it does not exist."""
        raise NotImplementedError

    # -- writes --------------------------------------------------------------------------------------------
    def create_comment(self, number: int, body: str) -> Comment:
        raise NotImplementedError

    def update_comment(self, comment_id: int, body: str) -> Comment:
        raise NotImplementedError

    def delete_comment(self, comment_id: int) -> None:
        raise NotImplementedError

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        raise NotImplementedError

    def rerun_failed_jobs(self, run_id: int) -> None:
        raise NotImplementedError

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool = False) -> PullRequest:
        """Open a PR; when one from ``head`` into ``base`` already exists, update and return it."""
        raise NotImplementedError

    def update_pull(self, number: int, *, title: str | None = None, body: str | None = None,
                    state: str | None = None) -> PullRequest:
        raise NotImplementedError

    @property
    def request_count(self) -> int:
        """How many HTTP requests this client has made (for the job summary and the benchmarks)."""
        raise NotImplementedError
