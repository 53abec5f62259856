"""What failed, whose failure it is, and what to do about it: the diagnosis and its words.

The classifier (``healer.diagnosis``) makes a :class:`Diagnosis`; the policy, the texts and the ledger read
it. These values cross module boundaries like the rest of :mod:`healer.model`, which re-exports them; they
stand apart because they are the diagnosis's vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Category(str, Enum):
    """What kind of failure a failed job is (the table in DESIGN.md)."""

    TRANSIENT = "transient"
    INFRASTRUCTURE = "infrastructure"
    TIMEOUT = "timeout"
    CANCELLED = "cancelled"
    LINT = "lint"
    FORMAT = "format"
    TYPECHECK = "typecheck"
    TEST = "test"
    BUILD = "build"
    DEPENDENCY = "dependency"
    CONFIG = "config"
    UNKNOWN = "unknown"


class Owner(str, Enum):
    """Whose failure it is (DESIGN.md, "Whose failure it is"): only the PR's code goes to fix rules or the
    agent. ``unknown`` when neither the step's ending, its purpose nor the evidence says."""

    CODE = "code"  # the pull request's code (its tests, sources, lock file, docs)
    METADATA = "metadata"  # the pull request's title, labels, changelog entry, sign-off, CLA
    REPOSITORY = "repository"  # the repository's configuration and credentials: secrets, tokens, releases
    PLATFORM = "platform"  # the runner, the network, hosted services
    UPSTREAM = "upstream"  # the ecosystem, a broken base branch
    HISTORY = "history"  # a test known to be flaky
    NOBODY = "nobody"  # cancelled: no verdict on anything
    UNKNOWN = "unknown"


class Action(str, Enum):
    """What a rule says to do about a failure."""

    RERUN = "rerun"
    FIX = "fix"
    AGENT = "agent"
    ESCALATE = "escalate"
    IGNORE = "ignore"


# The default action of each category, used when a rule names none.
DEFAULT_ACTIONS: dict[Category, Action] = {
    Category.TRANSIENT: Action.RERUN,
    Category.INFRASTRUCTURE: Action.RERUN,
    Category.TIMEOUT: Action.ESCALATE,
    Category.CANCELLED: Action.IGNORE,
    Category.LINT: Action.AGENT,
    Category.FORMAT: Action.FIX,
    Category.TYPECHECK: Action.AGENT,
    Category.TEST: Action.AGENT,
    Category.BUILD: Action.AGENT,
    Category.DEPENDENCY: Action.AGENT,
    Category.CONFIG: Action.ESCALATE,
    Category.UNKNOWN: Action.AGENT,
}


@dataclass(frozen=True)
class Diagnosis:
    """What failed in one job log, and what a rule says to do about it."""

    category: Category
    confidence: float
    rule: str
    action: Action
    excerpt: tuple[str, ...]
    step: str | None = None
    command: str | None = None
    exit_code: int | None = None
    # the lines that decided the category (a subset of ``excerpt``)
    decisive: tuple[str, ...] = ()
    # shell commands of a ``fix`` action, run in the PR-head checkout
    fix_commands: tuple[str, ...] = ()
    # the job (check) name, when known
    job: str | None = None
    # the failing tests the log names (``healer.diagnosis.testids``: bounded in count and length)
    test_ids: tuple[str, ...] = ()
    # the matching rule's description (what this kind of failure is), for people
    description: str = ""
    # a learned rule's hint: what fixed this failure last time (untrusted: fenced in the frame)
    hint: str = ""
    # whose failure it is (``healer.diagnosis.owner``); the action comes from (owner, category)
    owner: Owner = Owner.UNKNOWN
    # what the failing step is for (``healer.diagnosis.purpose``: test, release, pr-policy …), "" when unknown
    purpose: str = ""
    # what decided owner and action, as (stage, words) pairs in the order they were weighed: ending, purpose,
    # evidence, name, history, and the table's row
    decided_by: tuple[tuple[str, str], ...] = ()
    # the run showed its tests flaky (one passed on a retry, or failed a different way each try) beside the
    # failing tests: re-run first, and the code's when the same commit fails again after that re-run
    rerun_first: bool = False

    def decided_text(self) -> str:
        """``decided_by`` on one line for people: ``stage: words; stage: words…``."""
        return "; ".join(f"{stage}: {words}" for stage, words in self.decided_by)
