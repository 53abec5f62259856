"""The stages of ``healer run`` that heal nothing: resets, fix-PR retirement, startup failures.

Each is a function of the :class:`healer.run.context.RunContext` and the event: a green run resets budgets
(:func:`on_success`), a closed pull request retires its fix pull requests (:func:`on_pull_request_event`,
which hands a closed fix pull request to :func:`on_fix_pull_closed`), a workflow that could not start is
reported once per commit (:func:`on_startup_failure`).
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.deliver.fixpr import retire_fix_pulls
from healer.github import GitHubError
from healer.ledger.entries import flaky_marker
from healer.ledger.fixrecords import fix_number, is_fix_record
from healer.ledger.flaky import flaky_line, flaky_on_green
from healer.ledger.ledger import (
    Kind,
    Ledger,
    Marker,
    add_markers,
    check_key,
    comment_body,
)
from healer.ledger.ledger import reset_markers as make_reset_markers
from healer.ledger.markers import Signer, decode_markers, workflow_key
from healer.model import FIX_BRANCH_PREFIX, PullRequest, RunEvent, is_fix_branch
from healer.run.context import RunContext
from healer.run.event import load_pull_request_event
from healer.run.evidence import select_jobs
from healer.run.learning import propose_rule
from healer.run.planning import counts, find_pull, load_repository_config, read_ledger
from healer.run.quietheal import lock_of
from healer.text.fixstate import awaits_verdict, unwaited_line, with_fix_state
from healer.text.frames import COMMENT_LIMIT, render_comment
from healer.text.proof import with_ci_line, with_state_line
from healer.text.spans import code


def on_success(ctx: RunContext, event: RunEvent) -> None:
    """Every check of a green run passed: reset their budgets by editing the newest healer comment."""
    pr = ctx.gh.find_pull_request(event)
    if pr is None or pr.head_sha != event.head_sha:
        ctx.say("no open pull request at this head; nothing to reset")
        return
    ctx.outcome.pr = pr
    # a heal whose fix waits for its CI recorded its attempt in the fix pull request's body only
    comments = read_ledger(ctx, pr, ctx.config)
    ledger = Ledger.from_comments(
        comments, ctx.config.bot_login, ctx.signer(pr), workflow=workflow_key(event)
    )
    if not any(ledger.has_history(c) for c in ledger.checks):
        # the common green run: nothing to reset, so the jobs are not even listed
        ctx.say("no healer history on this pull request; nothing to reset")
        return
    passed = select_jobs(ctx.gh.list_jobs(event.run_id, event.run_attempt)).passed
    resets = [name for name in dict.fromkeys(passed) if ledger.has_history(name)]
    if not resets:
        ctx.say("no healer history for these checks; nothing to reset")
        return
    # tests that failed on this very commit and passed now are flaky: recorded with the reset
    flaky = flaky_on_green(ledger, resets, event.head_sha)
    edit_resets(ctx, ledger, resets, event, pr, flaky=flaky)


def edit_resets(
    ctx: RunContext,
    ledger: Ledger,
    checks: Sequence[str],
    event: RunEvent,
    pr: PullRequest,
    *,
    flaky: Sequence[tuple[str, tuple[str, ...]]] = (),
) -> None:
    if not checks:
        return
    latest = ledger.latest_comment
    signer = ctx.signer(pr)
    workflow = workflow_key(event)
    markers = make_reset_markers(checks, event.head_sha, event.run_id, event.run_attempt, workflow)
    markers += [
        flaky_marker(c, event.head_sha, t, event.run_id, event.run_attempt, workflow) for c, t in flaky
    ]
    note = render_comment(
        ctx.frames,
        state="reset",
        head_sha=event.head_sha,
        run_url=event.html_url,
        markers="",
        resets=tuple(checks),
        workflow=event.workflow_name,
    )
    if flaky:
        note = f"{note.strip()}\n\n{flaky_line(flaky, event.head_sha)}"
        ctx.note(f"recorded as flaky: {', '.join(t for _, tests in flaky for t in tests)}")
    if latest is None:
        # Every healer comment holds a claim another run is still acting on: that run replaces its
        # comment's body when it finishes, so the reset gets a comment of its own instead.
        ctx.note(f"reset the budget of {', '.join(map(code, checks))} (in a new comment)")
        if not ctx.dry_run:
            ctx.gh.create_comment(pr.number, comment_body(markers, note.strip(), signer))
        return
    said = {m.check for m in decode_markers(latest.body) if m.check}
    if is_fix_record(latest):
        # the newest record is a fix pull request's body (a quiet heal): the reset goes there, after it, and
        # its text stays the fix's (it is retired below with a note of its own)
        where = f"in fix #{fix_number(latest)}'s records"
        ctx.note(f"reset the budget of {', '.join(map(code, checks))} ({where})")
        if not ctx.dry_run:
            ctx.gh.update_pull(fix_number(latest), body=add_markers(latest.body, markers, signer=signer))
        retire_passed(ctx, pr, ledger, checks, event)
        return
    if said and said <= set(checks):
        # every check this comment speaks of passed: its news ("needs a person", "a fix follows") is no longer
        # true, so the pass leads it (the rest of the note, a flaky line, stays below)
        lines = [ln for ln in note.strip().split("\n") if ln.strip() and ln.strip() != "---"]
        body = with_state_line(with_markers(latest.body, markers, "\n\n".join(lines[1:]), signer), lines[0])
        body = with_fix_state(body, "passed-since")  # its fix pull request, if any, is waited on no more
        if len(body) > COMMENT_LIMIT:
            body = add_markers(latest.body, markers, signer=signer)  # the note is optional, the markers not
    else:
        body = with_markers(latest.body, markers, note.strip(), signer)
    ctx.note(f"reset the budget of {', '.join(map(code, checks))} (edited the previous comment)")
    if not ctx.dry_run:
        ctx.gh.update_comment(latest.id, body)
    retire_passed(ctx, pr, ledger, checks, event)


def with_markers(body: str, markers: Sequence[Marker], note: str, signer: Signer | None) -> str:
    """``body`` with ``markers`` and ``note`` added, or only the markers when the note would take the comment
    past GitHub's limit (the note is optional, the markers not)."""
    added = add_markers(body, markers, note, signer)
    return added if len(added) <= COMMENT_LIMIT else add_markers(body, markers, signer=signer)


