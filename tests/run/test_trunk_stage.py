"""The broken-trunk stage's pure parts: the planner that skips what fails on the base branch, the log."""

from __future__ import annotations

from healer.config import Config
from healer.ledger.ledger import Ledger
from healer.model import (
    DEFAULT_ACTIONS,
    BranchRun,
    Category,
    Diagnosis,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
)
from healer.run.policy import decide
from healer.run.trunk import TrunkCheck, describe, without_broken, workflow_file

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
