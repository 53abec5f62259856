"""End to end through the reusable workflow's jobs (``.github/workflows/ci-healer.yml``): each step as the
runner runs it (see :mod:`calledjob`), the action checked out at the called workflow's own commit and run
through every step of ``action.yml`` (see :mod:`composite`), against the GitHub stand-in and a real
``origin``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from calledjob import CalledJob, JobResult
from composite import CompositeError
from harness import TOKEN, agent_reports, check_contract, failing_test_pull, lint_pull, write_agent
from test_action_steps import EVERY_INPUT, WORKFLOW_TOKEN

from healer.demo.sandbox import Sandbox
from healer.demo.state import Run

ROOT = Path(__file__).resolve().parents[2]
REUSABLE = ROOT / ".github" / "workflows" / "ci-healer.yml"
# The called workflow's repository and commit, as `job.workflow_repository` and `job.workflow_sha` give them.
HEALER_REPOSITORY, HEALER_SHA = "octo-org/ci-healer", "c0ffee00" * 5
MODEL_KEY = "sk-ant-a-model-key-only-for-this-test"
# The agent scripts are this machine's user's; the isolation tests run the action with `user`.
BASE = {"isolation": "none"}
FIX_ADD = "p = pathlib.Path('widgets/calc.py'); p.write_text(p.read_text().replace('a - b', 'a + b'))\n"


def called(
    box: Sandbox,
    job_id: str,
    event: Path,
    *,
    event_name: str = "workflow_run",
    github_token: str = TOKEN,
    app_token: str = "",
) -> CalledJob:
    tag = f"{job_id}-{len(box.standin.requests)}"
    env = box.environment(event, {}, tag=tag, event_name=event_name)
    # the runner's environment of the job: GITHUB_*, RUNNER_TEMP; inputs reach the healer through the steps
    job_env = {k: v for k, v in env.items() if not k.startswith("HEALER_")}
    return CalledJob(
        REUSABLE,
        job_id,
        job_env=job_env,
        github_token=github_token,
        workflow_repository=HEALER_REPOSITORY,
        workflow_sha=HEALER_SHA,
        action_source=ROOT,
        app_token=app_token,
    )


def heal(
    box: Sandbox,
    run: Run,
    inputs: dict[str, Any],
    secrets: dict[str, str] | None = None,
    **kwargs: str,
) -> JobResult:
    job = called(
        box, "heal", box.write_event(run, f"event-{run.id}-{len(box.standin.requests)}.json"), **kwargs
    )
    assert job.runs(inputs, secrets), "the heal job runs on a finished CI run"
    before = len(box.standin.requests)
    result = job.run(inputs, secrets)
    box.standin.idle()
    detail = "\n".join(
        f"--- {s.name}: {s.returncode}\n{s.stdout[-3000:]}{s.stderr[-2000:]}" for s in result.steps
    )
    assert all(step.returncode == 0 for step in result.steps), detail
    assert "Traceback (most recent call last)" not in detail, detail
    check_contract(box.standin.requests[before:], box.standin.api_url)
    return result


def ran(result: JobResult) -> list[str]:
    return [step.name for step in result.steps if step.ran]


def test_a_lint_failure_is_healed_through_the_called_heal_job(box: Sandbox, tmp_path: Path) -> None:
    pull, run = lint_pull(box)
    installed = tmp_path / "agent-installed"
    inputs = {**BASE, "agent-install": f"echo claude > '{installed}'"}

    result = heal(box, run, inputs, {"ANTHROPIC_API_KEY": MODEL_KEY})

    # no App configured, no Python asked for: those steps are skipped by their own conditions
    assert result.env == {"CI_HEALER_APP": "false"}
    assert ran(result) == [
        "Check out the default branch",
        "Find this workflow's repository and commit",
        "Check out ci-healer at this workflow's commit",
        "Set up the agent",
        "Run ci-healer",
    ]
    assert installed.read_text() == "claude\n"
    # the action came from the called workflow's own repository and commit, not from the caller's checkout
    own = result.step("Check out ci-healer at this workflow's commit")
    assert (own.with_["repository"], own.with_["ref"], own.with_["path"]) == (
        HEALER_REPOSITORY,
        HEALER_SHA,
        ".ci-healer",
    )
    assert (
        "ci-healer: octo-org/ci-healer@c0ffee00"
        in result.step("Find this workflow's repository and commit").stdout
    )
    # the job's own token, and the healer knows it is the workflow's (fix PRs start no CI with it)
    action = result.action
    step = action.step("run")
    assert step.env["HEALER_GITHUB_TOKEN"] == TOKEN and step.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "true"
    # inputs the caller left out arrive as the action's own defaults
    assert (step.env["HEALER_MAX_ATTEMPTS"], step.env["HEALER_DRY_RUN"]) == ("3", "false")
    assert step.env["HEALER_LEDGER_KEY"] == ""
    assert action.env["ANTHROPIC_API_KEY"] == MODEL_KEY and action.env["OPENAI_API_KEY"] == ""
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.base_ref == pull.head_ref
    assert action.outputs["decision"] == "healed" and action.outputs["category"] == "lint"
    assert action.outputs["fix-pull-request"] == f"{box.standin.server_url}/{box.repo}/pull/{fix.number}"


def test_with_a_github_app_the_healer_works_with_the_apps_token(box: Sandbox) -> None:
    _, run = lint_pull(box)
    secrets = {"CI_HEALER_APP_ID": "12345", "CI_HEALER_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----"}

    # the stand-in accepts only TOKEN: a request with the job's own token would fail the heal
    result = heal(box, run, BASE, secrets, github_token=WORKFLOW_TOKEN, app_token=TOKEN)

    app = result.step("app-token")
    assert app.ran and result.env == {"CI_HEALER_APP": "true"}
    assert (app.with_["app-id"], app.with_["private-key"]) == ("12345", secrets["CI_HEALER_APP_PRIVATE_KEY"])
    # the App's token is narrowed to what the job's own token may do
    job = called(box, "heal", Path(result.action.env["GITHUB_EVENT_PATH"])).job
    asked = {f"permission-{scope}": level for scope, level in job["permissions"].items()}
    assert {k: v for k, v in app.with_.items() if k.startswith("permission-")} == asked
    step = result.action.step("run")
    assert step.env["HEALER_GITHUB_TOKEN"] == TOKEN and step.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "false"
    assert result.action.outputs["decision"] == "healed"


def test_every_input_the_caller_sets_reaches_the_action(box: Sandbox) -> None:
    _, run = lint_pull(box)
    # every action input, none at its default (test_action_steps), as a caller writes them: numbers as
    # numbers, switches as booleans; the token and the ledger key as secrets
    typed = {"max-attempts", "max-reruns", "max-diff-lines", "agent-timeout-minutes", "max-jobs"}
    typed |= {"agent-token-budget", "agent-request-budget", "max-agent-tokens-per-pr"}
    switches = {"dry-run", "agent-token", "rerun-timeouts", "dashboard", "learn"}
    inputs: dict[str, Any] = {
        name: int(value) if name in typed else value == "true" if name in switches else value
        for name, value in EVERY_INPUT.items()
        if name not in ("github-token", "ledger-key", "agent-api-key")
    }
    secrets = {
        "CI_HEALER_TOKEN": TOKEN,
        "CI_HEALER_LEDGER_KEY": EVERY_INPUT["ledger-key"],
        "CI_HEALER_AGENT_API_KEY": EVERY_INPUT["agent-api-key"],
    }

    result = heal(box, run, inputs, secrets, github_token=WORKFLOW_TOKEN)

    assert result.step("Run ci-healer").with_ == EVERY_INPUT
    assert result.action.outputs["decision"] == "none"  # EVERY_INPUT is a dry run
    assert not box.standin.created_pulls(box.repo)


def test_the_model_key_reaches_the_healers_proxy_and_the_agent_a_token_for_it(
    box: Sandbox, tmp_path: Path
) -> None:
    _, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(key=os.environ.get('ANTHROPIC_API_KEY'), url=os.environ.get('ANTHROPIC_BASE_URL'))\n"
        + FIX_ADD,
    )

    result = heal(box, run, {**BASE, "agent-command": agent}, {"ANTHROPIC_API_KEY": MODEL_KEY})

    [seen] = agent_reports(tmp_path / "agent")
    assert seen["key"] != MODEL_KEY and str(seen["key"]).startswith("ci-healer-")  # the heal's token
    assert str(seen["url"]).startswith("http://127.0.0.1:")  # the model proxy
    assert result.action.outputs["decision"] == "healed"


def test_a_closed_prs_fix_pr_is_closed_by_the_called_close_job(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    heal(box, run, {**BASE, "agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    [fix] = box.standin.created_pulls(box.repo)
    box.standin.merge_pull(pull, delete_branch=True)
    event = box.write_pull_event(pull, "closed")
    job = called(box, "close-fix-prs", event, event_name="pull_request_target")
    # the one job of the called workflow that runs on this event
    assert job.runs() and not called(box, "heal", event, event_name="pull_request_target").runs()

    result = job.run()

    assert [s.returncode for s in result.steps] == [0, 0, 0], result.steps[-1].stdout
    assert fix.state == "closed" and not fix.merged
    # it checked out the action only: no default branch, nothing of the PR
    assert ran(result) == [
        "Find this workflow's repository and commit",
        "Check out ci-healer at this workflow's commit",
        "Run ci-healer",
    ]


@pytest.mark.parametrize(
    ("inputs", "error"),
    [
        pytest.param({"max-attempts": 3, "retries": 2}, "retries", id="an-input-it-does-not-declare"),
        pytest.param({"dry-run": "yes"}, "boolean", id="a-boolean-as-text"),
    ],
)
def test_a_caller_passing_what_the_workflow_does_not_declare_is_refused(
    box: Sandbox, inputs: dict[str, Any], error: str
) -> None:
    # GitHub refuses such a caller before any job starts; the test runner does too
    _, run = lint_pull(box)
    job = called(box, "heal", box.write_event(run))
    with pytest.raises(CompositeError, match=error):
        job.run(inputs)
