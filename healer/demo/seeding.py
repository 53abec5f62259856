"""Seeding the stand-in, and what happens on GitHub after: repositories, pull requests, runs and their jobs
and attempts, comments, files, permissions; a job timing out, a run cancelled, a pull request merged or
closed, a branch deleted (and what that does to the pull requests on it)."""

from __future__ import annotations

import itertools
import subprocess
import threading
from collections.abc import Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from healer.demo.state import Comment, Issue, Job, Pull, Repo, Run


class StandInError(Exception):
    """The stand-in was seeded or used wrongly (a missing repository, a duplicate number)."""


class Seeding:
    """Mixed into :class:`healer.demo.standin.StandIn` (which owns the state below)."""

    repos: dict[str, Repo]
    pulls_by_repo: dict[str, dict[int, Pull]]
    runs: dict[int, Run]
    jobs: dict[int, Job]
    comment_store: dict[int, Comment]
    issue_store: dict[tuple[str, int], Issue]
    permissions: dict[tuple[str, str], str]
    files: dict[tuple[str, str | None, str], bytes]
    _ids: itertools.count[int]
    _clock: itertools.count[int]
    _lock: threading.RLock

    def _now(self) -> str:
        moment = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=next(self._clock))
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    def next_id(self) -> int:
        return next(self._ids)

    def add_repository(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        git_dir: Path | None = None,
        clone_url: str = "",
        fork: bool = False,
        private: bool = False,
        drafts: bool = True,
    ) -> Repo:
        """A repository; ``git_dir`` (a bare repository) backs the contents API and fix-PR head resolution."""
        with self._lock:
            repo = Repo(
                full_name,
                self.next_id(),
                default_branch,
                clone_url or (str(git_dir) if git_dir else ""),
                git_dir,
                fork,
                private,
                drafts,
            )
            self.repos[full_name.lower()] = repo
            self.pulls_by_repo.setdefault(full_name.lower(), {})
            return repo

    def add_pull(
        self,
        repo: str,
        *,
        head_ref: str,
        head_sha: str,
        base_ref: str | None = None,
        base_sha: str = "",
        head_repo: str | None = None,
        number: int | None = None,
        title: str = "Add a feature",
        body: str | None = "",
        author: str = "mona",
        labels: Iterable[str] = (),
        draft: bool = False,
        state: str = "open",
    ) -> Pull:
        """A pull request; ``head_repo`` other than ``repo`` makes it a fork PR ("" for a deleted fork)."""
        with self._lock:
            base = self._repo(repo)
            pulls = self.pulls_by_repo[base.full_name.lower()]
            number = number if number is not None else self.next_number(base.full_name)
            if number in pulls or (base.full_name, number) in self.issue_store:
                raise StandInError(f"pull request #{number} already exists in {repo}")
            now = self._now()
            pull = Pull(
                number,
                self.next_id(),
                base.full_name,
                title,
                body,
                author,
                base.full_name if head_repo is None else head_repo,
                head_ref,
                head_sha,
                base_ref or base.default_branch,
                base_sha or (base.resolve(base_ref or base.default_branch) or "0" * 40),
                state,
                draft,
                False,
                list(labels),
                now,
                now,
            )
            pulls[number] = pull
            return pull

    def add_run(
        self,
        repo: str,
        *,
        head_sha: str,
        head_branch: str,
        head_repo: str | None = None,
        pull_requests: Iterable[int] = (),
        conclusion: str | None = "failure",
        event: str = "pull_request",
        name: str = "CI",
        run_id: int | None = None,
        run_attempt: int = 1,
        path: str = ".github/workflows/ci.yml",
        actor: str = "mona",
    ) -> Run:
        """A completed workflow run (add its jobs with :meth:`add_job`)."""
        with self._lock:
            base = self._repo(repo)
            run = Run(
                run_id if run_id is not None else self.next_id() * 1000,
                base.full_name,
                head_sha,
                head_branch,
                base.full_name if head_repo is None else head_repo,
                name,
                path,
                event,
                "completed",
                conclusion,
                run_attempt,
                tuple(pull_requests),
                actor,
            )
            self.runs[run.id] = run
            return run

    def add_job(
        self,
        run: Run,
        name: str,
        *,
        conclusion: str | None = "failure",
        log: str | bytes = b"",
        steps: Iterable[tuple[str, str | None]] = (),
        annotations: Iterable[dict[str, Any]] = (),
        run_attempt: int | None = None,
        job_id: int | None = None,
    ) -> Job:
        """A job of ``run`` (of its current attempt unless given) with its log and check-run annotations.

        Each annotation is ``{"path", "line", "level", "message", "title"}``.
        """
        with self._lock:
            job = Job(
                job_id if job_id is not None else self.next_id() * 10 + 7,
                run.id,
                run_attempt or run.run_attempt,
                name,
                conclusion,
                "completed",
                log.encode() if isinstance(log, str) else log,
                tuple(steps),
                tuple(annotations),
            )
            self.jobs[job.id] = job
            return job

    def time_out(
        self, run: Run, name: str, *, log: str | bytes = b"", minutes: int = 10, step: str = "Run tests"
    ) -> Job:
        """A job stopped by its ``timeout-minutes``, as GitHub ends one: conclusion ``cancelled`` (not
        ``timed_out``), and so is the run's; the runner's line at the end of the log and in the check run's
        annotations, followed by "The operation was canceled." (BEHAVIOUR.md, "Events and runs")."""
        line = (
            f"##[error]The job running on runner GitHub Actions 7 has exceeded the maximum execution time of "
            f"{minutes} minutes."
        )
        text = log.decode() if isinstance(log, bytes) else log
        with self._lock:
            run.conclusion = "cancelled"
        return self.add_job(
            run,
            name,
            conclusion="cancelled",
            log=f"{text.rstrip()}\n{line}\n##[error]The operation was canceled.\n",
            steps=[("Run actions/checkout@v5", "success"), (step, "cancelled")],
            annotations=[
                {"path": ".github", "line": 1, "level": "failure", "message": line.removeprefix("##[error]")},
                {"path": ".github", "line": 1, "level": "failure", "message": "The operation was canceled."},
            ],
        )

    def cancel(self, run: Run, *, group: str = "", started: bool = True) -> None:
        """Cancel ``run`` as a person or a concurrency group does: its unfinished jobs end ``cancelled``;
        their log and annotations say "The operation was canceled." and, for a group, "Canceling since a
        higher priority waiting request for '<group>' exists" (BEHAVIOUR.md). A pending run's jobs never ran
        a step."""
        annotations: list[dict[str, Any]] = []
        if group:
            message = f"Canceling since a higher priority waiting request for '{group}' exists"
            annotations.append({"path": ".github", "line": 1, "level": "failure", "message": message})
        annotations.append(
            {"path": ".github", "line": 1, "level": "failure", "message": "The operation was canceled."}
        )
        with self._lock:
            run.conclusion = "cancelled"
            for job in self.jobs.values():
                if job.run_id != run.id or job.run_attempt != run.run_attempt:
                    continue
                if started and job.conclusion == "success":
                    continue  # a job that had finished keeps its conclusion
                job.conclusion = "cancelled"
                if started:
                    job.log += b"##[error]The operation was canceled.\n"
                    job.steps = tuple((n, "cancelled" if c == "failure" else c) for n, c in job.steps)
                    job.annotations = tuple(annotations)
                else:
                    job.log, job.steps, job.annotations = b"", (), ()

    def merge_pull(self, pull: Pull, *, delete_branch: bool = True, by: str = "mona") -> None:
        """Merge ``pull`` as ``by`` (its base branch moves to its head) and, as "Automatically delete head
        branches" does, delete its head branch: open PRs based on it are retargeted to ``pull``'s base."""
        repo = self._repo(pull.repo)
        with self._lock:
            pull.state, pull.merged, pull.merged_by = "closed", True, by
            pull.updated_at = self._now()
        if repo.git_dir is not None and not pull.is_fork:
            _git_ok(repo.git_dir, "update-ref", f"refs/heads/{pull.base_ref}", pull.head_sha)
            if delete_branch:
                _git_ok(repo.git_dir, "update-ref", "-d", f"refs/heads/{pull.head_ref}")
        if delete_branch and not pull.is_fork:
            self.branch_deleted(repo, pull.head_ref)

    def close_pull(self, pull: Pull) -> None:
        """Close ``pull`` without merging it."""
        with self._lock:
            pull.state = "closed"
            pull.updated_at = self._now()

    def branch_deleted(self, repo: Repo, branch: str) -> None:
        """What GitHub does to open PRs when a branch of ``repo`` is deleted: a PR from it is closed; a PR
        into it is retargeted to the base of the merged PR whose head it was, as GitHub does after a merge
        (BEHAVIOUR.md, "Pull requests, branches and comments"), and closed otherwise."""
        with self._lock:
            pulls = self.pulls_by_repo[repo.full_name.lower()].values()
            merged = next((p for p in pulls if p.merged and p.head_ref == branch and not p.is_fork), None)
            for pull in pulls:
                if pull.state != "open":
                    continue
                if pull.head_ref == branch and pull.head_repo.lower() == repo.full_name.lower():
                    pull.state = "closed"
                elif pull.base_ref == branch:
                    if merged is not None:
                        pull.base_ref = merged.base_ref
                    else:
                        pull.state = "closed"
                else:
                    continue
                pull.updated_at = self._now()

    def add_run_attempt(self, run: Run, *, conclusion: str | None = "failure") -> Run:
        """Start the next attempt of ``run`` (as a re-run does), or complete the one a re-run request
        queued; add its jobs with :meth:`add_job`."""
        with self._lock:
            if run.status == "completed":
                run.run_attempt += 1
            run.conclusion = conclusion
            run.status = "completed"
            return run

    def next_number(self, repo: str) -> int:
        """The number the next issue or pull request of ``repo`` gets (they share one sequence)."""
        with self._lock:
            base = self._repo(repo)
            taken = [
                *self.pulls_by_repo[base.full_name.lower()],
                *(n for r, n in self.issue_store if r == base.full_name),
            ]
            return max(taken, default=0) + 1

    def add_issue(
        self, repo: str, *, title: str, body: str = "", author: str = "mona", labels: Iterable[str] = ()
    ) -> Issue:
        """An issue (numbered with the pull requests)."""
        with self._lock:
            base = self._repo(repo)
            now = self._now()
            issue = Issue(
                self.next_number(base.full_name),
                self.next_id(),
                base.full_name,
                title,
                body,
                author,
                now,
                now,
                labels=list(labels),
            )
            self.issue_store[(base.full_name, issue.number)] = issue
            return issue

    def edit_issue(self, repo: str, number: int, body: str) -> str:
        """A person edits issue ``number``'s body (a box ticked in the dashboard); returns the body before,
        which GitHub sends as ``changes.body.from`` in the ``issues: edited`` event."""
        with self._lock:
            issue = self.issue_store[(self._repo(repo).full_name, number)]
            before, issue.body, issue.updated_at = issue.body, body, self._now()
            return before

    def add_comment(
        self, repo: str, number: int, body: str, *, author: str, at: str | None = None
    ) -> Comment:
        """A comment on issue/PR ``number`` by anyone (e.g. a forged marker by a stranger); ``at`` sets its
        time (ISO 8601), else the stand-in's clock."""
        with self._lock:
            base = self._repo(repo)
            now = at or self._now()
            comment = Comment(self.next_id() * 100 + 3, base.full_name, number, body, author, now, now)
            self.comment_store[comment.id] = comment
            return comment

    def set_file(self, repo: str, path: str, content: str | bytes, *, ref: str | None = None) -> None:
        """Serve ``path`` from the contents API (at ``ref``, or any ref when None), over the git backing."""
        with self._lock:
            data = content.encode() if isinstance(content, str) else content
            self.files[(self._repo(repo).full_name.lower(), ref, path)] = data

    def set_permission(self, repo: str, login: str, level: str) -> None:
        with self._lock:
            self.permissions[(self._repo(repo).full_name.lower(), login.lower())] = level

    def _repo(self, full_name: str) -> Repo:
        try:
            return self.repos[full_name.lower()]
        except KeyError:
            raise StandInError(f"no repository {full_name!r} was added to the stand-in") from None


def _git_ok(git_dir: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=git_dir, capture_output=True, check=True)