def retire_passed(
    ctx: RunContext, pr: PullRequest, ledger: Ledger, checks: Sequence[str], event: RunEvent
) -> None:
    """Retire the fix PRs of ``checks``, which passed at ``event``'s commit without them."""
    for check in checks:
        retire(
            ctx, pr, ledger.fix_prs(check), f"{code(check)} passed on {event.head_sha[:7]} without this fix."
        )


def retire(ctx: RunContext, pr: PullRequest, numbers: Sequence[int], why: str) -> None:
    """Close the fix PRs among ``numbers`` that are still open (``why`` at the top), delete their
    branches, and the branches of merged ones: a fix PR never outlives its reason."""
    if not numbers or ctx.dry_run:
        return
    lock = lock_of(ctx, ctx.config)
    closed = retire_fix_pulls(ctx.gh, numbers, owner=pr.number, why=why, lock=lock)
    if closed:
        ctx.note(f"closed fix pull request(s) {', '.join(f'#{n}' for n in closed)}: {why}")


def on_pull_request_event(ctx: RunContext) -> None:
    """``pull_request_target: [closed]``: the PR was merged or closed, so its fix PRs have nothing left to
    go into (and GitHub would retarget them to the default branch once its branch is deleted). Nothing of
    the PR is checked out or run."""
    event = load_pull_request_event(
        ctx.actions.event_name, ctx.actions.event_path, repository=ctx.actions.repository
    )
    pr = event.pull
    ctx.outcome.pr = pr
    if event.action != "closed":
        ctx.say(f"a `{event.action}` pull request event: only `closed` is handled; nothing to do")
        return
    if is_fix_branch(pr.head_ref):
        on_fix_pull_closed(ctx, pr)
        return
    retire_fix_pulls_of(ctx, pr)


def on_fix_pull_closed(ctx: RunContext, pr: PullRequest) -> None:
    """One of the healer's own fix pull requests was merged or closed: it has no fix pull requests of its
    own, so there is nothing to retire; a merged one may teach a rule (:mod:`healer.run.learning`). One that
    still waited for the CI the healer started says it no longer does (no verdict is recorded for a fix
    that is not open)."""
    _stop_waiting(ctx, pr)
    if pr.merged:
        ctx.outcome.decision = propose_rule(ctx, pr)
        return
    ctx.skip(f"#{pr.number} is one of the healer's own fix pull requests")


