"""The planning stages of ``healer run``: pull request, which runs count, config, evidence, diagnoses, plan.

Each stage is a function of the :class:`healer.run.context.RunContext` and the values the stages before it
returned; none writes to GitHub. A cancelled run's job listing (:func:`read_cancelled_run`) goes into
:func:`diagnose`, whose :class:`Diagnosed` goes into :func:`plan`, whose :class:`Planned` the act stage
acts on (and re-plans from, once its claim is written). A check that must run before any heal is planned
(one that looks at the default branch, say) takes a ``Diagnosed`` and returns one, between :func:`diagnose`
and :func:`plan`: in :func:`healer.run.app.execute` and in a ``/ci-healer retry``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from healer.config import Config
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import RuleSet, load_rules
from healer.diagnosis.triage import event_skip_reason, pull_skip_reason
from healer.heal.agent import missing_tools
from healer.heal.fixes import install_hint
from healer.heal.prepare import setup_commands
from healer.ledger.fixrecords import is_fix_record, read_records
from healer.ledger.ledger import Ledger
from healer.ledger.markers import workflow_key
from healer.model import (
    Action,
    CheckPlan,
    Comment,
    Diagnosis,
    Evidence,
    Job,
    Plan,
    PullRequest,
    RunEvent,
    Verdict,
    is_fix_branch,
)
from healer.run.context import RunContext, branch_config
from healer.run.evidence import CancelledJobs, cancelled_jobs, collect_run_jobs, select_jobs
from healer.run.learning import with_learned_rules
from healer.run.policy import decide
from healer.run.scripts import ScriptFiles, with_scripts
from healer.text.spans import code

Planner = Callable[..., Plan]  # `decide`; a `/ci-healer retry` plans with `plan_retry`


@dataclass(frozen=True)
class CancelledRun:
    """A cancelled run's job listing and annotations, read to tell a timeout from a cancellation (and kept,
    so the diagnosis does not read them again)."""

    jobs: list[Job]
    cancelled: CancelledJobs


@dataclass(frozen=True)
class Diagnosed:
    """The failed run's evidence, classified: one diagnosis per failed check, and what acting on it needs."""

    diagnoses: Mapping[str, Diagnosis]
    passed: tuple[str, ...]  # the checks that passed (their budgets reset)
    job_ids: Mapping[str, int]  # check name → the id of its failed job (re-runs are per job)
    fix_hints: Mapping[str, str]  # check → why its fix rule cannot run here (a missing tool)
    # what the broken-trunk check compares with the base branch (healer.run.trunk)
    evidence: Mapping[str, Evidence] = field(default_factory=dict)  # check → the evidence it was read from
    rules: RuleSet | None = None


@dataclass(frozen=True)
class Planned:
    """The plan, the ledger it was made from, and what the act stage re-plans with once it holds the claim."""

    plan: Plan
    ledger: Ledger
    diagnosed: Diagnosed
    comments: Sequence[Comment]  # the PR's comments as read for the plan (ledger and attempt memory)
    planner: Planner

    def again(self, ledger: Ledger, **inputs: Any) -> Plan:
        """The plan made again from the same diagnoses on a newer ``ledger`` (after the claim)."""
        return planned_with(self.planner, self.diagnosed, ledger=ledger, **inputs)


def read_cancelled_run(ctx: RunContext, event: RunEvent) -> CancelledRun | None:
    """Whether a ``cancelled`` run may hold a timeout: a job stopped by ``timeout-minutes`` ends
    ``cancelled``, like one cancelled by a person, a newer push or a concurrency group. The job listing and
    one annotations request per started job tell them apart; None when no job hit a time limit.
    """
    listing = ctx.gh.list_jobs(event.run_id, event.run_attempt)
    selection = select_jobs(listing, max_jobs=ctx.config.max_jobs)
    cancelled = cancelled_jobs(ctx.gh, selection)
    if not selection.failed and not cancelled.to_read:
        ctx.say(
            "cancelled by a person, a newer push or a concurrency group (no job hit a time limit): "
            "not a verdict on the code; nothing to do"
        )
        return None
    return CancelledRun(listing, cancelled)


