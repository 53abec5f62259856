"""plan_retry(): one attempt beyond the budget for ``/ci-healer retry``, and every other guard kept."""

from __future__ import annotations

from dataclasses import replace

import pytest

from healer.config import Config
from healer.ledger.entries import claim_body
from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker, comment_body
from healer.model import (
    DEFAULT_ACTIONS,
    Action,
    Category,
    Comment,
    Diagnosis,
    HealMode,
    PullRequest,
    RunEvent,
    SkipReason,
    Verdict,
)
from healer.run.retry import plan_retry

BOT = "github-actions[bot]"
SHA, OLD = "a" * 40, "b" * 40
CONFIG = Config(agent_command="my-agent", max_attempts=2)
PULL = PullRequest(7, "open", "t", "alice", SHA, "feature", "octo/app", "main", "octo/app")
RUN = RunEvent("octo/app", 500, 1, "CI", SHA, "feature", "octo/app", False, "pull_request", "failure")


def diag(category: Category, tests: tuple[str, ...] = ()) -> Diagnosis:
    return Diagnosis(category, 0.9, "r", DEFAULT_ACTIONS[category], ("E boom",), test_ids=tests)


def ledger(*markers: Marker, comments: tuple[Comment, ...] = ()) -> Ledger:
    body = comment_body(list(markers), "text")
    return Ledger.from_comments([Comment(1, BOT, body), *comments], BOT)


SPENT = (
    Marker(Kind.ATTEMPT, OLD, "test", attempt=1, run_id=400, run_attempt=1),
    Marker(Kind.ATTEMPT, SHA, "test", attempt=2, run_id=500, run_attempt=1),
    Marker(Kind.ESCALATION, SHA, "test", run_id=501, run_attempt=1),
)


def only(plan):
    [check] = plan.checks
    return check


def test_an_exhausted_check_gets_one_more_attempt_granted_by_the_maintainer() -> None:
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="mai",
            ledger=ledger(*SPENT),
            config=CONFIG,
            pull=PULL,
            run=RUN,
        )
    )
    assert (plan.verdict, plan.attempt, plan.max_attempts, plan.mode) == (Verdict.HEAL, 3, 3, HealMode.AGENT)
    assert "granted by `mai`" in plan.detail


def test_a_check_healed_on_this_commit_is_healed_again() -> None:
    once = ledger(Marker(Kind.ATTEMPT, SHA, "test", attempt=1, run_id=500, run_attempt=1))
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check="TEST",
            by="mai",
            ledger=once,
            config=CONFIG,
            pull=PULL,
            run=RUN,
        )
    )
    assert (plan.verdict, plan.attempt) == (Verdict.HEAL, 2)


@pytest.mark.parametrize("category", [Category.TRANSIENT, Category.CONFIG, Category.TIMEOUT])
def test_failures_a_rerun_addresses_are_rerun(category: Category) -> None:
    spent = ledger(Marker(Kind.ESCALATION, SHA, "test", run_id=500, run_attempt=1))
    plan = only(
        plan_retry(
            {"test": diag(category)}, check=None, by="mai", ledger=spent, config=CONFIG, pull=PULL, run=RUN
        )
    )
    assert plan.verdict is Verdict.RERUN


def test_known_flaky_tests_are_rerun_not_healed() -> None:
    config = replace(CONFIG, flaky_tests=("tests/*",))
    spent = ledger(
        Marker(Kind.RERUN, SHA, "test", run_id=500, run_attempt=1),
        Marker(Kind.ESCALATION, SHA, "test", run_id=500, run_attempt=2),
    )
    run = replace(RUN, run_attempt=2)
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST, ("tests/t.py::a",))},
            check=None,
            by="mai",
            ledger=spent,
            config=config,
            pull=PULL,
            run=run,
        )
    )
    assert plan.verdict is Verdict.RERUN and plan.flaky == ("tests/t.py::a",)


def test_only_the_named_check_is_planned() -> None:
    plans = plan_retry(
        {"test": diag(Category.TEST), "lint": diag(Category.LINT)},
        check="lint",
        by="m",
        ledger=ledger(*SPENT),
        config=CONFIG,
        pull=PULL,
        run=RUN,
    ).checks
    assert [p.check for p in plans] == ["lint"]


@pytest.mark.parametrize(
    ("pull", "reason"),
    [
        pytest.param(replace(PULL, labels=("ci-healer:off",)), SkipReason.DISABLED, id="opted-out"),
        pytest.param(replace(PULL, head_sha=OLD), SkipReason.STALE_HEAD, id="stale"),
        pytest.param(replace(PULL, head_ref="ci-healer/7-aaaaaaa"), SkipReason.DISABLED, id="fix-pr"),
    ],
)
def test_other_guards_still_hold(pull: PullRequest, reason: SkipReason) -> None:
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="m",
            ledger=ledger(*SPENT),
            config=CONFIG,
            pull=pull,
            run=RUN,
        )
    )
    assert (plan.verdict, plan.reason) == (Verdict.SKIP, reason)


def test_no_agent_command_means_no_granted_agent_attempt() -> None:
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="m",
            ledger=ledger(*SPENT),
            config=replace(CONFIG, agent_command=""),
            pull=PULL,
            run=RUN,
        )
    )
    assert plan.verdict is Verdict.SKIP and "agent-command" in plan.detail


def test_another_runs_claim_wins() -> None:
    other = Comment(2, BOT, claim_body(SHA, 777, 1, "working"), created_at="2026-01-01T00:00:00Z")
    held = ledger(*SPENT, comments=(other,))
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)}, check=None, by="m", ledger=held, config=CONFIG, pull=PULL, run=RUN
        )
    )
    assert (plan.verdict, plan.reason) == (Verdict.SKIP, SkipReason.CLAIMED_ELSEWHERE)
    # this run's own claim, once posted, wins
    own = Comment(3, BOT, claim_body(SHA, 910, 1, "retry"), created_at="2026-01-01T00:00:01Z")
    mine = Ledger.from_comments([Comment(1, BOT, comment_body(list(SPENT), "t")), own], BOT)
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="m",
            ledger=mine,
            config=CONFIG,
            pull=PULL,
            run=RUN,
            claim_id=3,
        )
    )
    assert plan.verdict is Verdict.HEAL


def test_the_action_of_the_config_file_is_followed() -> None:
    config = replace(CONFIG, checks={"test": {"action": "rerun"}})
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="m",
            ledger=ledger(*SPENT),
            config=config,
            pull=PULL,
            run=RUN,
        )
    )
    assert plan.verdict is Verdict.RERUN
    assert Action.RERUN


def test_an_attempt_within_the_budget_is_not_called_beyond_it() -> None:
    # attempt 1 was spent on this very commit: `retry` grants attempt 2 of 2, which is within the budget
    once = ledger(Marker(Kind.ATTEMPT, SHA, "test", attempt=1, run_id=500, run_attempt=1))
    plan = only(
        plan_retry(
            {"test": diag(Category.TEST)},
            check=None,
            by="mai",
            ledger=once,
            config=CONFIG,
            pull=PULL,
            run=RUN,
        )
    )
    assert plan.attempt <= CONFIG.max_attempts
    assert "beyond" not in plan.detail and "asked for by `mai`, within the budget of" in plan.detail
