"""End to end through the reusable workflow's jobs (``.github/workflows/ci-healer.yml``): each step as the
runner runs it (see :mod:`calledjob`), the action checked out at the called workflow's own commit and run
through every step of ``action.yml`` (see :mod:`composite`), against the GitHub stand-in and a real
``origin``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from calledjob import CalledJob, JobResult
from composite import CompositeError
from harness import TOKEN, agent_reports, check_contract, failing_test_pull, lint_pull, write_agent
from test_action_steps import EVERY_INPUT, WORKFLOW_TOKEN
from twojobs import READ_TOKEN

from healer.demo import shapes
from healer.demo.api import Api
from healer.demo.historyops import issues_edited_event
from healer.demo.sandbox import Sandbox
from healer.demo.state import Run

ROOT = Path(__file__).resolve().parents[2]
REUSABLE = ROOT / ".github" / "workflows" / "ci-healer.yml"
# The called workflow's repository and commit, as `job.workflow_repository` and `job.workflow_sha` give them.
HEALER_REPOSITORY, HEALER_SHA = "octo-org/ci-healer", "c0ffee00" * 5
MODEL_KEY = "sk-ant-a-model-key-only-for-this-test"
# The agent scripts are this machine's user's; the isolation tests run the action with `user`.
BASE = {"isolation": "none"}
LOCATE = "Find this workflow's repository and commit"
BOT = "github-actions[bot]"
JOB_IDS = ("heal", "deliver", "close-fix-prs", "command", "dashboard")
FIX_ADD = "p = pathlib.Path('widgets/calc.py'); p.write_text(p.read_text().replace('a - b', 'a + b'))\n"


def called(
    box: Sandbox,
    job_id: str,
    event: Path,
    *,
    event_name: str = "workflow_run",
    github_token: str = TOKEN,
    app_token: str = "",
    needs: dict[str, dict[str, str]] | None = None,
    artifacts: Path | None = None,
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
        needs=needs,
        artifacts=artifacts,
    )


@dataclass
class Healed:
    """The two jobs of a heal: ``heal`` (the job's read-only token) and ``deliver`` (the write token)."""

    heal: JobResult
    deliver: JobResult


def heal(
    box: Sandbox,
    run: Run,
    inputs: dict[str, Any],
    secrets: dict[str, str] | None = None,
    *,
    github_token: str = TOKEN,
    app_token: str = "",
) -> Healed:
    """The heal job, then the deliver job with its outputs and the run's artifacts, as GitHub runs them."""
    event = box.write_event(run, f"event-{run.id}-{len(box.standin.requests)}.json")
    artifacts = box.root / f"artifacts-{run.id}-{len(box.standin.requests)}"
    artifacts.mkdir()
    before = len(box.standin.requests)
    # the heal job's GITHUB_TOKEN may only read (its `permissions`); the stand-in answers its writes with 403
    heal_job = called(box, "heal", event, github_token=READ_TOKEN, artifacts=artifacts)
    assert heal_job.runs(inputs, secrets), "the heal job runs on a finished CI run"
    healed = heal_job.run(inputs, secrets)
    box.standin.idle()
    _check(healed)
    assert {r.method for r in box.standin.requests[before:]} <= {"GET"}, "the heal job writes nothing"
    deliver_job = called(
        box,
        "deliver",
        event,
        github_token=github_token,
        app_token=app_token,
        needs={"heal": healed.outputs},
        artifacts=artifacts,
    )
    assert deliver_job.runs(inputs, secrets), "the deliver job runs after the heal job"
    delivered = deliver_job.run(inputs, secrets)
    box.standin.idle()
    _check(delivered)
    check_contract(box.standin.requests[before:], box.standin.api_url)
    return Healed(healed, delivered)


def _check(result: JobResult) -> None:
    detail = "\n".join(
        f"--- {s.name}: {s.returncode}\n{s.stdout[-3000:]}{s.stderr[-2000:]}" for s in result.steps
    )
    assert all(step.returncode == 0 for step in result.steps), detail
    assert "Traceback (most recent call last)" not in detail, detail


def ran(result: JobResult) -> list[str]:
    return [step.name for step in result.steps if step.ran]


def test_a_lint_failure_is_healed_through_the_called_heal_and_deliver_jobs(
    box: Sandbox, tmp_path: Path, read_token: str
) -> None:
    pull, run = lint_pull(box)
    installed = tmp_path / "agent-installed"
    inputs = {**BASE, "agent-install": f"echo claude > '{installed}'"}

    both = heal(box, run, inputs, {"ANTHROPIC_API_KEY": MODEL_KEY})

    # no Python asked for: that step is skipped by its own condition; the heal job has no App step at all
    assert ran(both.heal) == [
        "Check out the default branch",
        "Find this workflow's repository and commit",
        "Check out ci-healer at this workflow's commit",
        "Set up the agent",
        "Run ci-healer",
        "Hand the heal bundle to the deliver job",
    ]
    assert both.heal.outputs == {"bundle": "true"}
    # no App configured: the deliver job uses its own token
    assert both.deliver.env == {"CI_HEALER_APP": "false"}
    assert ran(both.deliver) == [
        "Check out the default branch",
        "Find this workflow's repository and commit",
        "Check out ci-healer at this workflow's commit",
        "Take the heal bundle",
        "Run ci-healer",
    ]
    assert installed.read_text() == "claude\n"
    # the action came from the called workflow's own repository and commit, not from the caller's checkout
    for job in (both.heal, both.deliver):
        own = job.step("Check out ci-healer at this workflow's commit")
        assert (own.with_["repository"], own.with_["ref"], own.with_["path"]) == (
            HEALER_REPOSITORY,
            HEALER_SHA,
            ".ci-healer",
        )
        assert "ci-healer: octo-org/ci-healer@c0ffee00" in job.step(LOCATE).stdout
    # the heal job: its own token, which may only read, and the model key; the deliver job: the write token,
    # which the healer knows is the workflow's (fix PRs start no CI with it), and no model key
    healing, delivering = both.heal.action.step("run"), both.deliver.action.step("run")
    assert healing.env["HEALER_GITHUB_TOKEN"] == READ_TOKEN and healing.env["HEALER_STAGE"] == "heal"
    assert delivering.env["HEALER_GITHUB_TOKEN"] == TOKEN and delivering.env["HEALER_STAGE"] == "deliver"
    assert delivering.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "true"
    assert both.heal.action.env["ANTHROPIC_API_KEY"] == MODEL_KEY
    assert MODEL_KEY not in str(both.deliver.action.env) and MODEL_KEY not in str(delivering.env)
    # inputs the caller left out arrive as the action's own defaults
    assert (delivering.env["HEALER_MAX_ATTEMPTS"], delivering.env["HEALER_DRY_RUN"]) == ("3", "false")
    assert delivering.env["HEALER_LEDGER_KEY"] == ""
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.base_ref == pull.head_ref
    outputs = both.deliver.action.outputs
    assert outputs["decision"] == "healed" and outputs["category"] == "lint"
    assert outputs["fix-pull-request"] == f"{box.standin.server_url}/{box.repo}/pull/{fix.number}"
    assert both.heal.action.outputs["decision"] == "healed" and both.heal.action.outputs["bundle-path"]


def test_with_a_github_app_the_deliver_job_works_with_the_apps_token(box: Sandbox, read_token: str) -> None:
    _, run = lint_pull(box)
    secrets = {"CI_HEALER_APP_ID": "12345", "CI_HEALER_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----"}

    # the stand-in takes TOKEN to write: a write with the job's own token would fail the deliver job
    both = heal(box, run, BASE, secrets, github_token=WORKFLOW_TOKEN, app_token=TOKEN)

    app = both.deliver.step("app-token")
    assert app.ran and both.deliver.env == {"CI_HEALER_APP": "true"}
    assert (app.with_["app-id"], app.with_["private-key"]) == ("12345", secrets["CI_HEALER_APP_PRIVATE_KEY"])
    # the App's token is narrowed to what the job's own token may do
    job = called(box, "deliver", Path(both.deliver.action.env["GITHUB_EVENT_PATH"]), needs={"heal": {}}).job
    asked = {f"permission-{scope}": level for scope, level in job["permissions"].items()}
    assert {k: v for k, v in app.with_.items() if k.startswith("permission-")} == asked
    step = both.deliver.action.step("run")
    assert step.env["HEALER_GITHUB_TOKEN"] == TOKEN and step.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "false"
    assert both.deliver.action.outputs["decision"] == "healed"
    # the heal job mints no App token: no write reaches its machine
    assert "app-token" not in {s.id for s in both.heal.steps}


def test_every_input_the_caller_sets_reaches_the_action(box: Sandbox, read_token: str) -> None:
    _, run = lint_pull(box)
    # every action input, none at its default (test_action_steps), as a caller writes them: numbers as
    # numbers, switches as booleans; the token and the ledger key as secrets
    typed = {"max-attempts", "max-reruns", "max-diff-lines", "agent-timeout-minutes", "max-jobs"}
    typed |= {"agent-token-budget", "agent-request-budget", "max-agent-tokens-per-pr"}
    switches = {"dry-run", "agent-token", "rerun-timeouts", "dashboard", "learn"}
    inputs: dict[str, Any] = {
        name: int(value) if name in typed else value == "true" if name in switches else value
        for name, value in EVERY_INPUT.items()
        if name not in ("github-token", "ledger-key", "agent-api-key", "stage", "bundle-path")
    }
    secrets = {
        "CI_HEALER_TOKEN": TOKEN,
        "CI_HEALER_LEDGER_KEY": EVERY_INPUT["ledger-key"],
        "CI_HEALER_AGENT_API_KEY": EVERY_INPUT["agent-api-key"],
    }

    both = heal(box, run, inputs, secrets, github_token=WORKFLOW_TOKEN)

    # the workflow sets the stage and the bundle of each job itself; the heal job gets no write token
    own = {"stage", "bundle-path", "github-token"}
    expected = {k: v for k, v in EVERY_INPUT.items() if k not in own}
    healing, delivering = both.heal.step("Run ci-healer").with_, both.deliver.step("Run ci-healer").with_
    assert {k: v for k, v in healing.items() if k not in own} == expected
    assert {k: v for k, v in delivering.items() if k not in own} == {
        k: v for k, v in expected.items() if k != "agent-api-key"
    }
    assert (healing["stage"], healing["bundle-path"], healing["github-token"]) == ("heal", "", READ_TOKEN)
    assert (delivering["stage"], delivering["github-token"]) == ("deliver", TOKEN)
    assert both.deliver.action.outputs["decision"] == "none"  # EVERY_INPUT is a dry run
    assert not box.standin.created_pulls(box.repo)


def test_the_model_key_reaches_the_healers_proxy_and_the_agent_a_token_for_it(
    box: Sandbox, tmp_path: Path, read_token: str
) -> None:
    _, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(key=os.environ.get('ANTHROPIC_API_KEY'), url=os.environ.get('ANTHROPIC_BASE_URL'))\n"
        + FIX_ADD,
    )

    both = heal(box, run, {**BASE, "agent-command": agent}, {"ANTHROPIC_API_KEY": MODEL_KEY})

    [seen] = agent_reports(tmp_path / "agent")
    assert seen["key"] != MODEL_KEY and str(seen["key"]).startswith("ci-healer-")  # the heal's token
    assert str(seen["url"]).startswith("http://127.0.0.1:")  # the model proxy
    assert both.deliver.action.outputs["decision"] == "healed"


