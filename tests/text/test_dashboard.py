"""The report's text: the summary's table and charts, the dashboard issue, the JSON."""

from __future__ import annotations

import json
from dataclasses import replace

from healer.model import Figures, FixPull, OpenEscalation
from healer.text.boxes import CLOSE, RETRY, ticked_boxes
from healer.text.dashboard import DASHBOARD_MARKER, figures_json, render_dashboard, render_summary

EMPTY = Figures(since="2026-01-01T00:00:00Z", until="2026-02-01T00:00:00Z")
BUSY = Figures(
    since=EMPTY.since,
    until=EMPTY.until,
    pulls=3,
    attempts=4,
    attempt_results={"verified": 2, "unverified": 1, "refused": 1},
    fix_pulls=(
        FixPull(9, "Fix @team | now", "u", "open", 5, author="github-actions[bot]"),
        FixPull(10, "", "", "merged", 6, author="github-actions[bot]"),
    ),
    open_escalations=(
        OpenEscalation(5, "lint`\n# x", "c" * 40, "2026-01-03T00:00:00Z", title="![i](http://e)"),
    ),
    escalations=1,
    flaky_tests={"t::a|b": 2},
    tokens_unknown=4,
)


def test_nothing_to_show_draws_no_chart() -> None:
    text = render_summary(EMPTY, repository="o/r")
    assert "```mermaid" not in text and "| heal attempts | 0 |" in text and "None recorded." in text


def test_the_charts_leave_out_empty_slices_and_the_table_carries_the_same_figures() -> None:
    text = render_summary(BUSY, repository="o/r")
    assert (
        'pie showData title Heal attempts\n    "verified by the healer\'s own run" : 2\n'
        '    "delivered, not verified by the healer\'s own run" : 1\n'
    ) in text
    assert '"nothing delivered" : 1\n```' in text
    assert "| … verified by the healer's own run | 2 |" in text
    assert "| `t::a\\|b` | 2 |" in text  # a pipe cannot split the table's cell


def test_the_dashboard_starts_with_its_marker_and_defuses_what_pull_requests_wrote() -> None:
    body = render_dashboard(BUSY, repository="o/r")
    assert body.startswith(DASHBOARD_MARKER + "\n")
    assert "close #9 `Fix @\u200bteam | now` (fixes #5) — ready for review, no CI verdict recorded" in body
    assert "``/ci-healer retry lint` # x``" in body  # the newline folded, the span unbroken
    assert "\n# x" not in body and "![i](" not in body


def test_a_box_per_escalation_and_per_open_fix_pull_request_that_reads_back() -> None:
    body = render_dashboard(BUSY, repository="o/r", key="k")
    boxes = [line for line in body.splitlines() if line.startswith("- [ ] ")]
    assert len(boxes) == 2  # the escalation of #5 and the open fix PR #9; the merged #10 has none
    for line in boxes:
        edited = body.replace(line, line.replace("- [ ]", "- [x]", 1))
        assert len(ticked_boxes(body, edited, repository="o/r", key="k")) == 1
    assert ticked_boxes(body, body.replace("- [ ]", "- [x]"), repository="o/r", key="") == []
    assert [
        b.action for b, _ in ticked_boxes(body, body.replace("- [ ]", "- [x]"), repository="o/r", key="k")
    ] == [
        RETRY,
        CLOSE,
    ]


def test_empty_sections_are_left_out() -> None:
    body = render_dashboard(EMPTY, repository="o/r")
    assert "None." not in body and "## Escalations" not in body and "## Open fix" not in body
    assert "## Flaky tests" not in body and "Tick a box" not in body and "- [ ]" not in body
    assert body.count("## ") == 1 and "## Figures, 2026-01-01 to 2026-02-01" in body


def test_the_workflow_token_is_said_once_when_an_open_fix_pr_was_opened_with_it() -> None:
    assert render_dashboard(BUSY, repository="o/r").count("`GITHUB_TOKEN`") == 1
    app = replace(BUSY, fix_pulls=(FixPull(9, "Fix", "u", "open", 5, author="healer-app[bot]"),))
    assert "GITHUB_TOKEN" not in render_dashboard(app, repository="o/r")
    merged = replace(BUSY, fix_pulls=(FixPull(10, "", "", "merged", 6, author="github-actions[bot]"),))
    assert "GITHUB_TOKEN" not in render_dashboard(merged, repository="o/r")


def test_the_json_is_plain_values_and_says_when_tokens_are_unknown() -> None:
    data = json.loads(json.dumps(figures_json(BUSY, repository="o/r")))
    assert data["attempts"] == {
        "total": 4,
        "verified": 2,
        "delivered": 3,
        "by_result": BUSY.attempt_results,
        "fix_ci_passed": 0,
        "fix_ci_failed": 0,
        "fix_ready_or_merged": 0,
        "budget_stopped": 0,
    }
    assert data["agent_tokens"] == {"total": None, "attempts_with_tokens": 0, "attempts_unknown": 4}
    assert data["fix_pull_requests"]["open_list"] == [
        {"number": 9, "title": "Fix @team | now", "fixes": 5, "ci": None, "draft": False}
    ]
    assert (data["fix_pull_requests"]["ci_passed"], data["fix_pull_requests"]["ci_failed"]) == (0, 0)


