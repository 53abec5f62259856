"""``healer run``: one workflow run, start to end. The only module that knows the order of the stages.

1. config from the environment, token masked, event loaded; a green run resets budgets (by editing the
   previous healer comment), a cancelled or skipped one is no verdict;
2. the pull request (none → skipped), and a stale head (the PR moved on) → skipped, nothing written;
3. the config file from the default branch (never the PR head);
4. evidence → diagnoses → ledger → plan;
5. one claim comment, re-read, act only if this run's claim wins; the same comment later carries the outcome;
6. re-run / heal (fix rules, one agent call, guard, verify, deliver) / diagnose (forks);
7. escalate; 8. job summary and step outputs.

Every decision ends with exit code 0; only a mistake a person must fix (config, event, permissions) exits 1,
with one ``::error::`` line naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from textwrap import indent
from typing import Any

from healer.agent import ProcessError, missing_tools
from healer.classify import classify
from healer.config import Config, ConfigError, config_from_env, explicit_inputs, load_config_file
from healer.deliver import FIX_BRANCH_PREFIX, DeliveryError, is_fix_branch, retire_fix_pulls
from healer.event import PULL_REQUEST_EVENTS, EventError, load_event, load_pull_request_event
from healer.evidence import CancelledJobs, cancelled_jobs, collect_run_jobs, select_jobs
from healer.fixes import install_hint
from healer.flaky import flaky_line, flaky_on_green
from healer.frames import OVERRIDE_DIR, FrameError, Frames, HealNote, fence, render_comment
from healer.github import GitHub, GitHubError
from healer.heal import HealContext, HealResult, heal, heal_note
from healer.isolation import IsolationError
from healer.ledger import (
    Kind,
    Ledger,
    Marker,
    Signer,
    add_markers,
    check_key,
    claim_body,
    claim_marker,
    comment_body,
    encode_marker,
    record,
)
from healer.ledger import reset_markers as make_reset_markers
from healer.markers import flaky_marker
from healer.memory import account_of, earlier_accounts
from healer.model import Action, CheckPlan, Comment, Diagnosis, Job, Plan, PullRequest, RunEvent, Verdict
from healer.policy import acting, decide
from healer.prepare import setup_commands
from healer.report import (
    Actions,
    Outcome,
    Reporter,
    SetupError,
    render_job_summary,
    write_outputs,
    write_summary,
)
from healer.rules import RuleError, load_rules
from healer.spans import code
from healer.tokens import forms, protect_process, receive, scrub
from healer.triage import event_skip_reason, pull_skip_reason
from healer.workspace import GitError, Repo, StaleHeadError

DECISIONS = ("healed", "rerun", "escalated", "skipped", "none")
# The mistakes a person fixes (inputs, config, event, permissions, …), and how the error line names them.
MISTAKES: dict[type[Exception], str] = {
    SetupError: "setup",
    ConfigError: "configuration",
    EventError: "event",
    RuleError: "rules in the config file",
    FrameError: "templates",
    DeliveryError: "delivery",
    GitError: "git",
    ProcessError: "command",
    IsolationError: "isolation",
    GitHubError: "GitHub API",
}
# Conclusions that are a verdict on the code; cancelled, skipped, neutral, stale, … say nothing about it.
# A cancelled run may hold a job stopped by its time limit (GitHub ends those `cancelled` too): read it first.
FAILED = frozenset({"failure", "timed_out", "cancelled"})
FORK_NOTE = (
    "This pull request comes from a fork, so the healer does not run its code; here is what the log says."
)


GitHubFactory = Callable[..., GitHub]


class Run:
    """One run of the healer over one ``workflow_run`` event."""

    def __init__(
        self,
        config: Config,
        actions: Actions,
        gh: GitHub,
        reporter: Reporter,
        env: Mapping[str, str],
        *,
        dry_run: bool = False,
    ) -> None:
        self.config = config
        self.actions = actions
        self.gh = gh
        self.reporter = reporter
        self.env = env
        self.dry_run = dry_run or config.dry_run
        self.outcome = Outcome()
        self.failure: Exception | None = None
        self.frames = Frames(actions.workspace / OVERRIDE_DIR)
        self.started = datetime.now(timezone.utc)  # ages claims left behind by runs that died
        # a cancelled run's job listing and annotations, read to tell a timeout from a cancellation
        self.listing: list[Job] | None = None
        self.cancelled: CancelledJobs | None = None
        self.comments: Sequence[Comment] = ()  # the PR's comments as last read (ledger and memory)
        self.account = ""  # this run's heal account, recorded under the markers for the next attempt
        self.fix_hints: dict[str, str] = {}  # check → why its fix rule cannot run here (a missing tool)
        self.job_ids: dict[str, int] = {}  # check name → the id of its failed job (re-runs are per job)
        # what plans (``decide``; a ``/ci-healer retry`` plans with ``plan_retry``), and whose claim this run
        # writes: the event's run unless set (a command acts on a run that another healer run handled already)
        self.planner: Callable[..., Plan] = decide
        self.claim_run: tuple[int, int] | None = None

    # -- the sequence ----------------------------------------------------------------------------------------

    def execute(self) -> Outcome:
        if self.actions.event_name in PULL_REQUEST_EVENTS:
            with self.reporter.group("A closed pull request: retire its fix pull requests"):
                self.on_pull_request_event()
            return self.outcome
        with self.reporter.group("Event"):
            event = load_event(
                self.actions.event_name, self.actions.event_path, repository=self.actions.repository
            )
            self.event = event
            self.say(
                f"run {event.run_id} (attempt {event.run_attempt}) of {event.workflow_name!r}: "
                f"{event.conclusion}, head {event.head_sha[:7]}"
            )
        if event.conclusion == "success":
            with self.reporter.group("Green run: reset budgets"):
                self.on_success(event)
            return self.outcome
        if event.conclusion == "startup_failure":
            with self.reporter.group("A workflow that could not start"):
                self.on_startup_failure(event)
            return self.outcome
        if event.conclusion not in FAILED:
            self.say(f"conclusion {event.conclusion!r} is not a verdict on the code; nothing to do")
            return self.outcome
        if event.conclusion == "cancelled":
            with self.reporter.group("Cancelled run"):
                if not self.cancelled_by_a_time_limit(event):
                    return self.outcome
        with self.reporter.group("Pull request"):
            pr = self.find_pull(event)
            if pr is None:
                return self.outcome
        with self.reporter.group("Diagnosis and plan"):
            config = self.load_repository_config(event)
            if not self.counts(event, pr, config):
                return self.outcome
            plan, ledger = self.plan(event, pr, config)
        self.outcome.plan = plan
        if self.dry_run:
            with self.reporter.group("Plan (dry run: nothing is written)"):
                self.print_plan(plan)
                self.dry_run_frame(event, pr, config, plan)
            # A dry run only plans: the output says nothing was done, the log and summary say what would be.
            self.outcome.planned = self.decision_of(plan, healed=bool(self.heal_checks(plan, pr)))
            self.outcome.decision = "none"
            self.outcome.category = self.outcome.category or next((_category(c) for c in acting(plan)), "")
            return self.outcome
        with self.reporter.group("Act"):
            self.act(event, pr, config, plan, ledger)
        return self.outcome

    def say(self, line: str) -> None:
        self.reporter.info(line)

    def note(self, line: str) -> None:
        """A line for the job summary (and the log)."""
        self.outcome.lines.append(line)
        self.say(line)

    # -- 1. a green run --------------------------------------------------------------------------------------

    def on_success(self, event: RunEvent) -> None:
        """Every check of a green run passed: reset their budgets by editing the newest healer comment."""
        pr = self.gh.find_pull_request(event)
        if pr is None or pr.head_sha != event.head_sha:
            self.say("no open pull request at this head; nothing to reset")
            return
        self.outcome.pr = pr
        comments = self.gh.list_comments(pr.number)
        ledger = Ledger.from_comments(comments, self.config.bot_login, self.signer(pr))
        if not any(ledger.has_history(c) for c in ledger.checks):
            # the common green run: nothing to reset, so the jobs are not even listed
            self.say("no healer history on this pull request; nothing to reset")
            return
        passed = select_jobs(self.gh.list_jobs(event.run_id, event.run_attempt)).passed
        resets = [name for name in dict.fromkeys(passed) if ledger.has_history(name)]
        if not resets:
            self.say("no healer history for these checks; nothing to reset")
            return
        # tests that failed on this very commit and passed now are flaky: recorded with the reset
        flaky = flaky_on_green(ledger, resets, event.head_sha)
        self.edit_resets(ledger, resets, event, pr, flaky=flaky)

    def signer(self, pr: PullRequest) -> Signer | None:
        """What signs and verifies this pull request's markers (None without `ledger-key`)."""
        return Signer.for_pull(self.config.ledger_key, self.actions.repository, pr.number)

    def edit_resets(
        self,
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
        signer = self.signer(pr)
        markers = make_reset_markers(checks, event.head_sha, event.run_id, event.run_attempt)
        markers += [flaky_marker(c, event.head_sha, t, event.run_id, event.run_attempt) for c, t in flaky]
        note = render_comment(
            self.frames,
            state="reset",
            head_sha=event.head_sha,
            run_url=event.html_url,
            markers="",
            resets=tuple(checks),
        )
        if flaky:
            note = f"{note.strip()}\n\n{flaky_line(flaky, event.head_sha)}"
            self.note(f"recorded as flaky: {', '.join(t for _, tests in flaky for t in tests)}")
        if latest is None:
            # Every healer comment holds a claim another run is still acting on: that run replaces its
            # comment's body when it finishes, so the reset gets a comment of its own instead.
            self.note(f"reset the budget of {', '.join(map(code, checks))} (in a new comment)")
            if not self.dry_run:
                self.gh.create_comment(pr.number, comment_body(markers, note.strip(), signer))
            return
        body = add_markers(latest.body, markers, note.strip(), signer)
        if len(body) > 65_536:
            body = add_markers(latest.body, markers, signer=signer)  # the note is optional, the markers not
        self.note(f"reset the budget of {', '.join(map(code, checks))} (edited the previous comment)")
        if not self.dry_run:
            self.gh.update_comment(latest.id, body)
        for check in checks:
            self.retire(
                pr, ledger.fix_prs(check), f"`{check}` passed on {event.head_sha[:7]} without this fix."
            )

    def retire(self, pr: PullRequest, numbers: Sequence[int], why: str) -> None:
        """Close the fix PRs among ``numbers`` that are still open (``why`` at the top), delete their
        branches, and the branches of merged ones: a fix PR never outlives its reason."""
        if not numbers or self.dry_run:
            return
        closed = retire_fix_pulls(self.gh, numbers, owner=pr.number, why=why)
        if closed:
            self.note(f"closed fix pull request(s) {', '.join(f'#{n}' for n in closed)}: {why}")

    # -- a pull request that was merged or closed --------------------------------------------------------

    def on_pull_request_event(self) -> None:
        """``pull_request_target: [closed]``: the PR was merged or closed, so its fix PRs have nothing left to
        go into (and GitHub would retarget them to the default branch once its branch is deleted). Nothing of
        the PR is checked out or run."""
        event = load_pull_request_event(
            self.actions.event_name, self.actions.event_path, repository=self.actions.repository
        )
        pr = event.pull
        self.outcome.pr = pr
        if event.action != "closed":
            self.say(f"a `{event.action}` pull request event: only `closed` is handled; nothing to do")
            return
        if is_fix_branch(pr.head_ref):
            self.skip(f"#{pr.number} is one of the healer's own fix pull requests")
            return
        how = "merged" if pr.merged else "closed"
        self.say(f"pull request #{pr.number} was {how}")
        comments = self.gh.list_comments(pr.number)
        ledger = Ledger.from_comments(comments, self.config.bot_login, self.signer(pr))
        numbers = [n for check in ledger.checks for n in ledger.fix_prs(check)]
        known: dict[int, PullRequest] = {}
        if not pr.is_fork:
            # fix PRs the ledger lost track of (a deleted comment) are still based on the PR's branch
            prefix = f"{FIX_BRANCH_PREFIX}{pr.number}-"
            for fix in self.gh.list_pulls(base=pr.head_ref, state="open"):
                if fix.head_ref.startswith(prefix):
                    known[fix.number] = fix
        numbers = list(dict.fromkeys([*numbers, *known]))
        if not numbers:
            self.say(f"no fix pull request of #{pr.number}; nothing to do")
            self.outcome.decision = "none"
            return
        why = f"#{pr.number} was {how}, so this fix has no pull request left to go into."
        if self.dry_run:
            self.note(f"would close #{pr.number}'s fix pull requests and delete their branches (dry run)")
            return
        closed = retire_fix_pulls(self.gh, numbers, owner=pr.number, why=why, known=known)
        self.note(
            f"closed {len(closed)} fix pull request(s) of #{pr.number} and deleted the healer's branches"
            if closed
            else f"deleted the branches of #{pr.number}'s fix pull requests"
        )
        self.outcome.decision = "none"

    # -- a cancelled run, a workflow that could not start ----------------------------------------------------

    def cancelled_by_a_time_limit(self, event: RunEvent) -> bool:
        """Whether a ``cancelled`` run may hold a timeout: a job stopped by ``timeout-minutes`` ends
        ``cancelled``, like one cancelled by a person, a newer push or a concurrency group. The job listing
        and one annotations request per started job tell them apart; the answers are kept for the diagnosis.
        """
        listing = self.gh.list_jobs(event.run_id, event.run_attempt)
        selection = select_jobs(listing, max_jobs=self.config.max_jobs)
        cancelled = cancelled_jobs(self.gh, selection)
        if not selection.failed and not cancelled.to_read:
            self.say(
                "cancelled by a person, a newer push or a concurrency group (no job hit a time limit): "
                "not a verdict on the code; nothing to do"
            )
            return False
        self.listing, self.cancelled = listing, cancelled
        return True

    def on_startup_failure(self, event: RunEvent) -> None:
        """A run that could not start has no jobs to read: say so once per commit, naming the file."""
        pr = self.find_pull(event)
        if pr is None:
            return
        config = self.load_repository_config(event)
        if not self.counts(event, pr, config):
            return
        path = event.workflow_path or event.workflow_name
        comments = self.gh.list_comments(pr.number)
        signer = self.signer(pr)
        notices = Ledger.from_comments(comments, config.bot_login, signer).startup_notices(event.head_sha)
        if any(entry.marker.check == check_key(path) for entry in notices):
            self.skip(f"the startup failure of {code(path)} on {event.head_sha[:7]} was reported already")
            return
        marker = Marker(
            Kind.STARTUP, event.head_sha, path, run_id=event.run_id, run_attempt=event.run_attempt
        )
        text = render_comment(
            self.frames,
            state="startup",
            head_sha=event.head_sha,
            run_url=event.html_url,
            markers="",
            workflow_path=path,
        ).strip()
        self.outcome.category = "config"
        if self.dry_run:
            # a dry run only plans: the output says nothing was done, the log and summary say what would be
            self.outcome.planned, self.outcome.decision = "escalated", "none"
            self.note(f"would report that {code(path)} could not start (dry run)")
            return
        self.outcome.decision = "escalated"
        if notices:
            # one comment per commit: a second workflow that could not start joins the first notice (an edit,
            # which notifies nobody again)
            comment = next(c for c in comments if c.id == notices[0].comment_id)
            self.gh.update_comment(comment.id, add_markers(comment.body, [marker], text, signer))
        else:
            self.gh.create_comment(pr.number, comment_body([marker], text, signer))
        self.note(f"reported that the workflow {code(path)} could not start on {event.head_sha[:7]}")

    def counts(self, event: RunEvent, pr: PullRequest, config: Config) -> bool:
        """Whether the run is this PR's CI (its event, its branch); else skip with the reason."""
        why = event_skip_reason(event, config.events) or pull_skip_reason(event, pr, event.default_branch)
        if why:
            self.skip(why)
            return False
        return True

    # -- 2. the pull request ---------------------------------------------------------------------------------

    def find_pull(self, event: RunEvent) -> PullRequest | None:
        pr = self.gh.find_pull_request(event)
        if pr is None:
            self.skip("no open pull request has this run's head commit")
            return None
        self.outcome.pr = pr
        self.say(f"pull request #{pr.number} ({'fork' if pr.is_fork else 'same repository'})")
        if pr.head_sha.lower() != event.head_sha.lower():
            self.skip(
                f"stale head: #{pr.number} is now at {pr.head_sha[:7]}, the run tested {event.head_sha[:7]}"
            )
            return None
        if is_fix_branch(pr.head_ref):
            self.skip(f"#{pr.number} is one of the healer's own fix pull requests")
            return None
        return pr

    def skip(self, why: str) -> None:
        self.outcome.decision = "skipped"
        self.note(f"skipped: {why}")

    # -- 3./4. config, evidence, plan ------------------------------------------------------------------------

    def load_repository_config(self, event: RunEvent) -> Config:
        branch = event.default_branch or self.gh.get_repository().default_branch
        text = self.gh.get_file(self.config.config_file, branch)
        if text is None:
            return self.config
        self.say(f"config file {self.config.config_file} from {branch}")
        return load_config_file(
            text, self.config, source=self.config.config_file, explicit=explicit_inputs(self.env)
        )

    def plan(self, event: RunEvent, pr: PullRequest, config: Config) -> tuple[Plan, Ledger]:
        rules = load_rules(config.rules, source=config.config_file)
        jobs = collect_run_jobs(
            self.gh,
            event,
            max_jobs=config.max_jobs,
            read_limit=config.log_read_limit,
            jobs=self.listing,
            cancelled=self.cancelled,
        )
        for note in jobs.notes:
            self.say(note)
        if jobs.uninspected:
            self.note(f"not inspected (over `max-jobs`): {', '.join(map(code, jobs.uninspected))}")
        passed = jobs.passed
        diagnoses: dict[str, Diagnosis] = {}
        for item in jobs.failed:
            diagnosis = classify(item, rules)
            if diagnosis.job is None:
                diagnosis = replace(diagnosis, job=item.job.name)
            rule = rules.get(diagnosis.rule)
            if rule is not None and rule.description and not diagnosis.description:
                diagnosis = replace(diagnosis, description=rule.description)
            if not setup_commands(config, [CheckPlan(item.job.name, Verdict.SKIP)]):
                # with a set-up command the tool may come from set-up: the heal checks after it ran
                diagnosis = self.without_missing_fixers(diagnosis)
            diagnoses.setdefault(item.job.name, diagnosis)  # a check is a job name: the first one counts
            self.job_ids.setdefault(item.job.name, item.job.id)
            self.say(
                f"{item.job.name!r}: {diagnosis.category.value} (rule {diagnosis.rule}, "
                f"{diagnosis.action.value})"
            )
        self.diagnoses, self.passed = diagnoses, passed
        self.comments = self.gh.list_comments(pr.number)
        ledger = Ledger.from_comments(self.comments, config.bot_login, self.signer(pr))
        plan = self.with_fix_hints(
            self.planner(
                diagnoses, passed=passed, ledger=ledger, config=config, pull=pr, run=event, now=self.started
            )
        )
        for note in plan.notes:
            self.reporter.warning(note)
        return plan, ledger

    def without_missing_fixers(self, diagnosis: Diagnosis) -> Diagnosis:
        """A fix rule whose tool is not on this runner's PATH becomes an agent task, decided before
        planning, so that with no `agent-command` the check is escalated instead of spending attempts that
        cannot fix anything."""
        if diagnosis.action is not Action.FIX or not diagnosis.fix_commands:
            return diagnosis
        path = self.env.get("PATH")
        missing = missing_tools(diagnosis.fix_commands, path)
        if not missing:
            return diagnosis
        why = (
            f"its fix rule needs `{missing[0].split()[0]}`, which is not on PATH: {install_hint(missing[0])}"
        )
        self.fix_hints[diagnosis.job or ""] = why
        self.say(f"{diagnosis.job!r}: {why}; the check goes to the agent")
        return replace(diagnosis, action=Action.AGENT)

    def with_fix_hints(self, plan: Plan) -> Plan:
        """An escalation for want of an agent says which step would let the check's fix rule run instead."""
        checks = tuple(
            replace(c, detail=f"{c.detail} Also, {self.fix_hints[c.check]}.")
            if c.verdict is Verdict.ESCALATE and c.check in self.fix_hints and "agent-command" in c.detail
            else c
            for c in plan.checks
        )
        return replace(plan, checks=checks)

    # -- 5.–7. acting ----------------------------------------------------------------------------------------

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
            ledger = Ledger.from_comments(self.comments, config.bot_login, self.signer(pr))
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
            markers += make_reset_markers(plan.resets, event.head_sha, event.run_id, event.run_attempt)
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
            self.outcome.category = _category(heals[0])
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
            self.outcome.category = _category(first[0]) if first else ""

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

    # -- dry run ---------------------------------------------------------------------------------------------

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
        from healer.heal import frame_for

        ctx = self.heal_context(event, pr, config, heals)
        frame = frame_for(ctx, heals)
        self.outcome.frame = frame
        self.outcome.attempt = max(c.attempt for c in heals)
        self.outcome.category = _category(heals[0])
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


def _category(plan: CheckPlan) -> str:
    return plan.diagnosis.category.value if plan.diagnosis else "unknown"


def _names(plans: Sequence[CheckPlan]) -> str:
    return ", ".join(code(p.check) for p in plans)


# -- the shell -------------------------------------------------------------------------------------------


def summary_markdown(run: Run, seconds: float) -> str:
    event = getattr(run, "event", None)
    return render_job_summary(
        run.frames,
        run.outcome,
        head_sha=event.head_sha if event else "",
        run_url=event.html_url if event else "",
        dry_run=run.dry_run,
        workflow_token=run.actions.workflow_token,
        requests=_request_count(run.gh),
        seconds=seconds,
    )


def _request_count(gh: GitHub) -> int:
    try:
        return gh.request_count
    except (NotImplementedError, AttributeError):
        return 0


def main(
    env: Mapping[str, str],
    *,
    dry_run: bool = False,
    reporter: Reporter | None = None,
    github: GitHubFactory = GitHub,
) -> int:
    """Run the healer for the event in ``env``; returns the exit code (0 for every decision)."""
    reporter = reporter or Reporter()
    started = time.monotonic()
    token = ""
    run: Run | None = None
    try:
        config = config_from_env(env)
        token = config.github_token
        if token:
            reporter.mask(token)
            for form in (f for f in forms(token) if f != token):
                reporter.mask(form)  # its base64 forms too (a basic-auth header in a trace)
        if config.ledger_key:
            reporter.mask(config.ledger_key)
        actions = Actions.from_env(env)
        if not token:
            raise SetupError(
                "input `github-token` is empty: pass `github-token: ${{ secrets.GITHUB_TOKEN }}` "
                "or a GitHub App token"
            )
        gh = github(token, actions.repository, api_url=actions.api_url)
        runner: type[Run] = Run
        if actions.event_name == "issue_comment":
            from healer.commandrun import CommandRun  # builds on Run: imported here, not at the top

            runner = CommandRun
        run = runner(config, actions, gh, reporter, env, dry_run=dry_run)
        try:
            run.execute()
        finally:
            gh.close()
    except tuple(MISTAKES) as exc:
        kind = next(label for cls, label in MISTAKES.items() if isinstance(exc, cls))
        message = f"{kind}: {scrub(str(exc), token)}"
        reporter.error(message)
        _finish_after_error(run, message, started)
        return 1
    except Exception as exc:  # a bug: say so in one line, keep the details folded for a report
        message = f"internal error ({type(exc).__name__}); please report it with the log of this step"
        reporter.error(message)
        with reporter.group("Details for a bug report"):
            reporter.untrusted(scrub(traceback.format_exc(), token))
        _finish_after_error(run, message, started)
        return 1
    outcome = run.outcome
    if dry_run or config.dry_run:
        reporter.info(
            f"dry run: the decision would be {outcome.planned or outcome.decision}; nothing was written"
        )
    write_outputs(actions.output, outcome.outputs())
    write_summary(actions.summary, summary_markdown(run, time.monotonic() - started))
    reporter.info(f"decision: {outcome.decision}")
    return 0


def _finish_after_error(run: Run | None, message: str, started: float) -> None:
    """Outputs and a job summary even for a run that stopped on an error: what was done before it stands
    (a comment posted, a fix PR opened), and the summary is where a maintainer looks first."""
    if run is None:
        return
    run.outcome.lines.append(f"stopped: {message}")
    with contextlib.suppress(OSError, FrameError):
        write_outputs(run.actions.output, run.outcome.outputs())
        write_summary(run.actions.summary, summary_markdown(run, time.monotonic() - started))


def _command(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    # Before anything else (and before any code from the pull request can run): no process of this user may
    # read this one's memory, and the token leaves the process environment (see healer.tokens).
    protect_process()
    return main(receive(env, reexec=True), dry_run=bool(args.dry_run))


def register(subparsers: Any) -> None:
    """Add ``healer run [--dry-run]``."""
    parser = subparsers.add_parser(
        "run",
        help="heal the pull request of the workflow_run event in the Actions environment",
        description="Read the workflow_run event from the Actions environment (GITHUB_EVENT_PATH, …) and the "
        "inputs from HEALER_* variables; re-run, heal, or escalate.",
    )
    parser.add_argument("--dry-run", action="store_true", help="do every read, write nothing, print the plan")
    parser.set_defaults(func=_command)
