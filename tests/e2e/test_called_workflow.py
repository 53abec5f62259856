"""End to end through the reusable workflow (``.github/workflows/ci-healer.yml``) in a real Actions engine: a
caller made from ``examples/caller.yml`` calls ``octo-org/ci-healer/.github/workflows/ci-healer.yml@<commit>``
under nektos/act (see :mod:`actengine`), whose jobs check ci-healer out at that commit, run the action, and
hand the heal bundle from the heal job to the deliver job through act's artifact server, against the GitHub
stand-in and a real ``origin``.

act has no ``job.workflow_*`` (so the caller names the commit in ``ci-healer-ref``, as on a GitHub Enterprise
Server without them), gives every job the same ``GITHUB_TOKEN`` whatever its ``permissions:``, and accepts
inputs the workflow does not declare. So the job token here is one that may only read (the stand-in answers
its writes with 403) and the caller passes the write token as ``CI_HEALER_TOKEN``, which the heal job never
gets: a write by the heal job fails the test. A heal job with GitHub's read-only ``GITHUB_TOKEN`` beside a
deliver job with the writing one is tested with :mod:`twojobs`; what a caller may pass, statically in
``tests/test_reusable_workflow.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from actengine import HEALER_REPOSITORY, Act, ActRun, requires_act
from harness import TOKEN, agent_reports, check_contract, failing_test_pull, lint_pull, write_agent
from harness import heal as heal_directly
from test_action_steps import EVERY_INPUT, SPY
from twojobs import READ_TOKEN

from healer.demo import shapes
from healer.demo.api import Api
from healer.demo.historyops import issues_edited_event
from healer.demo.sandbox import Sandbox
from healer.demo.state import Run

pytestmark = [requires_act, pytest.mark.usefixtures("read_token")]

ROOT = Path(__file__).resolve().parents[2]
CALLER = ROOT / "examples" / "caller.yml"
MODEL_KEY = "sk-ant-a-model-key-only-for-this-test"
# The agent scripts are this machine's user's; the isolation tests run the action with `user`.
BASE = {"isolation": "none"}
BOT = "github-actions[bot]"
FIX_ADD = "p = pathlib.Path('widgets/calc.py'); p.write_text(p.read_text().replace('a - b', 'a + b'))\n"
HEAL_STEPS = [
    "Check out the default branch",
    "Find this workflow's repository and commit",
    "Check out ci-healer at this workflow's commit",
]


def caller(engine: Act, inputs: dict[str, Any], secrets: dict[str, str] | None = None) -> str:
    """``examples/caller.yml`` calling this commit of ci-healer, with ``inputs`` (and ``ci-healer-ref``, which
    act needs) instead of the example's agent, ``secrets`` passed as a caller passes its own, and the opt-in
    dashboard's triggers uncommented."""
    text = CALLER.read_text(encoding="utf-8")
    for trigger in ("schedule:", "  - cron:", "issues:", "  types: [edited]"):
        assert f"  # {trigger}" in text, trigger
        text = text.replace(f"  # {trigger}", f"  {trigger}")
    data = yaml.safe_load(text)
    data["on"] = data.pop(True)  # YAML 1.1 reads the bare key `on` as True
    [job] = data["jobs"].values()
    job["uses"] = f"{HEALER_REPOSITORY}/.github/workflows/ci-healer.yml@{engine.healer_sha}"
    job["with"] = {"ci-healer-ref": f"{HEALER_REPOSITORY}@{engine.healer_sha}", **inputs}
    job["secrets"] = {name: f"${{{{ secrets.{name} }}}}" for name in secrets or {}}
    return yaml.safe_dump(data, sort_keys=False)


def call(
    box: Sandbox,
    engine: Act,
    event_name: str,
    event: Path,
    inputs: dict[str, Any],
    secrets: dict[str, str] | None = None,
    *,
    env: dict[str, str] | None = None,
) -> ActRun:
    before = len(box.standin.requests)
    # the write token only as the caller's secret; the job token may only read (see the module's docstring)
    secrets = {"CI_HEALER_TOKEN": TOKEN, **(secrets or {})}
    result = engine.run(
        caller(engine, inputs, secrets), event_name, event, token=READ_TOKEN, secrets=secrets, env=env
    )
    assert result.returncode == 0, result.detail
    assert set(result.jobs.values()) <= {"success"}, result.detail
    assert "Traceback (most recent call last)" not in result.output(), result.detail
    for secret in secrets.values():
        assert not result.unmasked(secret), "a secret reached act's log unmasked"
    check_contract(box.standin.requests[before:], box.standin.api_url)
    return result


