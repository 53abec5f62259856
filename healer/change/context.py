"""What one heal receives (:class:`HealContext`) and what it returns (:class:`HealResult`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from healer.change.outcomes import ProcessResult, SetupResult, Spend, Verification
from healer.change.workspace import Checkout
from healer.config import Config
from healer.model import Account, CheckPlan, PullRequest
from healer.text.frames import Frames


@dataclass(frozen=True)
class HealContext:
    """Everything a heal needs besides the GitHub client and the repository."""

    repository: str
    pr: PullRequest
    head_sha: str
    run_id: int
    run_url: str
    server_url: str
    checks: tuple[CheckPlan, ...]
    config: Config
    frames: Frames
    temp_dir: Path
    base_env: Mapping[str, str]  # the runner's environment, before scrubbing
    # fix PRs recorded earlier for these checks (closed as superseded when a new one opens)
    previous_fix_prs: tuple[int, ...] = ()
    # what the earlier attempts of these checks did (memory across attempts), oldest first
    earlier: tuple[Account, ...] = ()
    # whether the token is the workflow's GITHUB_TOKEN (no CI runs on what it pushes); None: unknown
    workflow_token: bool | None = None
    # model tokens the pull request's earlier heal attempts spent (their markers), for max-agent-tokens-per-pr
    agent_tokens_spent: int = 0
    # the workflow whose failure this heal answers (file, name): started on the fix branch when pushes with
    # the token start no workflow run
    ci_workflow: tuple[str, str] = ("", "")
    # the claim commit on the fix branch (healer.change.claim): the fix replaces it only while it is there
    fix_lease: str = ""


@dataclass(frozen=True)
class Delivery:
    """What was delivered, and where (by the deliver stage, or the heal bundle written for it)."""

    # pull-request, push, comment; bundle (handed to the deliver stage); suggestions (a fork's review)
    mode: str
    branch: str = ""
    commit: str = ""
    pull: PullRequest | None = None
    draft: bool = False
    superseded: tuple[int, ...] = ()
    patch: str = ""
    review: str = ""  # a fork's review of suggested changes (its URL)
    suggested: int = 0  # hunks suggested in that review
    left_out: int = 0  # hunks only in the patch (not on lines the pull request's diff shows)
    # the fix branch's CI, started by the healer: started, no-trigger, failed; "" when it did not start it
    ci: str = ""
    # how the PR's author was told of a fix pull request: "review" (a review request), "mention" (GitHub
    # refused it: a comment on the fix pull request mentions them), "waiting" (not yet: its CI runs, and the
    # verdict asks), "" (nobody: a bot, a failed request, or a fix pull request reused and asked before)
    asked: str = ""

    @property
    def url(self) -> str:
        return self.pull.html_url if self.pull else ""


@dataclass(frozen=True)
class HealResult:
    """What a heal did and established."""

    delivered: bool
    frame: str = ""
    frame_path: str = ""
    fix_commands: tuple[str, ...] = ()  # fix commands that ran
    fixed_checks: tuple[str, ...] = ()  # checks handed to fix commands
    agent_checks: tuple[str, ...] = ()  # checks handed to the agent
    agent: ProcessResult | None = None
    verification: Verification | None = None
    delivery: Delivery | None = None
    why_not: str = ""  # Markdown from the healer (guard reasons, missing tools)
    notes: str = ""  # untrusted output of the fix or agent
    diffstat: str = ""
    refused: bool = False  # set aside before the diff was even read (see ConfigSnapshot)
    allowed: tuple[str, ...] = ()  # changed paths the guard let through only because of `guard: allow`
    setup: SetupResult | None = None
    files: tuple[str, ...] = ()  # the files the change touches ("M\tpath" lines of git's name-status)
    diff: str = ""  # the staged change (for the next attempt's memory)
    # a verified agent heal to learn from: (its check, the command that reproduces the change or "")
    learned: tuple[str, str] | None = None
    log: tuple[str, ...] = field(default_factory=tuple)
    spend: Spend | None = None  # what the agent spent through the model proxy (None: no proxy ran)
    # the heal job's own report of its verification (two jobs): quoted as its word, decides nothing here
    heal_word: Verification | None = None

    @property
    def result(self) -> str:
        """A one-word result for the ledger: verified, unverified, verify-failed, verify-timed-out (a change
        was delivered, a budget stop or not: the marker's ``stopped`` says which budget), budget (a budget
        stopped the agent and nothing was delivered), timed-out, refused, no-change (nothing was), framed
        (delivery: none), no-model (the agent ran, asked its model nothing through the proxy and changed
        nothing: a recipe that misses the proxy)."""
        stopped = self.spend is not None and bool(self.spend.stopped)
        if stopped and not self.delivered:
            return "budget"
        spend, agent = self.spend, self.agent
        if agent is not None and spend is not None and spend.silent and not (self.delivered or self.diffstat):
            return "no-model" if not self.refused else "refused"
        if self.frame_path and self.delivery is None and not self.agent and not self.fix_commands:
            return "framed"
        if self.delivered:
            state = self.verification.state if self.verification else "unverified"
            return {"passed": "verified", "failed": "verify-failed", "timed-out": "verify-timed-out"}.get(
                state, "unverified"
            )
        if self.agent is not None and self.agent.timed_out:
            return "timed-out"  # whatever it left half-done was set aside, not judged
        return "refused" if self.diffstat or self.refused else "no-change"


# What a heal does with a change it made and judged: the deliver stage's hand-over (a fix pull request, a
# push, a patch) in a job that holds the write token, or the heal bundle for the deliver job in one that does
# not. It receives the checkout with the change staged, the staged diff, the verification and the result
# so far.
Handover = Callable[[Checkout, str, Verification, HealResult], Delivery]
