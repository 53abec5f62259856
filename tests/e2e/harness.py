"""Helpers of the end-to-end tests: real failures, agents, and the checks every ``healer run`` must pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from openapi_contract import check_graphql, check_request, check_response

import healer
from healer.demo.sample import LINT_PR_FILES, job_log
from healer.demo.sandbox import HealerRun, Sandbox, git
from healer.demo.state import Pull, RecordedRequest, Run

# Distinctive, so that a leak anywhere is found by a plain substring search.
TOKEN = "ghs_E2eSecretTokenMustNeverAppear0123456789"
REPO = "octo-org/widgets"
BRANCH = "feature/double"


def check_contract(requests: list[RecordedRequest], api_url: str) -> None:
    """Every request is an operation of the OpenAPI subset; every answer has GitHub's shape for its status."""
    for request in requests:
        if request.operation == "graphql":
            check_graphql(request.method, request.url, request.body)
            continue
        if request.operation == "signed-log":
            # GitHub's signed blob URLs carry their own credential; the token must not travel there
            assert not request.authorization_sent, (
                "the signed log URL was fetched with an Authorization header"
            )
            continue
        url = request.url.replace(request.url.split("/repos/", 1)[0], api_url, 1)
        check_request(request.method, url, request.body)
        check_response(request.method, url, request.status, request.response)


def _without_masks(text: str) -> str:
    # `::add-mask::<value>` is how a step asks the runner to hide a secret: the one line that must carry it
    return "\n".join(line for line in text.splitlines() if not line.startswith("::add-mask::"))


def assert_no_token(box: Sandbox, result: HealerRun) -> None:
    """The token is in no output, comment, pull request, summary, step output, frame or git config."""
    standin = box.standin
    places: dict[str, str] = {
        "stdout": _without_masks(result.stdout),
        "stderr": _without_masks(result.stderr),
        "summary": result.summary,
        "outputs": repr(result.outputs),
        "workspace git config": (box.workspace / ".git" / "config").read_text(),
    }
    for pull in standin.pulls(box.repo):
        places[f"pull #{pull.number}"] = f"{pull.title}\n{pull.body or ''}"
        for comment in standin.comments(box.repo, pull.number):
            places[f"comment {comment.id}"] = comment.body
    frame = result.outputs.get("frame-path")
    if frame and Path(frame).is_file():
        places["frame"] = Path(frame).read_text(encoding="utf-8", errors="replace")
    leaks = [where for where, text in places.items() if TOKEN in text]
    assert not leaks, f"the token leaked into: {', '.join(leaks)}"


def shell_env(box: Sandbox, **extra: str) -> dict[str, str]:
    """A person's shell for ``healer report`` against the stand-in: the token in ``GITHUB_TOKEN``, no Actions
    variables (``extra`` adds some), and the healer this process imported (``PYTHONPATH``), not another
    install of it."""
    return {
        "PATH": str(Path(sys.executable).parent),
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_REPOSITORY": box.repo,
        "GITHUB_API_URL": box.standin.api_url,
        "HOME": str(box.root),
        "PYTHONPATH": str(Path(healer.__file__).resolve().parent.parent),
        **extra,
    }


def heal(
    box: Sandbox,
    run: Run,
    *,
    inputs: Mapping[str, str] | None = None,
    dry_run: bool = False,
    expect_exit: int = 0,
) -> HealerRun:
    """Run ``healer run`` on ``run`` and check the guarantees every run must keep."""
    result = box.run_healer(run, inputs=inputs, dry_run=dry_run, timeout=90)
    box.standin.idle()
    detail = f"\n--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    assert result.returncode == expect_exit, f"exit code {result.returncode}{detail}"
    assert "Traceback (most recent call last)" not in result.stderr + result.stdout, detail
    assert_no_token(box, result)
    check_contract(result.requests, box.standin.api_url)
    return result


# -- real failures ------------------------------------------------------------------------------------------


