"""``healer run`` for an ``issue_comment`` event: one ``/ci-healer`` command from a pull-request comment.

1. the payload is read and anything that is not a new command on a pull request (an edit, an issue, the bot's
   own or another bot's comment, a comment not starting with ``/ci-healer``) is ignored without a request;
2. an unknown or malformed command gets a ``confused`` reaction and a one-line reply; a known one an ``eyes``
   reaction when received;
3. ``retry``, ``stop`` and ``start`` need write, maintain or admin permission (one request); anyone else gets
   a reply and nothing is done;
4. ``help`` replies with the list; ``stop``/``start`` add or remove the opt-out label and react ``+1``;
   ``explain`` posts the diagnosis of the pull request's latest failed run; ``retry`` composes the stages of
   a run on that run (:func:`healer.run.planning.diagnose`, :func:`healer.run.planning.plan` with
   :func:`healer.run.retry.plan_retry`, :func:`healer.run.acting.act` with a
   :class:`healer.run.acting.Grant`); a fork PR gets the diagnosis only.

Requests per command are listed in docs/commands.md.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from healer.config import Config
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.model import PullRequest, RunEvent, is_fix_branch
from healer.run.acting import Grant, act
from healer.run.changes import check_changes
from healer.run.commands import (
    ACTING,
    Command,
    CommentEvent,
    CommentEventError,
    Verb,
    comment_event,
    denied_reply,
    help_text,
    nothing_reply,
    parse_command,
    same_check,
    unknown_reply,
)
from healer.run.context import RunContext, branch_config
from healer.run.event import EventError, load_event
from healer.run.evidence import collect_run_jobs
from healer.run.explain import explain_text
from healer.run.learning import with_learned_rules
from healer.run.planning import diagnose, plan
from healer.run.policy import acting
from healer.run.retry import plan_retry
from healer.run.scripts import ScriptFiles, with_scripts
from healer.text.frames import code
from healer.text.report import Outcome


def execute_command(ctx: RunContext) -> Outcome:
    """One ``/ci-healer`` command (an ``issue_comment`` event); returns the outcome."""
    with ctx.reporter.group("Comment"):
        payload = read_payload(ctx)
        comment = addressed_to_us(ctx, payload)
    if comment is None:
        return ctx.outcome
    command = parse_command(comment.body)
    assert command is not None  # addressed_to_us checked the prefix
    with ctx.reporter.group(f"Command: {command.verb.value if command.verb else 'unknown'}"):
        if ctx.dry_run:
            ctx.note(
                f"dry run: `/ci-healer {command.verb.value if command.verb else '?'}` is not carried out"
            )
            return ctx.outcome
        obey(ctx, comment, command, payload)
    return ctx.outcome


# -- 1. the payload --------------------------------------------------------------------------------------


def read_payload(ctx: RunContext) -> dict[str, Any]:
    try:
        data = json.loads(Path(ctx.actions.event_path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EventError(f"cannot read the event payload: {exc}") from None
    if not isinstance(data, dict):
        raise EventError("the event payload is not a JSON object")
    return data


def addressed_to_us(ctx: RunContext, payload: dict[str, Any]) -> CommentEvent | None:
    try:
        comment = comment_event(payload)
    except CommentEventError as exc:
        raise EventError(str(exc)) from None
    bot = ctx.config.bot_login.strip().casefold()
    why = ""
    if comment.action != "created":
        why = f"the comment was {comment.action or 'changed'}, not created (edits are not commands)"
    elif not comment.is_pull_request:
        why = f"#{comment.number} is an issue, not a pull request"
    elif comment.author.casefold() == bot or comment.author_type == "Bot" or comment.author.endswith("[bot]"):
        why = "the comment is by a bot"
    elif parse_command(comment.body) is None:
        why = "the comment is not a `/ci-healer` command"
    if why:
        ctx.say(f"ignored: {why}")
        return None
    ctx.say(f"comment {comment.comment_id} by {comment.author!r} on #{comment.number}")
    return comment


# -- 2.–4. the command -----------------------------------------------------------------------------------


def obey(ctx: RunContext, comment: CommentEvent, command: Command, payload: dict[str, Any]) -> None:
    if command.verb is None:
        ctx.gh.add_reaction(comment.comment_id, "confused")
        reply(ctx, comment, unknown_reply(command))
        return
    ctx.gh.add_reaction(comment.comment_id, "eyes")
    if command.verb in ACTING:
        permission = ctx.gh.get_permission(comment.author)
        if not permission.can_write:
            reply(ctx, comment, denied_reply(command.verb, comment.author, permission.shown))
            ctx.outcome.decision = "skipped"
            return
    repository = payload.get("repository") if isinstance(payload.get("repository"), dict) else {}
    branch = str(repository.get("default_branch") or "") or ctx.gh.get_repository().default_branch
    config = branch_config(ctx.gh, ctx.config, ctx.env, branch) or ctx.config
    if command.verb is Verb.HELP:
        reply(ctx, comment, help_text(config.opt_out_label))
    elif command.verb in (Verb.STOP, Verb.START) and not config.opt_out_label.strip():
        reply(ctx, comment, nothing_reply("`opt-out-label` is empty, so there is no label to add or remove."))
    elif command.verb is Verb.STOP:
        ctx.gh.add_labels(comment.number, [config.opt_out_label])
        ctx.gh.add_reaction(comment.comment_id, "+1")
        ctx.note(f"#{comment.number}: added the label `{config.opt_out_label}`; the healer leaves it alone")
    elif command.verb is Verb.START:
        removed = ctx.gh.remove_label(comment.number, config.opt_out_label)
        ctx.gh.add_reaction(comment.comment_id, "+1")
        ctx.note(f"#{comment.number}: {'removed' if removed else 'had no'} label `{config.opt_out_label}`")
    else:
        diagnose_or_retry(ctx, comment, command, config, repository)


def diagnose_or_retry(
    ctx: RunContext, comment: CommentEvent, command: Command, config: Config, repository: dict[str, Any]
) -> None:
    pr = ctx.gh.get_pull(comment.number)
    ctx.outcome.pr = pr
    if pr.state != "open":
        reply(ctx, comment, nothing_reply(f"#{pr.number} is {pr.state}."))
        return
    if command.verb is Verb.RETRY and is_fix_branch(pr.head_ref):
        reply(
            ctx,
            comment,
            nothing_reply(
                "this is one of the healer's fix pull requests; it never heals "
                "its own. Comment on the pull request it fixes."
            ),
        )
        return
    event = latest_failed_run(ctx, pr, command.check, repository)
    if event is None:
        what = f"no failed check named {code(command.check)}" if command.check else "no failed check"
        reply(ctx, comment, nothing_reply(f"{what} at the head of #{pr.number} (`{pr.head_sha[:7]}`)."))
        return
    ctx.outcome.run = event
    # explained and retried as a heal run would see it: with the learned rules (healer.run.learning)
    config = with_learned_rules(ctx.gh, config, event.default_branch or pr.default_branch, ctx.say)
    if command.verb is Verb.EXPLAIN or pr.is_fork:
        fork = command.verb is Verb.RETRY
        explain(ctx, comment, command, config, event, pr, fork=fork)
        return
    retry(ctx, comment, command, config, event, pr)


def latest_failed_run(
    ctx: RunContext, pr: PullRequest, check: str | None, repository: dict[str, Any]
) -> RunEvent | None:
    """The run of the newest failed check at the PR's head (named ``check`` when given), as an event."""
    failed = ctx.gh.failed_checks(pr.head_sha)
    if check is not None:
        failed = [c for c in failed if same_check(c.name, check)]
    if not failed:
        return None
    run = ctx.gh.get_run(ctx.gh.run_of_job(failed[0].job_id))
    payload = {
        "action": "completed",
        "workflow_run": run,
        "repository": repository or run.get("repository"),
    }
    return load_event("workflow_run", payload, repository=ctx.actions.repository)


