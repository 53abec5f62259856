"""``healer run``: one workflow run, start to end. The only module that knows the order of the stages.

1. config from the environment, token masked, event loaded; a green run resets budgets (by editing the
   previous healer comment), a cancelled or skipped one is no verdict;
2. the pull request (none → skipped), and a stale head (the PR moved on) → skipped, nothing written;
3. the config file from the default branch (never the PR head);
4. evidence → diagnoses → ledger → plan;
5. one claim (a heal alone: its fix branch, pushed; else a comment), re-read, act only if the claim wins; the
   outcome goes into the fix pull request's body, or the claim comment;
6. re-run / heal (fix rules, one agent call, guard, verify, deliver) / diagnose (forks);
7. escalate; 8. job summary and step outputs.

A run on one of the healer's own fix branches is never healed: it is the fix's CI, and its verdict is
recorded (:mod:`healer.run.proving`).

Every decision ends with exit code 0; only a mistake a person must fix (config, event, permissions) exits 1,
with one ``::error::`` line naming it.

The run is composed, not inherited: :func:`execute` is its table of contents, and each stage is a function
that receives the :class:`healer.run.context.RunContext` (config, clients, reporter, outcome) and the values
the stages before it returned: :mod:`healer.run.planning` (pull request, which runs count, config,
:func:`~healer.run.planning.diagnose` → ``Diagnosed``, :func:`~healer.run.planning.plan` → ``Planned``),
:mod:`healer.run.lifecycle` (the paths that heal nothing: resets, closed pull requests, startup failures),
:mod:`healer.run.acting` (claim, re-plan, re-run, escalate, settle the claim) and :mod:`healer.run.healing`
(the heal attempt). A ``/ci-healer`` command (:mod:`healer.run.commandrun`) composes the same stages. This
module keeps the sequence and the shell.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from healer.change.workspace import GitError
from healer.config import ConfigError, config_from_env
from healer.deliver.fixpr import DeliveryError
from healer.diagnosis.rules import RuleError
from healer.github import GitHub, GitHubError
from healer.heal.agent import ProcessError
from healer.heal.isolation import IsolationError
from healer.heal.modelkeys import find_keys
from healer.run.acting import act, decision_of, print_plan
from healer.run.changes import check_changes
from healer.run.commandrun import execute_command
from healer.run.context import RunContext
from healer.run.dashboardrun import execute_tick
from healer.run.event import PULL_REQUEST_EVENTS, EventError, load_event
from healer.run.healing import category_of, dry_run_frame, heal_checks
from healer.run.lifecycle import on_pull_request_event, on_startup_failure, on_success
from healer.run.planning import counts, diagnose, find_pull, load_repository_config, plan, read_cancelled_run
from healer.run.policy import acting
from healer.run.proving import is_fix_run, on_fix_branch
from healer.run.report_command import REPORT_EVENTS, run_in_actions
from healer.run.stages import heal_stage
from healer.run.trunk import check_trunk, notice_trunk
from healer.text.frames import FrameError
from healer.text.report import (
    Actions,
    Outcome,
    Reporter,
    SetupError,
    render_job_summary,
    write_outputs,
    write_summary,
)
from healer.text.tokens import protect_process, receive, scrub

DECISIONS = ("healed", "rerun", "escalated", "skipped", "none")
# The mistakes a person fixes (inputs, config, event, permissions, …), and how the error line names them.
MISTAKES: dict[type[Exception], str] = {
    SetupError: "setup",
    ConfigError: "configuration",
    EventError: "event",
    RuleError: "rules in the config file",
    FrameError: "templates",
    DeliveryError: "delivery",
    GitError: "git",
    ProcessError: "command",
    IsolationError: "isolation",
    GitHubError: "GitHub API",
}
# Conclusions that are a verdict on the code; cancelled, skipped, neutral, stale, … say nothing about it.
# A cancelled run may hold a job stopped by its time limit (GitHub ends those `cancelled` too): read it first.
FAILED = frozenset({"failure", "timed_out", "cancelled"})


GitHubFactory = Callable[..., GitHub]


def execute(ctx: RunContext) -> Outcome:
    """One ``workflow_run`` (or ``pull_request_target``) event, stage by stage; returns the outcome."""
    outcome, reporter = ctx.outcome, ctx.reporter
    if ctx.actions.event_name in PULL_REQUEST_EVENTS:
        with reporter.group("A closed pull request: retire its fix pull requests"):
            on_pull_request_event(ctx)
        return outcome
    with reporter.group("Event"):
        event = load_event(ctx.actions.event_name, ctx.actions.event_path, repository=ctx.actions.repository)
        outcome.run = event
        ctx.say(
            f"run {event.run_id} (attempt {event.run_attempt}) of {event.workflow_name!r}: "
            f"{event.conclusion}, head {event.head_sha[:7]}"
        )
    if is_fix_run(event):  # the CI of one of the healer's own branches: a verdict on a fix, never healed
        if ctx.config.stage == "heal":
            ctx.say("a run on one of the healer's branches: the deliver job records its verdict")
            return outcome
        with reporter.group("A fix branch's CI: its verdict"):
            on_fix_branch(ctx, event)
        return outcome
    if ctx.config.stage == "heal" and event.conclusion not in FAILED:
        ctx.say(f"conclusion {event.conclusion!r}: nothing for the heal stage; the deliver job handles it")
        return outcome
    if event.conclusion == "success":
        with reporter.group("Green run: reset budgets"):
            on_success(ctx, event)
        return outcome
    if event.conclusion == "startup_failure":
        with reporter.group("A workflow that could not start"):
            on_startup_failure(ctx, event)
        return outcome
    if event.conclusion not in FAILED:
        ctx.say(f"conclusion {event.conclusion!r} is not a verdict on the code; nothing to do")
        return outcome
    cancelled = None
    if event.conclusion == "cancelled":
        with reporter.group("Cancelled run"):
            cancelled = read_cancelled_run(ctx, event)
            if cancelled is None:
                return outcome
    with reporter.group("Pull request"):
        pr = find_pull(ctx, event)
        if pr is None:
            return outcome
    with reporter.group("Diagnosis and plan"):
        config = load_repository_config(ctx, event)
        if not counts(ctx, event, pr, config):
            return outcome
        diagnosed = diagnose(ctx, event, config, cancelled)
        diagnosed = check_changes(ctx, pr, diagnosed)  # a failure the pull request did not change?
        planned = plan(ctx, event, pr, config, diagnosed)
        planned, trunk = check_trunk(ctx, event, pr, config, planned)  # does the base branch fail it too?
    outcome.plan = planned.plan
    if ctx.dry_run:
        with reporter.group("Plan (dry run: nothing is written)"):
            print_plan(ctx, planned.plan)
            dry_run_frame(ctx, event, pr, config, planned.plan, planned.comments)
        # A dry run only plans: the output says nothing was done, the log and summary say what would be.
        outcome.planned = decision_of(planned.plan, healed=bool(heal_checks(planned.plan, pr, config)))
        outcome.decision = "none"
        outcome.category = outcome.category or next((category_of(c) for c in acting(planned.plan)), "")
        return outcome
    if config.stage == "heal":
        with reporter.group("Heal (the heal stage: nothing is written to GitHub)"):
            heal_stage(ctx, event, pr, config, planned)
        return outcome
    with reporter.group("Act"):
        act(ctx, event, pr, config, planned)
        notice_trunk(ctx, event, pr, trunk, planned.comments)  # the broken-trunk notice, added or edited
    return outcome


# -- the shell -------------------------------------------------------------------------------------------


def summary_markdown(ctx: RunContext, seconds: float) -> str:
    event = ctx.outcome.run
    markdown = render_job_summary(
        ctx.frames,
        ctx.outcome,
        head_sha=event.head_sha if event else "",
        run_url=event.html_url if event else "",
        dry_run=ctx.dry_run,
        workflow_token=ctx.actions.workflow_token,
        requests=_request_count(ctx.gh),
        seconds=seconds,
    )
    return ctx.scrubbed(markdown)


def _request_count(gh: GitHub) -> int:
    try:
        return gh.request_count
    except (NotImplementedError, AttributeError):
        return 0


def main(
    env: Mapping[str, str],
    *,
    dry_run: bool = False,
    reporter: Reporter | None = None,
    github: GitHubFactory = GitHub,
) -> int:
    """Run the healer for the event in ``env``; returns the exit code (0 for every decision)."""
    reporter = reporter or Reporter()
    started = time.monotonic()
    token = ""
    ctx: RunContext | None = None
    try:
        config = config_from_env(env)
        token = config.github_token
        if token:
            reporter.mask_token(token)
        if config.ledger_key:
            reporter.mask(config.ledger_key)
        hide_model_keys(env, config.agent_api_key, reporter)
        actions = Actions.from_env(env)
        if not token:
            raise SetupError(
                "input `github-token` is empty: pass `github-token: ${{ secrets.GITHUB_TOKEN }}` "
                "or a GitHub App token"
            )
        gh = github(token, actions.repository, api_url=actions.api_url)
        if actions.event_name in REPORT_EVENTS:  # a scheduled or manual run of the workflow: the report
            try:
                return run_in_actions(config, actions, gh, reporter, env, dry_run=dry_run)
            finally:
                gh.close()
        ctx = RunContext.create(config, actions, gh, reporter, env, dry_run=dry_run)
        try:
            if actions.event_name == "issue_comment":
                execute_command(ctx)
            elif actions.event_name == "issues":  # a box ticked in the dashboard issue
                execute_tick(ctx)
            else:
                execute(ctx)
        finally:
            gh.close()
    except tuple(MISTAKES) as exc:
        kind = next(label for cls, label in MISTAKES.items() if isinstance(exc, cls))
        message = f"{kind}: {scrub(str(exc), token)}"
        reporter.error(message)
        _finish_after_error(ctx, message, started)
        return 1
    except Exception as exc:  # a bug: say so in one line, keep the details folded for a report
        message = f"internal error ({type(exc).__name__}); please report it with the log of this step"
        reporter.error(message)
        with reporter.group("Details for a bug report"):
            reporter.untrusted(scrub(traceback.format_exc(), token))
        _finish_after_error(ctx, message, started)
        return 1
    outcome = ctx.outcome
    if dry_run or config.dry_run:
        reporter.info(
            f"dry run: the decision would be {outcome.planned or outcome.decision}; nothing was written"
        )
    write_outputs(actions.output, outcome.outputs())
    write_summary(actions.summary, summary_markdown(ctx, time.monotonic() - started))
    reporter.info(f"decision: {outcome.decision}")
    return 0


def _finish_after_error(ctx: RunContext | None, message: str, started: float) -> None:
    """Outputs and a job summary even for a run that stopped on an error: what was done before it stands
    (a comment posted, a fix PR opened), and the summary is where a maintainer looks first."""
    if ctx is None:
        return
    ctx.outcome.lines.append(f"stopped: {message}")
    with contextlib.suppress(OSError, FrameError):
        write_outputs(ctx.actions.output, ctx.outcome.outputs())
        write_summary(ctx.actions.summary, summary_markdown(ctx, time.monotonic() - started))


def hide_model_keys(env: Mapping[str, str], agent_api_key: str, reporter: Reporter) -> None:
    """Mask the model keys, and take them out of this process's environment, which the processes it starts
    (git) would inherit: they stay in ``env``, for the model proxy alone (see healer.heal.proxy)."""
    keys = find_keys(env, agent_api_key)
    for value in keys.values:
        reporter.mask(value)
    for name in (*keys.names, "HEALER_AGENT_API_KEY"):
        os.environ.pop(name, None)


def _command(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    # Before anything else (and before any code from the pull request can run): no process of this user may
    # read this one's memory, and the token leaves the process environment (see healer.text.tokens).
    protect_process()
    return main(receive(env, reexec=True), dry_run=bool(args.dry_run))


def register(subparsers: Any) -> None:
    """Add ``healer run [--dry-run]``."""
    parser = subparsers.add_parser(
        "run",
        help="heal the pull request of the workflow_run event in the Actions environment",
        description="Read the workflow_run event from the Actions environment (GITHUB_EVENT_PATH, …) and the "
        "inputs from HEALER_* variables; re-run, heal, or escalate.",
    )
    parser.add_argument("--dry-run", action="store_true", help="do every read, write nothing, print the plan")
    parser.set_defaults(func=_command)
