"""The stand-in's state: repositories, pull requests, runs, jobs, comments, and what was done to them.

Plain mutable dataclasses (the server changes them as requests arrive); tests seed them through
:class:`healer.demo.standin.StandIn` and read them back after a run.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Repo:
    full_name: str
    id: int
    default_branch: str = "main"
    clone_url: str = ""
    # a bare git repository on disk backing the contents API and PR head resolution (optional)
    git_dir: Path | None = None
    fork: bool = False
    private: bool = False
    # draft PRs need a public repository or a paid plan; elsewhere `POST /pulls` with `draft: true` is a 422
    drafts: bool = True
    # GitHub is reported to refuse `markPullRequestReadyForReview` to a workflow's GITHUB_TOKEN whose job
    # lacks `contents: write` (cli/cli#8910): True answers that mutation with its "not accessible" error
    ready_refused: bool = False

    @property
    def owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    def resolve(self, ref: str) -> str | None:
        """The commit a branch (or sha) names in the backing repository; None when there is none."""
        if self.git_dir is None:
            return None
        found = _git(self.git_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
        return found.strip() or None

    def show(self, ref: str, path: str) -> tuple[bytes, str] | None:
        """A file's bytes and blob sha at ``ref`` in the backing repository."""
        if self.git_dir is None:
            return None
        sha = _git(self.git_dir, "rev-parse", "--verify", "--quiet", f"{ref}:{path}").strip()
        if not sha or _git(self.git_dir, "cat-file", "-t", sha).strip() != "blob":
            return None
        blob = subprocess.run(
            ["git", "cat-file", "blob", sha], cwd=self.git_dir, capture_output=True, check=False
        )
        return (blob.stdout, sha) if blob.returncode == 0 else None


def _git(git_dir: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=git_dir, capture_output=True, text=True, check=False, env=env, errors="replace"
    )
    return done.stdout if done.returncode == 0 else ""


def pull_diff(base: Repo, head: Repo | None, base_ref: str, head_sha: str) -> str | None:
    """A pull request's diff as GitHub shows it: ``git diff -U3 <merge-base> <head>`` in the base repository;
    None when a commit cannot be found.

    A fork's head commit may live only in the fork's repository (the sandbox also pushes it to the base's
    ``refs/pull/N/head``, as GitHub does, but a later push to the fork does not): the fork's objects are
    lent to git as an alternate object directory, so neither repository is changed."""
    if base.git_dir is None:
        return None
    env = dict(os.environ)
    if head is not None and head.git_dir is not None and head.git_dir != base.git_dir:
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(Path(head.git_dir) / "objects")
    tip = _git(base.git_dir, "rev-parse", "--verify", "--quiet", f"{base_ref}^{{commit}}", env=env).strip()
    head_commit = _git(base.git_dir, "rev-parse", "--verify", "--quiet", f"{head_sha}^{{commit}}", env=env)
    merge_base = _git(base.git_dir, "merge-base", tip, head_commit.strip(), env=env).strip() if tip else ""
    if not merge_base or not head_commit.strip():
        return None
    return _git(base.git_dir, "diff", "-U3", "--no-renames", merge_base, head_commit.strip(), env=env)


@dataclass
class Pull:
    number: int
    id: int
    repo: str  # the base repository's full name
    title: str
    body: str | None
    author: str
    head_repo: str  # "" when the fork was deleted
    head_ref: str
    head_sha: str
    base_ref: str
    base_sha: str
    state: str = "open"
    draft: bool = False
    merged: bool = False
    labels: list[str] = field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""
    created_via_api: bool = False
    merged_by: str = ""  # who merged it (the PR's `merged_by` user)
    maintainer_can_modify: bool = False  # a fork's "Allow edits from maintainers"
    requested_reviewers: list[str] = field(default_factory=list)  # logins asked for a review

    @property
    def is_fork(self) -> bool:
        return self.head_repo.lower() != self.repo.lower()


@dataclass
class Job:
    id: int
    run_id: int
    run_attempt: int
    name: str
    conclusion: str | None = "failure"
    status: str = "completed"
    log: bytes = b""
    # (name, conclusion) per step; the runner's "Set up job" and "Complete job" are added around them
    steps: tuple[tuple[str, str | None], ...] = ()
    annotations: tuple[dict[str, Any], ...] = ()


@dataclass
class Run:
    id: int
    repo: str
    head_sha: str
    head_branch: str
    head_repo: str
    name: str = "CI"
    path: str = ".github/workflows/ci.yml"
    event: str = "pull_request"
    status: str = "completed"
    conclusion: str | None = "failure"
    run_attempt: int = 1
    pull_requests: tuple[int, ...] = ()
    actor: str = "mona"
    display_title: str = ""


@dataclass
class Comment:
    id: int
    repo: str
    number: int
    body: str
    author: str
    created_at: str
    updated_at: str
    deleted: bool = False


@dataclass
class Issue:
    """An issue (not a pull request); issues and pull requests of a repository share their numbers."""

    number: int
    id: int
    repo: str
    title: str
    body: str
    author: str
    created_at: str
    updated_at: str
    state: str = "open"
    labels: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Rerun:
    """A re-run request the stand-in accepted."""

    repo: str
    run_id: int
    job_id: int | None = None  # None: re-run of the failed jobs of the run


@dataclass(frozen=True)
class ReviewComment:
    """One line comment of a review, as GitHub took it (``start_line`` None: a one-line comment)."""

    path: str
    line: int
    body: str
    side: str = "RIGHT"
    start_line: int | None = None
    start_side: str | None = None


@dataclass(frozen=True)
class Review:
    repo: str
    number: int
    id: int
    body: str
    event: str
    commit_id: str | None
    comments: tuple[ReviewComment, ...] = ()


@dataclass(frozen=True)
class Fault:
    """An injected answer: ``status`` (and body/headers) for the next ``times`` calls of an operation."""

    status: int
    message: str
    headers: tuple[tuple[str, str], ...] = ()
    body: Any = None


@dataclass(frozen=True)
class RecordedRequest:
    """One request the stand-in received, and what it answered.

    ``headers`` never holds the Authorization value (it reads ``<redacted>``); ``authorization_sent`` says
    whether one was present at all (a signed log URL must be fetched without it).
    """

    method: str
    path: str  # the full path, including any API prefix
    query: tuple[tuple[str, str], ...]
    headers: tuple[tuple[str, str], ...]
    body: Any  # decoded JSON, text, or None
    status: int
    bytes_sent: int
    operation: str  # the REST operation id ("pulls/create"), "signed-log" or "unknown"
    authorization_sent: bool
    url: str  # absolute URL as the client addressed it
    response: Any = None  # the JSON answer (None for an empty or non-JSON one, e.g. a log)

    @property
    def is_write(self) -> bool:
        return self.method in ("POST", "PATCH", "PUT", "DELETE")

    def header(self, name: str) -> str | None:
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None