def heal(
    box: Sandbox,
    engine: Act,
    run: Run,
    inputs: dict[str, Any],
    secrets: dict[str, str] | None = None,
    **kw: Any,
) -> ActRun:
    """The caller on the finished CI run: the heal job, then the deliver job."""
    event = box.write_event(run, f"event-{run.id}-{len(box.standin.requests)}.json")
    result = call(box, engine, "workflow_run", event, inputs, secrets, **kw)
    # the one event the two jobs run on; the others are skipped by their `if:`
    assert sorted(result.jobs) == ["deliver", "heal"], result.jobs
    return result


def test_a_lint_failure_is_healed_through_the_called_heal_and_deliver_jobs(
    box: Sandbox, engine: Act, tmp_path: Path
) -> None:
    pull, run = lint_pull(box)
    installed = tmp_path / "agent-installed"
    inputs = {**BASE, "agent-install": f"echo claude > '{installed}'"}

    both = heal(box, engine, run, inputs, {"ANTHROPIC_API_KEY": MODEL_KEY})

    # no Python asked for: that step is skipped by its own condition; the heal job has no App step at all
    assert both.ran("heal") == [
        *HEAL_STEPS,
        "Set up the agent",
        "Run ci-healer",
        "Hand the heal bundle to the deliver job",
    ]
    # no App configured: the deliver job has no App step; the bundle came through act's artifact server
    assert both.ran("deliver") == [*HEAL_STEPS, "Take the heal bundle", "Run ci-healer"]
    assert list((engine.where / "artifacts").rglob("*")), "the heal job uploaded its bundle"
    assert installed.read_text() == "claude\n"
    # the action came from the called workflow's own repository and commit, found through ci-healer-ref
    for job in ("heal", "deliver"):
        said = f"ci-healer: {HEALER_REPOSITORY}@{engine.healer_sha} (from ci-healer-ref)"
        assert said in both.output(job)
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.base_ref == pull.head_ref
    assert "decision: healed" in both.output("heal") and "decision: healed" in both.output("deliver")
    assert f"opened fix pull request {box.standin.server_url}/{box.repo}/pull/{fix.number}" in both.output(
        "deliver"
    )
    # the heal job wrote nothing: the deliver job claimed, pushed and opened the fix
    assert "opened fix pull request" not in both.output("heal")


