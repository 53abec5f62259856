"""The fix pull request's body: the news first, the change and its verification, the rest folded; never more
than was run."""

from __future__ import annotations

import pytest
from test_frames import PR, SHA, plan

from healer.change.outcomes import Spend, Verification
from healer.text.fixpr import budget_stop, render_fix_pr_body
from healer.text.frames import Frames
from healer.text.proof import CI_MARK, passed_line, with_ci_line


def body(verification: Verification | None = None, **changes: object) -> str:
    values: dict[str, object] = dict(
        pr=PR, head_sha=SHA, run_url="https://run", checks=[plan()], fix_commands=["ruff format ."],
        agent_ran=False, agent_exit=None,
        verification=verification or Verification("passed", "ruff check .", 0),
        diffstat="1 file changed, +1 -1", files=("M\tsrc/a.py",),
    )  # fmt: skip
    values.update(changes)
    return render_fix_pr_body(Frames(), **values)  # type: ignore[arg-type]


def folded(text: str) -> str:
    """The text inside the <details> blocks."""
    return "".join(part.split("</details>")[0] for part in text.split("<details>")[1:])


@pytest.mark.parametrize(
    ("verification", "news", "must", "must_not"),
    [
        pytest.param(
            Verification("passed", "ruff check .", 0),
            ":white_check_mark: A fix for `lint` on #7 that ci-healer checked: `ruff check .` passes on the "
            "changed tree.",
            "Ran `ruff check .` on the changed tree: it passed (exit code 0)",
            "draft",
            id="passed",
        ),
        pytest.param(
            Verification("failed", "ruff check .", 1, "E1 bad"),
            ":x: A fix for `lint` on #7 that did not pass ci-healer's own check: `ruff check .` failed",
            "it failed (exit code 1)",
            "it passed",
            id="failed",
        ),
        pytest.param(
            Verification("unverified", reason="no checker"),
            ":grey_question: A fix for `lint` on #7 that ci-healer did not check",
            "Not verified: no checker.",
            "it passed",
            id="unverified",
        ),
        pytest.param(
            Verification("timed-out", "mypy ."),
            ":x: A fix for `lint` on #7 whose check by ci-healer did not finish in time",
            "did not finish in time",
            "it passed",
            id="timeout",
        ),
    ],
)
def test_the_first_line_is_the_news_and_the_body_never_claims_more_than_was_run(
    verification: Verification, news: str, must: str, must_not: str
) -> None:
    text = body(verification)
    assert text.splitlines()[0].startswith(news)
    assert must in text and must_not not in text
    assert "made by the fix command `ruff format .`" in text
    assert "agent" not in text.lower()


def test_the_change_and_its_verification_show_and_the_rest_is_folded() -> None:
    failing = plan(excerpt=("##[group]Run ruff check .", "ruff check .", "shell: /usr/bin/bash -e {0}",
                            "##[endgroup]", "src/a.py:1:1: F401 `os` imported but unused",
                            "##[error]Process completed with exit code 1."))  # fmt: skip
    text = body(checks=[failing], files=("M\tsrc/a.py", "A\tsrc/new.py"), attempt=2, max_attempts=3)
    shown = text.split("<details>")[0]
    assert "**Change:** 1 file changed, +1 -1, made by the fix command `ruff format .`." in shown
    assert "- `src/a.py`\n- `src/new.py` (new)" in shown
    assert "**Diagnosis:** `lint` failed in `ruff check .` (lint)." in shown
    inside = folded(text)
    assert "src/a.py:1:1: F401 `os` imported but unused" in inside and "attempt 2 of 3" in inside
    assert "merge this pull request into `feature/x`" in inside and "`/ci-healer retry lint`" in inside
    assert "##[group]" not in text and "shell:" not in text and "Process completed" not in text
    # said once per repository (the job summary), not on every fix pull request
    assert "GITHUB_TOKEN" not in text
    assert "1 file changed, +1 -1 in `src/a.py`" in body()  # one file: named on the line itself
    # nothing ran (a change from elsewhere): no "made by"
    assert "**Change:** 1 file changed, +1 -1 in `src/a.py`.\n" in body(fix_commands=[])


def test_a_budget_stop_and_the_line_on_ci_are_near_the_top() -> None:
    stop = budget_stop(Spend(tokens=9_000, requests=1, refused=1, stopped="agent-request-budget", limit=1))
    assert "(1 model request in this heal)" in stop
    text = with_ci_line(body(agent_ran=True, budget_stop=stop), passed_line("CI", "u", ready=True))
    top = text.splitlines()[:4]
    assert top[3].startswith(CI_MARK)
    assert top[1].startswith(
        ":warning: **The change may be partial:** the agent reached `agent-request-budget`"
    )
    assert "**The change may be partial" not in body(agent_ran=True)
    assert budget_stop(Spend(tokens=5, requests=1)) == "" and budget_stop(None) == ""
    assert "300,000 model tokens for this pull request" in budget_stop(
        Spend(stopped="max-agent-tokens-per-pr", limit=300_000)
    )


def test_a_red_verdict_marks_the_title_and_a_green_one_clears_it_and_the_unverified_mark() -> None:
    from healer.text.proof import state_title

    plain = "ci-healer: fix lint for #7 (attempt 1/3)"
    red = state_title(plain, passed=False)
    assert red == "ci-healer (CI failed): fix lint for #7 (attempt 1/3)"
    assert state_title(red, passed=True) == plain and state_title(red, passed=False) == red
    assert state_title("ci-healer (unverified): fix lint for #7", passed=True) == "ci-healer: fix lint for #7"
    assert len(state_title("ci-healer: " + "x" * 300, passed=False)) <= 200


def test_a_verdict_at_a_commit_the_healer_did_not_record_says_so_and_claims_nothing_about_who_made_it() -> (
    None
):
    from healer.text.proof import not_ours_line, passed_line

    green = passed_line("CI", "https://x/runs/1", ready=False)
    theirs = not_ours_line(green, "b" * 40, "a" * 40)
    assert "holds commits ci-healer did not make (the one it pushed was `aaaaaaa`)" in theirs
    unknown = not_ours_line(green, "b" * 40, "")
    assert "no record of the commit it pushed" in unknown and "did not make" not in unknown
    assert "mark it ready yourself" in unknown and "Marked ready" not in unknown