def explain(
    ctx: RunContext,
    comment: CommentEvent,
    command: Command,
    config: Config,
    event: RunEvent,
    pr: PullRequest,
    *,
    fork: bool,
) -> None:
    rules = load_rules(config.rules, source=config.config_file, learned=config.learned_rules)
    jobs = collect_run_jobs(ctx.gh, event, max_jobs=config.max_jobs)
    found = []
    files = ScriptFiles(ctx.gh, event.head_sha)
    for item in jobs.failed:
        if command.check is not None and not same_check(item.job.name, command.check):
            continue
        read = classify(item, rules, workflow=event.workflow_name)
        diagnosis = replace(
            with_scripts(item, rules, read, files, workflow=event.workflow_name), job=item.job.name
        )
        rule = rules.get(diagnosis.rule)
        found.append((item.job.name, diagnosis, diagnosis.description or (rule.description if rule else "")))
    note = (
        "This pull request comes from a fork: the healer does not run its code, so `retry` posts the "
        "diagnosis only."
        if fork
        else ""
    )
    reply(ctx, comment, explain_text(found, head_sha=event.head_sha, run_url=event.html_url, note=note))
    ctx.note(f"posted the diagnosis of {len(found)} check(s) of run {event.run_id}")


def retry(
    ctx: RunContext, comment: CommentEvent, command: Command, config: Config, event: RunEvent, pr: PullRequest
) -> None:
    """The stages of a run on ``event``, planned by :func:`plan_retry` and acted on with a grant."""
    planner = partial(plan_retry, check=command.check, by=comment.author)
    diagnosed = check_changes(ctx, pr, diagnose(ctx, event, config))  # a failure it did not change?
    planned = plan(ctx, event, pr, config, diagnosed, planner=planner)
    ctx.outcome.plan = planned.plan
    if not acting(planned.plan):
        reasons = (
            "; ".join(f"{code(c.check)}: {c.detail}" for c in planned.plan.checks) or "no check to retry."
        )
        reply(ctx, comment, nothing_reply(reasons))
        ctx.outcome.decision = "skipped"
        return
    # This run's claim must not pass for the one the earlier run on the same CI run wrote (and settled).
    claim_run = (_number(ctx.env.get("GITHUB_RUN_ID")), _number(ctx.env.get("GITHUB_RUN_ATTEMPT")))
    act(ctx, event, pr, config, planned, grant=Grant(by=comment.author, claim_run=claim_run))


# -- helpers ---------------------------------------------------------------------------------------------


def reply(ctx: RunContext, comment: CommentEvent, body: str) -> None:
    ctx.gh.create_comment(comment.number, body)
    ctx.note(f"replied on #{comment.number}")


def _number(text: str | None) -> int:
    return int(text) if text and text.isdigit() else 1
