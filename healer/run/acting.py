"""The acting stage of ``healer run``: the claim, then what the plan says: re-run, heal, diagnose, escalate.

:func:`act` receives the :class:`healer.run.planning.Planned` of the plan stage. It writes one claim
comment, re-reads the comments and re-plans (another run may have claimed the commit at the same moment),
acts only if its claim wins (:func:`carry_out`, which returns what was done as a :class:`Done`), and
settles the claim with the outcome. A ``/ci-healer retry`` acts with a :class:`Grant`.

The claim is the run's one created comment, the one that notifies (:mod:`healer.run.notices`): it is
written as the news (what failed, its decisive line, what the run does), and the outcome is an edit of it.
A run whose checks have nothing to try edits the pull request's notice instead, when there is one; a run
that only re-runs claims nothing and creates no comment (:mod:`healer.run.quiet`); a run that only heals into
a fix pull request claims its fix branch instead and records its attempt in the fix's body
(:mod:`healer.run.quietheal`). A run here that heals into a fix branch claims that branch too.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from healer.change.claim import Claim, Holder
from healer.change.workspace import GitError, Repo, StaleHeadError
from healer.config import Config
from healer.deliver.fixpr import DeliveryError
from healer.github import GitHubError
from healer.heal.agent import ProcessError
from healer.heal.attempt import HealResult, heal_note
from healer.heal.isolation import IsolationError
from healer.ledger.ledger import Ledger, Marker, claim_body, claim_marker, encode_marker, record
from healer.ledger.ledger import reset_markers as make_reset_markers
from healer.ledger.markers import Kind, workflow_key
from healer.ledger.memory import account_of
from healer.model import CheckPlan, Comment, Plan, PullRequest, RunEvent, Verdict
from healer.run.context import RunContext, check_bot_login
from healer.run.healing import category_of, heal_checks, heal_once, names, spent_tokens
from healer.run.learning import learned_markers, lesson_of_heal
from healer.run.lifecycle import edit_resets
from healer.run.notices import edit_notice, mention_of, only_untried, promise, untried_notice
from healer.run.planning import Planned, read_again
from healer.run.policy import acting
from healer.run.quiet import only_reruns, rerun, rerun_quietly
from healer.run.quietheal import claim_fix_branch, heal_quietly, heals_quietly, release, uses_fix_branch
from healer.text.frames import COMMENT_LIMIT, FrameError, HealNote, render_comment
from healer.text.report import SetupError
from healer.text.spans import code
from healer.text.tokens import scrub

FORK_NOTE = (
    "This pull request comes from a fork, so the healer does not run its code; here is what the log says."
)


@dataclass(frozen=True)
class Grant:
    """A ``/ci-healer retry``: who asked for the attempt, and the run whose claim this act writes (the
    command's own, so that its claim does not pass for the one the earlier run on the same CI run wrote)."""

    by: str
    claim_run: tuple[int, int]


@dataclass(frozen=True)
class Done:
    """What :func:`carry_out` did: the markers to record, the renderer of the final comment (given the
    marker block), the heal's account for the next attempt's memory, and an error to fail the step with
    once the comment is written."""

    markers: list[Marker]
    text: Callable[[str], str]
    account: str = ""
    failure: Exception | None = None
    # escalations the claim could not announce (GitHub refused a planned re-run): news that needs a
    # comment of its own when it mentions someone, since an edit notifies nobody
    late: bool = False
    fix: PullRequest | None = None  # the fix pull request the heal opened (or reused)


def act(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    planned: Planned,
    *,
    grant: Grant | None = None,
) -> None:
    """Claim the commit, re-plan under the claim, carry the plan out and settle the claim with the outcome."""
    plan, ledger = planned.plan, planned.ledger
    print_plan(ctx, plan)
    if not acting(plan):
        edit_resets(ctx, ledger, plan.resets, event, pr)
        ctx.outcome.decision = "skipped" if plan.checks else "none"
        return
    # checked before claiming: a missing checkout is a workflow mistake, not a failed attempt
    needs_checkout = bool(heal_checks(plan, pr, config)) and config.delivery != "none"
    if needs_checkout and not Repo(ctx.actions.workspace).is_repository():
        raise SetupError(
            f"GITHUB_WORKSPACE ({ctx.actions.workspace}) is not a git checkout: add a step "
            "`actions/checkout` (the default branch) before ci-healer"
        )
    untried = only_untried(plan) if grant is None else []
    notice = untried_notice(ledger, planned.comments, config, ctx.signer(pr)) if untried else None
    if notice is not None:
        edit_notice(ctx, event, pr, plan, notice)
        return
    if grant is None and only_reruns(plan):
        # a re-run that passes is not news: no claim, no created comment (healer.run.quiet)
        def carry() -> Done:
            return carry_out(
                ctx, event, pr, config, ledger, plan, planned.diagnosed.job_ids, planned.comments
            )

        rerun_quietly(ctx, event, pr, ledger, plan, planned.comments, carry)
        return
    if grant is None and heals_quietly(plan, pr, config):
        # a heal claims its fix branch, not a comment: nothing to do for anyone yet (healer.run.quietheal)
        def heal(ledger: Ledger, plan: Plan, comments: Sequence[Comment], lease: str) -> Done:
            job_ids = planned.diagnosed.job_ids
            return carry_out(ctx, event, pr, config, ledger, plan, job_ids, comments, lease=lease)

        def again(ledger: Ledger) -> Plan:
            return planned.again(ledger, config=config, pull=pr, run=event, now=ctx.started)

        heal_quietly(ctx, event, pr, config, again, lambda: read_again(ctx, pr, planned), heal)
        return
    identity = grant.claim_run if grant else (event.run_id, event.run_attempt)
    claim = ctx.gh.create_comment(
        pr.number,
        claim_body(event.head_sha, *identity, render_claim(ctx, event, pr, config, plan), ctx.signer(pr)),
    )
    try:
        # with another identity the healer would never see its own markers (and could never count or
        # claim): say which login to set instead of looping
        check_bot_login(claim.author, config, does="comments", own="comments")
    except SetupError:
        with contextlib.suppress(GitHubError):
            ctx.gh.delete_comment(claim.id)
        raise
    fix_claim: Claim | None = None
    try:
        # Re-read and re-plan: another run may have claimed the commit at the same moment.
        comments = read_again(ctx, pr, planned)  # also what earlier attempts left (memory)
        ledger = Ledger.from_comments(
            comments, config.bot_login, ctx.signer(pr), workflow=workflow_key(event)
        )
        plan = planned.again(ledger, config=config, pull=pr, run=event, claim_id=claim.id)
        ctx.outcome.plan = plan
        if not acting(plan):
            ctx.gh.delete_comment(claim.id)
            for note in plan.notes:
                ctx.reporter.warning(note)
            ctx.skip(f"another run is already acting on {event.head_sha[:7]}")
            return
        if heal_checks(plan, pr, config) and uses_fix_branch(pr, config):
            # the fix branch is claimed too: a quiet heal of the same commit claims nothing else. A retry
            # replaces the fix of its commit (its branch exists) by a compare-and-swap from what it read, and
            # never a run's live claim
            got = claim_fix_branch(ctx, event, pr, config, identity, over_work=grant is not None)
            if isinstance(got, Holder):
                ctx.gh.delete_comment(claim.id)
                ctx.skip(f"another run is acting on {event.head_sha[:7]}: {got.describe()}")
                return
            fix_claim = got
        lease = fix_claim.sha if fix_claim else ""
        job_ids = planned.diagnosed.job_ids
        done = carry_out(ctx, event, pr, config, ledger, plan, job_ids, comments, grant, lease=lease)
        if fix_claim is not None and done.fix is None:
            release(ctx, config, fix_claim)
        markers = done.markers + make_reset_markers(
            plan.resets, event.head_sha, event.run_id, event.run_attempt, workflow_key(event)
        )
    except StaleHeadError as exc:
        ctx.gh.delete_comment(claim.id)
        _release(ctx, config, fix_claim)
        ctx.skip(f"stale head: {exc}")
        return
    except BaseException:
        # An unfinished claim would hold this commit; drop it so a later run can act.
        with contextlib.suppress(GitHubError):
            ctx.gh.delete_comment(claim.id)
        _release(ctx, config, fix_claim)
        raise
    block = "\n".join(
        encode_marker(m, ctx.signer(pr)) for m in [claim_marker(event.head_sha, *identity), *markers]
    )
    if done.account:
        block += "\n" + done.account  # right under the markers: the next attempt's memory
    # scrubbed once more as a whole: the comment quotes agent notes, verification output and patches
    posted = ctx.scrubbed(done.text(block), config)
    if done.late and config.escalation_mention:
        # GitHub notifies a mention only when the comment is created, not when an edit adds it: an
        # escalation the claim did not announce goes into a new comment (its markers settle the claim),
        # then the claim is withdrawn. Planned escalations were announced, mention included, by the claim.
        ctx.gh.create_comment(pr.number, posted)
        with contextlib.suppress(GitHubError):
            ctx.gh.delete_comment(claim.id)
    else:
        ctx.gh.update_comment(claim.id, posted)
    if done.failure is not None:
        raise done.failure  # recorded and reported on the PR; now fail the step so a person looks


def _release(ctx: RunContext, config: Config, claim: Claim | None) -> None:
    if claim is not None:
        release(ctx, config, claim)  # never raises (BranchLock.release)


def render_claim(ctx: RunContext, event: RunEvent, pr: PullRequest, config: Config, plan: Plan) -> str:
    """The claim as the news: the checks it heals, each with its decisive line, and what follows; the
    re-runs, diagnoses and escalations as the outcome will say them (GitHub notifies on this text only)."""
    escalations = [c for c in plan.checks if c.verdict is Verdict.ESCALATE]
    return render_comment(
        ctx.frames,
        state="claim",
        head_sha=event.head_sha,
        run_url=event.html_url,
        markers="",
        healing=heal_checks(plan, pr, config),
        promise=promise(pr, config.delivery),
        reruns=[c for c in plan.checks if c.verdict is Verdict.RERUN],
        diagnoses=[c for c in plan.checks if c.diagnose],
        escalations=escalations,
        mention=mention_of(config, escalations),
        diagnosis_note=FORK_NOTE,
        opt_out_label=config.opt_out_label,
        workflow=event.workflow_name,
    )


def carry_out(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    ledger: Ledger,
    plan: Plan,
    job_ids: Mapping[str, int],
    comments: Sequence[Comment],
    grant: Grant | None = None,
    lease: str = "",
) -> Done:
    """Do what the plan says (the heal first, then re-runs, diagnoses, escalations); ``lease``: this run's
    claim on the fix branch (:mod:`healer.change.claim`)."""
    heals = heal_checks(plan, pr, config)
    if grant is not None:
        # a granted attempt stretches the budget to its number, so the texts read "attempt k of k"
        stretched = max((c.max_attempts for c in heals), default=0)
        if stretched > config.max_attempts:
            config = replace(config, max_attempts=stretched)
    sha = event.head_sha
    markers: list[Marker] = []
    decision = "skipped"
    failure: Exception | None = None
    account = ""
    # The heal goes first: if the branch moved on meanwhile (stale head), nothing else has happened yet.
    note: HealNote | None = None
    delivered = None
    if heals:
        try:
            result = heal_once(ctx, event, pr, config, ledger, heals, comments, lease=lease)
        except StaleHeadError:
            raise  # the branch moved on: nothing was done, the claim is withdrawn
        except (GitError, ProcessError, IsolationError, DeliveryError, GitHubError, FrameError) as exc:
            # The attempt is spent (it may have half-happened); record it, then fail the step.
            failure = exc
            result = HealResult(False, why_not=f"the heal failed: {scrub(str(exc), config.github_token)}")
        note = heal_note(result, heals, config)
        delivered = result.delivery
        fix_pr = result.delivery.pull.number if result.delivery and result.delivery.pull else None
        # the fix branch's head as the healer pushed it: only a branch still there is its own work
        pushed = result.delivery.commit.lower() if fix_pr is not None and result.delivery else ""
        word = "failed" if failure else result.result
        lesson = lesson_of_heal(result, heals)  # what a verified agent heal learned (healer.run.learning)
        account = account_of(result, heals, sha, word, fix_pr, lesson=lesson)
        stopped = result.spend.stopped if result.spend is not None else ""
        records = _records(
            heals,
            event,
            fix_pr=fix_pr,
            result=word,
            tokens=spent_tokens(result),
            stopped=stopped,
            pushed=pushed,
        )
        markers += learned_markers(records, lesson)
        # `healed` promises a delivered change (or a frame handed on with delivery: none); a refused or
        # empty change spent the attempt but delivered nothing, so a later step must not look for one.
        if result.delivered or result.result == "framed":
            decision = "healed"
        ctx.outcome.attempt = max(c.attempt for c in heals)
        ctx.outcome.category = category_of(heals[0])
    reruns = [c for c in plan.checks if c.verdict is Verdict.RERUN]
    reruns, refused, failure = rerun(ctx, event, reruns, job_ids, done_before=bool(heals), failure=failure)
    escalations = [*(c for c in plan.checks if c.verdict is Verdict.ESCALATE), *refused]
    diagnoses = [c for c in plan.checks if c.diagnose]
    if reruns:
        markers += _records(reruns, event)
        ctx.note(f"re-ran the job of {names(reruns)}")
        if decision == "skipped":
            decision = "rerun"
    markers += _records(diagnoses, event)
    if diagnoses:
        ctx.note(f"posted the diagnosis of {names(diagnoses)} (fork: no code was run)")
    if escalations:
        markers += _records(escalations, event)
        if config.escalation_label and any(not c.untried for c in escalations):
            try:
                ctx.gh.add_labels(pr.number, [config.escalation_label])
            except GitHubError as exc:
                # The label only decorates the escalation: the comment (and any heal's record in it)
                # must still be written; the step fails afterwards with the label's error.
                failure = failure or exc
                ctx.note(f"could not add the label `{config.escalation_label}`")
        ctx.note(f"escalated {names(escalations)}")
        if decision == "skipped":
            decision = "escalated"
    ctx.outcome.decision = decision
    if not ctx.outcome.category:
        first = (reruns or escalations or diagnoses)[:1]
        ctx.outcome.category = category_of(first[0]) if first else ""

    def text(block: str) -> str:
        return render_comment(
            ctx.frames,
            state="done",
            head_sha=sha,
            run_url=event.html_url,
            markers=block,
            reruns=reruns,
            heal=note,
            diagnoses=diagnoses,
            escalations=escalations,
            mention=mention_of(config, escalations),
            diagnosis_note=FORK_NOTE,
            opt_out_label=config.opt_out_label,
            workflow=event.workflow_name,
        )

    late = bool(refused)
    fix = delivered.pull if delivered is not None else None
    if grant is None:
        return Done(markers, text, account, failure, late, fix)
    return Done(*_granted(markers, text, grant.by), account, failure, late, fix)


def _granted(
    markers: list[Marker], text: Callable[[str], str], by: str
) -> tuple[list[Marker], Callable[[str], str]]:
    """The markers of a granted attempt or re-run name who asked; so does the comment, room permitting."""
    granted = [replace(m, by=by) if m.kind in (Kind.ATTEMPT, Kind.RERUN) else m for m in markers]
    line = f"\n\nAsked for with `/ci-healer retry` by {code(by)}."

    def with_grant(block: str) -> str:
        body = text(block)
        return body + line if len(body) + len(line) <= COMMENT_LIMIT else body

    return granted, with_grant


def print_plan(ctx: RunContext, plan: Plan) -> None:
    for c in plan.checks:
        why = f" [{c.reason.value}]" if c.reason else ""
        ctx.say(f"{c.check!r}: {c.verdict.value}{why} {c.detail}".rstrip())
    if plan.resets:
        ctx.say(f"resets: {', '.join(plan.resets)}")


def decision_of(plan: Plan, *, healed: bool) -> str:
    """What a dry run's plan would have decided."""
    verdicts = {c.verdict for c in plan.checks}
    if healed:
        return "healed"
    if Verdict.RERUN in verdicts:
        return "rerun"
    if Verdict.ESCALATE in verdicts:
        return "escalated"
    return "skipped" if plan.checks else "none"


def _records(plans: Sequence[CheckPlan], event: RunEvent, **extra: Any) -> list[Marker]:
    """The ledger markers that record what was done about ``plans``."""
    return [m for m in (record(p, event, **extra) for p in plans) if m is not None]
