"""``healer run`` for an ``issues`` event: a box ticked in the dashboard issue runs what it says.

1. the payload is read, and anything but a person's body edit of the healer's dashboard that ticks one of
   its boxes is ignored without a request: another action, a title edit, an edit by a bot (the healer's own
   re-rendering included), an issue the bot did not open or that does not start with the dashboard's marker,
   and lines the healer did not write or that were changed as they were ticked (:mod:`healer.text.boxes`);
2. the editor needs write, maintain or admin permission (one request), as for ``/ci-healer retry``;
3. each tick is claimed by unticking its box in the issue as it is now (read, then written): a box already
   unticked was handled by another run, so a tick acts once, and the person can tick it again later;
4. ``close`` closes the fix pull request (one of the healer's, open) with a line saying who asked, and deletes
   its branch; ``retry`` runs ``/ci-healer retry <check>`` on the pull request
   (:func:`healer.run.commandrun.diagnose_or_retry`), whose answer is on that pull request. One retry per
   edit: it may open a fix PR and posts its own comment; further retry boxes ticked in the same edit are
   unticked unhandled and said in the job summary.

Requests per tick are listed in docs/dashboard.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from healer.deliver.fixpr import retire_fix_pulls
from healer.github import GitHubError
from healer.model import fix_branch_target
from healer.run.commandrun import diagnose_or_retry, read_payload
from healer.run.commands import Command, CommentEvent, Verb
from healer.run.context import RunContext, branch_config
from healer.run.quietheal import lock_of
from healer.text.boxes import CLOSE, RETRY, Box, ticked_boxes, untick
from healer.text.dashboard import DASHBOARD_MARKER
from healer.text.frames import code
from healer.text.report import Outcome


@dataclass(frozen=True)
class Tick:
    """A person's edit of the dashboard that ticked boxes of the healer's."""

    issue: int
    editor: str
    boxes: tuple[Box, ...]
    repository: Mapping[str, Any]  # the payload's (its default branch: where the config file is read)


def execute_tick(ctx: RunContext) -> Outcome:
    """One ``issues`` event; returns the outcome."""
    with ctx.reporter.group("Dashboard edit"):
        tick = ticked(ctx, read_payload(ctx))
    if tick is None:
        return ctx.outcome
    what = ", ".join(f"{b.action} #{b.number}" for b in tick.boxes)
    with ctx.reporter.group(f"Ticked by {tick.editor!r}: {what}"):
        if ctx.dry_run:
            ctx.note("dry run: the ticked boxes are not acted on")
            return ctx.outcome
        permission = ctx.gh.get_permission(tick.editor)
        if not permission.can_write:
            ctx.skip(
                f"{code(tick.editor)} ticked a box in #{tick.issue} with {code(permission.shown)} "
                "permission; acting on it needs write, maintain or admin"
            )
            return ctx.outcome
        boxes = claimed(ctx, tick)
        retries = [b for b in boxes if b.action == RETRY]
        for box in boxes:
            if box.action == CLOSE:
                close(ctx, tick, box)
        if retries:
            retry(ctx, tick, retries[0])
        for box in retries[1:]:
            ctx.note(f"one retry per edit: retry #{box.number} {code(box.check)} was unticked; tick it again")
    return ctx.outcome


def ticked(ctx: RunContext, payload: Mapping[str, Any]) -> Tick | None:
    """The ticks of the edit in ``payload``, or None (and why, in the log) when there is nothing to do."""
    issue = payload.get("issue") if isinstance(payload.get("issue"), Mapping) else {}
    sender = payload.get("sender") if isinstance(payload.get("sender"), Mapping) else {}
    changes = payload.get("changes") if isinstance(payload.get("changes"), Mapping) else {}
    before = changes.get("body") if isinstance(changes.get("body"), Mapping) else {}
    author = issue.get("user") if isinstance(issue.get("user"), Mapping) else {}
    login, bot = str(sender.get("login") or ""), ctx.config.bot_login.strip().casefold()
    body, number = issue.get("body"), issue.get("number")
    why = ""
    if payload.get("action") != "edited":
        why = f"an `{payload.get('action')}` issue event; only edits tick boxes"
    elif not isinstance(before.get("from"), str) or not isinstance(body, str):
        why = "the edit did not change the issue's body"
    elif login.casefold() == bot or sender.get("type") == "Bot" or login.endswith("[bot]"):
        why = "the edit is by a bot"
    elif str(author.get("login") or "").casefold() != bot or "pull_request" in issue:
        why = "the issue is not one the healer opened"
    elif not body.lstrip().startswith(DASHBOARD_MARKER) or not isinstance(number, int):
        why = "the issue is not the healer's dashboard"
    if why:
        ctx.say(f"ignored: {why}")
        return None
    found = ticked_boxes(before["from"], body, repository=ctx.actions.repository, key=ctx.config.ledger_key)
    if not found:
        ctx.say("ignored: the edit ticks none of the healer's boxes")
        return None
    repository = payload.get("repository") if isinstance(payload.get("repository"), Mapping) else {}
    return Tick(number, login, tuple(box for box, _ in found), repository)


def claimed(ctx: RunContext, tick: Tick) -> list[Box]:
    """Untick ``tick``'s boxes in the issue as it is now, in one write; the boxes still ticked there (the
    others were handled by another run, or the dashboard was re-rendered since)."""
    body = ctx.gh.get_issue(tick.issue).body
    mine: list[Box] = []
    for box in tick.boxes:
        after = untick(body, box, repository=ctx.actions.repository, key=ctx.config.ledger_key)
        if after is None:
            ctx.say(f"{box.action} #{box.number}: no longer ticked in #{tick.issue}; another run handled it")
            continue
        body = after
        mine.append(box)
    if mine:
        ctx.gh.update_issue(tick.issue, body=body)
    return mine


def close(ctx: RunContext, tick: Tick, box: Box) -> None:
    """Close fix pull request ``box.number`` (and delete its branch) when it is one of the healer's."""
    try:
        fix = ctx.gh.get_pull(box.number)
    except GitHubError as exc:
        ctx.note(f"close #{box.number}: could not read it ({exc})")
        return
    owner = fix_branch_target(fix.head_ref)
    ours = owner is not None and not fix.is_fork
    if not ours or fix.author.casefold() != ctx.config.bot_login.strip().casefold():
        ctx.note(f"close #{box.number}: not one of the healer's fix pull requests; left alone")
        return
    if fix.state != "open":
        ctx.note(f"close #{box.number}: already {fix.state}")
        return
    why = f"{code(tick.editor)} asked for it from the dashboard (#{tick.issue})."
    lock = lock_of(ctx, ctx.config)
    closed = retire_fix_pulls(ctx.gh, [fix.number], owner=owner, why=why, known={fix.number: fix}, lock=lock)
    ctx.note(f"closed fix pull request #{fix.number}" if closed else f"close #{fix.number}: GitHub refused")


def retry(ctx: RunContext, tick: Tick, box: Box) -> None:
    """``/ci-healer retry <check>`` on pull request ``box.number``, granted by the editor."""
    branch = str(tick.repository.get("default_branch") or "") or ctx.gh.get_repository().default_branch
    config = branch_config(ctx.gh, ctx.config, ctx.env, branch) or ctx.config
    asked = CommentEvent(
        action="created",
        number=box.number,
        is_pull_request=True,
        comment_id=0,
        author=tick.editor,
        author_type="User",
        body=f"/ci-healer retry {box.check}",
    )
    ctx.note(f"retry {code(box.check)} on #{box.number}, ticked in #{tick.issue} by {code(tick.editor)}")
    diagnose_or_retry(ctx, asked, Command(Verb.RETRY, box.check), config, dict(tick.repository))
