"""The planning stages of ``healer run``: pull request, which runs count, config, evidence, plan."""

from __future__ import annotations

from dataclasses import replace

from healer.config import Config, explicit_inputs, load_config_file
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.diagnosis.triage import event_skip_reason, pull_skip_reason
from healer.heal.agent import missing_tools
from healer.heal.deliver import is_fix_branch
from healer.heal.fixes import install_hint
from healer.heal.prepare import setup_commands
from healer.ledger.ledger import (
    Ledger,
)
from healer.ledger.markers import workflow_key
from healer.model import Action, CheckPlan, Diagnosis, Plan, PullRequest, RunEvent, Verdict
from healer.run.evidence import cancelled_jobs, collect_run_jobs, select_jobs
from healer.run.stage import Stage
from healer.text.spans import code


class Planning(Stage):
    """From the event to a plan: the pull request, whether the run counts, the repository's config, the
    evidence and the decision."""

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

    def counts(self, event: RunEvent, pr: PullRequest, config: Config) -> bool:
        """Whether the run is this PR's CI (its event, its branch); else skip with the reason."""
        why = event_skip_reason(event, config.events) or pull_skip_reason(event, pr, event.default_branch)
        if why:
            self.skip(why)
            return False
        return True

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
        skipped = getattr(self.gh, "comments_skipped", 0)
        if skipped:
            self.note(
                f"This pull request has more comments than the healer reads: {skipped} in the middle were "
                "not read, so an attempt recorded only there is not counted."
            )
        ledger = Ledger.from_comments(
            self.comments, config.bot_login, self.signer(pr), workflow=workflow_key(event)
        )
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
