"""Broken trunk: a check that fails on the base branch the same way is not the pull request's fault.

Before a heal is spent on a check, or an escalation written for it, the healer reads the latest completed
``push`` run of the same workflow on the pull request's base branch (usually the default branch). When that
run failed the same check with the same diagnosis (same rule, same signature of the decisive lines:
:mod:`healer.diagnosis.signature`), the check is neither healed nor escalated: no agent, no fix, no attempt
spent, no "needs a person" (without an ``agent-command`` a failing test is escalated at once, on every open
pull request). One comment (a ``trunk`` marker, edited in place on later runs) names the base branch's
commit and run, and says the healer stays off the check until the base branch is green. The next failure
after a green run there is handled as usual, and the comment says so; its lifted marker keeps the run of
the episode it ends (``healer report`` counts episodes by that run).

Requests, spent only when the plan heals or escalates (never for re-runs, skips, forks or a run on the base
branch itself): the base branch's latest run (1); when it failed, its job listing (1) and, per healed or
escalated check that failed there too (at most :data:`MAX_COMPARED`), that job's log (the API's redirect,
then the blob's byte ranges: one for a log of up to 64 KiB). A green or missing base-branch run costs that
one request. A read that fails is reported, and the check is handled as usual.

Comparisons use the log alone on both sides (the pull request's evidence is re-classified without its
annotations): annotations of the base branch's job would cost another request per check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any

from healer.config import Config
from healer.diagnosis.classify import classify
from healer.diagnosis.owner import reassigned
from healer.diagnosis.readback import read_back
from healer.diagnosis.rules import RuleSet
from healer.diagnosis.signature import failure_signature, same_failure
from healer.github import GitHub, GitHubError
from healer.ledger.markers import Signer, workflow_key
from healer.ledger.trunk import TrunkNotice, notice_body, trunk_marker, trunk_notices
from healer.model import (
    BranchRun,
    CheckPlan,
    Comment,
    Diagnosis,
    Evidence,
    Owner,
    Plan,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
)
from healer.run.context import RunContext
from healer.run.evidence import select_jobs
from healer.run.planning import Planned, planned_with
from healer.text.spans import code
from healer.text.trunk import render_trunk_notice

MAX_COMPARED = 3  # base-branch logs read per run at most (one per healed or escalated check)
_FAILED = frozenset({"failure", "timed_out"})
_COMPARED = frozenset({Verdict.HEAL, Verdict.ESCALATE})  # what the base branch's failure would spare


@dataclass(frozen=True)
class TrunkCheck:
    """What the base branch says about the checks a plan heals."""

    branch: str = ""
    base_run: BranchRun | None = None
    broken: Mapping[str, Diagnosis] = field(default_factory=dict)  # check → the base branch's diagnosis
    lifted: tuple[str, ...] = ()  # checks with an open notice that are healed again
    notes: tuple[str, ...] = ()
    requests: int = 0  # requests this check cost (every hop of a log download included)
    notices: Mapping[str, TrunkNotice] = field(default_factory=dict)  # the PR's notices as read for the plan


def workflow_file(event: RunEvent) -> str:
    """The workflow's file name (``ci.yml``), which the runs listing accepts as the workflow's id."""
    return PurePosixPath(event.workflow_path).name if event.workflow_path else ""


def find_broken_trunk(
    gh: GitHub,
    event: RunEvent,
    pr: PullRequest,
    plan: Plan,
    evidence: Mapping[str, Evidence],
    rules: RuleSet,
    notices: Mapping[str, TrunkNotice],
    *,
    read_limit: int,
) -> TrunkCheck:
    """Compare the checks ``plan`` heals or escalates with the base branch's latest completed run (see the
    module doc)."""
    heals = [c.check for c in plan.checks if c.verdict in _COMPARED]
    branch = pr.base_ref or event.default_branch
    workflow = workflow_file(event)
    if not heals or pr.is_fork or not branch or not workflow or event.head_branch == branch:
        return TrunkCheck(branch=branch)
    before = _count(gh)

    def done(**values: Any) -> TrunkCheck:
        broken = values.get("broken", {})
        lifted = tuple(c for c in heals if c not in broken and c in notices and notices[c].open)
        return TrunkCheck(branch=branch, lifted=lifted, requests=_count(gh) - before, **values)

    try:
        run = gh.latest_branch_run(workflow, branch)
        if run is None or run.conclusion not in _FAILED or run.head_sha.lower() == event.head_sha.lower():
            return done(base_run=run)
        failed = {
            job.name: job for job in select_jobs(gh.list_jobs(run.id, run.run_attempt), max_jobs=100).failed
        }
        broken: dict[str, Diagnosis] = {}
        for check in [c for c in heals if c in failed and c in evidence][:MAX_COMPARED]:
            job = failed[check]
            log = read_back(gh.open_log(job.id, limit=read_limit), limit=read_limit)
            base = classify(Evidence(job=job, log=log), rules)
            ours = classify(replace(evidence[check], annotations=()), rules)
            if same_failure(ours, base):
                broken[check] = base
    except GitHubError as exc:
        note = f"could not read the runs of {branch!r} ({exc}); the checks are healed as usual"
        return done(notes=(note,))
    return done(base_run=run, broken=broken)


def without_broken(planner: Callable[..., Plan], trunk: TrunkCheck) -> Callable[..., Plan]:
    """``planner`` planning the checks that fail on the base branch as skips (``broken-trunk``): the others
    are planned without them (a re-run a heal made pointless is planned again), every time it is asked."""
    if not trunk.broken:
        return planner

    run_id = trunk.base_run.id if trunk.base_run else 0

    def plan(diagnoses: Mapping[str, Diagnosis], **kwargs: Any) -> Plan:
        rest = {name: d for name, d in diagnoses.items() if name not in trunk.broken}
        planned = planner(rest, **kwargs)
        skips = tuple(
            CheckPlan(
                check=name,
                verdict=Verdict.SKIP,
                diagnosis=from_upstream(diagnosis, trunk.branch, run_id),
                reason=SkipReason.BROKEN_TRUNK,
                detail=f"It fails on {code(trunk.branch)} the same way (run {run_id}); no attempt is spent "
                "until that branch is green.",
            )
            for name, diagnosis in diagnoses.items()
            if name in trunk.broken
        )
        return replace(planned, checks=planned.checks + skips)

    return plan


def from_upstream(diagnosis: Diagnosis, branch: str, run_id: int) -> Diagnosis:
    """A failure the base branch has too: upstream's, not this pull request's (what decided it says so)."""
    history = f"{branch} fails the same way (run {run_id})"
    return reassigned(diagnosis, Owner.UPSTREAM, history, f"nothing until {branch} is green")


def post_trunk_notice(
    gh: GitHub,
    event: RunEvent,
    pr: PullRequest,
    trunk: TrunkCheck,
    notices: Mapping[str, TrunkNotice],
    bodies: Mapping[int, str],
    *,
    server_url: str,
    signer: Signer | None,
    workflow_key: str,
) -> str:
    """Write the notice: edit the pull request's notice comment (or add one), only when something changed.
    Returns what was done, for the log ("" when nothing was)."""
    checks = sorted(trunk.broken)
    if not checks and not trunk.lifted:
        return ""
    run_id, attempt = (trunk.base_run.id, trunk.base_run.run_attempt) if trunk.base_run else (0, 0)
    markers = [
        trunk_marker(
            check,
            event.head_sha,
            run_id,
            attempt,
            workflow=workflow_key,
            category=trunk.broken[check].category.value,
        )
        for check in checks
    ] + [
        # a lift keeps the base-branch run of the episode it ends: the report counts episodes by that run
        trunk_marker(
            check, event.head_sha, _run_of(notices.get(check)), 0, workflow=workflow_key, lifted=True
        )
        for check in trunk.lifted
    ]
    base_run = trunk.base_run or BranchRun(0, 0, "", trunk.branch, None)
    text = render_trunk_notice(
        checks,
        base_run,
        branch=trunk.branch,
        server_url=server_url,
        repository=event.repository,
        workflow=event.workflow_name,
        lifted=trunk.lifted,
    )
    existing = _notice_comment(notices, bodies, [*checks, *trunk.lifted])
    if existing is None:
        if not checks:
            return ""  # nothing to lift without a notice
        gh.create_comment(pr.number, notice_body("", markers, text, signer))
        return f"posted the broken-trunk notice for {', '.join(map(code, checks))}"
    body = notice_body(bodies[existing], markers, text, signer)
    if _same_notice(bodies[existing], body, trunk, notices):
        return ""
    gh.update_comment(existing, body)
    what = "updated the broken-trunk notice" if checks else "lifted the broken-trunk notice"
    return f"{what} ({', '.join(map(code, [*checks, *trunk.lifted]))})"


def _run_of(notice: TrunkNotice | None) -> int:
    return notice.run_id or 0 if notice is not None else 0


def _notice_comment(
    notices: Mapping[str, TrunkNotice], bodies: Mapping[int, str], checks: Sequence[str]
) -> int | None:
    """The comment holding this workflow's notices: one of the checks' own, else any open one."""
    for check in checks:
        notice = notices.get(check)
        if notice is not None and notice.comment_id in bodies:
            return notice.comment_id
    return next((n.comment_id for n in notices.values() if n.open and n.comment_id in bodies), None)


def _same_notice(old: str, new: str, trunk: TrunkCheck, notices: Mapping[str, TrunkNotice]) -> bool:
    """Whether the notice already says this: the same checks broken by the same base-branch run."""
    if trunk.lifted or trunk.base_run is None:
        return old == new
    return all(
        (n := notices.get(check)) is not None and n.open and n.run_id == trunk.base_run.id
        for check in trunk.broken
    )


def describe(trunk: TrunkCheck) -> list[str]:
    """Log lines about the check (what was compared, what was found)."""
    lines = list(trunk.notes)
    run = trunk.base_run
    if run is not None:
        lines.append(
            f"base branch {trunk.branch!r}: run {run.id} on {run.head_sha[:7]} ended {run.conclusion} "
            f"({trunk.requests} request(s))"
        )
    for check, diagnosis in trunk.broken.items():
        lines.append(
            f"{check!r} fails on {trunk.branch!r} the same way (rule {diagnosis.rule}, signature "
            f"{failure_signature(diagnosis)}): not healed, no attempt spent"
        )
    for check in trunk.lifted:
        lines.append(f"{check!r}: {trunk.branch!r} no longer fails it the same way; healed as usual")
    return lines


def _count(gh: GitHub) -> int:
    try:
        return int(gh.request_count)
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        return 0


# -- the stage: what ``healer run`` calls -----------------------------------------------------------------


def check_trunk(
    ctx: RunContext, event: RunEvent, pr: PullRequest, config: Config, planned: Planned
) -> tuple[Planned, TrunkCheck]:
    """Between the plan and the act stage: the plan with the checks that fail on the base branch skipped, and
    what was found. Its planner keeps skipping them when the act stage re-plans under its claim."""
    diagnosed = planned.diagnosed
    notices = trunk_notices(planned.comments, config.bot_login, ctx.signer(pr), workflow=workflow_key(event))
    trunk = TrunkCheck(branch=pr.base_ref)
    if diagnosed.rules is not None:
        trunk = find_broken_trunk(
            ctx.gh,
            event,
            pr,
            planned.plan,
            diagnosed.evidence,
            diagnosed.rules,
            notices,
            read_limit=config.log_read_limit,
        )
    trunk = replace(trunk, notices=notices)
    for line in describe(trunk):
        ctx.say(line)
    if not trunk.broken:
        return planned, trunk
    planner = without_broken(planned.planner, trunk)
    made = planned_with(
        planner, diagnosed, ledger=planned.ledger, config=config, pull=pr, run=event, now=ctx.started
    )
    ctx.note(
        f"not healed, {trunk.branch!r} fails the same way: {', '.join(map(code, sorted(trunk.broken)))} "
        "(no attempt spent)"
    )
    return replace(planned, plan=made, planner=planner), trunk


def notice_trunk(
    ctx: RunContext, event: RunEvent, pr: PullRequest, trunk: TrunkCheck, comments: Sequence[Comment]
) -> None:
    """After the act stage: post or edit the notice (see :func:`post_trunk_notice`)."""
    if not trunk.broken and not trunk.lifted:
        return
    login = ctx.config.bot_login.strip().casefold()
    done = post_trunk_notice(
        ctx.gh,
        event,
        pr,
        trunk,
        trunk.notices,
        {c.id: c.body for c in comments if c.author.casefold() == login},
        server_url=ctx.actions.server_url,
        signer=ctx.signer(pr),
        workflow_key=workflow_key(event),
    )
    if done:
        ctx.note(done)
