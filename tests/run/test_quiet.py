"""A run that only re-runs: which plans claim nothing, which comment records the re-run, and its line."""

from __future__ import annotations

from healer.config import Config
from healer.ledger.entries import UNTRIED, claim_marker
from healer.ledger.ledger import Kind, Ledger, Marker, comment_body
from healer.model import Action, Category, CheckPlan, Comment, Diagnosis, Plan, RunEvent, Verdict
from healer.run.notices import untried_notice
from healer.run.quiet import only_reruns, record_comment, rerun_note

BOT = "github-actions[bot]"
SHA = "ab" * 20
CONFIG = Config()


def plan(name: str, verdict: Verdict, **extra: object) -> CheckPlan:
    diagnosis = Diagnosis(Category.TRANSIENT, 0.9, "net.dns", Action.RERUN, ("fatal: Could not resolve",))
    return CheckPlan(name, verdict, diagnosis, **extra)  # type: ignore[arg-type]


def marker(kind: Kind, check: str = "test", **extra: object) -> Marker:
    return Marker(kind, SHA, check, run_id=1, run_attempt=1, **extra)  # type: ignore[arg-type]


def test_only_a_plan_that_does_nothing_but_rerun_goes_without_a_claim() -> None:
    rerun, skip = plan("test", Verdict.RERUN), plan("docs", Verdict.SKIP)
    assert [c.check for c in only_reruns(Plan((rerun, skip)))] == ["test"]
    # a re-run beside a heal, an escalation or a fork's diagnosis: the run claims, as before
    assert only_reruns(Plan((rerun, plan("lint", Verdict.HEAL, attempt=1)))) == []
    assert only_reruns(Plan((rerun, plan("deploy", Verdict.ESCALATE)))) == []
    assert only_reruns(Plan((rerun, plan("fork", Verdict.SKIP, diagnose=True)))) == []
    assert only_reruns(Plan((skip,))) == []


def test_the_rerun_goes_into_the_newest_healer_comment_that_no_run_is_writing() -> None:
    old = Comment(10, BOT, comment_body([marker(Kind.ATTEMPT, attempt=1)], "a heal"))
    newer = Comment(11, BOT, comment_body([marker(Kind.RESET, "lint")], "a reset"))
    held = Comment(12, BOT, comment_body([claim_marker(SHA, 9, 1)], "another run's claim"))
    forged = Comment(13, "mallory", comment_body([marker(Kind.RESET)], "not the bot's"))
    plain = Comment(14, BOT, "no markers")
    comments = [old, newer, held, forged, plain]
    assert record_comment(Ledger.from_comments(comments, BOT), comments) == newer


def test_no_comment_takes_the_rerun_when_the_newest_is_a_notice_another_stage_rewrites() -> None:
    old = Comment(10, BOT, comment_body([marker(Kind.ATTEMPT, attempt=1)], "a heal"))
    trunk = Comment(11, BOT, comment_body([marker(Kind.TRUNK)], "the base branch is broken"))
    comments = [old, trunk]
    assert record_comment(Ledger.from_comments(comments, BOT), comments) is None
    assert record_comment(Ledger.empty(), []) is None


def test_a_notice_of_checks_with_nothing_to_try_stays_one_after_a_rerun_is_recorded_in_it() -> None:
    notice = Comment(
        10, BOT, comment_body([marker(Kind.ESCALATION, "a", result=UNTRIED), marker(Kind.RERUN)], "notice")
    )
    ledger = Ledger.from_comments([notice], BOT)
    assert record_comment(ledger, [notice]) == notice
    assert untried_notice(ledger, [notice], CONFIG, None) == notice


def test_the_line_a_rerun_adds_says_what_ran_again_and_that_only_a_new_failure_is_news() -> None:
    event = RunEvent(
        "o/r", 5, 1, "CI", SHA, "feature", "o/r", False, "pull_request", "failure",
        html_url="https://github.com/o/r/runs/5",
    )  # fmt: skip
    flaky = plan("test", Verdict.RERUN, flaky=("tests/test_net.py::test_get",))
    line = rerun_note(Plan((flaky,)), ["test"], event)
    assert line == (
        f":repeat: Re-ran `test` on `{SHA[:7]}` ([run](https://github.com/o/r/runs/5)); known flaky: "
        "`tests/test_net.py::test_get`. The healer says more only if it fails again."
    )
    assert rerun_note(Plan((flaky,)), [], event) == ""
