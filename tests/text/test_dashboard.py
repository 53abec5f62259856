"""The report's text: the summary's table and charts, the dashboard issue, the JSON."""

from __future__ import annotations

import json

from healer.model import Figures, FixPull, OpenEscalation
from healer.text.dashboard import DASHBOARD_MARKER, figures_json, render_dashboard, render_summary

EMPTY = Figures(since="2026-01-01T00:00:00Z", until="2026-02-01T00:00:00Z")
BUSY = Figures(
    since=EMPTY.since,
    until=EMPTY.until,
    pulls=3,
    attempts=4,
    attempt_results={"verified": 2, "unverified": 1, "refused": 1},
    fix_pulls=(FixPull(9, "Fix @team | now", "u", "open", 5), FixPull(10, "", "", "merged", 6)),
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
    assert 'pie showData title Heal attempts\n    "verified" : 2\n    "delivered, not verified" : 1\n' in text
    assert '"nothing delivered" : 1\n```' in text
    assert "| … verified (ready fix PR) | 2 |" in text
    assert "| `t::a\\|b` | 2 |" in text  # a pipe cannot split the table's cell


def test_the_dashboard_starts_with_its_marker_and_defuses_what_pull_requests_wrote() -> None:
    body = render_dashboard(BUSY, repository="o/r")
    assert body.startswith(DASHBOARD_MARKER + "\n")
    assert "#9 `Fix @\u200bteam | now` (fixes #5)" in body
    assert "``/ci-healer retry lint` # x``" in body  # the newline folded, the span unbroken
    assert "\n# x" not in body and "![i](" not in body


def test_the_json_is_plain_values_and_says_when_tokens_are_unknown() -> None:
    data = json.loads(json.dumps(figures_json(BUSY, repository="o/r")))
    assert data["attempts"] == {
        "total": 4,
        "verified": 2,
        "delivered": 3,
        "by_result": BUSY.attempt_results,
        "budget_stopped": 0,
    }
    assert data["agent_tokens"] == {"total": None, "attempts_with_tokens": 0, "attempts_unknown": 4}
    assert data["fix_pull_requests"]["open_list"] == [{"number": 9, "title": "Fix @team | now", "fixes": 5}]


def test_tokens_are_zero_when_no_agent_ran_and_unknown_only_for_agents_that_were_not_counted() -> None:
    rules_only = Figures(since=EMPTY.since, until=EMPTY.until, attempts=3, attempt_results={"verified": 3})
    assert "| agent tokens | 0 |" in render_summary(rules_only, repository="o/r")
    assert figures_json(rules_only, repository="o/r")["agent_tokens"]["total"] == 0
    assert "| agent tokens | unknown (4 agent attempt(s) not counted) |" in render_summary(
        BUSY, repository="o/r"
    )
