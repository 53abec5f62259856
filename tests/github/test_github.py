"""The GitHub client against ``responses`` fakes in GitHub's own shapes (the OpenAPI description's examples).

Every fake response is validated against the description before it is served, and after each test every
request the client made is checked to be an operation of the subset with valid parameters and body.
"""

from __future__ import annotations

import base64
import copy
import json
import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest
import responses
from fakegithub import API, BASE, REPO, SHA, TOKEN
from openapi_contract import check_calls, check_response, example_response, url_pattern
from responses import matchers

from healer.github import GitHub, GitHubError, is_loopback_http, is_stale
from healer.github.convert import with_records_of
from healer.model import RunEvent

SIGNED = "https://pipelines.actions.githubusercontent.com/logs/19/signedlogcontent?urlSignature=abc%3D"


class Sleeps:
    """An injectable sleep that records instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def gh(sleeps: Sleeps) -> Iterator[GitHub]:
    client = GitHub(TOKEN, REPO, api_url=API, sleep=sleeps, clock=lambda: 1_700_000_000.0)
    yield client
    client.close()


def fake(
    rsps: responses.RequestsMock,
    method: str,
    path: str,
    body: Any = None,
    *,
    status: int = 200,
    headers: dict[str, str] | None = None,
    match: tuple[Any, ...] = (),
    base: str = BASE,
) -> None:
    """Register a fake API answer after checking it has GitHub's shape for that operation and status."""
    url = base + path
    check_response(method, url, status, body)
    rsps.add(method, url_pattern(url), json=body, status=status, headers=headers, match=match)


def error(message: str, **extra: Any) -> dict[str, Any]:
    return {"message": message, "documentation_url": "https://docs.github.com/rest", **extra}


def pull(number: int = 1347, *, sha: str = SHA, state: str = "open", head_repo: str = REPO) -> dict[str, Any]:
    data = example_response("pulls/get")
    data.update(number=number, state=state)
    data["head"]["sha"] = sha
    data["head"]["repo"]["full_name"] = head_repo
    data["base"]["repo"]["full_name"] = REPO
    return data


def simple_pull(**kwargs: Any) -> dict[str, Any]:
    data = example_response("pulls/list")[0]
    full = pull(**kwargs)
    data.update(number=full["number"], state=full["state"])
    data["head"] = full["head"]
    data["base"]["repo"]["full_name"] = REPO
    return data


def event(**changes: Any) -> RunEvent:
    values: dict[str, Any] = dict(
        repository=REPO,
        run_id=30433642,
        run_attempt=1,
        workflow_name="CI",
        head_sha=SHA,
        head_branch="new-topic",
        head_repository=REPO,
        is_fork=False,
        event="pull_request",
        conclusion="failure",
        head_owner="octo-org",
    )
    values.update(changes)
    return RunEvent(**values)


def page_headers(path: str, page: int, last: int) -> dict[str, str]:
    """GitHub's ``Link`` header for page ``page`` of ``last`` (its links use /repositories/{id} paths)."""
    url = f"{API}/repositories/1296269{path}?per_page=100&page="
    links = []
    if page < last:
        links += [f'<{url}{page + 1}>; rel="next"', f'<{url}{last}>; rel="last"']
    if page > 1:
        links += [f'<{url}1>; rel="first"', f'<{url}{page - 1}>; rel="prev"']
    return {"Link": ", ".join(links)} if links else {}


# -- reads ------------------------------------------------------------------------------------------


def test_get_repository(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "", example_response("repos/get"))
    repo = gh.get_repository()
    assert (repo.full_name, repo.default_branch, repo.private) == ("octocat/Hello-World", "master", False)
    assert gh.request_count == 1


