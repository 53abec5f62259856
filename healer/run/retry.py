"""plan_retry(): the plan for ``/ci-healer retry [check]``, one attempt beyond the budget. Pure, like
``decide``.

The ordinary plan comes first (``decide``). A check it would heal or re-run anyway keeps that plan. A check it
leaves alone only because the budget is spent, the escalation was posted or the commit was already healed gets
one more try, granted by the maintainer who asked:

- a re-run when the failure is one a re-run addresses (transient, infrastructure, timeout, a check whose
  rule says ``rerun`` or ``escalate``, or known flaky tests): a maintainer who fixed a secret or a runner
  retries so;
- otherwise heal attempt *k* = spent + 1 (fix or agent), the budget stretched to *k* for this attempt.

Every other reason to stay away (stale head, opt-out label, loop guard, fork policy, cancelled, a check turned
off, another run acting) still holds. The markers of a granted action record who granted it (``by``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime

from healer.config import Config, check_settings
from healer.ledger.flaky import all_known_flaky
from healer.ledger.ledger import Ledger
from healer.ledger.markers import workflow_key
from healer.model import (
    Action,
    Category,
    CheckPlan,
    Diagnosis,
    HealMode,
    Plan,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
)
from healer.run.commands import same_check
from healer.run.policy import acting, decide

_GRANTABLE = frozenset({SkipReason.EXHAUSTED, SkipReason.ALREADY_ATTEMPTED})
_RERUN_CATEGORIES = frozenset({Category.TRANSIENT, Category.INFRASTRUCTURE, Category.TIMEOUT})


def plan_retry(
    diagnoses: Mapping[str, Diagnosis],
    *,
    check: str | None,
    by: str,
    ledger: Ledger,
    config: Config,
    pull: PullRequest,
    run: RunEvent,
    passed: Iterable[str] = (),
    claim_id: int | None = None,
    now: datetime | None = None,
) -> Plan:
    """The plan for a retry of ``check`` (every failed check when None) granted by ``by``.

    ``passed`` is accepted for the caller's convenience and ignored: a retry resets nothing.
    """
    del passed
    ledger = ledger.in_workflow(workflow_key(run))  # the budget granted beyond is the run's workflow's
    wanted = {
        name: diagnosis for name, diagnosis in diagnoses.items() if check is None or same_check(name, check)
    }
    base = decide(wanted, ledger=ledger, config=config, pull=pull, run=run, claim_id=claim_id, now=now)
    granted = tuple(_grant(plan, by, ledger, config) for plan in base.checks)
    plan = Plan(checks=granted, notes=base.notes)
    if any(g is not b for g, b in zip(granted, base.checks, strict=True)):
        plan = _claimed(plan, ledger, run.head_sha, claim_id, now)
    return plan


def _grant(plan: CheckPlan, by: str, ledger: Ledger, config: Config) -> CheckPlan:
    if plan.verdict is not Verdict.ESCALATE and not (
        plan.verdict is Verdict.SKIP and plan.reason in _GRANTABLE
    ):
        return plan
    diagnosis = plan.diagnosis
    if diagnosis is None:
        return plan
    action = check_settings(config, plan.check).action or diagnosis.action
    who = f"granted by `{by}`"
    if action is Action.IGNORE or diagnosis.category is Category.CANCELLED:
        return plan
    flaky = all_known_flaky(diagnosis.test_ids, recorded=ledger.flaky_tests(), patterns=config.flaky_tests)
    if action in (Action.RERUN, Action.ESCALATE) or diagnosis.category in _RERUN_CATEGORIES or flaky:
        return replace(
            plan,
            verdict=Verdict.RERUN,
            reason=None,
            detail=f"A re-run {who}.",
            diagnose=False,
            flaky=diagnosis.test_ids if flaky else (),
        )
    mode = HealMode.FIX if action is Action.FIX and diagnosis.fix_commands else HealMode.AGENT
    if mode is HealMode.AGENT and not config.agent_command and config.delivery != "none":
        return replace(
            plan,
            verdict=Verdict.SKIP,
            reason=SkipReason.NOT_ACTIONABLE,
            detail="This failure needs the agent, and no `agent-command` is configured.",
        )
    attempt = ledger.attempts_spent(plan.check) + 1
    beyond = attempt > plan.max_attempts
    where = (
        f"{who} beyond the budget of {plan.max_attempts}"
        if beyond
        else f"asked for by `{by}`, within the budget of {plan.max_attempts}"
    )
    return replace(
        plan,
        verdict=Verdict.HEAL,
        reason=None,
        attempt=attempt,
        # the budget stretches to this attempt: the comment reads "attempt k of k"
        max_attempts=max(plan.max_attempts, attempt),
        mode=mode,
        detail=f"Heal attempt {attempt} ({mode.value}), {where}.",
    )


def _claimed(plan: Plan, ledger: Ledger, sha: str, claim_id: int | None, now: datetime | None) -> Plan:
    """``plan`` with its acting checks skipped when another run holds the commit (the rule of ``decide``)."""
    if not acting(plan):
        return plan
    winner = ledger.winning_claim(sha, claim_id=claim_id, now=now)
    if claim_id is None and winner is None:
        return plan
    if claim_id is not None and winner is not None and winner.comment_id == claim_id:
        return plan
    detail = f"Another healer run is acting on {sha[:7]}."
    checks = tuple(
        replace(
            c, verdict=Verdict.SKIP, reason=SkipReason.CLAIMED_ELSEWHERE, detail=detail, attempt=0, mode=None
        )
        if c.verdict in (Verdict.HEAL, Verdict.RERUN, Verdict.ESCALATE)
        else c
        for c in plan.checks
    )
    return Plan(checks=checks, notes=plan.notes)
