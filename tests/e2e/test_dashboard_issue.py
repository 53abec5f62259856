"""End to end: the dashboard issue is found however many issues and pull requests the bot has, its label is
put back when a person removed it, and a second one is never opened.

The bot's older issues and fix PRs come first in a listing by creation; the dashboard used to be looked for
in the first three pages of it, so with 300 of them and its label gone it was not found and a second one was
opened. It is now found by its label (one request), else among the bot's issues and PRs most recently
updated first, page after page.
"""

from __future__ import annotations

import pytest
from test_healer_report import BOT, report

from healer.demo.sandbox import Sandbox
from healer.text.dashboard import DASHBOARD_MARKER

DASHBOARD_OPERATIONS = {"issues/list-for-repo", "issues/create", "issues/update", "issues/add-labels"}


def finding(box: Sandbox, before: int) -> list[str]:
    """The issue operations of a report since request ``before`` (the dashboard's cost)."""
    return [r.operation for r in box.standin.requests[before:] if r.operation in DASHBOARD_OPERATIONS]


def older(box: Sandbox, count: int) -> list[object]:
    """``count`` issues and fix PRs by the bot, half of each, older than the dashboard."""
    made: list[object] = []
    for n in range(count):
        if n % 2:
            made.append(
                box.standin.add_issue(box.repo, title=f"Old {n}", body="not the dashboard", author=BOT)
            )
        else:
            made.append(
                box.standin.add_pull(
                    box.repo,
                    head_ref=f"ci-healer/{n}-abcdef0",
                    head_sha=f"{n:040x}",
                    author=BOT,
                    title=f"Fix #{n}",
                )  # fmt: skip
            )
    return made


@pytest.mark.parametrize("count", [0, 300, 1000])
def test_the_dashboard_is_found_with_any_number_of_the_bots_issues_and_its_label_is_put_back(
    box: Sandbox, count: int
) -> None:
    items = older(box, count)
    before = len(box.standin.requests)
    first = report(box, "--dashboard", "--format", "json")
    assert first.returncode == 0, first.stderr
    pages = max(1, -(-count // 100))  # no dashboard yet: the whole listing, then it is opened
    assert finding(box, before) == ["issues/list-for-repo"] * (1 + pages) + ["issues/create"]
    [dashboard] = [i for i in box.standin.issues(box.repo) if i.body.startswith(DASHBOARD_MARKER)]

    # a person removes its label (which updates the issue, as on GitHub)
    dashboard.labels.clear()
    dashboard.updated_at = box.standin._now()
    before = len(box.standin.requests)
    second = report(box, "--dashboard", "--format", "json")
    assert second.returncode == 0, second.stderr
    # the label listing finds nothing; the bot's listing, most recently updated first, finds it on page 1
    assert finding(box, before) == ["issues/list-for-repo", "issues/list-for-repo", "issues/add-labels"]
    assert dashboard.labels == ["ci-healer"]

    # worst case: every older issue and PR was updated after the label was removed (closed, merged, edited)
    dashboard.labels.clear()
    dashboard.updated_at = box.standin._now()
    for item in items:
        item.updated_at = box.standin._now()  # type: ignore[attr-defined]
    before = len(box.standin.requests)
    third = report(box, "--dashboard", "--format", "json")
    assert third.returncode == 0, third.stderr
    pages = count // 100 + 1  # the dashboard is item count + 1
    assert finding(box, before) == ["issues/list-for-repo"] * (1 + pages) + ["issues/add-labels"]

    # with its label, one request; never a second dashboard
    before = len(box.standin.requests)
    assert report(box, "--dashboard").returncode == 0
    assert finding(box, before) == ["issues/list-for-repo"]
    assert [i.number for i in box.standin.issues(box.repo) if i.body.startswith(DASHBOARD_MARKER)] == [
        dashboard.number
    ]


def test_a_persons_edits_are_overwritten_and_a_closed_dashboard_stays_closed(box: Sandbox) -> None:
    assert report(box, "--dashboard").returncode == 0
    [dashboard] = box.standin.issues(box.repo)
    dashboard.body = DASHBOARD_MARKER + "\nA person's notes."
    dashboard.state = "closed"
    dashboard.labels.clear()
    before = len(box.standin.requests)
    assert report(box, "--dashboard").returncode == 0
    ops = finding(box, before)
    assert ops == ["issues/list-for-repo", "issues/list-for-repo", "issues/add-labels", "issues/update"]
    assert dashboard.state == "closed" and "A person's notes." not in dashboard.body
    assert [i.number for i in box.standin.issues(box.repo)] == [dashboard.number]
