"""The texts of a fix pull request's CI: the body's CI line (rewritten in place), the notes, the news."""

from __future__ import annotations

import pytest

from healer.model import Action, Category, CheckPlan, Diagnosis, HealMode, Verdict
from healer.text.fixstate import (
    LATER,
    cancelled_line,
    closed_body,
    is_failed_news,
    with_fix_state,
    with_later_pass,
)
from healer.text.frames import Frames, HealNote, render_comment
from healer.text.proof import (
    CI_MARK,
    Failure,
    add_dispatch_line,
    attempt_note,
    dispatch_failed_line,
    dispatched_line,
    failed_line,
    memory_note,
    news_comment,
    no_dispatch_line,
    passed_line,
    runs_url,
    state_line,
    unasked,
    with_ci_line,
)

URL = "https://github.com/o/r/actions/runs/42"
HOSTILE = "lint `x` @team <!-- ![i](http://x/i.png) [l](http://x)\n## heading"
BODY = "Fixes `lint` on #12.\nSecond line of the news.\n\n### What changed\n\n- ruff --fix\n"


def test_the_ci_line_goes_after_the_news_and_is_rewritten_in_place() -> None:
    started = with_ci_line(BODY, dispatched_line("CI", "u", draft=True))
    lines = started.split("\n")
    assert lines[:4] == ["Fixes `lint` on #12.", "Second line of the news.", "", lines[3]]
    assert lines[3].startswith(CI_MARK) and "draft until it passes" in lines[3]

    passed = with_ci_line(started, passed_line("CI", URL, ready=True))

    assert passed.count(CI_MARK) == 1 and "is running" not in passed
    assert f"[run]({URL})" in passed and "Marked ready for review." in passed
    assert passed.replace(passed.split("\n")[3], "") == started.replace(started.split("\n")[3], "")


@pytest.mark.parametrize("body", ["", "one line only"])
def test_a_body_without_a_paragraph_break_gets_the_line_at_its_end(body: str) -> None:
    result = with_ci_line(body, no_dispatch_line(".github/workflows/ci.yml"))
    assert result.endswith(no_dispatch_line(".github/workflows/ci.yml"))
    assert result.startswith(body)


def test_hostile_names_and_log_lines_stay_inside_one_code_span() -> None:
    texts = [
        dispatched_line(HOSTILE, "u", draft=False),
        no_dispatch_line(HOSTILE),
        failed_line(HOSTILE, URL, [Failure(HOSTILE, HOSTILE)]),
        passed_line(HOSTILE, URL, ready=False, refused=True),
        dispatch_failed_line(HOSTILE, HOSTILE),
        attempt_note(13, HOSTILE, URL, False, [Failure(HOSTILE, HOSTILE)]),
        news_comment(13, [HOSTILE], HOSTILE, URL, passed=False, ready=False, failures=[Failure(HOSTILE)]),
    ]
    for text in texts:
        assert "\n## heading" not in text and "<!-- ![" not in text
        assert "@team" not in text  # defused with a zero-width space
        assert "](http://x" not in text
        # what a name holds stays inside a code span, which starts before it and which it cannot close
        assert "``lint `x` @\u200bteam <!--" in text


def test_the_news_says_what_changed_in_its_first_line() -> None:
    green = news_comment(13, ["lint"], "CI", URL, passed=True, ready=True, failures=())
    red = news_comment(
        13, ["test"], "CI", URL, passed=False, ready=False, failures=[Failure("test (3.12)", "FAILED t::x")]
    )
    assert green.split("\n")[0].startswith(
        ":white_check_mark: The fix for `lint` passed CI: #13 was marked ready"
    )
    assert red.split("\n")[0].startswith(":x: The fix for `test` in #13 failed CI")
    assert "`FAILED t::x`" in red and "/ci-healer retry" in red


def test_many_failures_are_counted_not_listed() -> None:
    failures = [Failure(f"job {n}", f"line {n}") for n in range(7)]
    line = failed_line("CI", URL, failures)
    assert "`job 2`" in line and "`job 3`" not in line and "and 4 more" in line


def test_the_memory_note_names_the_fix_and_every_failure() -> None:
    note = memory_note(13, "CI", 42, [Failure("test", "FAILED t::x"), Failure("lint")])
    assert note.splitlines() == [
        "Its fix pull request #13 failed CI on the fix branch (CI, run 42):",
        "- test: FAILED t::x",
        "- lint",
    ]


def test_the_runs_page_filters_by_the_fix_branch() -> None:
    url = runs_url("https://github.com", "o/r", "ci.yml", "ci-healer/12-abc1234")
    assert url == "https://github.com/o/r/actions/workflows/ci.yml?query=branch:ci-healer%2F12-abc1234"


def test_the_line_to_add_names_the_workflow_file_and_the_trigger() -> None:
    line = add_dispatch_line(".github/workflows/ci.yml")
    assert "`workflow_dispatch:`" in line and "`.github/workflows/ci.yml`" in line and "\n" not in line


def test_a_refused_ready_is_said_as_what_happened_then_with_what_to_do_and_no_transport_detail() -> None:
    # said in the past: a person may mark the fix ready later, and no event tells the healer
    texts = [
        passed_line("CI", URL, ready=False, refused=True),
        state_line(13, "CI", URL, passed=True, ready=False, ours=True),
        news_comment(13, ["lint"], "CI", URL, passed=True, ready=False, failures=()),
    ]
    for text in texts:
        assert "still a draft" not in text and "is a draft" not in text and "HTTP" not in text
        assert "left it a draft" in text and "ready for review yourself" in text
        assert "`contents: write`" in text and "GITHUB_TOKEN" in text


