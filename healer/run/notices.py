"""Who hears what: the claim comment that already carries the news, and the one short notice per pull request
for the checks the healer has nothing to try on.

GitHub notifies a pull request's participants when a comment is created, not when it is edited (BEHAVIOUR.md,
"Pull requests, branches and comments"). A run's claim is the one comment it creates, so the claim is written
as the news: what failed (each check's decisive line) and what the run does about it. The outcome replaces it
by an edit; what it asks of a person on top arrives as a notification of its own (the review request on a
fix pull request, :func:`healer.deliver.fixpr.ask_review`).

A check with nothing to try (no fix rule applies and no ``agent-command`` is configured) gets no escalation in
the form of a failed attempt: its author already sees the red check. It is listed, with its decisive line,
in one short notice per pull request: created once (through the claim, like any other run's comment), then
edited when another check joins it, so that it notifies once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from healer.config import Config
from healer.ledger.entries import UNTRIED, record, reset_markers
from healer.ledger.fixrecords import is_fix_record
from healer.ledger.ledger import Kind, Ledger
from healer.ledger.markers import Marker, Signer, add_markers, decode_markers, workflow_key
from healer.model import CheckPlan, Comment, Plan, PullRequest, RunEvent, Verdict
from healer.run.context import RunContext
from healer.run.healing import category_of, names
from healer.run.policy import acting
from healer.text.frames import render_comment
from healer.text.spans import code
from healer.text.tokens import scrub

_BULLET = "- "


def promise(pr: PullRequest, delivery: str) -> str:
    """Where a heal's change would go, as the claim says it (healer-written text). It promises nothing: a
    heal may make no change, or one the guard refuses, and the claim may be the only text of a run that
    then dies; so it says where a change goes *if* one is made, never that one follows."""
    if pr.is_fork:
        return (
            "a change, if it makes one, comes here as suggested changes or a patch (the healer cannot push "
            "to a fork)"
        )
    return {
        "pull-request": f"a change, if it makes one, comes as a pull request into {code(pr.head_ref)}",
        "push": f"a change, if it makes one, is pushed onto {code(pr.head_ref)} as a commit",
        "comment": "a change, if it makes one, is posted here as a patch",
        "none": "the heal frame is handed to a later step of this workflow",
    }.get(delivery, "")


def mention_of(config: Config, escalations: Sequence[CheckPlan]) -> str:
    """The mention of an escalation; a notice of checks with nothing to try calls nobody."""
    return config.escalation_mention if any(not c.untried for c in escalations) else ""


def edit_notice(ctx: RunContext, event: RunEvent, pr: PullRequest, plan: Plan, notice: Comment) -> None:
    """Add this run's checks with nothing to try to the pull request's notice: an edit, which notifies
    nobody (their authors see the red checks). Concurrent runs may both edit it; one's lines may be lost,
    and its checks, not recorded, are added by their next failure."""
    untried = only_untried(plan)
    markers = [m for m in (record(c, event) for c in untried) if m is not None] + reset_markers(
        plan.resets, event.head_sha, event.run_id, event.run_attempt, workflow_key(event)
    )
    checks = [c.check for c in untried]
    text = render_comment(
        ctx.frames,
        state="done",
        head_sha=event.head_sha,
        run_url=event.html_url,
        markers="",
        escalations=untried,
        workflow=event.workflow_name,
        listed=len(_kept(notice.body, checks)) + len(untried),
    )
    body = notice_body(notice.body, markers, text, checks, ctx.signer(pr))
    ctx.gh.update_comment(notice.id, scrub(body, ctx.config.github_token))
    ctx.note(f"added {names(untried)} to the notice of checks with nothing to try (edited)")
    ctx.outcome.decision = "escalated"
    ctx.outcome.category = category_of(untried[0])


def acting_only(plan: Plan, keep: Callable[[CheckPlan], bool]) -> list[CheckPlan]:
    """The checks ``plan`` acts on (:func:`healer.run.policy.acting`) when ``keep`` holds for each of them and
    there is one; else an empty list."""
    acts = acting(plan)
    kept = [c for c in acts if keep(c)]
    return kept if kept and len(kept) == len(acts) else []


def only_untried(plan: Plan) -> list[CheckPlan]:
    """The plan's untried escalations when they are all it acts on (nothing to heal, re-run or diagnose);
    else an empty list."""
    return acting_only(plan, lambda c: c.verdict is Verdict.ESCALATE and c.untried)


def untried_notice(
    ledger: Ledger, comments: Sequence[Comment], config: Config, signer: Signer | None
) -> Comment | None:
    """The pull request's notice of checks with nothing to try: the newest healer comment whose every record
    (claims and resets aside) is an ``untried`` escalation, and that no run is still writing. None when the
    pull request has none yet. Re-run markers added to it do not make it another kind of comment."""
    login = config.bot_login.strip().casefold()
    for comment in sorted(comments, key=lambda c: c.id, reverse=True):
        if comment.author.casefold() != login or ledger.held(comment.id) or is_fix_record(comment):
            continue
        # re-runs are recorded quietly in the healer's latest comment (healer.run.quiet), this one included
        aside = (Kind.CLAIM, Kind.RESET, Kind.RERUN)
        records = [m for m in decode_markers(comment.body, signer) if m.kind not in aside]
        if records and all(m.kind is Kind.ESCALATION and m.result == UNTRIED for m in records):
            return comment
    return None


def notice_body(
    old: str, markers: Sequence[Marker], text: str, checks: Sequence[str], signer: Signer | None
) -> str:
    """The notice edited: ``old``'s marker block with ``markers`` added, then ``text`` (the notice as this
    run renders it) with the lines of the checks listed before and not in ``checks`` kept in its list."""
    kept = _kept(old, checks)
    lines = text.strip("\n").split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith(_BULLET)), len(lines))
    merged = "\n".join([*lines[:at], *kept, *lines[at:]])
    return add_markers(_marker_block(old), markers, merged, signer)


def _kept(old: str, checks: Sequence[str]) -> list[str]:
    """The lines of ``old``'s list for the checks other than ``checks``."""
    return [line for line in _bullets(old) if not any(line.startswith(_key(c)) for c in checks)]


def _key(check: str) -> str:
    return f"{_BULLET}{code(check)} ("


def _bullets(body: str) -> list[str]:
    """The notice's list: its lines that start a check's entry."""
    return [line for line in body.split("\n") if line.startswith(f"{_BULLET}`")]


def _marker_block(body: str) -> str:
    """Only the marker block of ``body`` (its text is rendered again)."""
    return add_markers(body, []).split("\n\n", 1)[0] if body.lstrip().startswith("<!--") else ""
