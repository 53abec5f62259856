"""The client's repository-wide operations (broken trunk, ``healer report``), against GitHub's payload shapes
(``responses``, every request fired, bodies and queries matched)."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from fakegithub import API, BASE, REPO
from openapi_contract import check_response, example_response, url_pattern
from responses import matchers

from healer.demo.historyops import issue_shape
from healer.github import GitHub, GitHubError

BOT = "github-actions[bot]"
MARK = "<!-- ci-healer:dashboard -->"


def fake(
    rsps: responses.RequestsMock,
    method: str,
    path: str,
    body: Any = None,
    *,
    status: int = 200,
    match: tuple[Any, ...] = (),
    headers: dict[str, str] | None = None,
) -> None:
    check_response(method, BASE + path, status, body)
    rsps.add(method, url_pattern(BASE + path), json=body, status=status, match=match, headers=headers)


def a_run(conclusion: str) -> dict[str, Any]:
    run = example_response("actions/get-workflow-run")
    run.update(id=42, run_attempt=2, head_sha="d" * 40, head_branch="main", conclusion=conclusion)
    return run


def an_issue(number: int, body: str, author: str = BOT, *, pull: bool = False) -> dict[str, Any]:
    return issue_shape(
        issue_id=number * 10,
        number=number,
        title="CI healer dashboard",
        body=body,
        author=author,
        state="open",
        labels=[],
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-01T00:00:00Z",
        repo=REPO,
        api=API,
        web="https://github.com",
        pull=pull,
    )


def test_the_latest_push_run_of_a_workflow_on_a_branch_is_one_request(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    query = {
        "branch": "main",
        "event": "push",
        "status": "completed",
        "exclude_pull_requests": "true",
        "per_page": "1",
    }
    fake(
        rsps,
        "GET",
        "/actions/workflows/ci.yml/runs",
        {"total_count": 7, "workflow_runs": [a_run("failure")]},
        match=(matchers.query_param_matcher(query),),
    )

    run = gh.latest_branch_run("ci.yml", "main")

    assert run is not None
    assert (run.id, run.run_attempt, run.head_sha, run.conclusion) == (42, 2, "d" * 40, "failure")
    assert gh.request_count == 1


def test_a_branch_without_runs_has_no_latest_run(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/actions/workflows/ci.yml/runs", {"total_count": 0, "workflow_runs": []})
    assert gh.latest_branch_run("ci.yml", "main") is None


def test_a_workflow_github_does_not_know_is_an_error_that_says_what_was_asked(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, "GET", "/actions/workflows/gone.yml/runs", {"message": "Not Found"}, status=404)
    with pytest.raises(GitHubError, match="list the runs of gone.yml on main"):
        gh.latest_branch_run("gone.yml", "main")


def test_repository_comments_are_one_listing_filtered_by_author_with_their_issue_numbers(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    ours, theirs = example_response("issues/list-comments")[0], example_response("issues/list-comments")[0]
    ours.update(id=1, issue_url=f"{BASE}/issues/12", user={**ours["user"], "login": BOT})
    theirs.update(id=2, issue_url=f"{BASE}/issues/13")
    since = "2026-01-01T00:00:00Z"
    fake(
        rsps,
        "GET",
        "/issues/comments",
        [ours, theirs],
        match=(
            matchers.query_param_matcher(
                {"since": since, "sort": "created", "direction": "desc", "per_page": "100", "page": "1"}
            ),
        ),
    )

    listing = gh.list_repository_comments(since, authors=[BOT])

    assert [(c.id, c.issue, c.author) for c in listing.items] == [(1, 12, BOT)]
    assert listing.complete


def test_a_comment_listing_cut_by_its_page_bound_says_so(rsps: responses.RequestsMock, gh: GitHub) -> None:
    page = []
    for index in range(100):
        item = example_response("issues/list-comments")[0]
        item.update(id=index + 1, issue_url=f"{BASE}/issues/1")
        page.append(item)
    link = f'<{BASE}/issues/comments?page=2>; rel="next", <{BASE}/issues/comments?page=9>; rel="last"'
    fake(rsps, "GET", "/issues/comments", page, headers={"Link": link})

    listing = gh.list_repository_comments("2026-01-01T00:00:00Z", max_pages=1)

    assert len(listing.items) == 100 and not listing.complete


def test_recent_pull_requests_stop_at_the_first_one_updated_before_the_window(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    new, old = example_response("pulls/list")[0], example_response("pulls/list")[0]
    new.update(number=5, updated_at="2026-02-01T00:00:00Z", merged_at="2026-02-01T00:00:00Z", state="closed")
    old.update(number=4, updated_at="2025-12-01T00:00:00Z")
    fake(
        rsps,
        "GET",
        "/pulls",
        [new, old],
        match=(
            matchers.query_param_matcher(
                {"state": "all", "sort": "updated", "direction": "desc", "per_page": "100", "page": "1"}
            ),
        ),
    )

    listing = gh.list_recent_pulls("2026-01-01T00:00:00Z")

    assert [(p.number, p.merged) for p in listing.items] == [(5, True)]
    assert listing.complete


def test_the_dashboard_issue_is_found_by_label_and_its_hidden_marker_skipping_pulls_and_strangers(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(
        rsps,
        "GET",
        "/issues",
        [
            an_issue(3, MARK, pull=True),
            an_issue(4, MARK, author="mallory"),
            an_issue(5, "not ours"),
            an_issue(6, f"{MARK}\n# CI healer dashboard"),
        ],
        match=(
            matchers.query_param_matcher(
                {
                    "labels": "ci-healer",
                    "state": "all",
                    "sort": "created",
                    "direction": "asc",
                    "per_page": "100",
                    "page": "1",
                }
            ),
        ),
    )

    found = gh.find_issue(MARK, creator=BOT, label="ci-healer")

    assert found.issue is not None and found.issue.number == 6


def test_without_a_labelled_one_the_dashboard_is_looked_for_by_its_creator(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(
        rsps,
        "GET",
        "/issues",
        [],
        match=(matchers.query_param_matcher({"labels": "ci-healer"}, strict_match=False),),
    )
    fake(
        rsps,
        "GET",
        "/issues",
        [an_issue(7, MARK)],
        match=(
            matchers.query_param_matcher(
                {"creator": BOT, "state": "all", "sort": "updated", "direction": "desc"}, strict_match=False
            ),
        ),
    )

    found = gh.find_issue(MARK, creator=BOT, label="ci-healer")

    assert found.issue is not None and found.issue.number == 7
    assert gh.request_count == 2


def test_the_creators_listing_is_read_page_after_page_until_the_dashboard(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    # four full pages of the bot's fix PRs come before it: the old bound of three pages missed it
    for page in range(1, 6):
        items = [an_issue(page * 1000 + n, "Fixes #1", pull=True) for n in range(100)]
        if page == 5:
            items = [an_issue(4, MARK)]
        fake(
            rsps,
            "GET",
            "/issues",
            items,
            match=(matchers.query_param_matcher({"creator": BOT, "page": str(page)}, strict_match=False),),
            headers={"Link": f'<{BASE}/issues?page={page + 1}>; rel="next"'} if page < 5 else None,
        )

    found = gh.find_issue(MARK, creator=BOT)

    assert found.issue is not None and found.issue.number == 4 and found.complete
    assert gh.request_count == 5


def test_a_listing_cut_by_its_bound_says_so(
    rsps: responses.RequestsMock, gh: GitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("healer.github.history.BOT_ISSUE_PAGES", 1)
    fake(
        rsps,
        "GET",
        "/issues",
        [an_issue(1000 + n, "Fixes #1", pull=True) for n in range(100)],
        headers={"Link": f'<{BASE}/issues?page=2>; rel="next"'},
    )

    found = gh.find_issue(MARK, creator=BOT)

    assert (found.issue, found.complete) == (None, False)


def test_the_dashboard_is_opened_once_and_then_edited_in_place(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    body = f"{MARK}\nfigures"
    fake(
        rsps,
        "POST",
        "/issues",
        an_issue(8, body),
        status=201,
        match=(
            matchers.json_params_matcher(
                {"title": "CI healer dashboard", "body": body, "labels": ["ci-healer"]}
            ),
        ),
    )
    fake(
        rsps,
        "PATCH",
        "/issues/8",
        an_issue(8, body + "!"),
        match=(matchers.json_params_matcher({"body": body + "!"}),),
    )

    opened = gh.create_issue("CI healer dashboard", body, ["ci-healer"])
    edited = gh.update_issue(opened.number, body=body + "!")

    assert (opened.number, edited.body) == (8, body + "!")


def test_a_failed_create_is_not_retried_so_no_second_dashboard_can_appear(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, "POST", "/issues", {"message": "Server Error"}, status=503)
    with pytest.raises(GitHubError):
        gh.create_issue("CI healer dashboard", MARK)
    assert gh.request_count == 1


def test_get_issue_reads_the_body_as_it_is_now_and_a_missing_one_is_an_error(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, "GET", "/issues/8", an_issue(8, f"{MARK}\n- [x] box"))
    fake(rsps, "GET", "/issues/9", {"message": "Not Found"}, status=404)

    assert gh.get_issue(8).body == f"{MARK}\n- [x] box"
    with pytest.raises(GitHubError) as raised:
        gh.get_issue(9)
    assert raised.value.status == 404


def test_the_latest_attempt_of_a_run_is_read_from_the_run(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/actions/runs/42", a_run("failure"))
    assert gh.run_attempt(42) == 2
