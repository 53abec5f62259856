"""``healer run`` start to end against an in-memory GitHub (a subclass of the real client), a real bare git
origin and real subprocesses for fixes and the agent."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from gitrepos import git, seeded_origin

from healer.change.claim import BranchLock, Claim
from healer.change.workspace import Repo, identity_for
from healer.demo.notifications import first_line
from healer.demo.sample import job_log
from healer.github import GitHub, GitHubError
from healer.github.changes import ChangedFiles
from healer.heal import attempt as heal_module
from healer.ledger.fixrecords import fix_records
from healer.ledger.ledger import (
    CLAIM_TTL,
    Kind,
    Ledger,
    Marker,
    Signer,
    claim_body,
    comment_body,
    decode_markers,
)
from healer.logsource import MemoryLogSource
from healer.model import Annotation, Comment, Job, PullRequest, Repository, RunEvent
from healer.run import app
from healer.text.report import Reporter
from healer.text.tokens import contains

BOT = "github-actions[bot]"
TOKEN = "ghs_s3cr3t-token-value"
REPO = "octo/repo"

RUFF_OUTPUT = [
    "app.py:1:8: F401 [*] `os` imported but unused",
    "Found 1 error.",
    "[*] 1 fixable with the `--fix` option.",
]
PYTEST_OUTPUT = [
    "============================= FAILURES =============================",
    "___________________________ test_add ___________________________",
    "    def test_add():",
    ">       assert add(2, 3) == 6",
    "E       assert 5 == 6",
    "tests/test_calc.py:4: AssertionError",
    "=========================== short test summary info ============================",
    "FAILED tests/test_calc.py::test_add - assert 5 == 6",
    "========================= 1 failed in 0.02s =========================",
]


@dataclass
class FakeGitHub(GitHub):
    """GitHub as a few dicts. Writes are recorded; ``writes`` lists them in order."""

    pulls: dict[int, PullRequest] = field(default_factory=dict)
    comments: list[Comment] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    logs: dict[int, str] = field(default_factory=dict)
    files: dict[tuple[str, str], str] = field(default_factory=dict)
    writes: list[str] = field(default_factory=list)
    reruns: list[int] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    requests: int = 0
    # the files the pull request changes (`pulls/list-files`): the ones the tests' failures report
    changed: tuple[str, ...] = ("app.py", "tests/test_calc.py")
    on_create_comment: Callable[[FakeGitHub], None] | None = None
    next_id: int = 1000

    def _id(self) -> int:
        self.next_id += 1
        return self.next_id

    def _read(self) -> None:
        self.requests += 1

    def _write(self, what: str) -> None:
        self.requests += 1
        self.writes.append(what)

    @property
    def request_count(self) -> int:
        return self.requests

    def close(self) -> None:
        pass

    def get_repository(self) -> Repository:
        self._read()
        return Repository(REPO, "main")

    def get_pull(self, number: int) -> PullRequest:
        self._read()
        if number not in self.pulls:
            raise GitHubError(f"pull request #{number} not found", status=404)
        return self.pulls[number]

    def find_pull_request(self, event: RunEvent) -> PullRequest | None:
        self._read()
        for pr in self.pulls.values():
            if pr.state == "open" and pr.head_ref == event.head_branch:
                return pr
        return None

    def list_jobs(self, run_id: int, attempt: int) -> list[Job]:
        self._read()
        return list(self.jobs)

    def list_annotations(self, job_id: int) -> list[Annotation]:
        self._read()
        return []

    def open_log(self, job_id: int, *, limit: int = 4 * 1024 * 1024) -> MemoryLogSource:
        self._read()
        return MemoryLogSource(self.logs[job_id].encode())

    def list_comments(self, number: int, *, authors: Any = None) -> list[Comment]:
        self._read()
        return list(self.comments)

    def get_file(self, path: str, ref: str) -> str | None:
        self._read()
        return self.files.get((path, ref))

    def changed_files(self, number: int) -> ChangedFiles:
        self._read()
        return ChangedFiles(self.changed, complete=True)

    def create_comment(self, number: int, body: str) -> Comment:
        self._write(f"create_comment #{number}")
        if self.on_create_comment is not None:
            hook, self.on_create_comment = self.on_create_comment, None
            hook(self)
        comment = Comment(self._id(), BOT, body)
        self.comments.append(comment)
        return comment

    def update_comment(self, comment_id: int, body: str) -> Comment:
        self._write(f"update_comment {comment_id}")
        for i, c in enumerate(self.comments):
            if c.id == comment_id:
                self.comments[i] = replace(c, body=body)
                return self.comments[i]
        raise GitHubError("no such comment", status=404)

    def delete_comment(self, comment_id: int) -> None:
        self._write(f"delete_comment {comment_id}")
        self.comments = [c for c in self.comments if c.id != comment_id]

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        self._write(f"add_labels #{number}")
        self.labels += labels

    def rerun_failed_jobs(self, run_id: int) -> None:
        self._write(f"rerun {run_id}")
        self.reruns.append(run_id)

    def rerun_job(self, job_id: int) -> None:
        self._write(f"rerun job {job_id}")
        self.reruns.append(job_id)

    def run_attempt(self, run_id: int) -> int:
        # a re-run starts the run's next attempt at once (every job of the fake belongs to one run)
        self._read()
        return 1 + len(self.reruns)

    def delete_branch(self, branch: str) -> bool:
        self._write(f"delete_branch {branch}")
        return True

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool = False) -> PullRequest:
        self._write(f"create_pull {head} -> {base}")
        number = len(self.pulls) + 100
        pr = PullRequest(number, "open", title, BOT, "", head, REPO, base, REPO, draft=draft,
                         html_url=f"https://github.com/{REPO}/pull/{number}", body=body)  # fmt: skip
        self.pulls[number] = pr
        return pr

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        self._write(f"request_reviewers #{number} {' '.join(logins)}")

    def update_pull(self, number: int, *, title: str | None = None, body: str | None = None,
                    state: str | None = None) -> PullRequest:  # fmt: skip
        self._write(f"update_pull #{number} {state}")
        old = self.pulls[number]
        self.pulls[number] = replace(
            old, state=state or old.state, body=old.body if body is None else body, title=title or old.title
        )
        return self.pulls[number]

    def list_pulls(
        self, *, head: str | None = None, base: str | None = None, state: str = "open"
    ) -> list[PullRequest]:
        self._read()
        return [
            p
            for p in self.pulls.values()
            if (base is None or p.base_ref == base)
            and (state == "all" or p.state == state)
            and (head is None or head.partition(":")[2] == p.head_ref)
        ]


@dataclass
class World:
    """A base repository on disk (origin + the workflow's checkout), a fake GitHub and the Actions env."""

    tmp: Path
    origin: Path
    workspace: Path
    gh: FakeGitHub
    env: dict[str, str]
    pr_sha: str = ""

    def push_pr(self, files: dict[str, str], branch: str = "feature") -> str:
        seed = self.tmp / "seed"
        for path, text in files.items():
            (seed / path).parent.mkdir(parents=True, exist_ok=True)
            (seed / path).write_text(text)
        git(seed, "add", ".")
        git(seed, "commit", "-q", "-m", "pr")
        git(seed, "push", "-q", "-f", "origin", f"HEAD:refs/heads/{branch}")
        self.pr_sha = git(seed, "rev-parse", "HEAD")
        return self.pr_sha

    def open_pr(self, *, fork: bool = False, number: int = 7, author: str = "alice") -> PullRequest:
        pr = PullRequest(number, "open", "Add double()", author, self.pr_sha, "feature",
                         "alice/repo" if fork else REPO, "main", REPO,
                         html_url=f"https://github.com/{REPO}/pull/{number}")  # fmt: skip
        self.gh.pulls[number] = pr
        return pr

    def fail(self, name: str, command: str, output: list[str], job_id: int = 1) -> None:
        self.gh.jobs.append(Job(job_id, name, "completed", "failure"))
        self.gh.logs[job_id] = job_log(name, command, output)

    def succeed(self, name: str, job_id: int = 50) -> None:
        self.gh.jobs.append(Job(job_id, name, "completed", "success"))

    def passes(self, name: str, run_id: int = 950) -> None:
        """A later run (``run_id``) in which only ``name`` ran, and passed."""
        self.gh.jobs = []
        self.succeed(name)
        self.event("success", run_id=run_id)

    def event(self, conclusion: str = "failure", *, fork: bool = False, run_id: int = 900, attempt: int = 1,
              sha: str | None = None) -> None:  # fmt: skip
        repo = {"id": 1, "full_name": REPO, "url": f"https://api.github.com/repos/{REPO}"}
        head = {"full_name": "alice/repo" if fork else REPO, "owner": {"login": "alice" if fork else "octo"}}
        payload = {
            "action": "completed",
            "repository": {**repo, "default_branch": "main"},
            "workflow_run": {
                "id": run_id, "run_attempt": attempt, "name": "CI", "head_sha": sha or self.pr_sha,
                "head_branch": "feature", "event": "pull_request", "conclusion": conclusion,
                "repository": repo, "head_repository": head, "pull_requests": [],
                "html_url": f"https://github.com/{REPO}/actions/runs/{run_id}",
            },
        }  # fmt: skip
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload))

    def run(self, *, dry_run: bool = False, **inputs: str) -> tuple[int, str, dict[str, str]]:
        # code from the "pull request" here is this test's own scripts; isolation has its own tests
        env = {**self.env, "HEALER_ISOLATION": "none"}
        env.update({f"HEALER_{k.upper()}": v for k, v in inputs.items()})
        out = io.StringIO()
        code = app.main(env, dry_run=dry_run, reporter=Reporter(out), github=lambda *a, **k: self.gh)
        outputs: dict[str, str] = {}
        output_file = Path(env["GITHUB_OUTPUT"])
        if output_file.exists():
            for line in output_file.read_text().splitlines():
                key, _, value = line.partition("=")
                outputs[key] = value
            output_file.unlink()
        return code, out.getvalue(), outputs

    def comment_markers(self) -> list[Marker]:
        return [m for c in self.gh.comments for m in decode_markers(c.body)]

    def record_markers(self) -> list[Marker]:
        """The markers of the comments and of the fix pull requests' bodies (a quiet heal's records)."""
        fixes = [p for p in self.gh.pulls.values() if p.author == BOT]
        return self.comment_markers() + [m for p in fixes for m in decode_markers(p.body)]


