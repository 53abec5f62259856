"""End to end: failures healed into fix pull requests, by a fix rule and by an agent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from harness import BRANCH, REPO, TOKEN, agent_reports, failing_test_pull, heal, lint_pull, write_agent

from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox
from healer.demo.standin import StandIn

MARKER = "<!-- ci-healer:v1"


def ruff_passes(text: str, filename: str) -> bool:
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--stdin-filename", filename, "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0


def test_a_lint_failure_is_healed_by_a_fix_rule_into_a_ready_fix_pull_request(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    refs_before = box.origin_refs()

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    assert (result.outputs["category"], result.outputs["attempt"]) == ("lint", "1")
    [fix] = box.standin.created_pulls(box.repo)
    assert result.outputs["fix-pull-request"] == f"{box.standin.server_url}/{box.repo}/pull/{fix.number}"
    # the fix PR targets the PR's own branch, from a branch the healer pushed to origin
    assert fix.base_ref == BRANCH
    assert fix.head_ref.startswith(f"ci-healer/{pull.number}-")
    assert box.origin_refs()[f"refs/heads/{fix.head_ref}"] == fix.head_sha
    fixed = box.show(fix.head_sha, "widgets/calc.py")
    assert "import os" not in fixed and "def double" in fixed
    assert ruff_passes(fixed, "widgets/calc.py")
    # ruff is on PATH, so the failing step's own command verified the fix: a ready PR that says what ran
    assert not fix.draft
    assert "ruff" in (fix.body or "")
    # the author's branch is untouched; no comment on the PR (the run claimed the fix branch, a push): the
    # attempt's marker leads the fix pull request's body, which the bot opened
    assert box.origin_refs()[f"refs/heads/{BRANCH}"] == refs_before[f"refs/heads/{BRANCH}"]
    assert box.standin.comments(box.repo, pull.number) == []
    assert fix.author == "github-actions[bot]" and (fix.body or "").startswith(MARKER)
    assert '"kind":"attempt"' in (fix.body or "").split("\n", 1)[0]
    assert "lint" in result.summary


def test_a_test_failure_is_handed_to_the_agent_and_delivered(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(cwd=os.getcwd(), stdin_is_frame=(stdin == frame), in_frame='test_add' in frame,\n"
        "       tokens=sorted(k for k in os.environ if 'TOKEN' in k),\n"
        "       env={k: v for k, v in os.environ.items() if k.startswith('HEALER_')})\n"
        "calc = pathlib.Path('widgets/calc.py')\n"
        "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
        "print('Fixed add(): it subtracted instead of adding.')\n",
    )

    result = heal(box, run, inputs={"agent-command": agent})

    assert (result.outputs["decision"], result.outputs["category"], result.outputs["attempt"]) == (
        "healed",
        "test",
        "1",
    )
    [report] = agent_reports(tmp_path / "agent")
    assert report["stdin_is_frame"] and report["in_frame"]
    # the agent ran in a checkout of the PR head, apart from the workflow's own checkout, without any token
    assert Path(str(report["cwd"])) != box.workspace
    assert report["tokens"] == []
    env = report["env"]
    assert isinstance(env, dict)
    assert {k: env.get(k) for k in ("HEALER_PR_NUMBER", "HEALER_ATTEMPT", "HEALER_MAX_ATTEMPTS")} == {
        "HEALER_PR_NUMBER": str(pull.number),
        "HEALER_ATTEMPT": "1",
        "HEALER_MAX_ATTEMPTS": "3",
    }
    assert env.get("HEALER_CATEGORY") == "test" and "test (3.12)" in str(env.get("HEALER_CHECKS"))
    [fix] = box.standin.created_pulls(box.repo)
    assert "return a + b" in box.show(fix.head_sha, "widgets/calc.py")
    assert fix.base_ref == BRANCH
    # pytest is not a lint/format/typecheck tool and no verify-command is set: unverified, so a draft
    assert fix.draft
    assert result.outputs["fix-pull-request"].endswith(f"/pull/{fix.number}")
    # the workflow's own checkout is left as it was
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=box.workspace, capture_output=True, text=True
    )
    assert status.stdout == ""


def test_an_enterprise_server_api_prefix_is_followed(tmp_path: Path) -> None:
    with StandIn(token=TOKEN, api_prefix="/api/v3") as enterprise:
        box = Sandbox.create(tmp_path / "ghes", enterprise, repo=REPO, files=BASE_FILES)
        pull, run = lint_pull(box)

        result = heal(box, run)

        assert result.outputs["decision"] == "healed"
        assert all(r.path.startswith("/api/v3/") for r in result.requests if r.operation != "signed-log")
        assert len(enterprise.created_pulls(box.repo)) == 1