def _tool_env() -> dict[str, str]:
    # outside Actions: tools print their ordinary format (ruff switches format under GITHUB_ACTIONS)
    return {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUFF_"))}


def ruff_output(checkout: Path) -> tuple[list[str], int]:
    """``ruff check .`` run for real in ``checkout``: its output lines and exit code."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=_tool_env(),
        check=False,
    )
    return (done.stdout + done.stderr).splitlines(), done.returncode


def pytest_output(checkout: Path) -> tuple[list[str], int]:
    """``python -m pytest -q`` run for real in ``checkout``."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts="],
        cwd=checkout,
        capture_output=True,
        text=True,
        env={**_tool_env(), "PYTHONPATH": str(checkout), "PYTHONDONTWRITEBYTECODE": "1"},
        check=False,
    )
    return (done.stdout + done.stderr).splitlines(), done.returncode


def lint_log(box: Sandbox) -> str:
    """The log of a ``lint`` job that ran ``ruff check .`` on the sandbox's current seed checkout."""
    lines, code = ruff_output(box.seed)
    assert code == 1, "the sample PR should fail ruff"
    return job_log("lint", "ruff check .", lines, exit_code=code)


# Real tool output per source tree (the same tree gives the same output; pytest takes a while to start).
_OUTPUTS: dict[tuple[str, str], tuple[list[str], int]] = {}


def failing_test_log(box: Sandbox) -> str:
    """The log of a ``test (3.12)`` job that ran pytest on the sandbox's current seed checkout."""
    tree = git(box.seed, "rev-parse", "HEAD^{tree}").strip()
    if ("pytest", tree) not in _OUTPUTS:
        _OUTPUTS["pytest", tree] = pytest_output(box.seed)
    lines, code = _OUTPUTS["pytest", tree]
    assert code == 1, "the sample PR should fail its tests"
    return job_log("test (3.12)", "python -m pytest -q", lines, exit_code=code)


PASSED = job_log("test (3.12)", "python -m pytest -q", ["1 passed in 0.01s"], exit_code=0)
LINT_PASSED = job_log("lint", "ruff check .", ["All checks passed!"], exit_code=0)

# A pull request whose change breaks a test (the fix: `a + b`).
BROKEN_ADD = '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n    return a - b\n'


def lint_pull(box: Sandbox, branch: str = BRANCH) -> tuple[Pull, Run]:
    """A PR whose ``lint`` job failed on a real ruff finding (its ``test`` job passed)."""
    sha = box.commit(branch, LINT_PR_FILES, "Add double()")
    pull = box.open_pull(branch, sha)
    run = box.add_run(pull, [("lint", "failure", lint_log(box)), ("test (3.12)", "success", PASSED)])
    return pull, run


def failing_test_pull(box: Sandbox, branch: str = BRANCH) -> tuple[Pull, Run]:
    """A PR whose ``test (3.12)`` job failed on a real pytest failure (its ``lint`` job passed)."""
    sha = box.commit(branch, {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    pull = box.open_pull(branch, sha, title="Simplify add()")
    run = box.add_run(
        pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", failing_test_log(box))]
    )
    return pull, run


def write_agent(directory: Path, body: str) -> str:
    """A Python agent script (outside the checkout) and the shell command that runs it."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "agent.py"
    script.write_text(
        "import json, os, pathlib, sys\n"
        "frame = pathlib.Path(os.environ['HEALER_FRAME']).read_text()\n"
        "stdin = sys.stdin.read()\n"
        f"REPORT = pathlib.Path({str(directory / 'report.json')!r})\n"
        "def report(**values):\n"
        "    seen = json.loads(REPORT.read_text()) if REPORT.exists() else []\n"
        "    REPORT.write_text(json.dumps(seen + [values]))\n" + body,
        encoding="utf-8",
    )
    return f"'{sys.executable}' '{script}'"


def agent_reports(directory: Path) -> list[dict[str, object]]:
    path = directory / "report.json"
    return json.loads(path.read_text()) if path.exists() else []


def record_bodies(box: Sandbox, number: int) -> list[str]:
    """The bodies that hold the healer's records on pull request ``number``, oldest first: its comments on it,
    and the bodies of its fix pull requests (a heal whose fix waits for a person records its attempt at the
    top of the fix's body, and writes no comment)."""
    comments = [(c.created_at, 0, c.id, c.body) for c in box.standin.comments(box.repo, number)]
    fixes = [
        (p.created_at, 1, p.number, p.body or "")
        for p in box.standin.created_pulls(box.repo)
        if p.head_ref.startswith(f"ci-healer/{number}-")
    ]
    return [body for *_, body in sorted(comments + fixes)]