@pytest.fixture
def world(tmp_path: Path) -> World:
    files = {"app.py": 'print("hi")\n', "tests/test_app.py": "def test_one():\n    assert True\n"}
    origin, _ = seeded_origin(tmp_path, files, user=("Alice", "alice@example.com"))
    workspace = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", str(origin), str(workspace))
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_API_URL": "https://api.github.com",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RUNNER_TEMP": str(temp),
        "HEALER_GITHUB_TOKEN": TOKEN,
        "GITHUB_TOKEN": TOKEN,
    }
    return World(tmp_path, origin, workspace, FakeGitHub(), env)


def lint_pr(world: World) -> None:
    world.push_pr({"app.py": 'import os\n\nprint("hi")\n'})
    world.open_pr()
    world.fail("lint", "ruff check .", RUFF_OUTPUT)
    world.event()


# -- the paths ---------------------------------------------------------------------------------------------


def test_lint_failure_is_healed_by_the_fix_rule_into_a_ready_pr(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run()
    assert code == 0, log
    assert outputs["decision"] == "healed"
    assert outputs["attempt"] == "1"
    assert outputs["category"] == "lint"
    fix = world.gh.pulls[101]
    assert outputs["fix-pull-request"] == fix.html_url
    fix = world.gh.pulls[101]  # as the run left it: its records at the top of its body
    assert fix.head_ref == f"ci-healer/7-{world.pr_sha[:7]}" and fix.base_ref == "feature"
    assert not fix.draft
    assert "Ran `ruff check .` on the changed tree: it passed" in fix.body
    assert "made by the fix command `ruff check --fix app.py`" in fix.body
    assert "agent" not in fix.body.lower()
    branch_file = git(world.origin, "show", f"{fix.head_ref}:app.py")
    assert branch_file == 'print("hi")'
    assert git(world.origin, "log", "-1", "--format=%an", fix.head_ref) == BOT
    # no comment: the run claimed its fix branch (a push, which notifies nobody); the fix reaches the author
    # as a review request, the one notification, and the attempt is recorded at the top of the fix's body
    assert world.gh.comments == []
    assert [w.split()[0] for w in world.gh.writes] == ["create_pull", "request_reviewers", "update_pull"]
    assert world.gh.writes[1] == f"request_reviewers #101 {world.gh.pulls[7].author}"
    (marker,) = [m for m in decode_markers(fix.body) if m.kind is Kind.ATTEMPT]
    assert (marker.check, marker.attempt, marker.fix_pr, marker.result) == ("lint", 1, 101, "verified")
    assert marker.pushed == git(world.origin, "rev-parse", fix.head_ref)
    assert fix.body.startswith("<!-- ci-healer:v1 ")  # the records lead the body (only they are read)
    assert log.splitlines()[0] == f"::add-mask::{TOKEN}"
    assert TOKEN not in "\n".join(log.splitlines()[1:])
    assert "::group::" in log
    summary = Path(world.env["GITHUB_STEP_SUMMARY"]).read_text()
    assert "ci-healer: healed" in summary and "create-github-app-token" in summary
    # the worktree is gone, the workflow's own checkout untouched
    assert not list((Path(world.env["RUNNER_TEMP"]) / "ci-healer").glob("checkout-*"))
    assert git(world.workspace, "status", "--porcelain") == ""


def test_a_fix_rule_whose_tool_is_missing_escalates_without_an_agent(world: World, tmp_path: Path) -> None:
    lint_pr(world)
    bin_dir = tmp_path / "bin-without-ruff"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
    world.env["PATH"] = str(bin_dir)
    code, log, outputs = world.run()
    assert code == 0, log
    assert "not on PATH" in log
    # no attempt is spent on a fix that cannot run: the check goes straight to a person
    assert (outputs["decision"], outputs["attempt"]) == ("escalated", "")
    assert [m.kind for m in world.comment_markers()] == [Kind.CLAIM, Kind.ESCALATION]
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""


def test_a_token_that_comments_as_another_login_is_named_and_nothing_is_left(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run(bot_login="ci-healer-app[bot]")
    assert code == 1
    assert "set `bot-login: github-actions[bot]`" in log
    # a quiet heal learns the token's login from its fix pull request: the fix stands, no comment was left,
    # and its branch keeps the commit from being healed again while the login is wrong
    assert [w.split()[0] for w in world.gh.writes] == ["create_pull", "request_reviewers", "update_pull"]
    writes = len(world.gh.writes)
    world.event(run_id=901)
    code, log, outputs = world.run(bot_login="ci-healer-app[bot]")
    assert code == 0 and outputs["decision"] == "skipped", log
    assert "its fix branch is at" in log
    assert len(world.gh.writes) == writes


def test_a_rerun_of_the_healed_commit_does_nothing(world: World) -> None:
    lint_pr(world)
    assert world.run()[0] == 0
    writes = len(world.gh.writes)
    world.event(attempt=2)
    code, log, outputs = world.run()
    assert code == 0
    assert outputs["decision"] == "skipped"
    assert len(world.gh.writes) == writes


AGENT_FIX = r"""
import os, sys, pathlib
frame = sys.stdin.read()
pathlib.Path(os.environ["HEALER_FRAME"]).read_text() == frame or sys.exit(9)
record = {k: os.environ.get(k) for k in ("HEALER_PR_NUMBER", "HEALER_ATTEMPT", "HEALER_MAX_ATTEMPTS",
          "HEALER_CATEGORY", "HEALER_CHECKS", "GITHUB_TOKEN", "GH_TOKEN", "HEALER_GITHUB_TOKEN",
          "HEALER_LEDGER_KEY")}
pathlib.Path(os.environ["RECORD"]).write_text(repr(record) + "\n" + frame)
pathlib.Path("widgets.py").write_text("def add(a, b):\n    return a + b\n")
print("Fixed add(): it subtracted. Ping @maintainer.")
"""


def agent_command(world: World, script: str) -> str:
    path = world.tmp / "agent.py"
    path.write_text(script)
    world.env["RECORD"] = str(world.tmp / "record.txt")
    return f'"{sys.executable}" "{path}"'


def test_test_failure_goes_to_the_agent_without_a_token_and_is_delivered_as_draft(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test (3.12)", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_FIX))
    assert code == 0, log
    assert outputs["decision"] == "healed" and outputs["category"] == "test"
    record, _, frame = Path(world.env["RECORD"]).read_text().partition("\n")
    seen = eval(record)  # noqa: S307 - the test's own repr
    assert seen == {
        "HEALER_PR_NUMBER": "7", "HEALER_ATTEMPT": "1", "HEALER_MAX_ATTEMPTS": "3", "HEALER_CATEGORY": "test",
        "HEALER_CHECKS": "test (3.12)", "GITHUB_TOKEN": None, "GH_TOKEN": None, "HEALER_GITHUB_TOKEN": None,
        "HEALER_LEDGER_KEY": None,
    }  # fmt: skip
    assert "assert 5 == 6" in frame and "Attempt 1 of 3" in frame
    fix = world.gh.pulls[101]
    assert fix.draft
    assert "Not verified" in fix.body and "made by the configured agent command" in fix.body
    assert world.gh.comments == []  # a draft waiting for nothing but a person's look: the fix says it all
    assert "@maintainer" not in fix.body  # agent output pings nobody
    assert "Ping @\u200bmaintainer." in fix.body and "```" in fix.body
    assert Path(outputs["frame-path"]).read_text() == frame  # the frame the agent read, for the record


def test_agent_token_opt_in(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, _ = world.run(
        agent_command=agent_command(world, AGENT_FIX), agent_token="true", ledger_key="k3y-f0r-the-ledger"
    )
    assert code == 0, log
    seen = eval(Path(world.env["RECORD"]).read_text().partition("\n")[0])  # noqa: S307
    assert seen["GITHUB_TOKEN"] == TOKEN and seen["HEALER_GITHUB_TOKEN"] is None
    assert seen["HEALER_LEDGER_KEY"] is None  # the key that signs the ledger never reaches PR code


AGENT_DELETES_TEST = """
import pathlib
pathlib.Path("tests/test_app.py").unlink()
print("Removed the failing test @alice")
"""


def test_an_agent_that_deletes_a_test_is_refused_and_its_notes_posted(world: World) -> None:
    world.push_pr({"widgets.py": "x = 1\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_DELETES_TEST))
    assert code == 0, log
    assert outputs["decision"] == "skipped" and outputs["fix-pull-request"] == ""
    # nothing delivered: the failure stands and is a person's to fix, so the outcome is created (it notifies)
    assert [w.split()[0] for w in world.gh.writes] == ["create_comment"]
    body = world.gh.comments[0].body
    assert "delivered nothing" in body and "test_app.py" in body
    assert "Removed the failing test @\u200balice" in body  # fenced, and the mention defused all the same
    (marker,) = [m for m in world.comment_markers() if m.kind is Kind.ATTEMPT]
    assert marker.result == "refused"
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""  # the claim was released


AGENT_HANGS = """
import pathlib, time
pathlib.Path("widgets.py").write_text("x = 2\\n")
print("Working on it", flush=True)
time.sleep(60)
"""


def test_an_agent_that_runs_out_of_time_delivers_nothing_and_says_so(world: World, monkeypatch) -> None:
    import healer.heal.attempt

    real_run = healer.heal.attempt.run
    # agent-timeout-minutes is at least 1: the limit is shortened here, the path it takes is the real one
    monkeypatch.setattr(
        healer.heal.attempt, "run", lambda *a, **k: real_run(*a, **{**k, "timeout": min(k["timeout"], 1)})
    )
    world.push_pr({"widgets.py": "x = 1\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_HANGS), agent_timeout_minutes="1")
    assert code == 0, log
    assert (outputs["decision"], outputs["attempt"], outputs["fix-pull-request"]) == ("skipped", "1", "")
    body = world.gh.comments[0].body
    assert "delivered nothing: the agent command did not finish within 1 minute." in body
    assert "Working on it" in body  # what it printed before it was stopped helps the author
    (marker,) = [m for m in world.comment_markers() if m.kind is Kind.ATTEMPT]
    assert marker.result == "timed-out", marker
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""


AGENT_RAISES_ITS_OWN_BUDGET = """
import pathlib
pathlib.Path("widgets.py").write_text("x = 2\\n")
pathlib.Path(".github").mkdir(exist_ok=True)
pathlib.Path(".github/ci-healer.yml").write_text("max-attempts: 20\\n")
print("Fixed widgets and gave myself more attempts")
"""


def test_an_agent_that_edits_the_healers_own_config_is_refused(world: World) -> None:
    world.push_pr({"widgets.py": "x = 1\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_RAISES_ITS_OWN_BUDGET))
    assert code == 0, log
    assert outputs["decision"] == "skipped" and outputs["fix-pull-request"] == ""
    assert "ci-healer.yml" in world.gh.comments[0].body
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""


def test_delivery_none_writes_the_frame_and_records_the_attempt(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run(delivery="none")
    assert code == 0, log
    assert outputs["decision"] == "healed"
    frame = Path(outputs["frame-path"]).read_text()
    assert "F401" in frame and "## Procedure" in frame
    assert [w.split()[0] for w in world.gh.writes] == ["create_comment", "update_comment"]
    assert [m.kind for m in world.comment_markers()] == [Kind.CLAIM, Kind.ATTEMPT]


def test_comment_delivery_posts_the_patch(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run(delivery="comment")
    assert code == 0, log
    body = world.gh.comments[0].body
    assert "```diff" in body and "-import os" in body
    assert outputs["fix-pull-request"] == ""


TRANSIENT_LINE = (
    "ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='pypi.org', port=443): "
    "Max retries exceeded with url: /simple/requests/ (Caused by NewConnectionError('Failed to establish "
    "a new connection: [Errno -3] Temporary failure in name resolution'))"
)


def test_transient_failure_is_rerun_once(world: World) -> None:
    world.push_pr({"x.py": "x = 1\n"})
    world.open_pr()
    world.fail("test", "pip install -e .", [TRANSIENT_LINE])
    world.event()
    code, log, outputs = world.run()
    assert code == 0, log
    assert outputs["decision"] == "rerun", log
    # the failed job itself, not every failed job of the run; and no claim, no comment: not news yet
    assert world.gh.writes == ["rerun job 1"]
    world.event(attempt=2)
    code, log, outputs = world.run()
    assert outputs["decision"] == "escalated", log
    assert world.gh.reruns == [1]
    assert "needs a person" in world.gh.comments[-1].body


def test_spent_budget_escalates_once_with_label_and_mention(world: World) -> None:
    lint_pr(world)
    past = [
        Marker(Kind.ATTEMPT, f"{i:040x}", "lint", attempt=i, run_id=i, run_attempt=1, category="lint",
               mode="fix", fix_pr=50 + i, result="verified")
        for i in (1, 2, 3)
    ]  # fmt: skip
    world.gh.comments.append(Comment(1, BOT, comment_body(past, "earlier attempts")))
    code, log, outputs = world.run(escalation_label="needs-human", escalation_mention="@octo/maintainers")
    assert code == 0, log
    assert outputs["decision"] == "escalated"
    body = world.gh.comments[-1].body
    assert "cc @octo/maintainers" in body and "#53" in body and "F401" in body
    assert world.gh.labels == ["needs-human"]
    writes = len(world.gh.writes)
    world.event(run_id=901)
    assert world.run()[2]["decision"] == "skipped"
    assert len(world.gh.writes) == writes


def test_green_run_resets_by_editing_the_previous_comment(world: World) -> None:
    lint_pr(world)
    world.run(max_attempts="0")  # an escalation: the healer's comment
    world.passes("lint")
    writes = len(world.gh.writes)
    code, log, outputs = world.run()
    assert code == 0, log
    assert outputs["decision"] == "none"
    assert world.gh.writes[writes:] == [f"update_comment {world.gh.comments[0].id}"]
    assert len(world.gh.comments) == 1
    assert Kind.RESET in [m.kind for m in world.comment_markers()]
    assert "budget for it starts over" in world.gh.comments[0].body
    # the comment spoke of `lint` alone, which passed: the pass is its first line now, not the old news
    assert first_line(world.gh.comments[0].body).startswith(
        ":white_check_mark: `lint` in the workflow `CI` passed on"
    )


def test_green_run_resets_in_the_fix_records_of_a_quiet_heal(world: World) -> None:
    lint_pr(world)
    world.run()  # a quiet heal: its record is the top of fix #101's body, no comment
    world.passes("lint")
    writes = len(world.gh.writes)
    code, log, outputs = world.run()
    assert code == 0, log
    fix = world.gh.pulls[101]
    # the reset goes after the attempt, in the same body (an edit: nobody is notified); the fix PR the check
    # no longer needs is closed and its branch deleted (by git: no API request), its records still first
    assert world.gh.writes[writes:] == ["update_pull #101 None", "update_pull #101 closed"]
    assert git(world.origin, "branch", "--list", fix.head_ref) == ""
    assert world.gh.comments == []
    assert [m.kind for m in decode_markers(fix.body)] == [Kind.ATTEMPT, Kind.RESET]
    assert fix.state == "closed" and "passed on" in fix.body
    ledger = Ledger.from_comments(fix_records(list(world.gh.pulls.values()), world.gh.pulls[7], BOT), BOT)
    assert ledger.attempts_spent("lint") == 0


def test_green_run_without_history_costs_three_reads(world: World) -> None:
    lint_pr(world)
    world.event("success")
    code, _, outputs = world.run()
    assert (code, outputs["decision"]) == (0, "none")
    # the pull request, its comments and the fix pull requests into its branch; the jobs are not listed
    assert world.gh.requests == 3
    assert world.gh.writes == []


def test_fork_pr_gets_a_diagnosis_and_no_code_runs(world: World) -> None:
    lint_pr(world)
    world.open_pr(fork=True)
    world.event(fork=True)
    code, log, outputs = world.run(agent_command="touch /should-not-exist-ci-healer")
    assert code == 0, log
    assert outputs["decision"] == "skipped"
    body = world.gh.comments[0].body
    assert "comes from a fork" in body and "F401" in body
    assert [m.kind for m in world.comment_markers()] == [Kind.CLAIM, Kind.DIAGNOSIS]
    assert not (world.workspace / ".git" / "FETCH_HEAD").exists()


def test_stale_head_writes_nothing(world: World) -> None:
    lint_pr(world)
    world.gh.pulls[7] = replace(world.gh.pulls[7], head_sha="f" * 40)
    code, log, outputs = world.run()
    assert code == 0
    assert outputs["decision"] == "skipped" and "stale head" in log
    assert world.gh.writes == []


def test_no_pull_request_is_skipped(world: World) -> None:
    lint_pr(world)
    world.gh.pulls.clear()
    assert world.run()[2]["decision"] == "skipped"


def test_a_run_cancelled_before_its_jobs_started_is_no_verdict_for_one_request(world: World) -> None:
    lint_pr(world)
    # a pending run cancelled by its concurrency group: its jobs never ran a step
    world.gh.jobs = [replace(job, conclusion="cancelled") for job in world.gh.jobs]
    world.event("cancelled")
    code, log, outputs = world.run()
    assert (code, outputs["decision"]) == (0, "none"), log
    assert "not a verdict" in log
    assert world.gh.requests == 1 and world.gh.writes == []


def test_dry_run_writes_nothing_and_prints_plan_and_frame(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run(dry_run=True)
    assert code == 0, log
    assert world.gh.writes == []
    assert outputs["decision"] == "none"  # a dry run only plans
    assert "the decision would be healed" in log
    assert "'lint': heal" in log and "## Procedure" in log
    assert "::stop-commands::" in log  # the frame holds log text: workflow commands are off around it
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""


def test_a_concurrent_claim_that_wins_makes_this_run_step_back(world: World) -> None:
    lint_pr(world)
    world.gh.pulls[7] = replace(world.gh.pulls[7], head_sha=world.pr_sha)
    # another run claimed the fix branch of the same commit a moment earlier (a push, not a comment)
    rival = BranchLock(Repo(world.tmp / "seed"), token="", server_url="", identity=identity_for(BOT))
    branch = f"ci-healer/7-{world.pr_sha[:7]}"
    held = rival.claim(
        branch, head_sha=world.pr_sha, run=(899, 1), now=datetime.now(timezone.utc), ttl=CLAIM_TTL
    )
    assert isinstance(held, Claim)
    code, log, outputs = world.run()
    assert code == 0, log
    assert outputs["decision"] == "skipped" and "run 899 (attempt 1) holds its fix branch" in log
    assert world.gh.writes == [] and world.gh.comments == []
    assert git(world.origin, "rev-parse", branch) == held.sha  # the rival's claim stands


def test_a_claim_comment_of_another_run_found_under_the_branch_claim_makes_this_run_step_back(
    world: World,
) -> None:
    """The branch is this run's, but re-read under it, the ledger shows another run acting on the commit
    (an escalation's claim comment): the run releases the branch and does nothing."""
    lint_pr(world)
    reads = {"n": 0}
    real = world.gh.list_comments

    def comments(number: int, *, authors: Any = None) -> list[Comment]:
        reads["n"] += 1
        if reads["n"] == 2:  # the re-read under the claim
            world.gh.comments.append(Comment(world.gh._id(), BOT, claim_body(world.pr_sha, 899, 1, "rival")))
        return real(number, authors=authors)

    world.gh.list_comments = comments  # type: ignore[method-assign]
    code, log, outputs = world.run()
    assert code == 0, log
    assert outputs["decision"] == "skipped" and "acted on" in log
    assert world.gh.writes == []
    assert git(world.origin, "branch", "--list", "ci-healer/*") == ""  # released


# -- errors ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "env", "message"),
    [
        pytest.param({"max_attempts": "lots"}, {}, "input `max-attempts` must be a whole number", id="input"),
        pytest.param({"github_token": ""}, {}, "input `github-token` is empty", id="no-token"),
        pytest.param({}, {"GITHUB_EVENT_NAME": "push"}, "started by a `push` event", id="event"),
        pytest.param({}, {"GITHUB_EVENT_PATH": ""}, "GITHUB_EVENT_PATH not set", id="no-event-path"),
    ],
)
def test_mistakes_exit_1_with_one_error_line(world: World, inputs: dict[str, str], env: dict[str, str],
                                            message: str) -> None:  # fmt: skip
    lint_pr(world)
    world.env.update(env)
    code, log, _ = world.run(**inputs)
    assert code == 1
    errors = [line for line in log.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and message in errors[0]
    assert "Traceback" not in log and TOKEN not in log.replace(f"::add-mask::{TOKEN}", "")


def test_a_permission_error_names_what_to_grant(world: World) -> None:
    lint_pr(world)

    def refuse(*args: Any, **kwargs: Any) -> Comment:
        raise GitHubError("could not comment on #7 (403): grant `pull-requests: write`", status=403)

    world.gh.create_comment = refuse  # type: ignore[method-assign]
    code, log, outputs = world.run(max_attempts="0")  # an escalation, which comments
    assert code == 1
    assert "::error title=ci-healer::GitHub API: could not comment on #7 (403)" in log
    # the job summary still says what happened, and the outputs are set
    summary = Path(world.env["GITHUB_STEP_SUMMARY"]).read_text()
    assert "stopped: GitHub API: could not comment on #7 (403)" in summary
    assert outputs["decision"] == "none" and outputs["fix-pull-request"] == ""


def test_bad_config_file_on_the_default_branch(world: World) -> None:
    lint_pr(world)
    world.gh.files[(".github/ci-healer.yml", "main")] = "max-attempts: many\n"
    code, log, _ = world.run()
    assert code == 1
    assert "::error title=ci-healer::configuration:" in log and "max-attempts" in log


@pytest.mark.parametrize(
    ("flag", "expected"),
    [
        pytest.param("true", "was delivered with the workflow's `GITHUB_TOKEN`", id="workflow-token"),
        pytest.param(None, "If `github-token` is the workflow's `GITHUB_TOKEN`", id="unknown"),
        pytest.param("false", None, id="app-token"),
    ],
)
def test_summary_warns_when_ci_will_not_run_on_the_fix(
    world: World, flag: str | None, expected: str | None
) -> None:
    lint_pr(world)
    if flag is not None:
        world.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] = flag
    assert world.run()[0] == 0
    summary = Path(world.env["GITHUB_STEP_SUMMARY"]).read_text()
    if expected is None:
        assert "create-github-app-token" not in summary
    else:
        assert expected in summary and "create-github-app-token" in summary


def test_a_bug_is_one_error_line_with_details_folded(world: World) -> None:
    lint_pr(world)

    def broken(*args: Any, **kwargs: Any) -> list[Comment]:
        raise KeyError(TOKEN)

    world.gh.list_comments = broken  # type: ignore[method-assign]
    code, log, _ = world.run()
    assert code == 1
    errors = [line for line in log.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error title=ci-healer::internal error (KeyError); please report it with the log of this step"
    ]
    assert "::group::Details for a bug report" in log
    assert TOKEN not in "\n".join(log.splitlines()[1:])


def test_a_missing_checkout_is_named_before_anything_is_written(world: World) -> None:
    lint_pr(world)
    world.env["GITHUB_WORKSPACE"] = str(world.tmp / "not-a-checkout")
    (world.tmp / "not-a-checkout").mkdir()
    code, log, _ = world.run()
    assert code == 1
    assert "is not a git checkout: add a step `actions/checkout`" in log
    assert world.gh.writes == []


def test_push_delivery_commits_onto_the_pr_branch_when_verified(world: World) -> None:
    lint_pr(world)
    code, log, outputs = world.run(delivery="push")
    assert code == 0, log
    assert git(world.origin, "show", "feature:app.py") == 'print("hi")'
    assert outputs["fix-pull-request"] == ""
    assert "Pushed a commit onto this branch (verified" in world.gh.comments[0].body


def test_push_delivery_posts_a_patch_when_verification_fails(world: World) -> None:
    lint_pr(world)
    code, log, _ = world.run(delivery="push", verify_command="exit 1")
    assert code == 0, log
    assert git(world.origin, "rev-parse", "feature") == world.pr_sha  # nothing pushed
    body = world.gh.comments[0].body
    assert "```diff" in body and "failed on the healer's own run" in body


AGENT_TAMPERS_WITH_GIT = """
import pathlib, subprocess, sys
marker = sys.argv[1]
pathlib.Path("app.py").write_text("x = 1\\n")
subprocess.run(["git", "config", "core.fsmonitor", f"touch {marker}"], check=True)
subprocess.run(["git", "config", "filter.evil.clean", f"touch {marker}"], check=True)
pathlib.Path(".gitattributes").write_text("* filter=evil\\n")
"""


def test_an_agent_that_rewrites_git_config_is_refused_before_git_runs(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    marker = world.tmp / "pwned"
    config_before = (world.workspace / ".git" / "config").read_text()
    command = agent_command(world, AGENT_TAMPERS_WITH_GIT) + f' "{marker}"'
    code, log, outputs = world.run(agent_command=command)
    assert code == 0, log
    assert not marker.exists()
    assert (world.workspace / ".git" / "config").read_text() == config_before
    assert outputs["fix-pull-request"] == ""
    assert "changed git's configuration (`config`)" in world.gh.comments[0].body
    (attempt,) = [m for m in world.comment_markers() if m.kind is Kind.ATTEMPT]
    assert attempt.result == "refused"


def test_several_checks_are_healed_in_one_go_and_never_claimed_verified_beyond_what_ran(world: World) -> None:
    world.push_pr(
        {"app.py": 'import os\n\nprint("hi")\n', "widgets.py": "def add(a, b):\n    return a - b\n"}
    )
    world.open_pr()
    world.fail("lint", "ruff check .", RUFF_OUTPUT, job_id=1)
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT, job_id=2)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_FIX))
    assert code == 0, log
    frame = Path(world.env["RECORD"]).read_text()
    assert "Check 1 of 1: `test`" in frame  # the fix rule took lint; the agent got only what was left
    fix = world.gh.pulls[101]
    assert fix.draft
    assert "`ruff check .` passed, but the failing command of `test` cannot be re-run here" in fix.body
    assert "made by the fix command `ruff check --fix app.py` and the configured agent command" in fix.body
    assert git(world.origin, "show", f"{fix.head_ref}:app.py") == 'print("hi")'
    assert "return a + b" in git(world.origin, "show", f"{fix.head_ref}:widgets.py")
    attempts = [m for m in world.record_markers() if m.kind is Kind.ATTEMPT]
    assert sorted((m.check, m.fix_pr) for m in attempts) == [("lint", 101), ("test", 101)]
    assert world.gh.comments == []  # a draft: nothing to do for anyone until its CI or a person says


# -- the ledger: open claims and the ledger key --------------------------------------------------------------


def test_a_green_run_never_edits_a_comment_another_run_still_holds(world: World) -> None:
    """A failing run of another workflow has claimed the commit and is acting; a green run resets meanwhile.
    Editing the claim comment would be lost when that run writes its result into it (and could drop its
    claim), so the reset goes into the previous, settled comment."""
    lint_pr(world)
    world.run(max_attempts="0")  # the escalation of lint: comment 1
    held = world.gh.create_comment(7, claim_body(world.pr_sha, 777, 1, "looking at `docs`"))
    world.passes("lint")
    code, log, _ = world.run()
    assert code == 0, log
    assert held.body == world.gh.comments[-1].body  # untouched
    assert f"update_comment {world.gh.comments[0].id}" in world.gh.writes
    # the other run finishes: it replaces its claim comment's body with its result
    claim = Marker(Kind.CLAIM, world.pr_sha, run_id=777, run_attempt=1)
    result = comment_body([claim, Marker(Kind.ESCALATION, world.pr_sha, "docs", run_id=777, run_attempt=1)])
    world.gh.update_comment(held.id, result)
    assert Kind.RESET in [m.kind for m in world.comment_markers()]  # the reset survived


def test_with_a_ledger_key_markers_are_signed_and_forged_ones_ignored(world: World) -> None:
    key = "0d6c1c7e3b2a49f8a51e6b7d2c9f0e41"
    lint_pr(world)
    past = [Marker(Kind.ATTEMPT, f"{i:040x}", "lint", attempt=i, run_id=i, run_attempt=1) for i in (1, 2, 3)]
    # another workflow of the repository comments as the same bot: three spent attempts, then a forged reset
    world.gh.comments.append(Comment(1, BOT, comment_body(past, "earlier attempts", signer=_signer(key))))
    forged = Marker(Kind.RESET, "f" * 40, "lint", run_id=4, run_attempt=1)
    world.gh.comments.append(Comment(2, BOT, comment_body([forged], "budget reset")))
    world.gh.comments.append(Comment(3, BOT, comment_body([forged], signer=_signer(key, pull=8))))
    code, log, outputs = world.run(ledger_key=key)
    assert code == 0, log
    assert outputs["decision"] == "escalated"  # the forged resets did not hand out a fresh budget
    assert log.count(key) == 1 and f"::add-mask::{key}" in log.splitlines()  # masked, never printed
    newest = world.gh.comments[-1].body
    assert decode_markers(newest, _signer(key)) == decode_markers(newest) != []
    # without the key the forged reset would have counted
    world.gh.comments[3:] = []
    world.gh.labels = []
    code, log, outputs = world.run()
    assert outputs["decision"] == "healed", log


def _signer(key: str, pull: int = 7) -> Signer:
    made = Signer.for_pull(key, REPO, pull)
    assert made is not None
    return made


def test_a_hostile_job_name_stays_in_code_spans_and_out_of_the_runners_commands(world: World) -> None:
    name = "lint `` @octocat ![x](https://e.example/x.png) [y](https://e.example) ##[add-mask]pwned\n"
    name += "::warning::pwned"
    world.push_pr({"app.py": 'import os\n\nprint("hi")\n'})
    world.open_pr()
    world.fail(name, "ruff check .", RUFF_OUTPUT)
    world.event()
    code, log, _ = world.run(max_attempts="0")  # an escalation: the name in a comment
    assert code == 0, log
    body = world.gh.comments[0].body
    assert "octocat" in body
    bare = re.sub(r"(`+)(?:(?!\1).)+?\1", "", body.split("\n", 1)[1], flags=re.S)  # outside every code span
    assert "@octocat" not in bare and "![" not in bare and "](https://e.example" not in bare
    # in the log, the name is printed only where the runner reads no command
    stop: str | None = None
    for line in log.splitlines():
        if stop is not None:
            stop = None if line == f"::{stop}::" else stop
            continue
        if line.startswith("::stop-commands::"):
            stop = line.removeprefix("::stop-commands::")
            continue
        if line.startswith(("::warning title=", "::error title=", "::notice title=")):
            continue  # the healer's own annotations: their data is escaped
        # neither a `::command` at the start of a line nor a legacy `##[command]` anywhere in it
        assert not line.lstrip().startswith("::") or "pwned" not in line, line
        assert "##[" not in line, line


AGENT_PRINTS_THE_TOKEN = """
import base64, os, pathlib
token = os.environ["GITHUB_TOKEN"]
header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
pathlib.Path("widgets.py").write_text("def add(a, b):\\n    return a + b\\n")
print(f"Fixed add(). Debug: token={token} header=AUTHORIZATION: basic {header}")
"""

AGENT_COMMITS_THE_TOKEN = (
    AGENT_PRINTS_THE_TOKEN
    + """
pathlib.Path("config.txt").write_text(base64.b64encode(token.encode()).decode())
"""
)


def test_the_token_and_its_base64_forms_are_scrubbed_from_agent_notes(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(
        agent_command=agent_command(world, AGENT_PRINTS_THE_TOKEN), agent_token="true"
    )
    assert code == 0, log
    assert outputs["decision"] == "healed"
    posted = [c.body for c in world.gh.comments] + [p.body for p in world.gh.pulls.values()]
    # the header keeps only the encoded `x-access-token:` and at most a character at each edge of the token
    assert "Debug: token=*** header=AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46***" in "\n".join(posted)
    assert not [text for text in posted if contains(text, TOKEN)]


def test_a_change_that_contains_the_token_is_set_aside(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(
        agent_command=agent_command(world, AGENT_COMMITS_THE_TOKEN), agent_token="true"
    )
    assert code == 0, log
    assert outputs["decision"] == "skipped" and not outputs["fix-pull-request"]
    [comment] = [c.body for c in world.gh.comments]
    assert "contains the healer's token" in comment and not contains(comment, TOKEN)


def test_without_a_way_to_isolate_no_code_from_the_pull_request_runs(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heal_module, "availability", lambda: ("", "isolation: user needs root or sudo"))
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, outputs = world.run(agent_command=agent_command(world, AGENT_FIX), isolation="user")
    assert code == 0, log
    assert not Path(world.env["RECORD"]).exists()  # the agent never ran
    assert outputs["decision"] == "skipped"
    [comment] = [c.body for c in world.gh.comments]
    assert "No code from the pull request was run: isolation: user needs root or sudo" in comment
    assert "isolation: user needs root or sudo" in Path(world.env["GITHUB_STEP_SUMMARY"]).read_text()


def test_isolation_none_warns_in_the_summary(world: World) -> None:
    world.push_pr({"widgets.py": "def add(a, b):\n    return a - b\n"})
    world.open_pr()
    world.fail("test", "python -m pytest -q", PYTEST_OUTPUT)
    world.event()
    code, log, _ = world.run(agent_command=agent_command(world, AGENT_FIX))
    assert code == 0, log
    assert "`isolation: none`" in Path(world.env["GITHUB_STEP_SUMMARY"]).read_text()


def test_a_reset_with_no_comment_free_to_edit_gets_a_comment_of_its_own(world: World) -> None:
    lint_pr(world)
    held = [
        Marker(Kind.CLAIM, "e" * 40, run_id=777, run_attempt=1),  # a run still acting on another commit
        Marker(Kind.ATTEMPT, "d" * 40, "lint", attempt=1, run_id=776, run_attempt=1),
    ]
    world.gh.comments.append(Comment(1, BOT, comment_body(held, "working on it")))
    before = world.gh.comments[0].body
    world.passes("lint")
    code, log, _ = world.run()
    assert code == 0, log
    assert world.gh.comments[0].body == before
    assert [w.split()[0] for w in world.gh.writes] == ["create_comment"]
    assert [m.kind for m in decode_markers(world.gh.comments[1].body)] == [Kind.RESET]
    assert "in a new comment" in log


def test_the_model_keys_are_masked_and_leave_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from healer.run.app import hide_model_keys

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-KeyOfTheRunner-0123456789")
    monkeypatch.setenv("HEALER_AGENT_API_KEY", "gw-OtherKey-0123456789")
    monkeypatch.setenv("LLM_GATEWAY_KEY", "gw-OtherKey-0123456789")
    out = io.StringIO()
    hide_model_keys(dict(os.environ), "gw-OtherKey-0123456789", Reporter(out))
    assert out.getvalue().splitlines() == [
        "::add-mask::sk-ant-KeyOfTheRunner-0123456789",
        "::add-mask::gw-OtherKey-0123456789",
    ]
    assert not {"ANTHROPIC_API_KEY", "HEALER_AGENT_API_KEY", "LLM_GATEWAY_KEY"} & set(os.environ)