def find_pull(ctx: RunContext, event: RunEvent) -> PullRequest | None:
    """The open pull request whose head the run tested; None (skipped, with the reason) otherwise."""
    pr = ctx.gh.find_pull_request(event)
    if pr is None:
        ctx.skip("no open pull request has this run's head commit")
        return None
    ctx.outcome.pr = pr
    ctx.say(f"pull request #{pr.number} ({'fork' if pr.is_fork else 'same repository'})")
    if pr.head_sha.lower() != event.head_sha.lower():
        ctx.skip(f"stale head: #{pr.number} is now at {pr.head_sha[:7]}, the run tested {event.head_sha[:7]}")
        return None
    if is_fix_branch(pr.head_ref):
        ctx.skip(f"#{pr.number} is one of the healer's own fix pull requests")
        return None
    return pr


def load_repository_config(ctx: RunContext, event: RunEvent) -> Config:
    """The config file from the default branch (never the PR head) over the inputs."""
    branch = event.default_branch or ctx.gh.get_repository().default_branch
    config = branch_config(ctx.gh, ctx.config, ctx.env, branch)
    if config is not None:
        ctx.say(f"config file {ctx.config.config_file} from {branch}")
    return with_learned_rules(ctx.gh, config or ctx.config, branch, ctx.say)  # healer.run.learning


def counts(ctx: RunContext, event: RunEvent, pr: PullRequest, config: Config) -> bool:
    """Whether the run is this PR's CI (its event, its branch); else skip with the reason."""
    why = event_skip_reason(event, config.events) or pull_skip_reason(event, pr, event.default_branch)
    if why:
        ctx.skip(why)
        return False
    return True


def diagnose(
    ctx: RunContext, event: RunEvent, config: Config, cancelled: CancelledRun | None = None
) -> Diagnosed:
    """Read the failed jobs' logs and classify each failed check."""
    rules = load_rules(config.rules, source=config.config_file, learned=config.learned_rules)
    jobs = collect_run_jobs(
        ctx.gh,
        event,
        max_jobs=config.max_jobs,
        read_limit=config.log_read_limit,
        jobs=cancelled.jobs if cancelled else None,
        cancelled=cancelled.cancelled if cancelled else None,
    )
    for note in jobs.notes:
        ctx.say(note)
    if jobs.uninspected:
        ctx.note(f"not inspected (over `max-jobs`): {', '.join(map(code, jobs.uninspected))}")
    diagnoses: dict[str, Diagnosis] = {}
    job_ids: dict[str, int] = {}
    fix_hints: dict[str, str] = {}
    files = ScriptFiles(ctx.gh, event.head_sha)
    for item in jobs.failed:
        read = classify(item, rules, workflow=event.workflow_name)
        diagnosis = with_scripts(item, rules, read, files, workflow=event.workflow_name)
        if diagnosis.job is None:
            diagnosis = replace(diagnosis, job=item.job.name)
        rule = rules.get(diagnosis.rule)
        if rule is not None and rule.description and not diagnosis.description:
            diagnosis = replace(diagnosis, description=rule.description)
        if rule is not None and rule.hint:
            diagnosis = replace(diagnosis, hint=rule.hint)
        if not setup_commands(config, [CheckPlan(item.job.name, Verdict.SKIP)]):
            # with a set-up command the tool may come from set-up: the heal checks after it ran
            diagnosis = _without_missing_fixers(ctx, diagnosis, fix_hints)
        diagnoses.setdefault(item.job.name, diagnosis)  # a check is a job name: the first one counts
        job_ids.setdefault(item.job.name, item.job.id)
        ctx.say(
            f"{item.job.name!r}: {diagnosis.category.value}, {diagnosis.owner.value}'s "
            f"(rule {diagnosis.rule}, {diagnosis.action.value}; {dict(diagnosis.decided_by).get('row', '')})"
        )
    if files.problem:
        ctx.say(files.problem)
    evidence = {item.job.name: item for item in reversed(jobs.failed)}  # the first of a name, as above
    return Diagnosed(diagnoses, tuple(jobs.passed), job_ids, fix_hints, evidence, rules)


