"""The broken-trunk stage's pure parts: the planner that skips what fails on the base branch, the log."""

from __future__ import annotations

import pytest

from healer.config import Config
from healer.diagnosis.rules import load_rules
from healer.github import GitHubError
from healer.ledger.ledger import Ledger
from healer.model import (
    DEFAULT_ACTIONS,
    BranchRun,
    Category,
    Diagnosis,
    Owner,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
)
from healer.run.policy import decide
from healer.run.trunk import TrunkCheck, describe, find_broken_trunk, without_broken, workflow_file

SHA = "a" * 40
PULL = PullRequest(7, "open", "t", "alice", SHA, "feature", "octo/app", "main", "octo/app")
RUN = RunEvent("octo/app", 500, 1, "CI", SHA, "feature", "octo/app", False, "pull_request", "failure",
               workflow_path=".github/workflows/ci.yml")  # fmt: skip
BASE = BranchRun(77, 1, "c" * 40, "main", "failure", "https://github.com/octo/app/actions/runs/77")


def diag(category: Category) -> Diagnosis:
    return Diagnosis(category, 0.9, "r", DEFAULT_ACTIONS[category], ("E boom",), decisive=("E boom",))


def plan(planner, diagnoses):
    return planner(
        diagnoses, passed=(), ledger=Ledger.empty(), config=Config(agent_command="a"), pull=PULL, run=RUN
    )


def test_a_check_broken_on_the_base_branch_is_skipped_and_a_re_run_it_blocked_is_planned_again() -> None:
    diagnoses = {"net": diag(Category.TRANSIENT), "test": diag(Category.TEST)}
    before = {c.check: (c.verdict, c.reason) for c in plan(decide, diagnoses).checks}
    assert before["net"] == (Verdict.SKIP, SkipReason.HEAL_PLANNED)  # a heal brings a new commit anyway

    trunk = TrunkCheck(branch="main", base_run=BASE, broken={"test": diag(Category.TEST)})
    after = {c.check: c for c in plan(without_broken(decide, trunk), diagnoses).checks}

    assert after["test"].verdict is Verdict.SKIP and after["test"].reason is SkipReason.BROKEN_TRUNK
    assert after["test"].attempt == 0 and "run 77" in after["test"].detail
    # whose it is: upstream's (the base branch), and what decided it says so
    assert after["test"].diagnosis is not None and after["test"].diagnosis.owner is Owner.UPSTREAM
    assert dict(after["test"].diagnosis.decided_by)["history"] == "main fails the same way (run 77)"
    assert after["net"].verdict is Verdict.RERUN


def test_without_a_broken_check_the_planner_is_the_same() -> None:
    assert without_broken(decide, TrunkCheck(branch="main")) is decide


def test_the_log_says_what_was_compared_and_found() -> None:
    lines = describe(
        TrunkCheck(
            branch="main", base_run=BASE, broken={"test": diag(Category.TEST)}, lifted=("lint",), requests=4
        )
    )
    assert lines[0] == "base branch 'main': run 77 on ccccccc ended failure (4 request(s))"
    assert lines[1].startswith("'test' fails on 'main' the same way (rule r, signature ")
    assert lines[2] == "'lint': 'main' no longer fails it the same way; healed as usual"


def test_the_workflow_is_named_by_its_file() -> None:
    assert workflow_file(RUN) == "ci.yml"


class RefusingGitHub:
    """A GitHub that answers the base branch's runs listing (or, after it, the jobs listing) with an error,
    as the real one does on a missing `actions: read`, an outage or an expired log URL."""

    request_count = 0

    def __init__(self, status: int, *, at: str) -> None:
        self.status = status
        self.at = at

    def latest_branch_run(self, workflow: str, branch: str) -> BranchRun:
        if self.at == "runs":
            raise GitHubError(f"listing the runs of {workflow} answered {self.status}", status=self.status)
        return BASE

    def list_jobs(self, run_id: int, attempt: int) -> list:
        raise GitHubError(f"listing the jobs of run {run_id} answered {self.status}", status=self.status)


@pytest.mark.parametrize(
    ("status", "at"),
    [
        pytest.param(403, "runs", id="runs-forbidden"),
        pytest.param(502, "runs", id="runs-bad-gateway"),
        pytest.param(500, "jobs", id="jobs-server-error"),
    ],
)
def test_an_unreadable_base_branch_leaves_the_checks_healed_as_usual(status: int, at: str) -> None:
    heal = plan(decide, {"test": diag(Category.TEST)})
    assert [c.verdict for c in heal.checks] == [Verdict.HEAL]
    trunk = find_broken_trunk(
        RefusingGitHub(status, at=at), RUN, PULL, heal, {}, load_rules(()), {}, read_limit=1 << 20
    )
    assert trunk.broken == {}
    assert without_broken(decide, trunk) is decide  # the plan stays the heal it was
    assert len(trunk.notes) == 1 and str(status) in trunk.notes[0]
    assert trunk.notes[0].endswith("the checks are healed as usual")


class CountingGitHub:
    """The base branch's latest run is green: one request, counted."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def latest_branch_run(self, workflow: str, branch: str) -> BranchRun:
        self.asked.append(branch)
        return BranchRun(78, 1, "d" * 40, "main", "success")


@pytest.mark.parametrize(
    ("category", "agent", "verdict", "asked"),
    [
        pytest.param(Category.TEST, "", Verdict.ESCALATE, ["main"], id="escalated-without-an-agent"),
        pytest.param(Category.TEST, "a", Verdict.HEAL, ["main"], id="healed"),
        pytest.param(Category.TRANSIENT, "a", Verdict.RERUN, [], id="re-run"),
    ],
)
def test_the_base_branch_is_read_before_an_escalation_as_before_a_heal(
    category: Category, agent: str, verdict: Verdict, asked: list[str]
) -> None:
    planned = decide(
        {"test": diag(category)}, passed=(), ledger=Ledger.empty(), config=Config(agent_command=agent),
        pull=PULL, run=RUN,
    )  # fmt: skip
    assert [c.verdict for c in planned.checks] == [verdict]
    gh = CountingGitHub()
    find_broken_trunk(gh, RUN, PULL, planned, {}, load_rules(()), {}, read_limit=1 << 20)
    assert gh.asked == asked
