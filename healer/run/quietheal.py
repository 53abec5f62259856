"""A run whose plan only heals: it claims its fix branch instead of writing a comment, and tells a person
only what they must act on.

A claim comment would notify the pull request's author when there is nothing to do yet (GitHub notifies on a
created comment), so such a run claims the fix branch ``ci-healer/<pr>-<sha7>`` with one atomic push
(:mod:`healer.change.claim`), re-reads the ledger and re-plans under that claim, and heals (the fix replaces
the claim by a compare-and-swap). What it leaves:

- **a fix pull request**: its markers and the account for the next attempt go at the top of the fix pull
  request's body (:mod:`healer.ledger.fixrecords`); nothing is created on the pull request. The fix asks for
  its review itself, once, when it is ready (at once, or when its CI passes: :mod:`healer.run.proving`), and a
  red CI is a comment on the pull request;
- **nothing delivered** (no change, the guard refused it, the heal failed): the outcome is a comment created
  on the pull request, since the failure stands and the healer will not try this commit again, which is
  something for a person to do; then the claim is deleted.

A plan that also re-runs, escalates or diagnoses, a fork's pull request (its change comes as suggestions), a
delivery other than ``pull-request`` and a ``/ci-healer retry`` keep the claim comment
(:mod:`healer.run.acting`): their comment carries news anyway. When such a run heals into a fix branch, it
claims the branch too (:func:`claim_fix_branch`), so that two runs of a commit never both deliver.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Protocol

from healer.change.claim import BranchLock, Claim, Holder
from healer.change.workspace import Repo, StaleHeadError, identity_for
from healer.config import Config
from healer.github import GitHubError
from healer.ledger.ledger import CLAIM_TTL, Ledger, Marker, Signer, comment_body, encode_marker, reset_markers
from healer.ledger.markers import workflow_key
from healer.model import Comment, Plan, PullRequest, RunEvent, Verdict, fix_branch
from healer.run.context import RunContext, check_bot_login
from healer.run.healing import heal_checks
from healer.run.policy import acting
from healer.text.head import split_head
from healer.text.markdown import COMMENT_LIMIT


class Done(Protocol):
    """What :func:`healer.run.acting.carry_out` returns (its ``Done``), as read here."""

    markers: list[Marker]
    text: Callable[[str], str]
    account: str
    failure: Exception | None
    fix: PullRequest | None


def heals_quietly(plan: Plan, pr: PullRequest, config: Config) -> bool:
    """Whether the run claims its fix branch instead of a comment: every check it acts on is healed into a
    fix pull request of this repository."""
    acts = acting(plan)
    return (
        bool(acts)
        and all(c.verdict is Verdict.HEAL and not c.diagnose for c in acts)
        and len(heal_checks(plan, pr, config)) == len(acts)
        and uses_fix_branch(pr, config)
    )


def uses_fix_branch(pr: PullRequest, config: Config) -> bool:
    """Whether a heal of ``pr`` delivers through a fix branch of this repository."""
    return config.delivery == "pull-request" and not pr.is_fork


def lock_of(ctx: RunContext, config: Config) -> BranchLock:
    return BranchLock(
        Repo(ctx.actions.workspace),
        token=ctx.config.github_token,
        server_url=ctx.actions.server_url,
        identity=identity_for(config.bot_login),
    )


def claim_fix_branch(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    run: tuple[int, int],
    *,
    over_work: bool = False,
) -> Claim | Holder:
    """Claim the fix branch of ``event``'s commit for ``run`` (see :mod:`healer.change.claim`);
    ``over_work``: an earlier attempt's fix there may be replaced (a granted retry)."""
    branch = fix_branch(pr.number, event.head_sha)
    now = datetime.now(timezone.utc)
    lock = lock_of(ctx, config)
    got = lock.claim(branch, head_sha=event.head_sha, run=run, now=now, ttl=CLAIM_TTL, over_work=over_work)
    if isinstance(got, Claim) and got.kept:
        ctx.say(f"leased {branch} at {got.sha[:7]}, an earlier fix this attempt replaces")
    elif isinstance(got, Claim):
        replaced = f", replacing {got.replaced[:7]}" if got.replaced else ""
        ctx.say(f"claimed {branch} ({got.sha[:7]}{replaced})")
    return got


