"""A run of a CI workflow on one of the healer's fix branches: the fix pull request's verdict, never a heal.

A fix branch's CI finishes as any run does, with a ``workflow_run`` event: a run the healer dispatched
(:mod:`healer.deliver.proof`, ``event: workflow_dispatch``) or, with a token whose pushes start workflows, the
fix pull request's own ``pull_request`` run. This stage

1. trusts only a branch of this repository named ``ci-healer/<pr>-<sha7>`` whose open pull request the bot
   opened, at the commit the run tested, and named by an attempt marker in the bot's comments on ``<pr>``
   (a fork's branch or a person's pull request of the same name is left alone);
2. reads the verdict: ``success`` passed; ``failure`` and ``timed_out`` failed, and ``cancelled`` when a job
   hit its time limit (GitHub ends those ``cancelled``), each failed job diagnosed as in any run (its
   decisive line); anything else (cancelled by a person or a newer push, skipped, a startup failure) is no
   verdict, and a fix still waiting for its first verdict says, first, that its CI ended without checking it
   and to run it again;
3. rewrites the CI line of the fix PR's body, and marks a draft fix PR ready for review once the workflow
   whose failure it healed passed there (and no other workflow failed at that commit), but only when that
   commit is the one the healer pushed (recorded in the attempt's marker, signed with ``ledger-key``): a
   branch that holds someone else's commits is never marked ready, and its CI line says so;
4. adds a ``proof`` marker and a line to the attempt's comment; a failure also goes into the attempt's
   memory, so the next attempt (``/ci-healer retry``, a new commit) starts from it;
5. posts one new comment on the pull request only when what a person waits on changed (the fix passed, or
   failed, where it had not before), the news in its first line.

Requests: the fix PR (1), the pull request's comments (1 or more pages), for a failure the config file, the
jobs and their logs, then the fix PR's body (1), marking it ready (1, GraphQL), the attempt's comment (1), and
the news (0 or 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from healer.deliver.fixpr import ask_review
from healer.github import GitHubError
from healer.ledger.fixrecords import as_record, is_fix_record
from healer.ledger.markers import Kind, Marker, Signer, add_markers, check_key, decode_markers, workflow_key
from healer.ledger.memory import with_why
from healer.ledger.stats import latest_verdicts
from healer.model import Comment, PullRequest, RunEvent, fix_branch_target, is_fix_branch
from healer.run.context import RunContext
from healer.run.planning import CancelledRun, diagnose, load_repository_config, read_cancelled_run
from healer.text.fixstate import (
    awaits_verdict,
    cancelled_line,
    cancelled_state_line,
    is_failed_news,
    no_verdict_line,
    no_verdict_state_line,
    with_fix_state,
    with_later_pass,
)
from healer.text.proof import (
    Failure,
    attempt_note,
    failed_line,
    is_waiting,
    memory_note,
    news_comment,
    not_ours_line,
    passed_line,
    run_url,
    state_line,
    state_title,
    unasked,
    with_ci_line,
    with_state_line,
)
from healer.text.spans import code

# `cancelled` is a verdict only when a job hit its time limit (GitHub ends those `cancelled`): read below
_VERDICTS = {"success": True, "failure": False, "timed_out": False, "cancelled": False}
# ends that check nothing, which a fix waiting for that run says (it would wait for good otherwise)
_NO_VERDICT = ("startup_failure", "skipped")


@dataclass(frozen=True)
class Attempt:
    """The bot's comment on the pull request that records the attempt which opened the fix PR."""

    comment: Comment
    marker: Marker  # the attempt marker naming the fix PR
    checks: tuple[str, ...]  # the checks that attempt healed (one marker each)
    proofs: tuple[Marker, ...]  # the fix PR's CI verdicts recorded so far, oldest first


def is_fix_run(event: RunEvent) -> bool:
    """Whether the run tested one of the healer's branches (it is then never healed)."""
    return is_fix_branch(event.head_branch)


