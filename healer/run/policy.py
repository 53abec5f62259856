"""decide(): (diagnoses, ledger, config, pull request, run) → Plan. Pure: no I/O, no clock, no randomness.

The rules, in the order they are applied (the first that applies decides):

Pull-request level (every failed check gets the same skip):

1. ``stale-head``: the PR's head is no longer the run's head SHA (a newer run will come). No resets.
2. ``not-actionable``: the PR is not open; or the run is not its CI (``healer.diagnosis.triage``): an event
outside
   ``events``, a push to another branch, or a PR whose head branch is the default branch.
3. ``disabled``: the loop guard — the PR's head branch starts with ``ci-healer/`` (the healer's own fix
   PRs) or the bot login opened the PR; the opt-out label is on the PR; the author is on ``deny-authors``,
   or ``allow-authors`` is set and the author is not on it. Logins and labels compare case-insensitively,
   as GitHub treats them.

Per check:

4. ``disabled``: ``checks: {name: {enabled: false}}`` in the config file.
5. ``not-actionable``: the failure is ``cancelled`` or its action is ``ignore`` (not a verdict).
6. ``fork-policy``: a fork PR. Under ``fork-policy: diagnose`` the check plan has ``diagnose=True`` (the
   app posts the diagnosis in a comment; no fork code runs) unless a diagnosis for (check, commit) is on
   record; under ``ignore`` nothing is posted. Under ``rules`` and ``heal``, in the two stages only
   (:func:`heals_forks`), a fork's check is planned as any other, except that ``rules`` diagnoses what
   only the agent could heal; in one job (``stage: all``) they diagnose as ``diagnose`` does.
7. ``already-attempted``: this run (id and attempt) already recorded an outcome for the check, or the
   check was already healed on this commit (a re-run of the same commit does not spend budget).
8. The action (the config file's per-check ``action`` over the diagnosis', which comes from whose failure it
   is: ``healer.diagnosis.owner``; tests that are all known to be flaky are history's and re-run once; a
   failure the diagnosis re-runs first, because other tests of its run passed on a retry, is the code's once
   the same commit was re-run: ``healer.run.testhistory``):

   - ``rerun`` (transient, infrastructure by default): re-run while the re-runs of (check, commit) are
     fewer than ``max-reruns``. Re-runs so far are the larger of the ledger's count and ``run_attempt - 1``
     (GitHub's own count, which no comment edit can lower; it counts the re-runs that found no healer
     comment to record them in, and an escalation lists those too). When the budget went to another run of
     the same commit whose re-run has not finished, this run's first failure skips (``already-attempted``)
     instead of escalating. Then transient, infrastructure and timeout escalate (a retry did not help;
     agent budget is not spent on the network), and so does any failure whose owner is not the code; other
     categories heal.
   - ``escalate`` (config, timeout, and whatever is not the code's: the PR's metadata, the repository's
     credentials or release, an uncertain owner outside a code check): escalate, saying whose it is; a
     timeout is re-run once first with ``rerun-timeouts``.
   - ``fix``: heal in mode ``fix`` when the diagnosis carries fix commands, else in mode ``agent``.
   - ``agent``: heal in mode ``agent``; ``unknown`` escalates instead with ``unknown-action: escalate``.

9. Heal budget: the attempt is k = spent + 1 (see ``healer.ledger.ledger``). k > ``max-attempts`` → escalate,
   and once the escalation is on record, skip ``exhausted`` until the check passes. ``max-attempts: 0``
   therefore means "never heal, escalate at once". An ``agent`` heal with no ``agent-command`` escalates
   instead as ``untried`` (nothing to try: the pull request's one short notice, not a failed attempt),
   except with ``delivery: none``, where the frame is handed to a later step.
10. Escalation happens once per check until it passes: a second one is skipped as ``exhausted`` when the
    budget is spent and ``already-attempted`` otherwise.
11. ``heal-planned``: a re-run while another check of the run is healed: the fix brings a new commit (and
    its CI), so re-running the old one would only spend a run attempt.
12. ``claimed-elsewhere``: a check that would act (rerun, heal, escalate, or a fork diagnosis) while
    another run holds the commit: before claiming (``claim_id`` None) any open claim; after claiming, any
    winning claim other than ``claim_id``.

Checks that passed in this run and have history since their last reset are listed in ``Plan.resets``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from healer.config import Config, check_settings
from healer.diagnosis.triage import event_skip_reason, pull_skip_reason
from healer.ledger.flaky import all_known_flaky
from healer.ledger.ledger import Ledger
from healer.ledger.markers import workflow_key
from healer.model import (
    Action,
    Category,
    CheckPlan,
    Diagnosis,
    HealMode,
    Owner,
    PastAttempt,
    Plan,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
    is_fix_branch,
)
from healer.run.testhistory import failed_again, from_history

_RETRY_CATEGORIES = frozenset({Category.TRANSIENT, Category.INFRASTRUCTURE, Category.TIMEOUT})
_ACTING = frozenset({Verdict.RERUN, Verdict.HEAL, Verdict.ESCALATE})


def decide(
    diagnoses: Mapping[str, Diagnosis],
    *,
    passed: Iterable[str] = (),
    ledger: Ledger,
    config: Config,
    pull: PullRequest,
    run: RunEvent,
    claim_id: int | None = None,
    now: datetime | None = None,
) -> Plan:
    """The plan for one completed run.

    ``diagnoses`` maps each failed check (job name) to its diagnosis; ``passed`` names the checks that
    passed in the run; ``ledger`` is read from the PR's comments; ``claim_id`` is the id of this run's claim
    comment once it is posted (None before); ``now`` (the run's start) ages other claims before this run has
    one. Only ``head_sha``, ``run_id``, ``run_attempt``, ``is_fork``, ``head_branch`` and the workflow
    (budgets are per (workflow, check): the ledger is read for ``run``'s workflow) are read from ``run``.
    """
    ledger = ledger.in_workflow(workflow_key(run))
    if pull.head_sha.lower() != run.head_sha.lower():
        detail = (
            f"The pull request's head is now {pull.head_sha[:7]}, not the run's {run.head_sha[:7]}; "
            "a newer run will come."
        )
        return Plan(checks=_skip_all(diagnoses, ledger, config, SkipReason.STALE_HEAD, detail))
    blocked = _pull_request_block(pull, run, config)
    if blocked is not None:
        reason, detail = blocked
        return Plan(checks=_skip_all(diagnoses, ledger, config, reason, detail), notes=(detail,))

    notes: list[str] = []
    plans = tuple(
        _plan_check(name, diagnosis, ledger, config, pull, run) for name, diagnosis in diagnoses.items()
    )
    if any(plan.verdict is Verdict.HEAL for plan in plans):
        plans = tuple(_without_rerun(plan) for plan in plans)
    if any(_acts(plan) for plan in plans):
        plans, note = _apply_claims(plans, ledger, run.head_sha, claim_id, now)
        if note:
            notes.append(note)
    resets = tuple(
        name for name in dict.fromkeys(passed) if name not in diagnoses and ledger.has_history(name)
    )
    return Plan(checks=plans, resets=resets, notes=tuple(notes))


def acting(plan: Plan) -> tuple[CheckPlan, ...]:
    """The check plans that make the healer write (and so need a claim first)."""
    return tuple(check for check in plan.checks if _acts(check))


def _acts(plan: CheckPlan) -> bool:
    return plan.verdict in _ACTING or plan.diagnose


def _pull_request_block(pull: PullRequest, run: RunEvent, config: Config) -> tuple[SkipReason, str] | None:
    if pull.state != "open":
        return SkipReason.NOT_ACTIONABLE, f"Pull request #{pull.number} is {pull.state}, not open."
    foreign = event_skip_reason(run, config.events) or pull_skip_reason(run, pull, run.default_branch)
    if foreign:
        return SkipReason.NOT_ACTIONABLE, f"Not this pull request's CI: {foreign}."
    bot = config.bot_login.strip().casefold()
    # Details name logins in backticks, never with "@": a detail may end up in a comment and must ping nobody.
    if is_fix_branch(pull.head_ref) or is_fix_branch(run.head_branch):
        return SkipReason.DISABLED, "This is a fix pull request of the healer; it never heals its own."
    author = pull.author.casefold()
    if bot and author == bot:
        return SkipReason.DISABLED, "The healer's bot login opened this pull request; it never heals its own."
    label = config.opt_out_label.strip().casefold()
    if label and any(name.casefold() == label for name in pull.labels):
        return SkipReason.DISABLED, "The pull request carries the opt-out label."
    if author in {login.casefold() for login in config.deny_authors}:
        return SkipReason.DISABLED, f"Pull requests by `{pull.author}` are not healed (`deny-authors`)."
    if config.allow_authors and author not in {login.casefold() for login in config.allow_authors}:
        return (
            SkipReason.DISABLED,
            f"Only pull requests by `allow-authors` are healed, not by `{pull.author}`.",
        )
    return None


def _skip_all(
    diagnoses: Mapping[str, Diagnosis], ledger: Ledger, config: Config, reason: SkipReason, detail: str
) -> tuple[CheckPlan, ...]:
    return tuple(
        CheckPlan(
            check=name,
            verdict=Verdict.SKIP,
            diagnosis=diagnosis,
            max_attempts=_max_attempts(name, config),
            reason=reason,
            detail=detail,
            history=ledger.history(name),
        )
        for name, diagnosis in diagnoses.items()
    )


def _max_attempts(check: str, config: Config) -> int:
    override = check_settings(config, check).max_attempts
    return config.max_attempts if override is None else override


def _plan_check(
    name: str, diagnosis: Diagnosis, ledger: Ledger, config: Config, pull: PullRequest, run: RunEvent
) -> CheckPlan:
    settings = check_settings(config, name)
    max_attempts = _max_attempts(name, config)
    max_reruns = config.max_reruns if settings.max_reruns is None else settings.max_reruns
    sha = run.head_sha
    base = CheckPlan(
        check=name,
        verdict=Verdict.SKIP,
        diagnosis=diagnosis,
        max_attempts=max_attempts,
        history=ledger.history(name),
    )

    def skip(reason: SkipReason, detail: str, *, diagnose: bool = False) -> CheckPlan:
        return _with(base, verdict=Verdict.SKIP, reason=reason, detail=detail, diagnose=diagnose)

    def escalate(detail: str) -> CheckPlan:
        if ledger.escalated(name):
            spent = ledger.attempts_spent(name) >= max_attempts
            reason = SkipReason.EXHAUSTED if spent else SkipReason.ALREADY_ATTEMPTED
            return skip(
                reason, "The escalation was posted already; the healer is quiet until the check passes."
            )
        return _with(base, verdict=Verdict.ESCALATE, detail=detail)

    if not settings.enabled:
        return skip(SkipReason.DISABLED, "This check is turned off in the config file (`checks`).")
    action = settings.action or diagnosis.action
    if diagnosis.category is Category.CANCELLED or action is Action.IGNORE:
        return skip(SkipReason.NOT_ACTIONABLE, "Cancelled or ignored failures are not a verdict on the code.")
    fork = pull.is_fork or run.is_fork
    if fork and config.fork_policy == "ignore":
        return skip(SkipReason.FORK_POLICY, "Fork pull requests are left alone (`fork-policy: ignore`).")
    if fork and not heals_forks(config):
        if ledger.diagnosed(name, sha):
            return skip(SkipReason.FORK_POLICY, "The diagnosis for this commit was posted already.")
        why = (
            "Code from a fork is never run in a job that holds this repository's token; `fork-policy: "
            f"{config.fork_policy}` heals forks in the two-stage workflow (`stage: heal`, then `deliver`)"
            if config.fork_policy in ("rules", "heal")
            else "Code from a fork is never run with this repository's token"
        )
        return skip(SkipReason.FORK_POLICY, f"{why}; the diagnosis is posted instead.", diagnose=True)
    if ledger.handled(name, sha, run.run_id, run.run_attempt):
        return skip(SkipReason.ALREADY_ATTEMPTED, "This run was handled already.")
    if sha in ledger.attempted_shas(name):
        return skip(SkipReason.ALREADY_ATTEMPTED, f"This check was already healed on {sha[:7]}.")

    recorded = ledger.reruns(name, sha)
    reruns = max(recorded, run.run_attempt - 1)

    def escalate_rerun(detail: str) -> CheckPlan:
        # a re-run that found no healer comment to record it in left no marker: its escalation still
        # says it was re-run (GitHub's count, ``run_attempt``)
        planned = escalate(detail)
        if planned.verdict is not Verdict.ESCALATE or reruns <= recorded:
            return planned
        category = diagnosis.category.value
        unrecorded = tuple(
            PastAttempt(kind="rerun", sha=sha, attempt=0, category=category, run_id=run.run_id)
            for _ in range(reruns - recorded)
        )
        return _with(planned, history=planned.history + unrecorded)

    pending = ledger.pending_rerun(name, sha, run.run_id) if run.run_attempt == 1 else None
    if diagnosis.rerun_first and reruns >= 1 and pending is None and not settings.action:
        diagnosis = failed_again(diagnosis, reruns, sha)
        base, action = _with(base, diagnosis=diagnosis), diagnosis.action
    if all_known_flaky(diagnosis.test_ids, recorded=ledger.flaky_tests(), patterns=config.flaky_tests):
        # a flaky test is re-run, never "fixed": an agent would change nothing or weaken the test
        base = _with(base, diagnosis=from_history(diagnosis))
        if reruns < 1:
            return _with(
                base,
                verdict=Verdict.RERUN,
                flaky=diagnosis.test_ids,
                detail=f"Known flaky tests failed; re-run once on {sha[:7]}.",
            )
        return escalate_rerun(f"Known flaky tests failed again after a re-run on {sha[:7]}.")
    mode = HealMode.AGENT
    if action is Action.RERUN:
        if reruns < max_reruns:
            return _with(
                base, verdict=Verdict.RERUN, detail=f"Re-run {reruns + 1} of {max_reruns} on {sha[:7]}."
            )
        if pending is not None:
            # Another run of this commit (a push and a pull_request trigger, say) was re-run and has not
            # finished: its result is the verdict on the re-run, not this run's first failure.
            return skip(
                SkipReason.ALREADY_ATTEMPTED,
                f"A re-run of this check on {sha[:7]} (run {pending}) has not finished; its result decides.",
            )
        if diagnosis.category in _RETRY_CATEGORIES or diagnosis.owner not in (Owner.CODE, Owner.UNKNOWN):
            return escalate_rerun(f"The job was re-run {reruns} time(s) on {sha[:7]} and still fails.")
    elif action is Action.ESCALATE:
        if diagnosis.category is Category.TIMEOUT and config.rerun_timeouts and reruns < 1:
            return _with(base, verdict=Verdict.RERUN, detail=f"A timed-out job is re-run once on {sha[:7]}.")
        if diagnosis.category is Category.TIMEOUT and config.rerun_timeouts:
            return escalate_rerun(escalation_reason(diagnosis))
        return escalate(escalation_reason(diagnosis))
    elif action is Action.FIX:
        mode = HealMode.FIX if diagnosis.fix_commands else HealMode.AGENT
    elif diagnosis.category is Category.UNKNOWN and config.unknown_action == "escalate":
        return escalate("No rule recognises this failure, and `unknown-action` is `escalate`.")

    attempt = ledger.attempts_spent(name) + 1
    if attempt > max_attempts:
        return escalate(f"All {max_attempts} heal attempt(s) are spent.")
    if fork and mode is HealMode.AGENT and config.fork_policy == "rules":
        if ledger.diagnosed(name, sha):
            return skip(SkipReason.FORK_POLICY, "The diagnosis for this commit was posted already.")
        return skip(
            SkipReason.FORK_POLICY,
            "No fix rule applies, and `fork-policy: rules` runs no agent on a fork's code; the diagnosis is "
            "posted instead.",
            diagnose=True,
        )
    if mode is HealMode.AGENT and not config.agent_command and config.delivery != "none":
        # nothing to try: said once, in the pull request's short notice (not as a failed attempt)
        planned = escalate("No fix rule applies.")
        return _with(planned, untried=True) if planned.verdict is Verdict.ESCALATE else planned
    return _with(
        base,
        verdict=Verdict.HEAL,
        attempt=attempt,
        mode=mode,
        detail=f"Heal attempt {attempt} of {max_attempts} ({mode.value}).",
    )


# Who acts on a failure that is not the pull request's code, by its owner (the escalation's one reason).
_OWNER_WORDS = {
    Owner.METADATA: "The pull request's title, labels or description must change",
    Owner.REPOSITORY: "The repository's configuration, credentials or release state needs a maintainer",
    Owner.PLATFORM: "The runner, the network or a hosted service failed, not this pull request's code",
    Owner.UPSTREAM: "A dependency or the base branch is broken, not this pull request's code",
    Owner.UNKNOWN: "Nothing shows that this step checks the pull request's code; a person should look",
}


def escalation_reason(diagnosis: Diagnosis) -> str:
    """One sentence on why a failure goes to a person and not to a code change (by its owner)."""
    words = _OWNER_WORDS.get(diagnosis.owner)
    if words is not None and diagnosis.category is not Category.TIMEOUT:
        step = f" ({diagnosis.purpose} step)" if diagnosis.purpose else ""
        if "changes" in dict(diagnosis.decided_by):  # the changed files said so (healer.diagnosis.bychanges)
            words += ": the pull request changed none of the files this failure depends on"
        return f"{words}{step}."
    return f"A {diagnosis.category.value} failure needs a person, not a code change."


def heals_forks(config: Config) -> bool:
    """Whether a fork's code may be run: `fork-policy: rules` or `heal`, in the two stages only (the heal job
    holds no write token; in one job the token and the fork's code would share a machine)."""
    return config.fork_policy in ("rules", "heal") and config.stage != "all"


def _apply_claims(
    plans: tuple[CheckPlan, ...], ledger: Ledger, sha: str, claim_id: int | None, now: datetime | None
) -> tuple[tuple[CheckPlan, ...], str]:
    winner = ledger.winning_claim(sha, claim_id=claim_id, now=now)
    if claim_id is None:
        if winner is None:
            return plans, ""
        detail = f"Another healer run (claim in comment {winner.comment_id}) is acting on {sha[:7]}."
        note = ""
    elif winner is not None and winner.comment_id == claim_id:
        return plans, ""
    elif winner is None:
        # Our own claim is not among the trusted comments: most likely `bot-login` is not the login the token
        # comments as, and then the ledger would never see the healer's own markers either.
        detail = f"This run's claim (comment {claim_id}) is not among the comments by the bot login."
        note = f"{detail} Check that `bot-login` is the login the token comments as."
    else:
        detail = f"An earlier healer run (claim in comment {winner.comment_id}) is acting on {sha[:7]}."
        note = ""
    claimed = tuple(
        _with(
            plan,
            verdict=Verdict.SKIP,
            reason=SkipReason.CLAIMED_ELSEWHERE,
            detail=detail,
            attempt=0,
            mode=None,
            diagnose=False,
        )
        if _acts(plan)
        else plan
        for plan in plans
    )
    return claimed, note


def _without_rerun(plan: CheckPlan) -> CheckPlan:
    if plan.verdict is not Verdict.RERUN:
        return plan
    return _with(
        plan,
        verdict=Verdict.SKIP,
        reason=SkipReason.HEAL_PLANNED,
        detail="Not re-run: a heal of this commit is planned, and the fix brings a new commit whose CI runs "
        "this job again.",
    )


def _with(plan: CheckPlan, **changes: Any) -> CheckPlan:
    return replace(plan, **changes)
