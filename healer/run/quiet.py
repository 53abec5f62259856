"""A run whose plan only re-runs: no claim, no created comment (a re-run that passes is not news).

A claim settles concurrent runs that would each heal, escalate or diagnose the same commit. A re-run needs
none: each run of a commit (a ``push`` and a ``pull_request`` trigger, say) re-runs its own jobs, and the
re-runs of (check, commit) are bounded by GitHub's own count (``run_attempt - 1``, :mod:`healer.run.policy`)
whatever the ledger holds. So the run re-runs at once, and records its ``rerun`` markers by editing the
healer's own latest comment on the pull request (an edit notifies nobody) when there is one, else nowhere.

What a missing marker costs, and what stands in for it:

- a redelivered event (the healer's workflow re-run on the same CI run) finds no marker that it acted: the
  run's latest attempt, read from GitHub, says that it was re-run already, and nothing is done twice;
- another run of the same commit does not wait for this re-run's result (``Ledger.pending_rerun``): it
  re-runs its own jobs, which its own ``run_attempt`` bounds;
- the failing tests of a re-run that passes are not recorded as flaky on that pull request, and the report
  does not count that re-run.

A re-run that fails again is news: its next failure escalates (a platform failure says it is not the pull
request's code) in a created comment, through a claim, as before. A re-run GitHub refuses (a run over 30
days old, 50 attempts, a disabled workflow) is an escalation too: it is created at once with the refusal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from healer.github import GitHubError
from healer.ledger.entries import reset_markers
from healer.ledger.fixrecords import is_fix_record
from healer.ledger.ledger import Kind, Ledger, Marker, comment_body
from healer.ledger.markers import workflow_key
from healer.model import CheckPlan, Comment, Plan, PullRequest, RunEvent, Verdict
from healer.run.context import RunContext
from healer.run.lifecycle import edit_resets, retire_passed, with_markers
from healer.run.notices import acting_only
from healer.text.frames import COMMENT_LIMIT
from healer.text.spans import code
from healer.text.tokens import scrub


class Done(Protocol):
    """What :func:`healer.run.acting.carry_out` returns (its ``Done``), as read here."""

    markers: list[Marker]
    text: Callable[[str], str]
    failure: Exception | None
    late: bool


# records whose comment a re-run's marker must not go into: notices that another stage rewrites or finds
# by their records alone (the broken-trunk notice, a startup failure's)
_NOT_INTO = frozenset({Kind.TRUNK, Kind.STARTUP})


def only_reruns(plan: Plan) -> list[CheckPlan]:
    """The plan's re-runs when they are all it acts on (no heal, escalation, diagnosis or notice); else []."""
    return acting_only(plan, lambda c: c.verdict is Verdict.RERUN and not c.diagnose)


def record_comment(ledger: Ledger, comments: Sequence[Comment]) -> Comment | None:
    """The healer's own comment a re-run's markers are added to: its newest comment with markers that no
    run is still writing (an unsettled claim), and that is not a notice another stage rewrites. The short
    notice of checks with nothing to try may take them (it ignores re-run markers). ``ledger`` is read from
    ``comments``: its entries are the markers it trusts (the bot's, signed), by comment."""
    kinds: dict[int, set[Kind]] = {}
    for entry in ledger.entries:
        kinds.setdefault(entry.comment_id, set()).add(entry.marker.kind)
    for comment in sorted(comments, key=lambda c: c.id, reverse=True):
        own = kinds.get(comment.id)
        if not own or own == {Kind.CLAIM} or ledger.held(comment.id) or is_fix_record(comment):
            continue
        return None if own & _NOT_INTO else comment
    return None