def on_fix_branch(ctx: RunContext, event: RunEvent) -> None:
    """Record the verdict of a fix branch's CI run (see the module's docstring)."""
    branch = event.head_branch
    number = fix_branch_target(branch)
    if event.is_fork or event.head_repository.casefold() != event.repository.casefold():
        ctx.skip(f"a fork's branch named like a fix branch ({code(branch)}) is not one of the healer's")
        return
    if number is None:
        ctx.skip(f"{code(branch)} is one of the healer's branches, not a fix branch: nothing to record")
        return
    passed = _VERDICTS.get(event.conclusion or "")
    if passed is None and event.conclusion not in _NO_VERDICT:
        ctx.skip(f"the fix branch's run ended {event.conclusion!r}: not a verdict on the fix")
        return
    owner = event.repository.partition("/")[0]
    fixes = [
        p
        for p in ctx.gh.list_pulls(head=f"{owner}:{branch}", state="open")
        if not p.is_fork and p.head_ref == branch
    ]
    bot = ctx.config.bot_login.strip().casefold()
    fix = next((p for p in fixes if p.author.casefold() == bot), None)
    if fix is None:
        ctx.skip(f"no open pull request of the healer has the branch {code(branch)}")
        return
    ctx.outcome.pr = fix
    if fix.head_sha.lower() != event.head_sha.lower():
        ctx.skip(f"fix #{fix.number} is now at {fix.head_sha[:7]}; the run tested {event.head_sha[:7]}")
        return
    comments = ctx.gh.list_comments(number, authors=[ctx.config.bot_login])
    signer = Signer.for_pull(ctx.config.ledger_key, event.repository, number)
    # a quiet heal recorded its attempt at the top of the fix's own body (healer.ledger.fixrecords)
    attempt = _find_attempt([*comments, as_record(fix)], fix.number, signer)
    if attempt is None:
        ctx.skip(f"no attempt of the healer on #{number} names #{fix.number}: not a fix of the healer")
        return
    if any(p.run == (event.run_id, event.run_attempt) for p in attempt.proofs):
        ctx.skip(f"the verdict of run {event.run_id} on #{fix.number} is on record already")
        return
    if passed is None:
        _ended_unchecked(ctx, event, fix, attempt)  # startup_failure, skipped: nothing was checked
        return
    failures: tuple[Failure, ...] = ()
    if not passed:
        cancelled = read_cancelled_run(ctx, event) if event.conclusion == "cancelled" else None
        if event.conclusion == "cancelled" and cancelled is None:
            # cancelled by a person, a newer push or a concurrency group: not a verdict (it said so)
            _ended_unchecked(ctx, event, fix, attempt)
            return
        failures = _failures(ctx, event, cancelled)
    record(ctx, event, fix, number, attempt, passed, failures, signer, comments=comments)