def release(ctx: RunContext, config: Config, claim: Claim) -> None:
    """Delete the run's claim if it is still the branch's head (a fix that replaced it stays)."""
    if lock_of(ctx, config).release(claim):
        ctx.say(f"released {claim.branch}")


def heal_quietly(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    again: Callable[[Ledger], Plan],
    read: Callable[[], Sequence[Comment]],
    carry: Callable[[Ledger, Plan, Sequence[Comment], str], Done],
) -> None:
    """Claim the fix branch, re-plan under the claim (``again``, from the ledger ``read`` returns), heal
    (``carry``: :func:`healer.run.acting.carry_out` bound to this run, given the lease) and record."""
    got = claim_fix_branch(ctx, event, pr, config, (event.run_id, event.run_attempt))
    if isinstance(got, Holder):
        ctx.skip(f"another run is acting on {event.head_sha[:7]}: {got.describe()}")
        return
    try:
        comments = read()
        signer = ctx.signer(pr)
        ledger = Ledger.from_comments(comments, config.bot_login, signer, workflow=workflow_key(event))
        plan = again(ledger)
        ctx.outcome.plan = plan
        if not heals_quietly(plan, pr, config):
            release(ctx, config, got)
            for note in plan.notes:
                ctx.reporter.warning(note)
            ctx.skip(f"another run acted on {event.head_sha[:7]} meanwhile")
            return
        done = carry(ledger, plan, comments, got.sha)
    except StaleHeadError as exc:
        release(ctx, config, got)
        ctx.skip(f"stale head: {exc}")
        return
    except BaseException:
        release(ctx, config, got)  # never raises: a claim it could not delete expires (CLAIM_TTL)
        raise
    signer = ctx.signer(pr)
    markers = done.markers + reset_markers(
        plan.resets, event.head_sha, event.run_id, event.run_attempt, workflow_key(event)
    )
    if done.fix is not None:
        body = fix_body(done.fix.body, markers, done.account, signer)
        body = ctx.scrubbed(body, config)
        try:
            ctx.gh.update_pull(done.fix.number, body=body)
            ctx.note(f"recorded the attempt in fix #{done.fix.number}'s body (nobody is notified)")
        except GitHubError as exc:
            # the fix stands; only its record is missing (the branch still holds the commit: not healed twice)
            ctx.reporter.warning(f"could not record the attempt in fix #{done.fix.number}: {exc}")
            raise
        # the ledger would never read this record (the fix branch still keeps the commit from being healed
        # twice): say which login to set
        check_bot_login(done.fix.author, config, does="opens pull requests", own="records")
    else:
        block = "\n".join(encode_marker(m, signer) for m in markers)
        if done.account:
            block += "\n" + done.account  # right under the markers: the next attempt's memory
        posted = ctx.scrubbed(done.text(block), config)
        ctx.gh.create_comment(pr.number, posted)  # the failure stands: a person's to fix
        # released once recorded: a run that cannot record leaves the commit claimed (six hours), not open
        # to the same heal again
        release(ctx, config, got)
    if done.failure is not None:
        raise done.failure


def fix_body(body: str, markers: Sequence[Marker], account: str, signer: Signer | None) -> str:
    """The fix pull request's body with the attempt's records at its top (the account right under the
    markers), within GitHub's limit: the account is dropped before any marker."""
    head, text = split_head(body)
    block = comment_body(markers, "", signer)
    lines = [line for line in (head, block) if line]
    for with_account in (True, False):
        top = "\n".join([*lines, account] if with_account and account else lines)
        joined = f"{top}\n\n{text}" if text else top
        if len(joined) <= COMMENT_LIMIT:
            return joined
    return f"{top}\n\n{text[: max(0, COMMENT_LIMIT - len(top) - 2)]}"