def test_a_closed_prs_fix_pr_is_closed_by_the_called_close_job(
    box: Sandbox, tmp_path: Path, read_token: str
) -> None:
    pull, run = failing_test_pull(box)
    heal(box, run, {**BASE, "agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    [fix] = box.standin.created_pulls(box.repo)
    box.standin.merge_pull(pull, delete_branch=True)
    event = box.write_pull_event(pull, "closed")
    job = called(box, "close-fix-prs", event, event_name="pull_request_target")
    # the one job of the called workflow that runs on this event
    assert job.runs() and not called(box, "heal", event, event_name="pull_request_target").runs()
    deliver = called(box, "deliver", event, event_name="pull_request_target", needs={"heal": {}})
    assert not deliver.runs()

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


def test_a_box_ticked_in_the_dashboard_runs_in_the_called_command_job(
    box: Sandbox, tmp_path: Path, read_token: str
) -> None:
    pull, run = failing_test_pull(box)
    heal(box, run, {**BASE, "agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    [fix] = box.standin.created_pulls(box.repo)
    schedule = box.root / "schedule.json"
    schedule.write_text(json.dumps({"schedule": "17 6 * * 1", "repository": {"full_name": box.repo}}))
    dashboard = called(box, "dashboard", schedule, event_name="schedule")
    assert dashboard.runs({"dashboard": True}) and not dashboard.runs({})
    _check(dashboard.run({**BASE, "dashboard": True, "report-window": "366d"}))
    [issue] = box.standin.issues(box.repo)
    [line] = [line for line in issue.body.splitlines() if f"close #{fix.number}" in line]
    box.standin.set_permission(box.repo, "maintainer", "write")
    api = Api(box.standin)

    def edited(editor: str, on: Any = issue) -> Path:
        before = box.standin.edit_issue(
            box.repo, on.number, on.body.replace(line, line.replace("[ ]", "[x]"))
        )
        with box.standin._lock:
            payload = issues_edited_event(
                api._issue_shape(on),
                before,
                api.repo_shape(box.standin.repos[box.repo.lower()]),
                shapes.user(editor, api.api, api.web),
            )
        box.standin.edit_issue(box.repo, on.number, before)
        path = box.root / f"issues-{editor}-{on.number}.json"
        path.write_text(json.dumps(payload))
        return path

    # only the command job runs, and only for a person's edit of the bot's dashboard
    event = edited("maintainer")
    needs = {"deliver": {"heal": {}}}
    running = [
        j for j in JOB_IDS if called(box, j, event, event_name="issues", needs=needs.get(j)).runs(BASE)
    ]
    assert running == ["command"]
    assert not called(box, "command", edited(BOT), event_name="issues").runs(BASE)
    theirs = box.standin.add_issue(box.repo, title="CI healer dashboard", body=issue.body, author="mallory")
    assert not called(box, "command", edited("maintainer", theirs), event_name="issues").runs(BASE)

    box.standin.edit_issue(box.repo, issue.number, issue.body.replace(line, line.replace("[ ]", "[x]")))
    result = called(box, "command", event, event_name="issues").run(BASE)

    _check(result)
    assert fix.state == "closed" and "Closed from the dashboard" in fix.body
    assert "- [ ] " in box.standin.issues(box.repo)[0].body  # unticked again
