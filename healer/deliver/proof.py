"""Starting a fix branch's CI: after a fix branch is pushed with a token whose pushes start no workflow (the
job's ``GITHUB_TOKEN``), the workflow whose failure was healed is dispatched on that branch
(``workflow_dispatch``: the one event such a token may cause that starts a run). Its ``workflow_run`` event
brings the verdict back to the healer (:mod:`healer.run.proving`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from healer.github import DispatchRefused, GitHub, GitHubError
from healer.text.proof import dispatch_failed_line, dispatched_line, no_dispatch_line, runs_url


@dataclass(frozen=True)
class StartedCi:
    """What starting the fix branch's CI gave: the fix PR body's CI line and the state it names."""

    state: str  # started, no-trigger (the workflow declares no workflow_dispatch), failed
    line: str
    workflow: str = ""  # started: the workflow's name and the page of its runs on the branch
    runs: str = ""

    @property
    def pending(self) -> bool:
        """Whether a verdict will come (the fix PR waits for it as a draft)."""
        return self.state == "started"

    def line_when_not_draft(self) -> str:
        """The CI line for a fix PR that could not wait as a draft (a repository that refuses drafts)."""
        return dispatched_line(self.workflow, self.runs, draft=False) if self.pending else self.line


@dataclass(frozen=True)
class CiWorkflow:
    """The workflow whose failure a heal answered: its file (``.github/workflows/ci.yml``) and its name."""

    path: str
    name: str

    @property
    def file(self) -> str:
        return PurePosixPath(self.path).name


def start_ci(
    gh: GitHub, workflow: CiWorkflow, branch: str, *, server_url: str, draft: bool = True
) -> StartedCi:
    """Dispatch ``workflow`` on ``branch`` (one request). Never raises: a fix PR is delivered either way, and
    its body says what happened."""
    try:
        gh.dispatch_workflow(workflow.file, branch)
    except DispatchRefused:
        return StartedCi("no-trigger", no_dispatch_line(workflow.path))
    except GitHubError as exc:
        return StartedCi("failed", dispatch_failed_line(workflow.name, str(exc)))
    url = runs_url(server_url, gh.repository, workflow.file, branch)
    return StartedCi("started", dispatched_line(workflow.name, url, draft), workflow.name, url)
