"""``healer run`` for an ``issue_comment`` event: one ``/ci-healer`` command from a pull-request comment.

1. the payload is read and anything that is not a new command on a pull request (an edit, an issue, the bot's
   own or another bot's comment, a comment not starting with ``/ci-healer``) is ignored without a request;
2. an unknown or malformed command gets a ``confused`` reaction and a one-line reply; a known one an ``eyes``
   reaction when received;
3. ``retry``, ``stop`` and ``start`` need write, maintain or admin permission (one request); anyone else gets
   a reply and nothing is done;
4. ``help`` replies with the list; ``stop``/``start`` add or remove the opt-out label and react ``+1``;
   ``explain`` posts the diagnosis of the pull request's latest failed run; ``retry`` runs the heal of
   :class:`healer.run.app.Run` on that run with :func:`healer.run.retry.plan_retry` (a fork PR gets
   the diagnosis only).

Requests per command are listed in docs/commands.md.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from healer.config import Config, explicit_inputs, load_config_file
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.heal.deliver import is_fix_branch
from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker
from healer.model import CheckPlan, PullRequest, RunEvent
from healer.run.app import Run
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
    unknown_reply,
)
from healer.run.event import EventError, load_event
from healer.run.evidence import collect_run_jobs
from healer.run.explain import explain_text
from healer.run.policy import acting
from healer.run.retry import plan_retry
from healer.text.frames import COMMENT_LIMIT, code
from healer.text.report import Outcome


class CommandRun(Run):
    """One ``/ci-healer`` command (an ``issue_comment`` event)."""

    granted_by = ""

    def execute(self) -> Outcome:
        with self.reporter.group("Comment"):
            payload = self.read_payload()
            comment = self.addressed_to_us(payload)
        if comment is None:
            return self.outcome
        command = parse_command(comment.body)
        assert command is not None  # addressed_to_us checked the prefix
        with self.reporter.group(f"Command: {command.verb.value if command.verb else 'unknown'}"):
            if self.dry_run:
                self.note(
                    f"dry run: `/ci-healer {command.verb.value if command.verb else '?'}` is not carried out"
                )
                return self.outcome
            self.obey(comment, command, payload)
        return self.outcome

    # -- 1. the payload --------------------------------------------------------------------------------------

    def read_payload(self) -> dict[str, Any]:
        try:
            data = json.loads(Path(self.actions.event_path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EventError(f"cannot read the issue_comment payload: {exc}") from None
        if not isinstance(data, dict):
            raise EventError("the issue_comment payload is not a JSON object")
        return data

    def addressed_to_us(self, payload: dict[str, Any]) -> CommentEvent | None:
        try:
            comment = comment_event(payload)
        except CommentEventError as exc:
            raise EventError(str(exc)) from None
        bot = self.config.bot_login.strip().casefold()
        why = ""
        if comment.action != "created":
            why = f"the comment was {comment.action or 'changed'}, not created (edits are not commands)"
        elif not comment.is_pull_request:
            why = f"#{comment.number} is an issue, not a pull request"
        elif (
            comment.author.casefold() == bot
            or comment.author_type == "Bot"
            or comment.author.endswith("[bot]")
        ):
            why = "the comment is by a bot"
        elif parse_command(comment.body) is None:
            why = "the comment is not a `/ci-healer` command"
        if why:
            self.say(f"ignored: {why}")
            return None
        self.say(f"comment {comment.comment_id} by {comment.author!r} on #{comment.number}")
        return comment

    # -- 2.–4. the command -----------------------------------------------------------------------------------

    def obey(self, comment: CommentEvent, command: Command, payload: dict[str, Any]) -> None:
        if command.verb is None:
            self.gh.add_reaction(comment.comment_id, "confused")
            self.reply(comment, unknown_reply(command))
            return
        self.gh.add_reaction(comment.comment_id, "eyes")
        if command.verb in ACTING:
            permission = self.gh.get_permission(comment.author)
            if not permission.can_write:
                self.reply(comment, denied_reply(command.verb, comment.author, permission.shown))
                self.outcome.decision = "skipped"
                return
        repository = payload.get("repository") if isinstance(payload.get("repository"), dict) else {}
        branch = str(repository.get("default_branch") or "") or self.gh.get_repository().default_branch
        config = self.repository_config(branch)
        if command.verb is Verb.HELP:
            self.reply(comment, help_text(config.opt_out_label))
        elif command.verb in (Verb.STOP, Verb.START) and not config.opt_out_label.strip():
            self.reply(
                comment, nothing_reply("`opt-out-label` is empty, so there is no label to add or remove.")
            )
        elif command.verb is Verb.STOP:
            self.gh.add_labels(comment.number, [config.opt_out_label])
            self.gh.add_reaction(comment.comment_id, "+1")
            self.note(
                f"#{comment.number}: added the label `{config.opt_out_label}`; the healer leaves it alone"
            )
        elif command.verb is Verb.START:
            removed = self.gh.remove_label(comment.number, config.opt_out_label)
            self.gh.add_reaction(comment.comment_id, "+1")
            self.note(
                f"#{comment.number}: {'removed' if removed else 'had no'} label `{config.opt_out_label}`"
            )
        else:
            self.diagnose_or_retry(comment, command, config, repository)

    def diagnose_or_retry(
        self, comment: CommentEvent, command: Command, config: Config, repository: dict[str, Any]
    ) -> None:
        pr = self.gh.get_pull(comment.number)
        self.outcome.pr = pr
        if pr.state != "open":
            self.reply(comment, nothing_reply(f"#{pr.number} is {pr.state}."))
            return
        if command.verb is Verb.RETRY and is_fix_branch(pr.head_ref):
            self.reply(
                comment,
                nothing_reply(
                    "this is one of the healer's fix pull requests; it never heals "
                    "its own. Comment on the pull request it fixes."
                ),
            )
            return
        event = self.latest_failed_run(pr, command.check, repository)
        if event is None:
            what = f"no failed check named {code(command.check)}" if command.check else "no failed check"
            self.reply(comment, nothing_reply(f"{what} at the head of #{pr.number} (`{pr.head_sha[:7]}`)."))
            return
        self.event = event
        if command.verb is Verb.EXPLAIN or pr.is_fork:
            fork = command.verb is Verb.RETRY
            self.explain(comment, command, config, event, pr, fork=fork)
            return
        self.retry(comment, command, config, event, pr)

    def latest_failed_run(
        self, pr: PullRequest, check: str | None, repository: dict[str, Any]
    ) -> RunEvent | None:
        """The run of the newest failed check at the PR's head (named ``check`` when given), as an event."""
        failed = self.gh.failed_checks(pr.head_sha)
        if check is not None:
            failed = [c for c in failed if c.name.casefold() == check.casefold()]
        if not failed:
            return None
        run = self.gh.get_run(self.gh.run_of_job(failed[0].job_id))
        payload = {
            "action": "completed",
            "workflow_run": run,
            "repository": repository or run.get("repository"),
        }
        return load_event("workflow_run", payload, repository=self.actions.repository)

    def explain(
        self,
        comment: CommentEvent,
        command: Command,
        config: Config,
        event: RunEvent,
        pr: PullRequest,
        *,
        fork: bool,
    ) -> None:
        rules = load_rules(config.rules, source=config.config_file)
        jobs = collect_run_jobs(self.gh, event, max_jobs=config.max_jobs)
        found = []
        for item in jobs.failed:
            if command.check is not None and item.job.name.casefold() != command.check.casefold():
                continue
            diagnosis = replace(classify(item, rules), job=item.job.name)
            rule = rules.get(diagnosis.rule)
            found.append(
                (item.job.name, diagnosis, diagnosis.description or (rule.description if rule else ""))
            )
        note = (
            "This pull request comes from a fork: the healer does not run its code, so `retry` posts the "
            "diagnosis only."
            if fork
            else ""
        )
        self.reply(comment, explain_text(found, head_sha=event.head_sha, run_url=event.html_url, note=note))
        self.note(f"posted the diagnosis of {len(found)} check(s) of run {event.run_id}")

    def retry(
        self, comment: CommentEvent, command: Command, config: Config, event: RunEvent, pr: PullRequest
    ) -> None:
        self.granted_by = comment.author
        self.planner = partial(plan_retry, check=command.check, by=comment.author)
        # This run's claim must not pass for the one the earlier run on the same CI run wrote (and settled).
        self.claim_run = (_number(self.env.get("GITHUB_RUN_ID")), _number(self.env.get("GITHUB_RUN_ATTEMPT")))
        plan, ledger = self.plan(event, pr, config)
        self.outcome.plan = plan
        if not acting(plan):
            reasons = "; ".join(f"{code(c.check)}: {c.detail}" for c in plan.checks) or "no check to retry."
            self.reply(comment, nothing_reply(reasons))
            self.outcome.decision = "skipped"
            return
        self.act(event, pr, config, plan, ledger)

    def carry_out(
        self,
        event: RunEvent,
        pr: PullRequest,
        config: Config,
        ledger: Ledger,
        reruns: list[CheckPlan],
        heals: list[CheckPlan],
        escalations: list[CheckPlan],
        diagnoses: list[CheckPlan],
    ) -> tuple[list[Marker], Callable[[str], str]]:
        # a granted attempt stretches the budget to its number, so the texts read "attempt k of k"
        stretched = max((c.max_attempts for c in heals), default=0)
        if stretched > config.max_attempts:
            config = replace(config, max_attempts=stretched)
        markers, text = super().carry_out(event, pr, config, ledger, reruns, heals, escalations, diagnoses)
        if not self.granted_by:
            return markers, text
        granted = [
            replace(m, by=self.granted_by) if m.kind in (Kind.ATTEMPT, Kind.RERUN) else m for m in markers
        ]
        line = f"\n\nAsked for with `/ci-healer retry` by {code(self.granted_by)}."

        def with_grant(block: str) -> str:
            body = text(block)
            return body + line if len(body) + len(line) <= COMMENT_LIMIT else body

        return granted, with_grant

    # -- helpers ---------------------------------------------------------------------------------------------

    def repository_config(self, branch: str) -> Config:
        text = self.gh.get_file(self.config.config_file, branch)
        if text is None:
            return self.config
        return load_config_file(
            text, self.config, source=self.config.config_file, explicit=explicit_inputs(self.env)
        )

    def reply(self, comment: CommentEvent, body: str) -> None:
        self.gh.create_comment(comment.number, body)
        self.note(f"replied on #{comment.number}")


def _number(text: str | None) -> int:
    return int(text) if text and text.isdigit() else 1
