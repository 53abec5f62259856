"""The run's side of learning: which fix teaches, where its lesson is found, and what a heal learned."""

from __future__ import annotations

from dataclasses import replace

import pytest

from healer.change.context import HealResult
from healer.ledger.learned import lesson_of
from healer.ledger.markers import Kind, Marker, Signer, encode_marker
from healer.ledger.memory import encode
from healer.model import Account, Action, Category, CheckPlan, Comment, Diagnosis, PullRequest, Verdict
from healer.run.learning import find_lesson, learned_markers, lesson_of_heal, merged_by_a_person

BOT = "github-actions[bot]"
SHA = "b" * 40
DRIFT = "client drift: widgets/client.py was generated from spec 4f2a9c1, the spec is now 9b0e77d"
DIAGNOSIS = Diagnosis(Category.UNKNOWN, 0.0, "none", Action.AGENT, (DRIFT,), decisive=(DRIFT,))
PLAN = CheckPlan("client", Verdict.HEAL, DIAGNOSIS, attempt=1, max_attempts=3)
LESSON = lesson_of(DIAGNOSIS, "client", fix_command="make gen")
assert LESSON is not None


def fix_pull(**changes: object) -> PullRequest:
    values: dict[str, object] = dict(
        number=8, state="closed", title="t", author=BOT, head_sha=SHA, head_ref="ci-healer/7-bbbbbbb",
        head_repository="o/r", base_ref="feature", base_repository="o/r", merged=True, merged_by="mona",
    )  # fmt: skip
    values.update(changes)
    return PullRequest(**values)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("changes", "teaches"),
    [
        pytest.param({}, True, id="a-person"),
        pytest.param({"merged_by": BOT}, False, id="the-bot"),
        pytest.param({"merged_by": "GitHub-Actions[bot]"}, False, id="the-bot-any-case"),
        pytest.param({"merged_by": "renovate[bot]"}, False, id="another-bot"),
        pytest.param({"merged_by": ""}, False, id="nobody-said"),
        pytest.param({"merged": False}, False, id="closed-unmerged"),
    ],
)
def test_only_a_fix_a_person_merged_teaches(changes: dict[str, object], teaches: bool) -> None:
    assert merged_by_a_person(fix_pull(**changes), BOT) is teaches


def comment(
    author: str, *, fix_pr: int = 8, learned: str = LESSON.signature, lesson=LESSON, signer=None
) -> Comment:
    marker = Marker(Kind.ATTEMPT, SHA, "client", attempt=1, fix_pr=fix_pr, result="verified", learned=learned)
    memory = encode(Account(("client",), 1, SHA, "verified", fix_pr=fix_pr, diff="+b\n", lesson=lesson))
    return Comment(11, author, f"{encode_marker(marker, signer)}\n{memory}\n\nThe healer opened #{fix_pr}.")


def test_the_lesson_is_found_under_the_marker_that_names_the_fix() -> None:
    found = find_lesson([comment(BOT)], bot_login=BOT, fix_pr=8, signer=None)
    assert found is not None and found[1] == LESSON and found[0].fix_pr == 8
    assert found[2] == "+b\n"  # the change the attempt recorded: the rule pull request shows it


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param(comment("mallory"), id="another-author"),
        pytest.param(comment(BOT, fix_pr=9), id="another-fix"),
        pytest.param(comment(BOT, learned=""), id="no-signature"),
        pytest.param(comment(BOT, lesson=replace(LESSON, signature="0" * 12)), id="another-lesson"),
        pytest.param(comment(BOT, lesson=None), id="no-memory"),
    ],
)
def test_no_lesson_from_a_comment_that_is_not_the_record_of_that_fix(forged: Comment) -> None:
    assert find_lesson([forged], bot_login=BOT, fix_pr=8, signer=None) is None


def test_with_a_ledger_key_only_signed_markers_teach() -> None:
    signer = Signer.for_pull("key", "o/r", 7)
    assert find_lesson([comment(BOT)], bot_login=BOT, fix_pr=8, signer=signer) is None
    assert find_lesson([comment(BOT, signer=signer)], bot_login=BOT, fix_pr=8, signer=signer) is not None


def test_a_verified_delivered_agent_heal_learns_and_its_marker_says_so() -> None:
    result = HealResult(
        True, learned=("client", "make gen"), files=("M\twidgets/client.py",), notes="a\n\nRegenerated."
    )
    lesson = lesson_of_heal(result, [PLAN])
    assert lesson is not None
    assert (lesson.fix_command, lesson.files, lesson.summary) == (
        "make gen",
        ("widgets/client.py",),
        "Regenerated.",
    )
    attempt = Marker(Kind.ATTEMPT, SHA, "client", attempt=1)
    other = Marker(Kind.ATTEMPT, SHA, "lint", attempt=1)
    rerun = Marker(Kind.RERUN, SHA, "client")
    marked = learned_markers([attempt, other, rerun], lesson)
    assert [m.learned for m in marked] == [lesson.signature, "", ""]
    # nothing learned: nothing delivered, or no heal to learn from
    assert lesson_of_heal(replace(result, delivered=False), [PLAN]) is None
    assert lesson_of_heal(replace(result, learned=None), [PLAN]) is None
    assert learned_markers([attempt], None) == [attempt]