def test_every_input_the_caller_sets_reaches_the_action(box: Sandbox, engine: Act, tmp_path: Path) -> None:
    _, run = lint_pull(box)
    # every action input, none at its default (test_action_steps), as a caller writes them: numbers as
    # numbers, switches as booleans; the token and the ledger key as secrets
    typed = {"max-attempts", "max-reruns", "max-diff-lines", "agent-timeout-minutes", "max-jobs"}
    typed |= {"agent-token-budget", "agent-request-budget", "max-agent-tokens-per-pr"}
    switches = {"dry-run", "agent-token", "rerun-timeouts", "dashboard", "learn"}
    own = {"github-token", "ledger-key", "agent-api-key", "stage", "bundle-path"}
    inputs: dict[str, Any] = {
        name: int(value) if name in typed else value == "true" if name in switches else value
        for name, value in EVERY_INPUT.items()
        if name not in own
    }
    # the engine evaluates `${{` in a caller's `with:`; the caller writes the text this way
    inputs["agent-command"] = inputs["agent-command"].replace("${{", "${{ '${{' }}")
    secrets = {
        "CI_HEALER_LEDGER_KEY": EVERY_INPUT["ledger-key"],
        "CI_HEALER_AGENT_API_KEY": EVERY_INPUT["agent-api-key"],
    }
    spy = tmp_path / "spy"
    spy.mkdir()
    (spy / "sitecustomize.py").write_text(
        SPY.replace('"HEALER_ENV_RECORD"', '"HEALER_ENV_RECORD_" + os.environ["HEALER_STAGE"]')
    )
    records = {stage: tmp_path / f"{stage}.json" for stage in ("heal", "deliver")}
    env = {"PYTHONPATH": str(spy), **{f"HEALER_ENV_RECORD_{k}": str(v) for k, v in records.items()}}

    heal(box, engine, run, inputs, secrets, env=env)

    seen = {stage: json.loads(path.read_text()) for stage, path in records.items()}
    variables = {name: "HEALER_" + name.upper().replace("-", "_") for name in EVERY_INPUT}
    expected = {k: v for k, v in EVERY_INPUT.items() if k not in {"stage", "bundle-path", "github-token"}}
    for stage, healer_env in seen.items():
        given = {name: healer_env.get(variables[name]) for name in expected}
        # the deliver job runs no agent: no model key reaches it
        keys = {"agent-api-key": ""} if stage == "deliver" else {}
        assert given == {**expected, **keys}, stage
        assert healer_env["HEALER_STAGE"] == stage
    # the workflow sets the stage and the bundle of each job itself; the heal job gets its own job token,
    # never the caller's write token
    assert seen["heal"]["HEALER_BUNDLE_PATH"] == ""
    assert seen["deliver"]["HEALER_BUNDLE_PATH"].endswith("/ci-healer-bundle")
    assert seen["heal"]["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "true"
    assert seen["deliver"]["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "false"  # the caller's CI_HEALER_TOKEN
    assert not box.standin.created_pulls(box.repo)  # EVERY_INPUT is a dry run


def test_the_model_key_reaches_the_healers_proxy_and_the_agent_a_token_for_it(
    box: Sandbox, engine: Act, tmp_path: Path
) -> None:
    _, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(key=os.environ.get('ANTHROPIC_API_KEY'), url=os.environ.get('ANTHROPIC_BASE_URL'))\n"
        + FIX_ADD,
    )

    both = heal(box, engine, run, {**BASE, "agent-command": agent}, {"ANTHROPIC_API_KEY": MODEL_KEY})

    [seen] = agent_reports(tmp_path / "agent")
    assert seen["key"] != MODEL_KEY and str(seen["key"]).startswith("ci-healer-")  # the heal's token
    assert str(seen["url"]).startswith("http://127.0.0.1:")  # the model proxy
    assert "decision: healed" in both.output("deliver")
    assert box.standin.created_pulls(box.repo)


def test_a_closed_prs_fix_pr_is_closed_by_the_called_close_job(
    box: Sandbox, engine: Act, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    # a fix pull request to act on (healed without the engine: the test above runs the heal under act)
    heal_directly(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    [fix] = box.standin.created_pulls(box.repo)
    box.standin.merge_pull(pull, delete_branch=True)

    result = call(box, engine, "pull_request_target", box.write_pull_event(pull, "closed"), BASE)

    # the one job of the called workflow that runs on this event
    assert list(result.jobs) == ["close-fix-prs"]
    assert fix.state == "closed" and not fix.merged
    # it checked out the action only: no default branch, nothing of the PR
    assert result.ran("close-fix-prs") == HEAL_STEPS[1:] + ["Run ci-healer"]


def test_a_box_ticked_in_the_dashboard_runs_in_the_called_command_job(
    box: Sandbox, engine: Act, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    # a fix pull request to act on (healed without the engine: the test above runs the heal under act)
    heal_directly(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    [fix] = box.standin.created_pulls(box.repo)
    schedule = box.root / "schedule.json"
    schedule.write_text(json.dumps({"schedule": "17 6 * * 1", "repository": {"full_name": box.repo}}))
    # the dashboard job runs on a schedule, and only with `dashboard: true`
    assert not call(box, engine, "schedule", schedule, BASE).jobs
    dashboard = call(box, engine, "schedule", schedule, {**BASE, "dashboard": True, "report-window": "366d"})
    assert list(dashboard.jobs) == ["dashboard"]
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

    # no job runs for the bot's own edit, nor for a person's edit of an issue that looks like the dashboard
    assert not call(box, engine, "issues", edited(BOT), BASE).jobs
    theirs = box.standin.add_issue(box.repo, title="CI healer dashboard", body=issue.body, author="mallory")
    assert not call(box, engine, "issues", edited("maintainer", theirs), BASE).jobs
    assert fix.state == "open"

    # a person's edit of the bot's dashboard: only the command job runs, and acts on the ticked box
    event = edited("maintainer")
    box.standin.edit_issue(box.repo, issue.number, issue.body.replace(line, line.replace("[ ]", "[x]")))
    result = call(box, engine, "issues", event, BASE)

    assert list(result.jobs) == ["command"]
    assert fix.state == "closed" and "asked for it from the dashboard" in fix.body
    assert "- [ ] " in box.standin.issues(box.repo)[0].body  # unticked again


def test_without_ci_healer_ref_where_job_workflow_is_missing_the_jobs_stop_before_their_checkout(
    box: Sandbox, engine: Act
) -> None:
    _, run = lint_pull(box)
    event = box.write_event(run, "event-no-ref.json")
    text = caller(engine, BASE).replace(f"ci-healer-ref: {HEALER_REPOSITORY}@{engine.healer_sha}\n", "")
    before = len(box.standin.requests)

    result = engine.run(text, "workflow_run", event, token=READ_TOKEN)

    assert result.returncode != 0 and result.jobs["heal"] == "failure"
    assert result.ran("heal") == HEAL_STEPS[:2]
    failed = [s.name for s in result.steps if s.job == "heal" and s.result == "failure" and s.stage == "Main"]
    assert failed == ["Find this workflow's repository and commit"]
    assert "set the input ci-healer-ref" in json.dumps(result.lines)
    # the deliver job needs the heal job, and runs when it failed (`!cancelled()`): it stops at the same step
    assert result.jobs.get("deliver") == "failure", result.jobs
    assert result.ran("deliver") == HEAL_STEPS[:2]
    assert not box.standin.requests[before:], "no healer ran"
