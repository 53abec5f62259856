"""The values that cross module boundaries.

Every stage of a run takes and returns these frozen dataclasses and enums; none of them does I/O.
Modules own the types that stay inside them (the log model in ``logs``, markers in ``ledger``);
what two or more rooms exchange lives here so that each room can be read and tested alone.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from statistics import median

# What failed and whose it is, re-exported: every room imports them from here.
from healer.failure import DEFAULT_ACTIONS as DEFAULT_ACTIONS
from healer.failure import Action as Action
from healer.failure import Category as Category
from healer.failure import Diagnosis as Diagnosis
from healer.failure import Owner as Owner


@dataclass(frozen=True)
class RunEvent:
    """The parts of a ``workflow_run`` event the healer uses."""

    repository: str  # "owner/name" of the base repository (where the workflow ran)
    run_id: int
    run_attempt: int
    workflow_name: str
    head_sha: str
    head_branch: str
    head_repository: str  # "owner/name" of the repository holding the head commit
    is_fork: bool
    event: str  # the event that triggered the run ("pull_request", "push", …)
    conclusion: str | None  # success, failure, cancelled, timed_out, …
    pull_requests: tuple[int, ...] = ()  # PR numbers from the payload, filtered to ``repository``
    html_url: str = ""
    default_branch: str = ""  # the base repository's default branch, from the payload's ``repository``
    head_owner: str = ""  # login of the head repository's owner (for ``GET /pulls?head=owner:branch``)
    workflow_path: str = ""  # the workflow file of the run (``.github/workflows/ci.yml``), "" when not given


@dataclass(frozen=True)
class PullRequest:
    number: int
    state: str
    title: str
    author: str
    head_sha: str
    head_ref: str
    head_repository: str  # "owner/name"; "" when the fork was deleted
    base_ref: str
    base_repository: str
    labels: tuple[str, ...] = ()
    draft: bool = False
    html_url: str = ""
    body: str = ""
    default_branch: str = ""  # the base repository's default branch ("" when not known)
    merged: bool = False
    merged_by: str = ""  # login of who merged it ("" when not merged or not said)
    base_sha: str = ""  # the base branch's commit GitHub compares with ("" when not said)
    head_clone_url: str = ""  # the head repository's clone URL (a fork's)
    maintainer_can_modify: bool = False  # a fork's author lets people with push access push to its branch
    node_id: str = ""  # the GraphQL id (marking a draft ready for review has no REST operation)
    created_at: str = ""  # when it was opened (GitHub's clock), placing a fix PR's records among comments
    updated_at: str = ""

    @property
    def is_fork(self) -> bool:
        return self.head_repository.lower() != self.base_repository.lower()


@dataclass(frozen=True)
class Step:
    number: int
    name: str
    status: str
    conclusion: str | None


@dataclass(frozen=True)
class Job:
    """A job of a workflow run. Its name is the check name, its id the check-run id."""

    id: int
    name: str
    status: str
    conclusion: str | None
    run_attempt: int = 1
    steps: tuple[Step, ...] = ()
    html_url: str = ""
    started_at: str = ""
    completed_at: str = ""


@dataclass(frozen=True)
class Annotation:
    path: str
    start_line: int
    level: str  # notice, warning, failure
    message: str
    title: str = ""


@dataclass(frozen=True)
class LogTail:
    """The bounded tail of a job log."""

    text: str
    bytes_read: int
    truncated: bool  # True when the start of the log was cut away


@dataclass(frozen=True)
class Evidence:
    """All the healer knows about one failed job before classifying it."""

    job: Job
    log: LogTail | None
    annotations: tuple[Annotation, ...] = ()
    # why the log or the annotations are missing (a failed download), "" when nothing went wrong
    note: str = ""


@dataclass(frozen=True)
class Comment:
    id: int
    author: str
    body: str
    created_at: str = ""
    updated_at: str = ""
    html_url: str = ""
    issue: int = 0  # the issue or pull request it belongs to (repository-wide listings); 0 when not known


@dataclass(frozen=True)
class Repository:
    full_name: str
    default_branch: str
    private: bool = False


class Verdict(str, Enum):
    RERUN = "rerun"
    HEAL = "heal"
    ESCALATE = "escalate"
    SKIP = "skip"


class HealMode(str, Enum):
    FIX = "fix"
    AGENT = "agent"


class SkipReason(str, Enum):
    STALE_HEAD = "stale-head"
    ALREADY_ATTEMPTED = "already-attempted"
    EXHAUSTED = "exhausted"
    NOT_ACTIONABLE = "not-actionable"
    FORK_POLICY = "fork-policy"
    DISABLED = "disabled"
    CLAIMED_ELSEWHERE = "claimed-elsewhere"
    HEAL_PLANNED = "heal-planned"  # a re-run is pointless: a heal of the same commit brings a new one
    BROKEN_TRUNK = "broken-trunk"  # the base branch fails the same way: not this pull request's fault


@dataclass(frozen=True)
class PastAttempt:
    """One earlier healer action on a check, read back from the ledger (for the escalation frame)."""

    kind: str  # attempt, rerun
    sha: str
    attempt: int
    category: str = ""
    mode: str = ""
    fix_pr: int | None = None
    result: str = ""
    run_id: int | None = None


@dataclass(frozen=True)
class CheckPlan:
    """What to do about one failed check."""

    check: str
    verdict: Verdict
    diagnosis: Diagnosis | None = None
    attempt: int = 0  # k of a heal (1-based); 0 when not healing
    max_attempts: int = 0
    mode: HealMode | None = None
    reason: SkipReason | None = None
    detail: str = ""  # one human sentence on why
    history: tuple[PastAttempt, ...] = ()
    # a skipped check whose diagnosis is still posted as a comment (fork PRs under fork-policy diagnose)
    diagnose: bool = False
    # a re-run because every failing test is known flaky: those tests (``healer.ledger.flaky``)
    flaky: tuple[str, ...] = ()
    # an escalation with nothing tried: no fix rule applies and no agent is configured. It is said in one
    # short notice per pull request (not as a failed attempt), recorded as an escalation marked ``untried``
    untried: bool = False


@dataclass(frozen=True)
class Plan:
    """The decision for one run: a plan per failed check, and the checks whose budget resets."""

    checks: tuple[CheckPlan, ...] = ()
    resets: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Lesson:
    """What a verified heal learned (``healer.ledger.learned``): the failure's signature and what fixed it.

    Everything but ``signature`` and ``category`` came from the log or the agent: untrusted text."""

    signature: str  # a short hash of the category and the masked decisive lines
    category: str
    check: str
    command: str = ""  # the failing command, as the log shows it
    masked: tuple[str, ...] = ()  # the decisive lines with numbers, hashes, paths and quoted names masked
    decisive: tuple[str, ...] = ()  # the decisive lines themselves (bounded): the rule is tested on them
    fix_command: str = ""  # one command that reproduced the very same change, when one did
    files: tuple[str, ...] = ()  # the files the change touched
    summary: str = ""  # the agent's account of the fix (bounded)


@dataclass(frozen=True)
class Account:
    """What one attempt did, for the frames of the attempts after it."""

    checks: tuple[str, ...]
    attempt: int
    sha: str
    result: str  # the ledger's result word: verified, unverified, verify-failed, refused, …
    fix_pr: int | None = None
    diffstat: str = ""
    diff: str = ""  # the change, clipped (untrusted: the agent wrote it)
    notes: str = ""  # the agent's or the fix command's output, clipped (untrusted)
    why: str = ""  # verification output or the reason nothing was delivered, clipped
    lesson: Lesson | None = None  # what a verified heal learned (``healer.ledger.learned``)


@dataclass(frozen=True)
class BranchRun:
    """A completed workflow run on a branch (the base branch's latest, for the broken-trunk check)."""

    id: int
    run_attempt: int
    head_sha: str
    head_branch: str
    conclusion: str | None
    html_url: str = ""
    created_at: str = ""


# -- the report (``healer report``): what the healer did across a repository over a window ------------------


@dataclass(frozen=True)
class OpenEscalation:
    """An escalation with no reset after it, on a pull request still open (or of unknown state)."""

    pull: int
    check: str
    sha: str
    at: str
    url: str = ""
    title: str = ""


@dataclass(frozen=True)
class FixPull:
    """A pull request of the healer: a fix PR, or a rule PR (``ci-healer/rule-…``)."""

    number: int
    title: str
    url: str
    state: str  # open, merged, closed
    for_pull: int = 0  # the pull request it fixes (0 for a rule PR)
    head_ref: str = ""
    ci: str = ""  # its CI's verdict at its latest tested commit: passed, failed ("": none recorded)
    author: str = ""  # who opened it (``github-actions[bot]``: opened with GITHUB_TOKEN, so no CI ran on it)
    draft: bool = False  # still a draft (waiting for its CI, or never verified)


@dataclass(frozen=True)
class TrunkEpisode:
    """A check the base branch failed (one base-branch run), and the pull requests it held."""

    check: str
    base_run: int | None
    pulls: tuple[int, ...]
    lifted: bool


# Result words of a heal attempt that delivered a change (``healer.change.context``), and the verified one.
VERIFIED = "verified"
DELIVERED = frozenset({"verified", "unverified", "verify-failed", "verify-timed-out"})


@dataclass(frozen=True)
class Figures:
    """What the healer did in the window ``since`` … ``until``."""

    since: str
    until: str
    pulls: int = 0  # pull requests with a healer marker in the window
    attempts: int = 0
    attempt_results: Mapping[str, int] = field(default_factory=dict)  # result word → attempts
    # what became of the attempts' fix PRs → attempts: ci-passed, ci-failed (latest verdict), ready, merged
    attempt_fixes: Mapping[str, int] = field(default_factory=dict)
    fix_pulls: tuple[FixPull, ...] = ()  # fix PRs (recorded in markers or found by branch)
    reruns: int = 0
    rerun_outcomes: Mapping[str, int] = field(default_factory=dict)  # passed, flaky, failed-again, pending
    escalations: int = 0
    untried: int = 0  # checks left to a person with nothing to try (no fix rule, no agent-command)
    untried_checks: tuple[tuple[int, str], ...] = ()  # those checks: (pull request, check), to name them
    open_escalations: tuple[OpenEscalation, ...] = ()
    hours_to_green: tuple[float, ...] = ()  # first failure the healer saw → the check passed, per episode
    flaky_tests: Mapping[str, int] = field(default_factory=dict)  # test id → times recorded
    tokens: int = 0  # agent tokens recorded
    attempts_with_tokens: int = 0
    tokens_unknown: int = 0  # attempts whose agent ran and whose token use could not be read
    budget_stops: int = 0  # attempts whose agent a budget stopped (delivered or not)
    rule_pulls: tuple[FixPull, ...] = ()
    trunk_episodes: tuple[TrunkEpisode, ...] = ()
    notes: tuple[str, ...] = ()  # what could not be read

    @property
    def verified(self) -> int:
        return self.attempt_results.get(VERIFIED, 0)

    @property
    def delivered(self) -> int:
        return sum(n for word, n in self.attempt_results.items() if word in DELIVERED)

    def fix_count(self, state: str) -> int:
        return sum(1 for p in self.fix_pulls if p.state == state)

    def fix_ci_count(self, verdict: str) -> int:
        """Fix PRs whose CI ``passed`` (proven green) or ``failed``."""
        return sum(1 for p in self.fix_pulls if p.ci == verdict)

    def rule_count(self, state: str) -> int:
        return sum(1 for p in self.rule_pulls if p.state == state)

    @property
    def median_hours_to_green(self) -> float | None:
        return round(median(self.hours_to_green), 1) if self.hours_to_green else None


# The healer's fix branches, ``ci-healer/<pr>-<sha7>``, one per pull request commit it heals: the policy's
# loop guard, the claim and the delivery that push them, the ledger and the report that trust only fix pull
# requests from them all name them with these. Rule branches (``ci-healer/rule-…``) share the prefix only.
FIX_BRANCH_PREFIX = "ci-healer/"
_FIX_BRANCH = re.compile(r"^ci-healer/([1-9][0-9]{0,9})-([0-9a-f]{7})$")


def fix_branch(pr_number: int, head_sha: str) -> str:
    """``ci-healer/<pr>-<sha7>``: one fix branch per PR commit, so a re-run of the same commit reuses it."""
    return f"{FIX_BRANCH_PREFIX}{pr_number}-{head_sha[:7]}"


def fix_branch_target(ref: str) -> int | None:
    """The pull request a fix branch ``ci-healer/<pr>-<sha7>`` fixes; None for any other name (a rule branch,
    a person's branch)."""
    found = _FIX_BRANCH.match(ref)
    return int(found.group(1)) if found else None


def is_fix_branch(ref: str) -> bool:
    """Whether a branch is one of the healer's own, fix or rule (the loop guard: never heal them)."""
    return ref.startswith(FIX_BRANCH_PREFIX)
