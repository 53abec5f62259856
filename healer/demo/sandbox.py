"""A whole GitHub in a temporary directory: the stand-in, a bare ``origin``, a workspace, and ``healer run``.

:class:`Sandbox` builds what a runner holds when the healer's workflow starts — a clone of the default branch
at ``GITHUB_WORKSPACE`` whose ``origin`` is the repository, an event payload, the Actions environment — and
runs ``python -m healer run`` as a child process against it. ``healer demo`` and the end-to-end tests use it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from healer.demo.api import Api
from healer.demo.sample import workflow_run_event
from healer.demo.standin import StandIn
from healer.demo.state import Pull, RecordedRequest, Run

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


def run_child(
    argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> tuple[int, str, str, int]:
    """Run a child process to its end: exit code, stdout, stderr and its own peak memory in KiB.

    ``os.wait4`` reports the resources of exactly this child (``RUSAGE_CHILDREN`` would mix in every child
    this process ever had); where it is missing, the peak is 0.
    """
    if not hasattr(os, "wait4"):
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        return done.returncode, done.stdout, done.stderr, 0
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    texts = ["", ""]

    def pump(index: int, stream: IO[str]) -> None:
        texts[index] = stream.read()

    assert proc.stdout is not None and proc.stderr is not None
    pumps = [
        threading.Thread(target=pump, args=(i, s), daemon=True)
        for i, s in enumerate((proc.stdout, proc.stderr))
    ]
    for thread in pumps:
        thread.start()
    expired = threading.Event()

    def kill() -> None:
        expired.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    for thread in pumps:
        thread.join()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if expired.is_set():
        raise subprocess.TimeoutExpired(argv, timeout, output=texts[0], stderr=texts[1])
    peak = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss  # bytes on macOS
    return proc.returncode, texts[0], texts[1], peak


@dataclass
class HealerRun:
    """One ``healer run``: its exit code, output, step outputs, job summary, timing and the requests it
    made."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    seconds: float
    requests: list[RecordedRequest]
    peak_rss_kib: int = 0  # the child's peak resident memory (0 where the platform cannot say)

    @property
    def decision(self) -> str:
        return self.outputs.get("decision", "")


def _step_name(log: str) -> str:
    """The name GitHub gives the log's last ``run:`` step (``Run <command>``)."""
    names = re.findall(r"##\[group\](Run .+)", log)
    return names[-1].strip() if names else "Run checks"


