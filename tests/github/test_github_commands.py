"""The client's operations behind comment commands, against GitHub's example payloads (``responses``)."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from fakegithub import BASE, SHA
from openapi_contract import check_response, example_response, url_pattern
from responses import matchers

from healer.github import GitHub, GitHubError


def fake(
    rsps: responses.RequestsMock,
    method: str,
    path: str,
    body: Any = None,
    *,
    status: int = 200,
    match: tuple[Any, ...] = (),
) -> None:
    check_response(method, BASE + path, status, body)
    rsps.add(method, url_pattern(BASE + path), json=body, status=status, match=match)


@pytest.mark.parametrize(
    ("permission", "role", "can_write"),
    [
        pytest.param("admin", "admin", True, id="admin"),
        pytest.param("write", "maintain", True, id="maintain-reads-write"),
        pytest.param("write", "write", True, id="write"),
        pytest.param("read", "triage", False, id="triage-reads-read"),
        pytest.param("read", "read", False, id="read"),
        pytest.param("write", "release-manager", True, id="custom-role-on-write"),
        pytest.param("read", "security-auditor", False, id="custom-role-on-read"),
    ],
)
def test_permission(
    rsps: responses.RequestsMock, gh: GitHub, permission: str, role: str, can_write: bool
) -> None:
    body = example_response("repos/get-collaborator-permission-level")
    body.update(permission=permission, role_name=role)
    fake(rsps, "GET", "/collaborators/mona/permission", body)
    found = gh.get_permission("mona")
    assert (found.can_write, found.shown) == (can_write, role)


def test_an_unknown_user_has_no_permission(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "GET",
        "/collaborators/ghost/permission",
        {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"},
        status=404,
    )
    assert not gh.get_permission("ghost").can_write


def test_reaction(rsps: responses.RequestsMock, gh: GitHub) -> None:
    body = example_response("reactions/create-for-issue-comment", "201")
    fake(
        rsps,
        "POST",
        "/issues/comments/42/reactions",
        body,
        status=201,
        match=(matchers.json_params_matcher({"content": "eyes"}),),
    )
    gh.add_reaction(42, "eyes")
    with pytest.raises(ValueError):
        gh.add_reaction(42, "party")  # not a reaction GitHub knows: never sent


def test_remove_label_quotes_the_name_and_a_missing_label_is_no_error(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, "DELETE", "/issues/7/labels/ci-healer%3Aoff", example_response("issues/remove-label"))
    assert gh.remove_label(7, "ci-healer:off") is True
    fake(
        rsps,
        "DELETE",
        "/issues/7/labels/gone",
        {"message": "Label does not exist", "documentation_url": "https://docs.github.com/rest"},
        status=404,
    )
    assert gh.remove_label(7, "gone") is False


def test_failed_checks_are_the_latest_failed_actions_jobs_newest_first(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    run = example_response("checks/list-for-ref")["check_runs"][0]
    runs = []
    for job_id, name, conclusion, slug, done in (
        (1, "lint", "failure", "github-actions", "2026-01-01T10:00:00Z"),
        (2, "test", "timed_out", "github-actions", "2026-01-01T11:00:00Z"),
        (3, "docs", "success", "github-actions", "2026-01-01T12:00:00Z"),
        (4, "codecov", "failure", "codecov", "2026-01-01T13:00:00Z"),  # another app's check: not a job
    ):
        item = {**run, "id": job_id, "name": name, "conclusion": conclusion, "completed_at": done}
        item["app"] = {**run["app"], "slug": slug}
        runs.append(item)
    fake(
        rsps,
        "GET",
        f"/commits/{SHA}/check-runs",
        {"total_count": 4, "check_runs": runs},
        match=(
            matchers.query_param_matcher(
                {"status": "completed", "filter": "latest", "per_page": "100", "page": "1"}
            ),
        ),
    )
    assert [(c.job_id, c.name) for c in gh.failed_checks(SHA)] == [(2, "test"), (1, "lint")]


def test_the_run_of_a_job(rsps: responses.RequestsMock, gh: GitHub) -> None:
    job = example_response("actions/get-job-for-workflow-run")
    fake(rsps, "GET", "/actions/jobs/399444496", job)
    run = example_response("actions/get-workflow-run")
    fake(rsps, "GET", f"/actions/runs/{job['run_id']}", run)
    assert gh.get_run(gh.run_of_job(399444496))["id"] == run["id"]


def test_errors_name_the_permission(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(
        rsps,
        "POST",
        "/issues/comments/42/reactions",
        {
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com/rest",
        },
        status=403,
    )
    with pytest.raises(GitHubError, match="pull-requests: write"):
        gh.add_reaction(42, "eyes")
