"""The REST operations behind ``/ci-healer`` comment commands: who may command, reactions, the opt-out label,
the pull request's latest failed run, and a workflow run's latest attempt (:mod:`healer.run.quiet`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from healer.github.errors import GitHubError
from healer.github.transport import Transport

# A mixin: :class:`healer.github.GitHub` brings the transport (its bases are this and Transport); the type
# checker reads it as a Transport so the calls below are checked against it.
if TYPE_CHECKING:
    _Calls = Transport
else:
    _Calls = object

# The reactions GitHub accepts on a comment (``reactions/create-for-issue-comment``).
REACTIONS = frozenset({"+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"})
# Failed conclusions of a check run that a retry or an explanation is about.
_FAILED = frozenset({"failure", "timed_out"})


@dataclass(frozen=True)
class Permission:
    """A user's access to the repository, as ``GET /collaborators/{user}/permission`` reports it.

    ``permission`` is the legacy level (``admin``, ``write``, ``read``, ``none``): GitHub reports the
    ``maintain`` role as ``write`` and ``triage`` as ``read`` there. ``role_name`` is the role itself
    (``admin``, ``maintain``, ``write``, ``triage``, ``read``, or a custom role's name).
    """

    login: str
    permission: str
    role_name: str = ""

    @property
    def can_write(self) -> bool:
        """Write, maintain or admin: may run the commands that act."""
        return self.permission in ("admin", "write") or self.role_name in ("admin", "maintain", "write")

    @property
    def shown(self) -> str:
        return self.role_name or self.permission or "none"


@dataclass(frozen=True)
class FailedCheck:
    """A failed check run at a commit (a GitHub Actions job: its id is the job id)."""

    job_id: int
    name: str
    completed_at: str


class CommandCalls(_Calls):
    """Operations used by the comment commands (mixed into :class:`healer.github.GitHub`)."""

    def get_permission(self, login: str) -> Permission:
        """``login``'s access to the repository; a user GitHub does not know has none."""
        try:
            data = self._call(
                "GET",
                f"/collaborators/{quote(login, safe='')}/permission",
                what=f"read the permission of {login}",
                need="metadata: read",
            )
        except GitHubError as exc:
            if exc.status == 404:
                return Permission(login, "none")
            raise
        return Permission(login, str(data.get("permission") or "none"), str(data.get("role_name") or ""))

    def add_reaction(self, comment_id: int, content: str) -> None:
        """React to an issue or PR comment (``eyes`` when a command is received, …)."""
        if content not in REACTIONS:
            raise ValueError(f"not a GitHub reaction: {content!r}")
        self._call(
            "POST",
            f"/issues/comments/{comment_id}/reactions",
            body={"content": content},
            what=f"react to comment {comment_id}",
            need="pull-requests: write",
        )

    def remove_label(self, number: int, label: str) -> bool:
        """Take ``label`` off issue/PR ``number``; False when it was not there (GitHub answers 404)."""
        try:
            self._call(
                "DELETE",
                f"/issues/{number}/labels/{quote(label, safe='')}",
                what=f"remove a label from pull request #{number}",
                need="issues: write",
            )
        except GitHubError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def failed_checks(self, sha: str, *, name: str | None = None) -> list[FailedCheck]:
        """The failed GitHub Actions check runs at ``sha`` (the latest try of each), newest first."""
        params: dict[str, Any] = {"status": "completed", "filter": "latest"}
        if name is not None:
            params["check_name"] = name
        found = self._paginate(
            "GET",
            f"/commits/{sha}/check-runs",
            params,
            what=f"list the check runs of commit {sha[:12]}",
            need="checks: read",
            key="check_runs",
            max_pages=3,
        )
        failed = [
            FailedCheck(int(item["id"]), str(item.get("name") or ""), str(item.get("completed_at") or ""))
            for item in found
            if item.get("conclusion") in _FAILED and (item.get("app") or {}).get("slug") == "github-actions"
        ]
        return sorted(failed, key=lambda c: (c.completed_at, c.job_id), reverse=True)

    def run_of_job(self, job_id: int) -> int:
        """The id of the workflow run a job belongs to."""
        data = self._call("GET", f"/actions/jobs/{job_id}", what=f"read job {job_id}", need="actions: read")
        return int(data["run_id"])

    def get_run(self, run_id: int) -> Mapping[str, Any]:
        """A workflow run, in the shape of a ``workflow_run`` event's ``workflow_run`` object."""
        data = self._call(
            "GET", f"/actions/runs/{run_id}", what=f"read workflow run {run_id}", need="actions: read"
        )
        if not isinstance(data, Mapping):
            raise GitHubError(f"GitHub sent a malformed answer when asked to read workflow run {run_id}")
        return data

    def run_attempt(self, run_id: int) -> int:
        """The latest attempt of workflow run ``run_id`` (:meth:`get_run`): above an event's own attempt, the
        run was re-run since that event."""
        attempt = self.get_run(run_id).get("run_attempt")
        if not isinstance(attempt, int):
            raise GitHubError(f"GitHub sent a malformed workflow run when asked for run {run_id}")
        return attempt
