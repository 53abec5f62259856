"""The acting stages of ``healer run``: the claim, re-runs, the heal, diagnoses and escalations."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from textwrap import indent
from typing import Any

from healer.config import Config
from healer.github import GitHubError
from healer.heal.agent import ProcessError
from healer.heal.attempt import HealContext, HealResult, heal, heal_note
from healer.heal.deliver import DeliveryError
from healer.heal.isolation import IsolationError
from healer.heal.workspace import GitError, Repo, StaleHeadError
from healer.ledger.ledger import (
    Ledger,
    Marker,
    claim_body,
    claim_marker,
    encode_marker,
    record,
)
from healer.ledger.ledger import reset_markers as make_reset_markers
from healer.ledger.markers import workflow_key
from healer.ledger.memory import account_of, earlier_accounts
from healer.model import CheckPlan, Plan, PullRequest, RunEvent, Verdict
from healer.run.lifecycle import Lifecycle
from healer.run.policy import acting
from healer.text.frames import FrameError, HealNote, fence, render_comment
from healer.text.report import (
    SetupError,
)
from healer.text.spans import code
from healer.text.tokens import scrub

FORK_NOTE = (
    "This pull request comes from a fork, so the healer does not run its code; here is what the log says."
)


class Acting(Lifecycle):
    """Claiming the commit and doing what the plan says: re-run, heal, diagnose, escalate."""

    def heal_checks(self, plan: Plan, pr: PullRequest) -> list[CheckPlan]:
        # Fork code is never checked out or run: a fork's heal becomes a diagnosis (policy normally says so).
        if pr.is_fork:
            return []
        return [c for c in plan.checks if c.verdict is Verdict.HEAL]

    def act(self, event: RunEvent, pr: PullRequest, config: Config, plan: Plan, ledger: Ledger) -> None:
        self.print_plan(plan)
        if not acting(plan):
            self.edit_resets(ledger, plan.resets, event, pr)
            self.outcome.decision = "skipped" if plan.checks else "none"
            return
        # checked before claiming: a missing checkout is a workflow mistake, not a failed attempt
        needs_checkout = bool(self.heal_checks(plan, pr)) and config.delivery != "none"
        if needs_checkout and not Repo(self.actions.workspace).is_repository():
            raise SetupError(
                f"GITHUB_WORKSPACE ({self.actions.workspace}) is not a git checkout: add a step "
                "`actions/checkout` (the default branch) before ci-healer"
            )
        claim = self.gh.create_comment(
            pr.number,
            claim_body(
                event.head_sha,
                *self.claim_identity(event),
                self.render_claim(event, plan.checks),
                self.signer(pr),
            ),
        )
        if claim.author and claim.author.casefold() != config.bot_login.strip().casefold():
            # The ledger trusts only `bot-login`: with another identity the healer would never see its own
            # markers (and could never count or claim). Say which login to set instead of looping.
            with contextlib.suppress(GitHubError):
                self.gh.delete_comment(claim.id)
            raise SetupError(
                f"the token comments as `{claim.author}`, but `bot-login` is `{config.bot_login}`: the "
                f"healer would not recognise its own comments; set `bot-login: {claim.author}`"
            )
        try:
            # Re-read and re-plan: another run may have claimed the commit at the same moment.
            self.comments = self.gh.list_comments(pr.number)  # also what earlier attempts left (memory)
            ledger = Ledger.from_comments(
                self.comments, config.bot_login, self.signer(pr), workflow=workflow_key(event)
            )
            plan = self.planner(
                self.diagnoses,
                passed=self.passed,
                ledger=ledger,
                config=config,
                pull=pr,
                run=event,
                claim_id=claim.id,
            )
            plan = self.with_fix_hints(plan)
            self.outcome.plan = plan
            if not acting(plan):
                self.gh.delete_comment(claim.id)
                for note in plan.notes:
                    self.reporter.warning(note)
                self.skip(f"another run is already acting on {event.head_sha[:7]}")
                return
            reruns = [c for c in plan.checks if c.verdict is Verdict.RERUN]
            heals = self.heal_checks(plan, pr)
            escalations = [c for c in plan.checks if c.verdict is Verdict.ESCALATE]
            diagnoses = [c for c in plan.checks if c.diagnose]
            markers, text = self.carry_out(event, pr, config, ledger, reruns, heals, escalations, diagnoses)
            markers += make_reset_markers(
                plan.resets, event.head_sha, event.run_id, event.run_attempt, workflow_key(event)
            )
        except StaleHeadError as exc:
            self.gh.delete_comment(claim.id)
            self.skip(f"stale head: {exc}")
            return
        except BaseException:
            # An unfinished claim would hold this commit; drop it so a later run can act.
            with contextlib.suppress(GitHubError):
                self.gh.delete_comment(claim.id)
            raise
        block = "\n".join(
            encode_marker(m, self.signer(pr))
            for m in [claim_marker(event.head_sha, *self.claim_identity(event)), *markers]
        )
        if self.account:
            block += "\n" + self.account  # right under the markers: the next attempt's memory
        # scrubbed once more as a whole: the comment quotes agent notes, verification output and patches
        posted = scrub(text(block), self.config.github_token)
        if config.escalation_mention and any(c.verdict is Verdict.ESCALATE for c in plan.checks):
            # GitHub notifies a mention only when the comment is created, not when an edit adds it: the
            # result goes into a new comment (its markers settle the claim), then the claim is withdrawn.
            self.gh.create_comment(pr.number, posted)
            with contextlib.suppress(GitHubError):
                self.gh.delete_comment(claim.id)
        else:
            self.gh.update_comment(claim.id, posted)
        if self.failure is not None:
            raise self.failure  # recorded and reported on the PR; now fail the step so a person looks

    def claim_identity(self, event: RunEvent) -> tuple[int, int]:
        return self.claim_run or (event.run_id, event.run_attempt)

    def render_claim(self, event: RunEvent, checks: Sequence[CheckPlan]) -> str:
        return render_comment(
            self.frames,
            state="claim",
            head_sha=event.head_sha,
            run_url=event.html_url,
            markers="",
            checks=[c for c in checks if c.verdict is not Verdict.SKIP],
            workflow=event.workflow_name,
        )

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
        """Do what the plan says; return the markers to record and the renderer of the final comment."""
        sha = event.head_sha
        markers: list[Marker] = []
        decision = "skipped"
        # The heal goes first: if the branch moved on meanwhile (stale head), nothing else has happened yet.
        note: HealNote | None = None
        if heals:
            try:
                result = self.heal(event, pr, config, ledger, heals)
            except StaleHeadError:
                raise  # the branch moved on: nothing was done, the claim is withdrawn
            except (GitError, ProcessError, IsolationError, DeliveryError, GitHubError, FrameError) as exc:
                # The attempt is spent (it may have half-happened); record it, then fail the step.
                self.failure = exc
                result = HealResult(False, why_not=f"the heal failed: {scrub(str(exc), config.github_token)}")
            note = heal_note(result, heals, config)
            fix_pr = result.delivery.pull.number if result.delivery and result.delivery.pull else None
            word = "failed" if self.failure else result.result
            self.account = account_of(result, heals, sha, word, fix_pr)
            markers += _records(heals, event, fix_pr=fix_pr, result=word)
            # `healed` promises a delivered change (or a frame handed on with delivery: none); a refused or
            # empty change spent the attempt but delivered nothing, so a later step must not look for one.
            if result.delivered or result.result == "framed":
                decision = "healed"
            self.outcome.attempt = max(c.attempt for c in heals)
            self.outcome.category = category_of(heals[0])
        reruns, refused = self.rerun(event, reruns, done_before=bool(heals))
        escalations = [*escalations, *refused]
        if reruns:
            markers += _records(reruns, event)
            self.note(f"re-ran the job of {_names(reruns)}")
            if decision == "skipped":
                decision = "rerun"
        markers += _records(diagnoses, event)
        if diagnoses:
            self.note(f"posted the diagnosis of {_names(diagnoses)} (fork: no code was run)")
        if escalations:
            markers += _records(escalations, event)
            if config.escalation_label:
                try:
                    self.gh.add_labels(pr.number, [config.escalation_label])
                except GitHubError as exc:
                    # The label only decorates the escalation: the comment (and any heal's record in it)
                    # must still be written; the step fails afterwards with the label's error.
                    self.failure = self.failure or exc
                    self.note(f"could not add the label `{config.escalation_label}`")
            self.note(f"escalated {_names(escalations)}")
            if decision == "skipped":
                decision = "escalated"
        self.outcome.decision = decision
        if not self.outcome.category:
            first = (reruns or escalations or diagnoses)[:1]
            self.outcome.category = category_of(first[0]) if first else ""

        def text(block: str) -> str:
            return render_comment(
                self.frames,
                state="done",
                head_sha=sha,
                run_url=event.html_url,
                markers=block,
                reruns=reruns,
                heal=note,
                diagnoses=diagnoses,
                escalations=escalations,
                mention=config.escalation_mention,
                diagnosis_note=FORK_NOTE,
                opt_out_label=config.opt_out_label,
                workflow=event.workflow_name,
            )

        return markers, text

    def rerun(
        self, event: RunEvent, reruns: list[CheckPlan], *, done_before: bool
    ) -> tuple[list[CheckPlan], list[CheckPlan]]:
        """Re-run each check's own job (``rerun-failed-jobs`` would re-run every failed job, those being
        healed or escalated too). Returns the checks re-run, and those GitHub refused to re-run (a run older
        than 30 days, 50 attempts, a disabled workflow), turned into escalations that quote GitHub's reason.
        """
        done: list[CheckPlan] = []
        refused: list[CheckPlan] = []
        for check in reruns:
            job_id = self.job_ids.get(check.check)
            try:
                if job_id is None:
                    self.gh.rerun_failed_jobs(event.run_id)
                else:
                    self.gh.rerun_job(job_id)
            except GitHubError as exc:
                if exc.refused:
                    self.note(f"could not re-run `{check.check}`: {exc}")
                    refused.append(replace(check, verdict=Verdict.ESCALATE, detail=f"{exc}."))
                    continue
                if not done_before and not done:
                    raise  # nothing was done yet: the claim is withdrawn and the next run starts clean
                # What happened before (a heal, a re-run) must reach the PR, or it would be done again;
                # the step fails afterwards with this error.
                self.failure = self.failure or exc
                self.note(f"could not re-run `{check.check}`")
                continue
            done.append(check)
        return done, refused

    def heal_context(
        self,
        event: RunEvent,
        pr: PullRequest,
        config: Config,
        heals: Sequence[CheckPlan],
        previous_fix_prs: tuple[int, ...] = (),
    ) -> HealContext:
        return HealContext(
            repository=event.repository,
            pr=pr,
            head_sha=event.head_sha,
            run_id=event.run_id,
            run_url=event.html_url,
            server_url=self.actions.server_url,
            checks=tuple(heals),
            config=config,
            frames=self.frames,
            temp_dir=self.actions.temp,
            base_env=self.env,
            previous_fix_prs=previous_fix_prs,
            earlier=earlier_accounts(self.comments, config.bot_login, heals, self.signer(pr)),
            workflow_token=self.actions.workflow_token,
        )

    def heal(
        self, event: RunEvent, pr: PullRequest, config: Config, ledger: Ledger, heals: list[CheckPlan]
    ) -> HealResult:
        previous = tuple(dict.fromkeys(n for c in heals for n in ledger.fix_prs(c.check)))
        ctx = self.heal_context(event, pr, config, heals, previous)
        if config.isolation == "none":
            self.note(
                "warning: `isolation: none`: code from the pull request ran as the healer's own user, which "
                "holds the write token (see SECURITY.md)"
            )
        result = heal(self.gh, Repo(self.actions.workspace), ctx, say=self.say)
        if result.setup is not None and result.setup.ran and not result.setup.ok:
            self.note(f"{result.setup.describe()}; the heal went on without it")
            if result.setup.output:
                # the set-up ran the PR's code: its output is fenced in the summary, printed with commands off
                tail = "\n".join(result.setup.output.splitlines()[-15:])
                self.outcome.lines.append("the end of its output:\n\n" + indent(fence(tail, "text"), "  "))
                self.reporter.untrusted(result.setup.output)
        if result.frame_path:
            self.outcome.frame_path = result.frame_path
            self.outcome.frame = result.frame
        if result.delivery and result.delivery.pull:
            self.outcome.fix_pull_request = result.delivery.url
            self.say(
                f"opened fix pull request {result.delivery.url}{' (draft)' if result.delivery.draft else ''}"
            )
        elif result.delivery:
            self.outcome.pushed = result.delivery.mode == "push"
            self.note(f"delivered the change by {result.delivery.mode}")
        elif config.delivery == "none":
            self.note(f"rendered the heal frame for {_names(heals)} (delivery: none) at {result.frame_path}")
        else:
            self.note(f"nothing delivered for {_names(heals)}: {result.why_not}")
        if result.delivered and result.allowed:
            # never silently: the summary names what only the repository's allow list let through
            self.note(
                f"the change touches {', '.join(map(code, result.allowed))}, let through by `guard: allow`"
            )
        return result

    def print_plan(self, plan: Plan) -> None:
        for c in plan.checks:
            why = f" [{c.reason.value}]" if c.reason else ""
            self.say(f"{c.check!r}: {c.verdict.value}{why} {c.detail}".rstrip())
        if plan.resets:
            self.say(f"resets: {', '.join(plan.resets)}")

    def dry_run_frame(self, event: RunEvent, pr: PullRequest, config: Config, plan: Plan) -> None:
        heals = self.heal_checks(plan, pr)
        if not heals:
            return
        from healer.heal.attempt import frame_for

        ctx = self.heal_context(event, pr, config, heals)
        frame = frame_for(ctx, heals)
        self.outcome.frame = frame
        self.outcome.attempt = max(c.attempt for c in heals)
        self.outcome.category = category_of(heals[0])
        self.say("the heal frame:")
        self.reporter.untrusted(frame)

    @staticmethod
    def decision_of(plan: Plan, *, healed: bool) -> str:
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


def category_of(plan: CheckPlan) -> str:
    return plan.diagnosis.category.value if plan.diagnosis else "unknown"


def _names(plans: Sequence[CheckPlan]) -> str:
    return ", ".join(code(p.check) for p in plans)
