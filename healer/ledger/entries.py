"""The markers a run writes for what it does: an attempt, a re-run, an escalation or a diagnosis of a check
(:func:`record`), the claim on a commit before acting (:func:`claim_marker`, :func:`claim_body`), the resets
of checks that passed (:func:`reset_markers`) and a flaky test seen (:func:`flaky_marker`).

:mod:`.markers` is their format: how a marker is written into a comment, read back and signed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from healer.ledger.markers import Kind, Marker, Signer, comment_body, workflow_key
from healer.model import CheckPlan, RunEvent, Verdict

__all__ = ["UNTRIED", "claim_body", "claim_marker", "flaky_marker", "record", "reset_markers"]

UNTRIED = "untried"  # the result of an escalation with nothing tried: the pull request's short notice
_KIND_OF_VERDICT = {Verdict.HEAL: Kind.ATTEMPT, Verdict.RERUN: Kind.RERUN, Verdict.ESCALATE: Kind.ESCALATION}


def record(
    plan: CheckPlan,
    run: RunEvent,
    *,
    fix_pr: int | None = None,
    result: str = "",
    by: str = "",
    tokens: int = 0,
    learned: str = "",
    stopped: str = "",
    pushed: str = "",
) -> Marker | None:
    """The marker that records what was done about one check (None for a skip that posts nothing).

    ``result`` is a short word for the outcome: ``verified``, ``refused``, ``failed``…; ``stopped`` names the
    budget that stopped the agent (an attempt's result still says whether its change was delivered); an
    escalation with nothing tried (no fix rule, no agent) records ``untried``.
    """
    kind = _KIND_OF_VERDICT.get(plan.verdict) or (Kind.DIAGNOSIS if plan.diagnose else None)
    if kind is None:
        return None
    diagnosis = plan.diagnosis
    return Marker(
        kind,
        run.head_sha,
        plan.check,
        attempt=plan.attempt,
        run_id=run.run_id,
        run_attempt=run.run_attempt,
        category=diagnosis.category.value if diagnosis else "",
        mode=plan.mode.value if plan.mode else "",
        fix_pr=fix_pr,
        result=result or (UNTRIED if plan.untried and kind is Kind.ESCALATION else ""),
        tests=diagnosis.test_ids if diagnosis else (),
        by=by,
        workflow=workflow_key(run),
        tokens=tokens,
        learned=learned if kind is Kind.ATTEMPT else "",
        stopped=stopped if kind is Kind.ATTEMPT else "",
        pushed=pushed if kind is Kind.ATTEMPT else "",
    )


def flaky_marker(
    check: str, sha: str, tests: Sequence[str], run_id: int, run_attempt: int, workflow: str = ""
) -> Marker:
    """The record that ``tests`` of ``check`` failed on ``sha`` and passed when the same commit ran again."""
    return Marker(
        Kind.FLAKY, sha, check, run_id=run_id, run_attempt=run_attempt, tests=tuple(tests), workflow=workflow
    )


def claim_marker(sha: str, run_id: int, run_attempt: int) -> Marker:
    """The claim a run writes for the PR's head commit before acting."""
    return Marker(Kind.CLAIM, sha, run_id=run_id, run_attempt=run_attempt)


def claim_body(sha: str, run_id: int, run_attempt: int, text: str = "", signer: Signer | None = None) -> str:
    """The body of the claim comment (the run's one new comment, edited into its result afterwards)."""
    return comment_body([claim_marker(sha, run_id, run_attempt)], text, signer)


def reset_markers(
    checks: Iterable[str], sha: str, run_id: int, run_attempt: int, workflow: str = ""
) -> list[Marker]:
    """The ``reset`` markers for the checks of ``workflow`` that passed at the PR's head."""
    return [
        Marker(Kind.RESET, sha, check, run_id=run_id, run_attempt=run_attempt, workflow=workflow)
        for check in checks
    ]