def test_tokens_are_zero_when_no_agent_ran_and_unknown_only_for_agents_that_were_not_counted() -> None:
    rules_only = Figures(since=EMPTY.since, until=EMPTY.until, attempts=3, attempt_results={"verified": 3})
    assert "| agent tokens | 0 |" in render_summary(rules_only, repository="o/r")
    assert figures_json(rules_only, repository="o/r")["agent_tokens"]["total"] == 0
    assert "| agent tokens | unknown (4 agent attempt(s) not counted) |" in render_summary(
        BUSY, repository="o/r"
    )


def test_an_open_fix_says_what_its_ci_said_and_the_box_still_reads_back() -> None:
    fixes = (
        FixPull(9, "Fix lint", "u", "open", 5, ci="passed"),
        FixPull(11, "Fix test", "u", "open", 6, ci="failed"),
        FixPull(12, "Fix docs", "u", "open", 7),
        FixPull(13, "Fix more", "u", "open", 8, draft=True),
        FixPull(14, "Fix again", "u", "open", 9, ci="passed", draft=True),
    )
    body = render_dashboard(replace(BUSY, fix_pulls=fixes), repository="o/r")

    lines = {
        n: next(line for line in body.splitlines() if f"close #{n} " in line) for n in (9, 11, 12, 13, 14)
    }
    assert lines[9].endswith("(fixes #5) — :white_check_mark: CI passed, ready")
    assert lines[11].endswith("(fixes #6) — :x: CI failed, do not merge it as it is")
    assert lines[12].endswith("(fixes #7) — ready for review, no CI verdict recorded")
    assert lines[13].endswith("(fixes #8) — :hourglass_flowing_sand: a draft with no CI verdict yet")
    assert lines[14].endswith(
        "(fixes #9) — :white_check_mark: CI passed, still a draft: mark it ready, then merge"
    )
    ticked = body.replace("- [ ] ", "- [x] ")
    assert {box.number for box, _ in ticked_boxes(body, ticked, repository="o/r") if box.action == CLOSE} == {
        9,
        11,
        12,
        13,
        14,
    }
    assert "| fix PRs' CI (its latest verdict) | 2 passed, 1 failed |" in render_summary(
        replace(BUSY, fix_pulls=fixes), repository="o/r"
    )


def test_time_to_green_is_each_time_when_few_and_a_true_median_otherwise() -> None:
    from healer.text.dashboard import green_text

    assert green_text(()) == "none yet"
    # two failures: their median (12.3 h) is a time neither took, so both are named
    two = green_text((0.55, 24.0))
    assert two == "0.6 h and 24.0 h (2 failures)" and "median" not in two
    assert green_text((2.0,)) == "2.0 h (1 failure)"
    many = green_text((1.0, 2.0, 9.0, 30.0, 3.0))
    assert many == "median 3.0 h over 5 failures (fastest 1.0 h, slowest 30.0 h)"


def test_checks_with_nothing_to_try_are_named_not_only_counted() -> None:
    figures = replace(BUSY, untried=2, untried_checks=((4, "lint"), (6, "docs @team")))
    body = render_dashboard(figures, repository="o/r")
    assert "## Checks with nothing to try, waiting for a person" in body
    assert "- #4: `lint` (no fix rule applies and no `agent-command` is set)" in body
    assert "- #6: `docs @\u200bteam`" in body
    data = figures_json(figures, repository="o/r")
    assert data["escalations"]["untried_list"] == [
        {"pull_request": 4, "check": "lint"},
        {"pull_request": 6, "check": "docs @team"},
    ]


def test_the_last_update_is_the_day_the_report_ran_not_the_windows_end() -> None:
    figures = replace(EMPTY, since="2026-10-01T00:00:00Z", until="2026-11-01T00:00:00Z")
    body = render_dashboard(figures, repository="o/r", updated="2026-12-04T15:00:00Z")
    assert "(last on 2026-12-04)" in body and "## Figures, 2026-10-01 to 2026-11-01" in body
    # a scheduled report's window ends when it runs: the same day
    assert "(last on 2026-11-01)" in render_dashboard(figures, repository="o/r")


def test_each_attempt_is_labelled_by_what_happened_not_by_a_ready_fix_it_may_not_have() -> None:
    # 2 attempts verified on the runner: one's fix PR went red on CI and stays a draft, the other's was merged
    figures = replace(BUSY, attempt_fixes={"ci-failed": 1, "ci-passed": 1, "merged": 1})
    text = render_summary(figures, repository="o/r")
    assert "ready fix PR" not in text
    assert "| … verified by the healer's own run | 2 |" in text
    assert "| … whose fix PR's CI passed (its latest verdict) | 1 |" in text
    assert "| … whose fix PR's CI failed (its latest verdict) | 1 |" in text
    assert "| … whose fix PR is ready for review or merged | 1 |" in text
    attempts = figures_json(figures, repository="o/r")["attempts"]
    assert (attempts["fix_ci_passed"], attempts["fix_ci_failed"], attempts["fix_ready_or_merged"]) == (
        1,
        1,
        1,
    )