def parse_github_output(text: str) -> dict[str, str]:
    """Read ``$GITHUB_OUTPUT``: ``name=value`` lines and ``name<<DELIMITER`` … ``DELIMITER`` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                value.append(inner)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs


@dataclass
class Sandbox:
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
        if not pull.is_fork:
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

    def write_event(self, run: Run, name: str = "event.json") -> Path:
        """The ``workflow_run`` ``completed`` payload of ``run``, written where ``$GITHUB_EVENT_PATH``
        points."""
        api = Api(self.standin)
        with self.standin._lock:
            payload = workflow_run_event(
                api.run_shape(run),
                api.repo_shape(self.standin.repos[self.repo.lower()]),
                api=self.standin.api_url,
                web=self.standin.server_url,
            )
        path = self.root / name
        path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return path

    # -- running the healer ----------------------------------------------------------------------------------
    def write_pull_event(self, pull: Pull, action: str = "closed", name: str = "pull-event.json") -> Path:
        """A ``pull_request_target`` payload for ``pull`` (the shape of @octokit/webhooks-examples'
        ``pull_request.closed``): ``action``, ``number``, the pull request as the REST API shows it, the
        repository and the sender."""
        api = Api(self.standin)
        with self.standin._lock:
            payload = {
                "action": action,
                "number": pull.number,
                "pull_request": api.pull_shape(pull),
                "repository": api.repo_shape(self.standin.repos[self.repo.lower()]),
                "sender": api.pull_shape(pull)["user"],
            }
        path = self.root / name
        path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return path

    def run_healer_on_pull(
        self,
        pull: Pull,
        *,
        action: str = "closed",
        event_name: str = "pull_request_target",
        inputs: Mapping[str, str] | None = None,
        timeout: float = 120.0,
    ) -> HealerRun:
        """``python -m healer run`` for a pull request event (the example workflow's ``closed`` trigger)."""
        tag = f"pull-{pull.number}-{len(self.standin.requests)}"
        event = self.write_pull_event(pull, action, f"event-{tag}.json")
        env = self.environment(event, inputs or {}, tag=tag, event_name=event_name)
        return self._run_child(env, dry_run=False, timeout=timeout)

    def environment(
        self, event: Path, inputs: Mapping[str, str], *, tag: str, event_name: str = "workflow_run"
    ) -> dict[str, str]:
        """The Actions environment of the healer's step: ``GITHUB_*``, ``RUNNER_TEMP`` and ``HEALER_*``
        inputs."""
        home, temp = self.root / "home", self.root / f"runner-temp-{tag}"
        home.mkdir(exist_ok=True)
        temp.mkdir(exist_ok=True)
        bindir = str(Path(sys.executable).parent)
        env = {
            "PATH": self.path
            if self.path is not None
            else bindir + os.pathsep + os.environ.get("PATH", os.defpath),
            # a runner's user has no git identity of its own; HOME keeps this machine's config out of the run
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": self.repo,
            "GITHUB_REPOSITORY_OWNER": self.repo.split("/", 1)[0],
            "GITHUB_API_URL": self.standin.api_url,
            "GITHUB_SERVER_URL": self.standin.server_url,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(temp / "output.txt"),
            "GITHUB_STEP_SUMMARY": str(temp / "summary.md"),
            "GITHUB_REF": f"refs/heads/{self.default_branch}",
            "GITHUB_WORKFLOW": "ci-healer",
            "GITHUB_RUN_ID": "900001",
            "GITHUB_ACTOR": "github-actions[bot]",
            "RUNNER_TEMP": str(temp),
            "HEALER_GITHUB_TOKEN": self.standin.token,
            # the sample agents are scripts of this machine's user; isolation is chosen per test or demo
            "HEALER_ISOLATION": self.isolation,
        }
        for name, value in inputs.items():
            env["HEALER_" + name.upper().replace("-", "_")] = value
        return env

    def run_healer(
        self,
        run: Run,
        *,
        inputs: Mapping[str, str] | None = None,
        dry_run: bool = False,
        timeout: float = 120.0,
        tag: str = "",
    ) -> HealerRun:
        """Write the event of ``run`` and run ``python -m healer run`` as a child, as the action does."""
        tag = tag or f"{run.id}-{run.run_attempt}-{len(self.standin.requests)}"
        event = self.write_event(run, f"event-{tag}.json")
        env = self.environment(event, inputs or {}, tag=tag)
        return self._run_child(env, dry_run=dry_run, timeout=timeout)

    def _run_child(self, env: dict[str, str], *, dry_run: bool, timeout: float) -> HealerRun:
        before = len(self.standin.requests)
        argv = [sys.executable, "-m", "healer", "run", *(["--dry-run"] if dry_run else [])]
        started = time.monotonic()
        returncode, stdout, stderr, peak = run_child(argv, cwd=self.workspace, env=env, timeout=timeout)
        seconds = time.monotonic() - started
        output_path, summary_path = Path(env["GITHUB_OUTPUT"]), Path(env["GITHUB_STEP_SUMMARY"])
        outputs = parse_github_output(output_path.read_text(encoding="utf-8")) if output_path.exists() else {}
        summary = summary_path.read_text(encoding="utf-8") if summary_path.exists() else ""
        return HealerRun(
            returncode, stdout, stderr, outputs, summary, seconds, list(self.standin.requests[before:]), peak
        )

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
