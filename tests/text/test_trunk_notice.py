"""The broken-trunk notice's text: links to the base branch's commit and run, names defused."""

from __future__ import annotations

from healer.model import BranchRun
from healer.text.trunk import render_trunk_notice

RUN = BranchRun(77, 1, "c" * 40, "main", "failure", "https://github.com/o/r/actions/runs/77")


def render(*checks: str, branch: str = "main", lifted: tuple[str, ...] = ()) -> str:
    return render_trunk_notice(
        checks,
        RUN,
        branch=branch,
        server_url="https://github.com",
        repository="o/r",
        workflow="CI",
        lifted=lifted,
    )


def test_the_notice_names_the_failing_commit_and_run_and_what_the_healer_does() -> None:
    text = render("test (3.12)")
    assert "[`ccccccc`](https://github.com/o/r/commit/" + "c" * 40 + ")" in text
    assert "[run 77](https://github.com/o/r/actions/runs/77)" in text
    assert "no attempt" in text and "until `main` is green again" in text


def test_hostile_check_and_branch_names_stay_in_code_spans_and_ping_nobody() -> None:
    text = render("x` @admin ![i](http://e/x.png)\n# head", branch="@team`\n-->")
    # the newline is folded: no heading starts; the names stay inside spans their backticks cannot close
    assert "\n# head" not in text
    assert "``x` @\u200badmin !\u200b[i]\u200b(http://e/x.png) # head``" in text
    assert "``@\u200bteam` -->``" in text
    assert "@admin" not in text and "@team" not in text and "![" not in text


def test_a_lifted_check_is_said_to_be_healed_again() -> None:
    text = render(lifted=("lint",))
    assert text == (
        "`lint`: no longer the failure of `main` (`main` passes again, or this pull request fails it another "
        "way), so the healer heals it here as usual."
    )