def test_get_pull_reads_the_fields_the_healer_uses(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/pulls/1347", pull())
    pr = gh.get_pull(1347)
    assert pr.number == 1347
    assert pr.head_sha == SHA
    assert pr.head_ref == "new-topic"
    assert pr.base_ref == "master"
    assert pr.author == "octocat"
    assert pr.labels == ("bug",)
    assert pr.is_fork is False
    assert pr.title == "Amazing new feature"


def test_find_pull_request_from_payload_is_one_request(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/pulls/1347", pull())
    pr = gh.find_pull_request(event(pull_requests=(1347,)))
    assert pr is not None and pr.number == 1347
    assert gh.request_count == 1


def test_find_pull_request_returns_a_stale_pr_for_the_caller_to_skip(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, "GET", "/pulls/1347", pull(sha="f" * 40))
    run = event(pull_requests=(1347,))
    pr = gh.find_pull_request(run)
    assert pr is not None and is_stale(pr, run)


def test_find_pull_request_skips_closed_payload_prs(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/pulls/1347", pull(state="closed"))
    assert gh.find_pull_request(event(pull_requests=(1347,))) is None


def test_find_pull_request_by_commit(rsps: responses.RequestsMock, gh: GitHub) -> None:
    other_base = simple_pull(number=5)
    other_base["base"]["repo"]["full_name"] = "someone/else"
    fake(
        rsps,
        "GET",
        f"/commits/{SHA}/pulls",
        [other_base, simple_pull(number=1347)],
        match=(matchers.query_param_matcher({"per_page": "100", "page": "1"}),),
    )
    pr = gh.find_pull_request(event())
    assert pr is not None and pr.number == 1347


def test_find_fork_pull_request_by_head(rsps: responses.RequestsMock, gh: GitHub) -> None:
    # Forks: GitHub's payload has no pull_requests and commits/{sha}/pulls answers [] (the commit lives in the
    # fork), so the client asks for open PRs by head directly: one request.
    fork = "contributor/octo-repo"
    fake(
        rsps,
        "GET",
        "/pulls",
        [simple_pull(number=9, sha="a" * 40, head_repo=fork), simple_pull(number=10, head_repo=fork)],
        match=(
            matchers.query_param_matcher(
                {"state": "open", "head": "contributor:new-topic", "per_page": "100", "page": "1"}
            ),
        ),
    )
    run = event(is_fork=True, head_repository=fork, head_owner="contributor")
    pr = gh.find_pull_request(run)
    assert pr is not None and pr.number == 10 and not is_stale(pr, run)
    assert pr.is_fork
    assert gh.request_count == 1


def test_pull_request_not_found(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", f"/commits/{SHA}/pulls", [])
    fake(rsps, "GET", "/pulls", [])
    assert gh.find_pull_request(event()) is None
    assert gh.request_count == 2


def test_list_jobs_pages_until_total_count(rsps: responses.RequestsMock, gh: GitHub) -> None:
    template = example_response("actions/list-jobs-for-workflow-run-attempt")["jobs"][0]
    jobs = []
    for index in range(130):
        job = copy.deepcopy(template)
        job.update(
            id=1000 + index, name=f"test ({index})", conclusion="failure" if index == 129 else "success"
        )
        jobs.append(job)
    path = "/actions/runs/30433642/attempts/2/jobs"
    for page, chunk in ((1, jobs[:100]), (2, jobs[100:])):
        fake(
            rsps,
            "GET",
            path,
            {"total_count": 130, "jobs": chunk},
            match=(matchers.query_param_matcher({"per_page": "100", "page": str(page)}),),
            headers=page_headers(path, page, 2),
        )
    listed = gh.list_jobs(30433642, 2)
    assert [job.id for job in listed] == [1000 + i for i in range(130)]
    assert listed[-1].conclusion == "failure"
    assert listed[0].steps[0].name == "Set up job"
    assert gh.request_count == 2


def test_list_annotations(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/check-runs/399444496/annotations", example_response("checks/list-annotations"))
    (note,) = gh.list_annotations(399444496)
    assert (note.path, note.start_line, note.level) == ("README.md", 2, "warning")
    assert note.message.startswith("Check your spelling")


def comment_pages(rsps: responses.RequestsMock, number: int, total: int, bots: set[int]) -> list[int]:
    """Serve ``total`` comments of PR ``number`` as GitHub does: ascending ids, 100 a page, a ``Link``
    header with ``last``; the ids in ``bots`` are the healer's marker comments. Returns the pages asked."""
    template = example_response("issues/list-comments")[0]
    path = f"/issues/{number}/comments"
    last = max(1, -(-total // 100))
    asked: list[int] = []

    def build(page: int) -> list[dict[str, Any]]:
        items = []
        for comment_id in range((page - 1) * 100 + 1, min(page * 100, total) + 1):
            item = copy.deepcopy(template)
            bot = comment_id in bots
            item.update(id=comment_id, body=("<!-- ci-healer:v1 {} -->" if bot else "x" * 5000))
            item["user"]["login"] = "github-actions[bot]" if bot else f"reviewer{comment_id}"
            items.append(item)
        return items

    def page(request: Any) -> tuple[int, dict[str, str], str]:
        number = int(request.params["page"])
        assert request.params["per_page"] == "100"
        asked.append(number)
        # the mock would otherwise hold every page it served (in two call lists)
        rsps.calls.reset()
        registered.calls.reset()
        return 200, page_headers(path, number, last), json.dumps(build(number))

    check_response("GET", BASE + path, 200, build(1))
    registered = rsps.add_callback(
        "GET", url_pattern(BASE + path), callback=page, content_type="application/json"
    )
    return asked


def test_a_long_pr_is_read_newest_first_in_a_bounded_number_of_requests(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    # 5,200 comments: before, the first 50 pages were read (50 requests) and the newest markers never seen
    bots = {3, 2_500, 4_350, 5_001, 5_200}
    asked = comment_pages(rsps, 1347, 5_200, bots)
    tracemalloc.start()
    mine = gh.list_comments(1347, authors=["github-actions[bot]"])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert asked == [1, 52, 51, 50, 49, 48, 47, 46, 45, 44]
    assert [c.id for c in mine] == [3, 4_350, 5_001, 5_200]  # oldest first; 2,500 is in the unread middle
    assert gh.request_count == 10
    assert gh.comments_skipped == 4_200  # pages 2 to 43
    assert peak < 6 * 1024 * 1024  # a page at a time, not 5,200 comments of 5 KB (26 MB)


def test_a_pr_of_up_to_ten_pages_is_read_whole(rsps: responses.RequestsMock, gh: GitHub) -> None:
    bots = {1, 150, 999, 1_000}
    asked = comment_pages(rsps, 1347, 1_000, bots)
    assert [c.id for c in gh.list_comments(1347, authors=["github-actions[bot]"])] == sorted(bots)
    assert asked == [1, 10, 9, 8, 7, 6, 5, 4, 3, 2]
    assert gh.comments_skipped == 0


def test_a_short_pr_costs_one_request(rsps: responses.RequestsMock, gh: GitHub) -> None:
    asked = comment_pages(rsps, 1347, 42, {42})
    assert [c.id for c in gh.list_comments(1347)] == list(range(1, 43))
    assert asked == [1] and gh.request_count == 1


def test_comment_pages_without_a_last_link_are_read_forwards_and_bounded(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    template = example_response("issues/list-comments")[0]
    path = "/issues/7/comments"
    full = [dict(template, id=i) for i in range(100)]
    rsps.add(
        "GET", url_pattern(BASE + path), json=full, headers={"Link": f'<{BASE}{path}?page=2>; rel="next"'}
    )
    assert len(gh.list_comments(7)) == 100  # the same ids on every page count once
    assert gh.request_count == 10


def test_get_file_decodes_base64(rsps: responses.RequestsMock, gh: GitHub) -> None:
    body = example_response("repos/get-content", name="response-if-content-is-a-file")
    body["content"] = base64.encodebytes("budget: 2\nname: é\n".encode()).decode()
    fake(
        rsps,
        "GET",
        "/contents/.github/ci-healer.yml",
        body,
        match=(matchers.query_param_matcher({"ref": "main"}),),
    )
    assert gh.get_file(".github/ci-healer.yml", "main") == "budget: 2\nname: é\n"


def test_get_file_missing_is_none(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", "/contents/.github/ci-healer.yml", error("Not Found"), status=404)
    assert gh.get_file(".github/ci-healer.yml", "main") is None


def test_get_file_directory_is_an_error(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "GET",
        "/contents/lib",
        example_response("repos/get-content", name="response-if-content-is-a-directory"),
    )
    with pytest.raises(GitHubError, match="lib at main is a directory"):
        gh.get_file("lib", "main")


# -- errors name the permission, never the token ----------------------------------------------------


@pytest.mark.parametrize(
    ("status", "message", "expected"),
    [
        pytest.param(403, "Resource not accessible by integration", "`actions: read` permission", id="403"),
        pytest.param(404, "Not Found", "`actions: read` permission is missing", id="404"),
        pytest.param(401, "Bad credentials", "pass a valid `github-token`", id="401"),
    ],
)
def test_missing_actions_read(
    rsps: responses.RequestsMock, gh: GitHub, status: int, message: str, expected: str
) -> None:
    fake(rsps, "GET", "/actions/runs/1/attempts/1/jobs", error(message), status=status)
    with pytest.raises(GitHubError) as caught:
        gh.list_jobs(1, 1)
    assert expected in str(caught.value)
    assert caught.value.status == status
    assert gh.request_count == 1  # not retried
    assert TOKEN not in str(caught.value) and TOKEN not in repr(caught.value)


@pytest.mark.parametrize(
    ("call", "method", "path", "permission"),
    [
        pytest.param(
            lambda g: g.create_comment(1, "hi"), "POST", "/issues/1/comments", "pull-requests: write"
        ),
        pytest.param(
            lambda g: g.rerun_failed_jobs(5), "POST", "/actions/runs/5/rerun-failed-jobs", "actions: write"
        ),
        pytest.param(lambda g: g.add_labels(1, ["x"]), "POST", "/issues/1/labels", "issues: write"),
        pytest.param(lambda g: g.list_annotations(3), "GET", "/check-runs/3/annotations", "checks: read"),
        pytest.param(
            lambda g: g.update_comment(2, "b"), "PATCH", "/issues/comments/2", "pull-requests: write"
        ),
    ],
)
def test_403_names_the_permission(
    rsps: responses.RequestsMock, gh: GitHub, call: Any, method: str, path: str, permission: str
) -> None:
    fake(rsps, method, path, error("Resource not accessible by integration"), status=403)
    with pytest.raises(GitHubError, match=f"`{permission}`"):
        call(gh)


def test_a_repository_that_keeps_actions_from_opening_pull_requests_names_the_setting(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    # GitHub's answer when "Allow GitHub Actions to create and approve pull requests" is off (the default for
    # new repositories and organizations): no permission in the workflow can fix that
    message = "GitHub Actions is not permitted to create or approve pull requests."
    fake(rsps, "POST", "/pulls", error(message), status=403)
    with pytest.raises(GitHubError) as caught:
        gh.create_pull(head="ci-healer/1-abcdef0", base="feature", title="t", body="b")
    text = str(caught.value)
    assert "Allow GitHub Actions to create and approve pull requests" in text
    assert "Settings" in text and "GitHub App token" in text
    assert "permissions:" not in text


def test_422_names_the_bad_input(rsps: responses.RequestsMock, gh: GitHub) -> None:
    body = error(
        "Validation Failed", errors=[{"resource": "Label", "code": "invalid", "message": "bad name"}]
    )
    fake(rsps, "POST", "/issues/1/labels", body, status=422)
    with pytest.raises(GitHubError, match=r"refused the input .* \(422: Validation Failed: bad name\)"):
        gh.add_labels(1, ["x"])


def test_token_is_in_no_repr_or_message(rsps: responses.RequestsMock, gh: GitHub) -> None:
    # even if GitHub echoed it back, the message is scrubbed
    fake(rsps, "GET", "/pulls/1", error(f"token {TOKEN} is bad"), status=403)
    with pytest.raises(GitHubError) as caught:
        gh.get_pull(1)
    assert TOKEN not in str(caught.value)
    assert "***" in str(caught.value)
    assert TOKEN not in repr(gh) and TOKEN not in str(vars(gh).get("repository"))


# -- retries ----------------------------------------------------------------------------------------


def test_5xx_storm_gives_up_after_bounded_retries(
    rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps
) -> None:
    for _ in range(4):
        fake(rsps, "GET", "/pulls/1", error("Server Error"), status=502)
    with pytest.raises(GitHubError, match="kept failing .*502.* gave up") as caught:
        gh.get_pull(1)
    assert caught.value.status == 502
    assert gh.request_count == 4
    assert sleeps.calls == [1, 2, 4]


def test_5xx_then_success(rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps) -> None:
    fake(rsps, "GET", "/pulls/1", error("Server Error"), status=503)
    fake(rsps, "GET", "/pulls/1", pull(1))
    assert gh.get_pull(1).number == 1
    assert sleeps.calls == [1]
    assert gh.request_count == 2


def test_comment_post_is_not_retried_on_5xx(rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps) -> None:
    fake(rsps, "POST", "/issues/1/comments", error("Server Error"), status=502)
    with pytest.raises(GitHubError):
        gh.create_comment(1, "hello")
    assert sleeps.calls == []


def test_rate_limit_waits_until_reset(rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps) -> None:
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(1_700_000_000 + 20)}
    fake(
        rsps,
        "GET",
        "/pulls/1",
        error("API rate limit exceeded for installation"),
        status=403,
        headers=limited,
    )
    fake(rsps, "GET", "/pulls/1", pull(1))
    assert gh.get_pull(1).number == 1
    assert sleeps.calls == [21.0]


def test_retry_after_is_honoured(rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps) -> None:
    fake(rsps, "GET", "/pulls/1", error("You have exceeded a secondary rate limit"), status=429,
         headers={"retry-after": "3"})  # fmt: skip
    fake(rsps, "GET", "/pulls/1", pull(1))
    gh.get_pull(1)
    assert sleeps.calls == [3.0]


def test_rate_limit_too_far_away_gives_up_at_once(
    rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps
) -> None:
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(1_700_000_000 + 3600)}
    fake(rsps, "GET", "/pulls/1", error("API rate limit exceeded"), status=403, headers=limited)
    with pytest.raises(GitHubError, match="rate limit stopped the healer .* resets at"):
        gh.get_pull(1)
    assert sleeps.calls == []
    assert gh.request_count == 1


# -- writes -----------------------------------------------------------------------------------------


def test_create_comment_sends_the_body(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "POST",
        "/issues/1347/comments",
        example_response("issues/create-comment", "201"),
        status=201,
        match=(matchers.json_params_matcher({"body": "attempt 1 of 2"}),),
    )
    comment = gh.create_comment(1347, "attempt 1 of 2")
    assert comment.author == "octocat" and comment.id == 1
    # PyGithub's issue object is lazy: the POST is the only request (no GET of the issue first)
    assert gh.request_count == len(rsps.calls) == 1


def test_too_long_comment_is_refused_before_sending(gh: GitHub) -> None:
    with pytest.raises(GitHubError, match="at most 65,536"):
        gh.create_comment(1, "x" * 70000)
    assert gh.request_count == 0


def test_update_and_delete_comment(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "PATCH",
        "/issues/comments/1",
        example_response("issues/update-comment"),
        match=(matchers.json_params_matcher({"body": "reset"}),),
    )
    rsps.add("DELETE", url_pattern(BASE + "/issues/comments/1"), status=204)
    assert gh.update_comment(1, "reset").id == 1
    gh.delete_comment(1)


def test_add_labels_and_rerun(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "POST",
        "/issues/1347/labels",
        example_response("issues/add-labels"),
        match=(matchers.json_params_matcher({"labels": ["ci-healer: escalated"]}),),
    )
    fake(rsps, "POST", "/actions/runs/30433642/rerun-failed-jobs", {}, status=201)
    gh.add_labels(1347, ["ci-healer: escalated"])
    gh.add_labels(1347, [])  # nothing to add: no request
    gh.rerun_failed_jobs(30433642)
    assert gh.request_count == 2


def test_create_pull(rsps: responses.RequestsMock, gh: GitHub) -> None:
    sent = {
        "title": "fix lint",
        "head": "ci-healer/1347-6dcb09b",
        "base": "new-topic",
        "body": "b",
        "draft": True,
    }
    fake(rsps, "POST", "/pulls", pull(1348), status=201, match=(matchers.json_params_matcher(sent),))
    pr = gh.create_pull(
        head="ci-healer/1347-6dcb09b", base="new-topic", title="fix lint", body="b", draft=True
    )
    assert pr.number == 1348


def test_create_pull_is_idempotent(rsps: responses.RequestsMock, gh: GitHub) -> None:
    exists = error(
        "Validation Failed",
        errors=[{"resource": "PullRequest", "code": "custom", "message": "A pull request already exists for "
                 "octo-org:ci-healer/1347-6dcb09b."}],
    )  # fmt: skip
    fake(rsps, "POST", "/pulls", exists, status=422)
    fake(
        rsps,
        "GET",
        "/pulls",
        [simple_pull(number=1348)],
        match=(
            matchers.query_param_matcher(
                {
                    "state": "open",
                    "head": "octo-org:ci-healer/1347-6dcb09b",
                    "base": "new-topic",
                    "per_page": "100",
                    "page": "1",
                }
            ),
        ),
    )
    fake(
        rsps,
        "PATCH",
        "/pulls/1348",
        pull(1348),
        match=(matchers.json_params_matcher({"title": "fix lint (2)", "body": "new"}),),
    )
    pr = gh.create_pull(head="ci-healer/1347-6dcb09b", base="new-topic", title="fix lint (2)", body="new")
    assert pr.number == 1348
    assert gh.request_count == 3


def test_an_existing_fix_keeps_its_records_but_not_its_old_ci_line() -> None:
    old = (
        '<!-- ci-healer:v1 {"k":"attempt"} -->\n<!-- ci-healer:memory:v1 abc -->\n'
        "<!-- ci-healer:ci --> :hourglass: Waiting for CI\n\nOld text."
    )
    new = "<!-- ci-healer:ci --> :hourglass: Waiting for CI (run 2)\n\nNew text."
    assert with_records_of(old, new) == (
        '<!-- ci-healer:v1 {"k":"attempt"} -->\n<!-- ci-healer:memory:v1 abc -->\n\n' + new
    )
    assert with_records_of("Plain body.", new) == new


def test_update_pull_closes(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "PATCH",
        "/pulls/9",
        pull(9, state="closed"),
        match=(matchers.json_params_matcher({"state": "closed"}),),
    )
    assert gh.update_pull(9, state="closed").state == "closed"


# -- GitHub Enterprise Server and construction ------------------------------------------------------


def test_enterprise_server_base_url(sleeps: Sleeps) -> None:
    api = "https://ghe.example/api/v3"
    base = f"{api}/repos/{REPO}"
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        fake(mock, "GET", "/pulls/1347", pull(), base=base)
        check_response("GET", base + "/actions/jobs/399444496/logs", 302, None)
        mock.add("GET", base + "/actions/jobs/399444496/logs", status=302, headers={"Location": SIGNED})
        mock.add("GET", SIGNED, body=b"tail\n", status=206, headers={"Content-Range": "bytes 0-4/5"})
        client = GitHub(TOKEN, REPO, api_url=api + "/", sleep=sleeps)
        assert client.get_pull(1347).number == 1347
        assert client.download_log_tail(399444496).text == "tail\n"
        assert check_calls(mock.calls, api_base=api) == 2


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        pytest.param({}, "https://api.github.com", id="github.com"),
        pytest.param({"GITHUB_API_URL": ""}, "https://api.github.com", id="empty"),
        pytest.param(
            {"GITHUB_API_URL": "https://ghe.example/api/v3/"}, "https://ghe.example/api/v3", id="ghes"
        ),
    ],
)
def test_api_url_from_the_environment(env: dict[str, str], expected: str) -> None:
    assert GitHub.from_env(TOKEN, REPO, env).api_url == expected


@pytest.mark.parametrize(
    ("repository", "api_url", "expected"),
    [
        pytest.param("octo-org", API, "owner/name", id="no-owner"),
        pytest.param("a/b/c", API, "owner/name", id="too-many-parts"),
        pytest.param(REPO, "http://ghe.example/api/v3", "must use https", id="plain-http-remote"),
    ],
)
def test_bad_construction(repository: str, api_url: str, expected: str) -> None:
    with pytest.raises(GitHubError, match=expected) as caught:
        GitHub(TOKEN, repository, api_url=api_url)
    assert TOKEN not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param("http://127.0.0.1:9/x", True, id="ipv4-loopback"),
        pytest.param("http://127.8.9.10/x", True, id="ipv4-loopback-range"),
        pytest.param("http://[::1]:80/x", True, id="ipv6-loopback"),
        pytest.param("http://localhost:3000", True, id="localhost"),
        pytest.param("https://127.0.0.1/", False, id="https-is-not-plain-http"),
        pytest.param("http://10.0.0.1/", False, id="private-not-loopback"),
        pytest.param("http://localhost.evil.example/", False, id="lookalike"),
        pytest.param("http://127.0.0.1.evil.example/", False, id="lookalike-ip"),
    ],
)
def test_is_loopback_http(url: str, expected: bool) -> None:
    assert is_loopback_http(url) is expected


def test_network_errors_are_retried_then_reported(
    rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps
) -> None:
    import requests

    for _ in range(4):
        rsps.add("GET", url_pattern(BASE + "/pulls/1"), body=requests.ConnectionError("connection reset"))
    with pytest.raises(
        GitHubError, match="could not reach GitHub at https://api.github.com .* after 4 tries"
    ):
        gh.get_pull(1)
    assert sleeps.calls == [1, 2, 4]


# -- the contract checker itself can fail ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "body", "expected"),
    [
        pytest.param("GET", f"{API}/search/issues?q=x", None, "not an operation", id="search-api"),
        pytest.param("POST", f"{API}/graphql", {"query": "{}"}, "not an operation", id="graphql"),
        pytest.param("PUT", f"{BASE}/pulls/1", None, "the path exists for GET, PATCH", id="wrong-method"),
        pytest.param("GET", f"{BASE}/pulls?state=merged", None, "not one of", id="bad-enum"),
        pytest.param("GET", f"{BASE}/pulls?per_page=many", None, "not an integer", id="bad-integer"),
        pytest.param("GET", f"{BASE}/pulls?limit=5", None, "'limit' is not declared", id="unknown-param"),
        pytest.param(
            "POST", f"{BASE}/issues/1/comments", {"text": "x"}, "'body' is a required", id="bad-body"
        ),
        pytest.param(
            "DELETE", f"{BASE}/issues/comments/1", {"x": 1}, "takes no request body", id="body-not-taken"
        ),
    ],
)
def test_contract_rejects_requests_outside_the_subset(
    method: str, url: str, body: Any, expected: str
) -> None:
    from openapi_contract import check_request

    with pytest.raises(AssertionError, match=expected):
        check_request(method, url, body)


def test_contract_rejects_a_response_of_the_wrong_shape() -> None:
    bad = pull()
    del bad["head"]
    with pytest.raises(AssertionError, match="'head' is a required property"):
        check_response("GET", f"{BASE}/pulls/1", 200, bad)
    with pytest.raises(AssertionError, match="error body"):
        check_response("GET", f"{BASE}/pulls/1", 403, {"error": "no message"})


def test_contract_understands_nullable_and_enterprise_prefixes() -> None:
    from openapi_contract import match_operation, to_json_schema

    assert to_json_schema({"type": "string", "nullable": True, "enum": ["a"]}) == {
        "type": ["string", "null"],
        "enum": ["a", None],
    }
    operation = match_operation("GET", "https://ghe.example/api/v3/repos/o/r/contents/a/b.yml?ref=main")
    assert operation.operation_id == "repos/get-content"
    assert operation.path_params["path"] == "a/b.yml"
    body = pull()
    body["body"] = None  # nullable in GitHub's description
    check_response("GET", f"{BASE}/pulls/1", 200, body)


def test_a_rule_branchs_pull_requests_are_listed_in_every_state(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    # a signature's rule PR is proposed once: open, merged or closed, each counts (healer.run.learning)
    closed = simple_pull(number=1400, state="closed")
    closed["head"]["ref"] = "ci-healer/rule-0123456789ab"
    fake(
        rsps,
        "GET",
        "/pulls",
        [closed],
        match=(
            matchers.query_param_matcher(
                {
                    "state": "all",
                    "head": "octo-org:ci-healer/rule-0123456789ab",
                    "per_page": "100",
                    "page": "1",
                }
            ),
        ),
    )
    [found] = gh.list_pulls(head="octo-org:ci-healer/rule-0123456789ab", state="all")
    assert (found.number, found.state, found.head_ref) == (1400, "closed", "ci-healer/rule-0123456789ab")


def test_who_merged_a_pull_request_is_read_from_its_merged_by_user(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    merged = pull(1347, state="closed")
    merged.update(merged=True, merged_by=copy.deepcopy(merged["user"]))
    fake(rsps, "GET", "/pulls/1347", merged)
    pr = gh.get_pull(1347)
    assert (pr.merged, pr.merged_by) == (True, merged["user"]["login"])