def record(
    ctx: RunContext,
    event: RunEvent,
    fix: PullRequest,
    number: int,
    attempt: Attempt,
    passed: bool,
    failures: tuple[Failure, ...],
    signer: Signer | None,
    *,
    comments: Sequence[Comment] = (),
) -> None:
    """Write the verdict where people look (steps 3 to 5 of the module's docstring). ``comments``: the
    healer's comments on the pull request, where a red verdict's news may wait for a later pass."""
    url = run_url(ctx.actions.server_url, event.repository, event.run_id)
    name = event.workflow_name or event.workflow_path
    workflow = check_key(workflow_key(event))
    verdict = "passed" if passed else "failed"
    proof = Marker(
        Kind.PROOF,
        event.head_sha,
        attempt.marker.check,
        attempt=attempt.marker.attempt,
        run_id=event.run_id,
        run_attempt=event.run_attempt,
        category=attempt.marker.category,
        fix_pr=fix.number,
        result=verdict,
        workflow=workflow,
    )
    before = fix_state(attempt.proofs, event.head_sha, attempt.marker.workflow)
    after = fix_state((*attempt.proofs, proof), event.head_sha, attempt.marker.workflow)
    pushed = attempt.marker.pushed
    ours = bool(pushed) and pushed == event.head_sha.lower()
    ready_now = after == "ready" and ours
    ctx.outcome.category = attempt.marker.category
    ctx.note(f"CI of fix #{fix.number} ({code(name)}, run {event.run_id}): {verdict}")
    ctx.outcome.headline = f"the CI of fix #{fix.number} {verdict}"
    if ctx.dry_run:
        ctx.outcome.decision = "none"
        return
    waited = is_waiting(fix.body)  # the healer started this CI and asked nobody yet
    not_ready = ""
    if ready_now and fix.draft:
        try:
            ctx.gh.mark_ready_for_review(fix.node_id, fix.number)
            ctx.note(f"marked fix #{fix.number} ready for review")
        except GitHubError as exc:
            not_ready = str(exc)
            ctx.reporter.warning(f"could not mark fix #{fix.number} ready for review: {exc}")
    ready = ready_now and not not_ready
    line = (
        passed_line(name, url, ready=ready and fix.draft, refused=bool(not_ready))
        if passed
        else failed_line(name, url, failures)
    )
    if not ours:
        line = not_ours_line(line, event.head_sha, pushed)
        ctx.note(
            f"fix #{fix.number} is at {event.head_sha[:7]}, not the commit the healer pushed: not marked"
        )
    decided = after in ("ready", "failed")  # a verdict a person waits on (passed where it healed, or failed)
    asks = ours and after == "ready" and after != before  # the verdict that asks for a review, once
    if waited and not asks:
        line = unasked(line)  # a red verdict tells; the green one after it still has someone to ask
    settled = decided or not ours  # the fix's state, said first where people look
    changes: dict[str, str] = {}
    fix_body = fix.body
    if settled:
        title = state_title(fix.title, passed)
        changes = {"title": title} if title != fix.title else {}
        fix_body = with_ci_line(fix.body, line, first=True)
    elif not waited:
        fix_body = with_ci_line(fix.body, line)
    if is_fix_record(attempt.comment):
        # the attempt's record is the fix's own body: one edit says the verdict and records it
        fix_body = add_markers(fix_body, [proof], signer=signer)
        if not passed:
            fix_body = with_why(fix_body, memory_note(fix.number, name, event.run_id, failures))
    if fix_body != fix.body or changes:
        ctx.gh.update_pull(fix.number, body=fix_body, **changes)
    if not is_fix_record(attempt.comment):
        note = attempt_note(fix.number, name, url, passed, failures)
        if not ours:
            note += (
                f" It tested {code(event.head_sha[:7])}, which ci-healer cannot vouch for as its own commit."
            )
        body = add_markers(attempt.comment.body, [proof], note, signer)
        if settled:
            shown = state_line(fix.number, name, url, passed=passed, ready=ready, ours=ours, marked=fix.draft)
            body = with_state_line(body, shown)
            body = with_fix_state(body, "not-ours" if not ours else verdict)
        if not passed:
            body = with_why(body, memory_note(fix.number, name, event.run_id, failures))
        ctx.gh.update_comment(attempt.comment.id, body)
    if not ours or after == before or not decided:
        pass  # nothing a person waits on changed through the healer's work: edits only
    elif after == "ready" and not waited:
        ctx.note(f"#{number}'s author was asked when fix #{fix.number} opened: its passing CI is no news")
    else:
        _tell(ctx, fix, number, attempt, name, url, passed=passed, ready=ready, failures=failures)
    if passed and ours:
        # the news of an earlier red verdict of this fix says what came since (an edit: nobody is told again)
        for news in comments:
            if is_failed_news(news.body, fix.number):
                ctx.gh.update_comment(news.id, with_later_pass(news.body, fix.number, name, url))
    ctx.outcome.decision = "none"
    ctx.note(f"fix pull request: {fix.html_url}")