def rerun_quietly(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    ledger: Ledger,
    plan: Plan,
    comments: Sequence[Comment],
    carry: Callable[[], Done],
) -> None:
    """Re-run ``plan``'s checks without a claim; record them in an edit, or escalate what GitHub refused.

    ``carry`` is :func:`healer.run.acting.carry_out` bound to this run (it re-runs, turns refusals into
    escalations, labels, and renders the outcome)."""
    signer = ctx.signer(pr)
    into = record_comment(ledger, comments)
    if into is None:
        # no marker will say this run acted: GitHub's count of the run's attempts does
        latest = ctx.gh.run_attempt(event.run_id)
        if latest > event.run_attempt:
            ctx.skip(f"run {event.run_id} was re-run already (attempt {latest})")
            return
    done = carry()
    resets = plan.resets if into is not None or done.late else ()
    markers: list[Marker] = done.markers + reset_markers(
        resets, event.head_sha, event.run_id, event.run_attempt, workflow_key(event)
    )
    if done.late:
        # GitHub refused a re-run: an escalation, news that is created (a mention notifies only then)
        body = comment_body(markers, "", signer)
        text = scrub(done.text(body), ctx.config.github_token)
        ctx.gh.create_comment(pr.number, text)
    elif into is not None and markers:
        note = rerun_note(plan, [m.check for m in markers if m.kind is Kind.RERUN], event)
        body = with_markers(into.body, markers, note, signer)
        if len(body) <= COMMENT_LIMIT:
            ctx.gh.update_comment(into.id, scrub(body, ctx.config.github_token))
            ctx.note(f"recorded the re-run in the healer's comment {into.id} (edited: nobody is notified)")
        else:
            ctx.note("the re-run is not recorded: the healer's latest comment is full")
    else:
        ctx.note("the re-run is not recorded in a comment (none to edit); GitHub's run attempt counts it")
    if plan.resets and not resets:
        edit_resets(ctx, ledger, plan.resets, event, pr)  # a comment of their own, as without a re-run
    retire_passed(ctx, pr, ledger, resets, event)
    if done.failure is not None:
        raise done.failure


def rerun_note(plan: Plan, reran: Sequence[str], event: RunEvent) -> str:
    """The line a quiet re-run adds to the comment it edits (progress: an edit notifies nobody)."""
    if not reran:
        return ""
    keys = set(reran)
    flaky = [t for c in plan.checks if c.check in keys for t in c.flaky]
    run = f" ([run]({event.html_url}))" if event.html_url else ""
    why = f"; known flaky: {', '.join(map(code, flaky[:10]))}" if flaky else ""
    return (
        f":repeat: Re-ran {', '.join(map(code, reran))} on `{event.head_sha[:7]}`{run}{why}. "
        "The healer says more only if it fails again."
    )


def rerun(
    ctx: RunContext,
    event: RunEvent,
    reruns: list[CheckPlan],
    job_ids: Mapping[str, int],
    *,
    done_before: bool,
    failure: Exception | None = None,
) -> tuple[list[CheckPlan], list[CheckPlan], Exception | None]:
    """Re-run each check's own job (``rerun-failed-jobs`` would re-run every failed job, those being
    healed or escalated too). Returns the checks re-run, those GitHub refused to re-run (a run older than
    30 days, 50 attempts, a disabled workflow), turned into escalations that quote GitHub's reason, and the
    error to fail the step with afterwards (``failure`` unless it is None and a re-run failed).
    """
    done: list[CheckPlan] = []
    refused: list[CheckPlan] = []
    for check in reruns:
        job_id = job_ids.get(check.check)
        try:
            if job_id is None:
                ctx.gh.rerun_failed_jobs(event.run_id)
            else:
                ctx.gh.rerun_job(job_id)
        except GitHubError as exc:
            if exc.refused:
                ctx.note(f"could not re-run {code(check.check)}: {exc}")
                refused.append(replace(check, verdict=Verdict.ESCALATE, detail=f"{exc}."))
                continue
            if not done_before and not done:
                raise  # nothing was done yet: the claim is withdrawn and the next run starts clean
            # What happened before (a heal, a re-run) must reach the PR, or it would be done again;
            # the step fails afterwards with this error.
            failure = failure or exc
            ctx.note(f"could not re-run {code(check.check)}")
            continue
        done.append(check)
    return done, refused, failure
