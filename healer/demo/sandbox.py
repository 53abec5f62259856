"""A whole GitHub in a temporary directory: the stand-in, a bare ``origin``, a workspace, and ``healer run``.

:class:`Sandbox` builds what a runner holds when the healer's workflow starts — a clone of the default branch
at ``GITHUB_WORKSPACE`` whose ``origin`` is the repository, an event payload, the Actions environment — and
runs ``python -m healer run`` as a child process against it. ``healer demo`` and the end-to-end tests use it.
Running the healer (its environment, the child process, :class:`HealerRun`) is in :mod:`healer.demo.running`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from healer.demo.running import HealerRun, RunsHealer, parse_github_output, run_child
from healer.demo.standin import StandIn
from healer.demo.state import Pull, Run

__all__ = ["HealerRun", "Sandbox", "SandboxError", "git", "parse_github_output", "run_child"]

# Fixed identities and dates make the sample commits reproducible.
_COMMIT_ENV = {
    "GIT_AUTHOR_NAME": "Mona Lisa",
    "GIT_AUTHOR_EMAIL": "mona@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T12:00:00Z",
    "GIT_COMMITTER_NAME": "Mona Lisa",
    "GIT_COMMITTER_EMAIL": "mona@example.com",
    "GIT_COMMITTER_DATE": "2026-01-01T12:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
}


class SandboxError(Exception):
    """Building the sandbox failed (a git command, a missing file)."""


def git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git with arguments as a list (branch names in tests are hostile on purpose) and return stdout."""
    full_env = {**os.environ, **_COMMIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull, **(env or {})}
    done = subprocess.run(["git", *args], cwd=cwd, env=full_env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SandboxError(f"git {' '.join(args[:3])} failed in {cwd}: {done.stderr.strip()[:500]}")
    return done.stdout


def _step_name(log: str) -> str:
    """The name GitHub gives the log's last ``run:`` step (``Run <command>``)."""
    names = re.findall(r"##\[group\](Run .+)", log)
    return names[-1].strip() if names else "Run checks"


@dataclass
class Sandbox(RunsHealer):
    """A repository on a stand-in GitHub, its bare ``origin`` and the workflow's checkout.

    Create it with :meth:`create`; it owns ``root`` (a directory the caller provides and removes).
    """

    root: Path
    standin: StandIn
    repo: str
    origin: Path
    seed: Path
    workspace: Path
    default_branch: str = "main"
    forks: dict[str, Path] = field(default_factory=dict)
    # PATH of the healer's step; None: this interpreter's scripts directory, then this process's PATH
    path: str | None = None
    isolation: str = "none"

    @classmethod
    def create(
        cls,
        root: Path,
        standin: StandIn,
        *,
        repo: str = "octo-org/widgets",
        files: Mapping[str, str],
        default_branch: str = "main",
    ) -> Sandbox:
        """A repository whose default branch holds ``files``, registered with ``standin``."""
        root.mkdir(parents=True, exist_ok=True)
        origin, seed, workspace = root / "origin.git", root / "seed", root / "workspace"
        git(root, "init", "--quiet", "--bare", f"--initial-branch={default_branch}", str(origin))
        git(root, "init", "--quiet", f"--initial-branch={default_branch}", str(seed))
        git(seed, "remote", "add", "origin", str(origin))
        box = cls(root, standin, repo, origin, seed, workspace, default_branch)
        box.commit(default_branch, files, "Initial commit", base=None)
        # actions/checkout of the default branch: the workflow_run workflow runs from there
        git(root, "clone", "--quiet", "--branch", default_branch, str(origin), str(workspace))
        standin.add_repository(repo, default_branch=default_branch, git_dir=origin)
        return box

    # -- git -------------------------------------------------------------------------------------------------
    def commit(
        self,
        branch: str,
        files: Mapping[str, str | None],
        message: str,
        *,
        base: str | None = "",
        remote: str = "origin",
    ) -> str:
        """Commit ``files`` (None deletes one) on ``branch`` from ``base`` (default: the branch's own tip,
        else the default branch; None: an orphan first commit) and push it to ``remote``; return its id."""
        if base is None:
            git(self.seed, "checkout", "--quiet", "--orphan", branch)
        else:
            start = base or self._tip(branch, remote) or f"origin/{self.default_branch}"
            git(self.seed, "checkout", "--quiet", "-B", branch, start)
        for name, text in files.items():
            path = self.seed / name
            if text is None:
                git(self.seed, "rm", "--quiet", "--", name)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            git(self.seed, "add", "--", name)
        git(self.seed, "commit", "--quiet", "--allow-empty", "-m", message)
        sha = git(self.seed, "rev-parse", "HEAD").strip()
        git(self.seed, "push", "--quiet", "--force", remote, f"HEAD:refs/heads/{branch}")
        git(self.seed, "fetch", "--quiet", remote)
        return sha

    def _tip(self, branch: str, remote: str) -> str | None:
        try:
            return git(
                self.seed, "rev-parse", "--verify", "--quiet", f"refs/remotes/{remote}/{branch}"
            ).strip()
        except SandboxError:
            return None

    def add_fork(self, full_name: str) -> Path:
        """A fork (its own bare repository and stand-in repository) to open fork PRs from."""
        path = self.root / (full_name.replace("/", "__") + ".git")
        git(self.root, "clone", "--quiet", "--bare", str(self.origin), str(path))
        git(self.seed, "remote", "add", full_name, str(path))
        self.standin.add_repository(full_name, default_branch=self.default_branch, git_dir=path, fork=True)
        self.forks[full_name] = path
        return path

    def origin_refs(self) -> dict[str, str]:
        """Every ref on origin and the commit it names."""
        out = git(self.origin, "for-each-ref", "--format=%(refname) %(objectname)")
        pairs = (line.split(" ", 1) for line in out.splitlines() if line)
        return {name: sha for name, sha in pairs}

    def has_object(self, where: Path, sha: str) -> bool:
        try:
            git(where, "cat-file", "-e", f"{sha}^{{commit}}")
        except SandboxError:
            return False
        return True

    def show(self, ref: str, path: str) -> str:
        """A file's text at ``ref`` on origin."""
        return git(self.origin, "show", f"{ref}:{path}")

    # -- GitHub state ----------------------------------------------------------------------------------------
    def open_pull(
        self,
        branch: str,
        sha: str,
        *,
        head_repo: str | None = None,
        title: str = "Add double()",
        author: str = "mona",
        number: int | None = None,
        labels: Iterable[str] = (),
    ) -> Pull:
        """A pull request from ``branch`` into the default branch (``head_repo``: a fork's full name)."""
        pull = self.standin.add_pull(
            self.repo,
            head_ref=branch,
            head_sha=sha,
            head_repo=head_repo,
            title=title,
            author=author,
            number=number,
            labels=labels,
        )
        # GitHub keeps every PR's head under refs/pull/N/head in the base repository, forks included
        source = self.forks.get(head_repo or "", self.origin)
        if source != self.origin:
            git(source, "push", "--quiet", "--force", str(self.origin), f"{sha}:refs/pull/{pull.number}/head")
        else:
            git(self.origin, "update-ref", f"refs/pull/{pull.number}/head", sha)
        return pull

    def push_to_pull(self, pull: Pull, files: Mapping[str, str | None], message: str) -> str:
        """A new commit on the PR's branch (its own repository or its fork); the PR's head moves to it."""
        remote = pull.head_repo if pull.is_fork else "origin"
        sha = self.commit(pull.head_ref, files, message, remote=remote)
        with self.standin._lock:
            pull.head_sha = sha
        # GitHub moves refs/pull/N/head in the base repository for a fork's push too
        if pull.is_fork:
            git(self.forks[pull.head_repo], "push", "--quiet", "--force", str(self.origin),
                f"{sha}:refs/pull/{pull.number}/head")  # fmt: skip
        else:
            git(self.origin, "update-ref", f"refs/pull/{pull.number}/head", sha)
        return sha

    def add_run(
        self,
        pull: Pull | None,
        jobs: Iterable[tuple[str, str, str]],
        *,
        sha: str | None = None,
        branch: str | None = None,
        conclusion: str = "failure",
        run: Run | None = None,
        name: str = "CI",
        path: str = ".github/workflows/ci.yml",
    ) -> Run:
        """A completed run of the PR's head with ``jobs`` as ``(name, conclusion, log)``; passing ``run``
        adds its next attempt instead. The payload lists the PR only for a same-repository PR, as GitHub
        does."""
        if run is None:
            head_repo = pull.head_repo if pull else self.repo
            listed = [pull.number] if pull and not pull.is_fork else []
            run = self.standin.add_run(
                self.repo,
                head_sha=sha or (pull.head_sha if pull else ""),
                head_branch=branch or (pull.head_ref if pull else self.default_branch),
                head_repo=head_repo,
                pull_requests=listed,
                conclusion=conclusion,
                name=name,
                path=path,
            )
        else:
            self.standin.add_run_attempt(run, conclusion=conclusion)
        for job_name, job_conclusion, log in jobs:
            failed = job_conclusion == "failure"
            self.standin.add_job(
                run,
                job_name,
                conclusion=job_conclusion,
                log=log,
                steps=[
                    ("Run actions/checkout@v5", "success"),
                    (_step_name(log), "failure" if failed else job_conclusion),
                ],
            )
        return run

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