def plan(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    diagnosed: Diagnosed,
    *,
    planner: Planner = decide,
) -> Planned:
    """The PR's comments and fix records → the ledger → the plan (``planner``:
    :func:`healer.run.policy.decide` unless a command says otherwise)."""
    comments = read_ledger(ctx, pr, config)
    skipped = getattr(ctx.gh, "comments_skipped", 0)
    if skipped:
        ctx.note(
            f"This pull request has more comments than the healer reads: {skipped} in the middle were "
            "not read, so an attempt recorded only there is not counted."
        )
    ledger = Ledger.from_comments(comments, config.bot_login, ctx.signer(pr), workflow=workflow_key(event))
    made = planned_with(planner, diagnosed, ledger=ledger, config=config, pull=pr, run=event, now=ctx.started)
    for note in made.notes:
        ctx.reporter.warning(note)
    return Planned(made, ledger, diagnosed, comments, planner)


def read_ledger(ctx: RunContext, pr: PullRequest, config: Config) -> list[Comment]:
    """What the ledger is read from: the pull request's comments, then the records at the top of the
    healer's fix pull requests' bodies (:mod:`healer.ledger.fixrecords`: one request more, none for a
    fork)."""
    comments = ctx.gh.list_comments(pr.number)
    return [*comments, *read_records(ctx.gh, pr, config.bot_login)]


def read_again(ctx: RunContext, pr: PullRequest, planned: Planned) -> list[Comment]:
    """The ledger's sources re-read under a claim: the comments (claims and outcomes of other runs), with
    the fix records as the plan read them. A run that delivered a fix of this commit meanwhile holds its fix
    branch, which a heal's claim finds (:mod:`healer.change.claim`); so one request is spared."""
    fixes = [c for c in planned.comments if is_fix_record(c)]
    return [*ctx.gh.list_comments(pr.number), *fixes]


def planned_with(planner: Planner, diagnosed: Diagnosed, **inputs: Any) -> Plan:
    """``planner`` on the diagnoses; a check with nothing to try for want of an agent says which step would
    let its fix rule run instead."""
    made = planner(diagnosed.diagnoses, passed=diagnosed.passed, **inputs)
    hints = diagnosed.fix_hints
    checks = tuple(
        replace(c, detail=f"{hints[c.check][:1].upper()}{hints[c.check][1:]}.")
        if c.verdict is Verdict.ESCALATE and c.untried and c.check in hints
        else c
        for c in made.checks
    )
    return replace(made, checks=checks)


def _without_missing_fixers(ctx: RunContext, diagnosis: Diagnosis, fix_hints: dict[str, str]) -> Diagnosis:
    """A fix rule whose tool is not on this runner's PATH becomes an agent task, decided before
    planning, so that with no `agent-command` the check is escalated instead of spending attempts that
    cannot fix anything (why goes into ``fix_hints``)."""
    if diagnosis.action is not Action.FIX or not diagnosis.fix_commands:
        return diagnosis
    missing = missing_tools(diagnosis.fix_commands, ctx.env.get("PATH"))
    if not missing:
        return diagnosis
    why = f"its fix rule needs `{missing[0].split()[0]}`, which is not on PATH: {install_hint(missing[0])}"
    fix_hints[diagnosis.job or ""] = why
    ctx.say(f"{diagnosis.job!r}: {why}; the check goes to the agent")
    return replace(diagnosis, action=Action.AGENT)