def _fix_line(body: str) -> str:
    return next(x for x in body.split("\n") if x.startswith("Fix pull request: "))


def _attempt_comment(**changes: object) -> str:
    diagnosis = Diagnosis(Category.LINT, 0.9, "ruff", Action.FIX, ("a.py:1:1: F401",))
    plan = CheckPlan("lint", Verdict.HEAL, diagnosis, 1, 3, HealMode.FIX)
    note = HealNote(1, 3, (plan,), True, how="ran `ruff`", verification="verified: `ruff` passed",
                    fix_pr_url="https://github.com/o/r/pull/2", **changes)  # type: ignore[arg-type]  # fmt: skip
    return render_comment(Frames(), state="done", head_sha="a" * 40, run_url="u", markers="", heal=note)


def test_the_attempts_fix_line_follows_each_verdict_and_keeps_the_verification() -> None:
    waiting = _attempt_comment(draft=True, ci_started=True, asked="waiting")
    assert _fix_line(waiting) == (
        "Fix pull request: https://github.com/o/r/pull/2 (a draft until its CI passes; "
        "verified: `ruff` passed); its review is asked for once its CI passes"
    )
    red = with_fix_state(waiting, "failed")
    assert _fix_line(red) == (
        "Fix pull request: https://github.com/o/r/pull/2 (its CI failed; verified: `ruff` passed)"
        "; nobody is asked to review it while its CI fails"
    )
    # a re-run that passes: nothing on the line still speaks of the red run or of a review to come
    green = with_fix_state(red, "passed")
    assert (
        _fix_line(green)
        == "Fix pull request: https://github.com/o/r/pull/2 (its CI passed; verified: `ruff` passed)"
    )
    assert red.replace(_fix_line(red), "") == waiting.replace(_fix_line(waiting), "")
    cancelled = with_fix_state(waiting, "cancelled")
    assert "(its CI was cancelled before it finished; " in _fix_line(cancelled)
    assert _fix_line(cancelled).endswith("; its review is asked for once its CI passes")
    theirs = with_fix_state(waiting, "not-ours")
    assert _fix_line(theirs).endswith("; ci-healer asks nobody to review it")


def test_a_review_asked_for_at_once_stays_said_after_a_red_verdict() -> None:
    # a fix asked for when it opened (no CI of the healer's to wait for) whose own CI then fails
    asked = _attempt_comment(draft=True, asked="review")
    red = with_fix_state(asked, "failed")
    assert _fix_line(red) == (
        "Fix pull request: https://github.com/o/r/pull/2 (its CI failed; verified: `ruff` passed)"
        "; its review was requested from the author of this pull request"
    )
    # a line the healer did not write (a repository's own template) is left alone
    assert with_fix_state("Fix pull request: see below", "failed") == "Fix pull request: see below"


def test_a_closed_fix_says_so_first_and_keeps_no_line_that_waits() -> None:
    waiting = with_ci_line(BODY, unasked(dispatched_line("CI", "u", draft=True)), first=True)
    closed = closed_body("`lint` passed on abc1234 without this fix.", waiting)
    assert (
        closed.split("\n")[0]
        == "> :no_entry_sign: **Closed by ci-healer:** `lint` passed on abc1234 without this fix."
    )
    assert CI_MARK not in closed and "ci-healer:unasked" not in closed and "\n\n\n" not in closed
    assert closed.endswith(BODY.strip("\n"))
    # a cancelled CI waits too; a verdict stays, below the reason
    cancelled = with_ci_line(BODY, unasked(cancelled_line("CI", URL, draft=True)), first=True)
    assert CI_MARK not in closed_body("Superseded by #5.", cancelled)
    red = with_ci_line(BODY, failed_line("CI", URL, [Failure("test")]), first=True)
    kept = closed_body("Superseded by #5.", red).split("\n")
    assert kept[0].endswith("Superseded by #5.") and kept[2].startswith(f"{CI_MARK} :x: **CI failed**")


def test_a_reset_says_the_checks_passed_since_on_the_fix_line() -> None:
    waiting = _attempt_comment(draft=True, ci_started=True, asked="waiting")
    line = _fix_line(with_fix_state(waiting, "passed-since"))
    assert line == (
        "Fix pull request: https://github.com/o/r/pull/2 (the checks it fixes passed since; "
        "verified: `ruff` passed)"
    )


def test_a_fix_that_was_open_for_review_already_is_not_said_to_have_been_marked_ready() -> None:
    # a repository that refuses drafts: the fix opened ready, so the healer marked nothing when its CI passed
    for text in (
        state_line(13, "CI", URL, passed=True, ready=True, ours=True, marked=False),
        news_comment(13, ["lint"], "CI", URL, passed=True, ready=True, failures=(), marked=False),
    ):
        assert "was open for review already" in text and "marked ready" not in text
    assert "and was marked ready for review." in state_line(13, "CI", URL, passed=True, ready=True, ours=True)


def test_a_failed_fix_news_says_first_what_came_since_and_keeps_the_failure_below() -> None:
    news = news_comment(6, ["lint"], "CI", "https://run/1", passed=False, ready=False, failures=())
    assert is_failed_news(news, 6) and not is_failed_news(news, 7)
    once = with_later_pass(news, 6, "CI", "https://run/2")
    assert once.startswith(f"{LATER} `CI` passed on #6 since then ([run](https://run/2))")
    assert once.endswith(news) and is_failed_news(once, 6)
    # a second pass replaces the line instead of stacking another
    twice = with_later_pass(once, 6, "CI", "https://run/3")
    assert twice.count(LATER) == 1 and "https://run/3" in twice and twice.endswith(news)
    assert not is_failed_news(news_comment(6, ["lint"], "CI", "u", passed=True, ready=True, failures=()), 6)