def _ended_unchecked(ctx: RunContext, event: RunEvent, fix: PullRequest, attempt: Attempt) -> None:
    """The CI the fix waits for ended without checking it (cancelled before it finished, or it could not start
    or was skipped): its first line and the attempt's comment say so, and what a person can do (run it
    again); edits only, nobody is asked or told. A fix whose CI line holds a verdict keeps it: a run that
    checked nothing changes nothing that was checked."""
    if ctx.dry_run or not awaits_verdict(fix.body):
        ctx.outcome.decision = "skipped"
        return
    url = run_url(ctx.actions.server_url, event.repository, event.run_id)
    name = event.workflow_name or event.workflow_path
    ended = event.conclusion or ""
    if ended == "cancelled":
        line, state = cancelled_line(name, url, fix.draft), cancelled_state_line(fix.number, name, url)
    else:
        line = no_verdict_line(name, url, ended, fix.draft)
        state = no_verdict_state_line(fix.number, name, url, ended)
    ctx.gh.update_pull(fix.number, body=with_ci_line(fix.body, unasked(line), first=True))
    if not is_fix_record(attempt.comment):
        # an attempt recorded in a comment (a retry's) says it there too; one recorded in the fix's own body
        # was just told by its CI line
        fix_line = "cancelled" if ended == "cancelled" else "no-verdict"
        body = with_fix_state(with_state_line(attempt.comment.body, state), fix_line)
        ctx.gh.update_comment(attempt.comment.id, body)
    ctx.note(f"the CI of fix #{fix.number} ended {ended!r} without a verdict: its first line says so")
    ctx.outcome.decision = "none"


def _tell(
    ctx: RunContext,
    fix: PullRequest,
    number: int,
    attempt: Attempt,
    name: str,
    url: str,
    *,
    passed: bool,
    ready: bool,
    failures: tuple[Failure, ...],
) -> None:
    """The one notification of a fix's verdict: for a fix that passed the CI it waited for, the review
    request of the pull request's author (or the mention GitHub's refusal calls for); for one that failed, or
    whose author cannot be asked, a comment on the pull request with the news first."""
    if passed:
        try:
            pull = ctx.gh.get_pull(number)
        except GitHubError:
            pull = None
        asked = ask_review(ctx.gh, fix, pull, attempt.checks, draft=not ready) if pull is not None else ""
        if asked:
            ctx.note(f"asked #{number}'s author to review fix #{fix.number} ({asked}): it passed CI")
            return
    text = news_comment(
        fix.number, attempt.checks, name, url, passed=passed, ready=ready, failures=failures, marked=fix.draft
    )
    ctx.gh.create_comment(number, text)
    ctx.note(f"told #{number}: its fix {'passed' if passed else 'failed'} CI")


def fix_state(proofs: tuple[Marker, ...], head_sha: str, healed_workflow: str) -> str:
    """What a person waits on for a fix at ``head_sha``: ``failed`` when the latest verdict of any workflow
    failed there, ``ready`` when the workflow whose failure it healed passed there (any workflow, for attempts
    recorded before markers named it), else ``pending``. ``proofs`` are in the order they were recorded."""
    latest = latest_verdicts(proofs, head_sha)
    if "failed" in latest.values():
        return "failed"
    passed = latest.get(healed_workflow) == "passed" if healed_workflow else "passed" in latest.values()
    return "ready" if passed else "pending"


def _find_attempt(comments: list[Comment], fix_pr: int, signer: Signer | None) -> Attempt | None:
    """The newest attempt that names ``fix_pr`` (a retry reuses its commit's fix pull request: its attempt,
    recorded in a comment, is newer than the one at the top of the fix's body)."""
    found: list[tuple[int, int, Attempt]] = []
    for order, comment in enumerate(comments):
        markers = decode_markers(comment.body, signer)
        mine = [m for m in markers if m.kind is Kind.ATTEMPT and m.fix_pr == fix_pr]
        if mine:
            proofs = tuple(m for m in markers if m.kind is Kind.PROOF and m.fix_pr == fix_pr)
            attempt = Attempt(comment, mine[0], tuple(dict.fromkeys(m.check for m in mine)), proofs)
            found.append((mine[0].attempt, order, attempt))
    return max(found, key=lambda f: (f[0], f[1]))[2] if found else None


def _failures(ctx: RunContext, event: RunEvent, cancelled: CancelledRun | None) -> tuple[Failure, ...]:
    """Each failed job of the run (or job stopped by its time limit) and its decisive line, diagnosed as any
    run's (never healed)."""
    config = load_repository_config(ctx, event)
    diagnosed = diagnose(ctx, event, config, cancelled)
    found = []
    for check, diagnosis in diagnosed.diagnoses.items():
        lines = diagnosis.decisive or diagnosis.excerpt[-1:]
        found.append(Failure(check, lines[0] if lines else ""))
    return tuple(found)