def _stop_waiting(ctx: RunContext, pr: PullRequest) -> None:
    """A person merged or closed the healer's fix while its first line waited for CI: say so there instead
    (one edit, no notification). Never raises: the close already happened."""
    mine = pr.author.casefold() == ctx.config.bot_login.strip().casefold() and not pr.is_fork
    if not mine or not awaits_verdict(pr.body) or ctx.dry_run:
        return
    how = "merged" if pr.merged else "closed"
    try:
        ctx.gh.update_pull(pr.number, body=with_ci_line(pr.body, unwaited_line(how), first=True))
    except GitHubError as exc:
        ctx.note(f"#{pr.number} still says it waits for CI: {exc}")
        return
    ctx.note(f"#{pr.number} was {how} before its CI reported: its first line says so")


def retire_fix_pulls_of(ctx: RunContext, pr: PullRequest) -> None:
    """Close the open fix pull requests of ``pr`` (merged or closed) and delete the healer's branches."""
    how = "merged" if pr.merged else "closed"
    ctx.say(f"pull request #{pr.number} was {how}")
    comments = ctx.gh.list_comments(pr.number)
    ledger = Ledger.from_comments(comments, ctx.config.bot_login, ctx.signer(pr))
    numbers = [n for check in ledger.checks for n in ledger.fix_prs(check)]
    known: dict[int, PullRequest] = {}
    if not pr.is_fork:
        # fix PRs are based on the PR's branch (those a quiet heal recorded only in their own body too), or,
        # once GitHub retargeted them as that branch was deleted, on the PR's base
        prefix = f"{FIX_BRANCH_PREFIX}{pr.number}-"
        for base in dict.fromkeys([pr.head_ref, pr.base_ref]):
            for fix in ctx.gh.list_pulls(base=base, state="open"):
                if fix.head_ref.startswith(prefix) and not fix.is_fork:
                    known[fix.number] = fix
    numbers = list(dict.fromkeys([*numbers, *known]))
    if not numbers:
        ctx.say(f"no fix pull request of #{pr.number}; nothing to do")
        ctx.outcome.decision = "none"
        return
    why = f"#{pr.number} was {how}, so this fix has no pull request left to go into."
    if ctx.dry_run:
        ctx.note(f"would close #{pr.number}'s fix pull requests and delete their branches (dry run)")
        return
    lock = lock_of(ctx, ctx.config)
    closed = retire_fix_pulls(ctx.gh, numbers, owner=pr.number, why=why, known=known, lock=lock)
    ctx.note(
        f"closed {len(closed)} fix pull request(s) of #{pr.number} and deleted the healer's branches"
        if closed
        else f"deleted the branches of #{pr.number}'s fix pull requests"
    )
    ctx.outcome.decision = "none"


def on_startup_failure(ctx: RunContext, event: RunEvent) -> None:
    """A run that could not start has no jobs to read: say so once per commit, naming the file."""
    pr = find_pull(ctx, event)
    if pr is None:
        return
    config = load_repository_config(ctx, event)
    if not counts(ctx, event, pr, config):
        return
    path = event.workflow_path or event.workflow_name
    comments = ctx.gh.list_comments(pr.number)
    signer = ctx.signer(pr)
    notices = Ledger.from_comments(comments, config.bot_login, signer).startup_notices(event.head_sha)
    if any(entry.marker.check == check_key(path) for entry in notices):
        ctx.skip(f"the startup failure of {code(path)} on {event.head_sha[:7]} was reported already")
        return
    marker = Marker(Kind.STARTUP, event.head_sha, path, run_id=event.run_id, run_attempt=event.run_attempt)
    text = render_comment(
        ctx.frames,
        state="startup",
        head_sha=event.head_sha,
        run_url=event.html_url,
        markers="",
        workflow_path=path,
    ).strip()
    ctx.outcome.category = "config"
    if ctx.dry_run:
        # a dry run only plans: the output says nothing was done, the log and summary say what would be
        ctx.outcome.planned, ctx.outcome.decision = "escalated", "none"
        ctx.note(f"would report that {code(path)} could not start (dry run)")
        return
    ctx.outcome.decision = "escalated"
    if notices:
        # one comment per commit: a second workflow that could not start joins the first notice (an edit,
        # which notifies nobody again)
        comment = next(c for c in comments if c.id == notices[0].comment_id)
        ctx.gh.update_comment(comment.id, add_markers(comment.body, [marker], text, signer))
    else:
        ctx.gh.create_comment(pr.number, comment_body([marker], text, signer))
    ctx.note(f"reported that the workflow {code(path)} could not start on {event.head_sha[:7]}")
