"""The claim's promise, and the one notice per pull request of the checks with nothing to try (pure)."""

from __future__ import annotations

import pytest

from healer.config import Config
from healer.ledger.entries import UNTRIED, claim_marker
from healer.ledger.ledger import Kind, Ledger, Marker, comment_body, decode_markers
from healer.model import Action, Category, CheckPlan, Comment, Diagnosis, Plan, PullRequest, Verdict
from healer.run.notices import notice_body, only_untried, promise, untried_notice

BOT = "github-actions[bot]"
SHA = "ab" * 20
CONFIG = Config()


def pull(head_repo: str = "octo/repo") -> PullRequest:
    return PullRequest(7, "open", "t", "mona", SHA, "feature", head_repo, "main", "octo/repo")


def check(name: str, verdict: Verdict = Verdict.ESCALATE, *, untried: bool = True) -> CheckPlan:
    diagnosis = Diagnosis(Category.TEST, 0.9, "python.pytest", Action.AGENT, ("E assert 1 == 2",))
    return CheckPlan(name, verdict, diagnosis, untried=untried and verdict is Verdict.ESCALATE)


@pytest.mark.parametrize(
    ("delivery", "fork", "says"),
    [
        pytest.param(
            "pull-request",
            False,
            "a change, if it makes one, comes as a pull request into `feature`",
            id="pr",
        ),
        pytest.param(
            "push", False, "a change, if it makes one, is pushed onto `feature` as a commit", id="push"
        ),
        pytest.param("comment", False, "a change, if it makes one, is posted here as a patch", id="comment"),
        pytest.param("pull-request", True, "cannot push to a fork", id="fork"),
    ],
)
def test_the_claim_says_where_a_change_would_go_and_promises_none(
    delivery: str, fork: bool, says: str
) -> None:
    said = promise(pull("alice/repo" if fork else "octo/repo"), delivery)
    assert says in said and "follows" not in said and "review" not in said


def test_a_plan_is_untried_only_when_nothing_else_acts() -> None:
    skipped = CheckPlan("docs", Verdict.SKIP)
    assert [c.check for c in only_untried(Plan((check("a"), skipped, check("b"))))] == ["a", "b"]
    assert only_untried(Plan((check("a"), check("lint", Verdict.HEAL)))) == []
    assert only_untried(Plan((check("a"), check("deploy", untried=False)))) == []
    assert only_untried(Plan((skipped,))) == []


def escalation(name: str, result: str = UNTRIED) -> Marker:
    return Marker(Kind.ESCALATION, SHA, name, run_id=1, run_attempt=1, result=result)


def test_the_notice_is_the_newest_comment_holding_only_untried_escalations() -> None:
    notice = Comment(10, BOT, comment_body([claim_marker(SHA, 1, 1), escalation("a")], "notice"))
    mixed = Comment(11, BOT, comment_body([escalation("b"), escalation("c", "")], "an escalation"))
    forged = Comment(12, "mallory", comment_body([escalation("d")], "not the bot's"))
    comments = [notice, mixed, forged]
    ledger = Ledger.from_comments(comments, BOT)
    assert untried_notice(ledger, comments, CONFIG, None) == notice
    assert untried_notice(Ledger.from_comments([mixed], BOT), [mixed], CONFIG, None) is None


def test_a_notice_held_by_a_running_claim_is_not_edited() -> None:
    held = Comment(10, BOT, comment_body([claim_marker(SHA, 5, 1)], "claim"))
    notice = Comment(9, BOT, comment_body([escalation("a")], "notice"))
    ledger = Ledger.from_comments([notice, held], BOT)
    assert untried_notice(ledger, [notice, held], CONFIG, None) == notice


def test_an_edited_notice_keeps_every_marker_and_the_lines_of_the_other_checks() -> None:
    old_text = "\n".join(["i: nothing to try", "- `a` (test): `E 1`", "- `b` (test): `E 2`", "", "footer"])
    old = comment_body([escalation("a"), escalation("b")], old_text)
    new_text = "\n".join(["i: nothing to try", "- `b` (lint): `E 3`", "- `c` (test): `E 4`", "", "footer 2"])
    body = notice_body(old, [escalation("c")], new_text, ["b", "c"], None)
    assert [m.check for m in decode_markers(body)] == ["a", "b", "c"]
    visible = [line for line in body.split("\n") if line and not line.startswith("<!--")]
    assert visible == [
        "i: nothing to try", "- `a` (test): `E 1`", "- `b` (lint): `E 3`", "- `c` (test): `E 4`", "footer 2"
    ]  # fmt: skip
