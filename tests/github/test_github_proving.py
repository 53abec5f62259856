"""Starting a fix branch's CI (``workflow_dispatch``) and marking a fix ready for review (GraphQL), against
GitHub's answers (``responses``)."""

from __future__ import annotations

import json

import pytest
import responses
from fakegithub import API, BASE, REPO, TOKEN
from openapi_contract import url_pattern
from responses import matchers

from healer.github import DispatchRefused, GitHub, GitHubError

NOT_DISPATCHABLE = {
    "message": "Workflow does not have 'workflow_dispatch' trigger",
    "documentation_url": "https://docs.github.com/rest/actions/workflows#create-a-workflow-dispatch-event",
    "status": "422",
}


def test_a_dispatch_names_the_workflow_file_and_the_branch(rsps: responses.RequestsMock, gh: GitHub) -> None:
    rsps.post(
        url_pattern(f"{BASE}/actions/workflows/ci.yml/dispatches"),
        status=204,
        match=[matchers.json_params_matcher({"ref": "ci-healer/12-abc1234"})],
    )

    gh.dispatch_workflow("ci.yml", "ci-healer/12-abc1234")

    assert gh.request_count == 1


def test_a_workflow_without_the_trigger_is_refused_as_such(rsps: responses.RequestsMock, gh: GitHub) -> None:
    rsps.post(url_pattern(f"{BASE}/actions/workflows/ci.yml/dispatches"), status=422, json=NOT_DISPATCHABLE)

    with pytest.raises(DispatchRefused) as refused:
        gh.dispatch_workflow("ci.yml", "ci-healer/12-abc1234")

    assert refused.value.status == 422 and "workflow_dispatch" in str(refused.value)
    assert gh.request_count == 1


def test_a_missing_actions_write_says_which_permission(rsps: responses.RequestsMock, gh: GitHub) -> None:
    rsps.post(
        url_pattern(f"{BASE}/actions/workflows/ci.yml/dispatches"),
        status=403,
        json={
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com",
        },
    )

    with pytest.raises(GitHubError) as failed:
        gh.dispatch_workflow("ci.yml", "ci-healer/12-abc1234")

    assert not isinstance(failed.value, DispatchRefused)
    assert "actions: write" in str(failed.value) and TOKEN not in str(failed.value)


def test_a_dispatch_is_not_sent_twice_after_a_server_error(rsps: responses.RequestsMock, gh: GitHub) -> None:
    # a 502 after the POST may have started the run: a second dispatch would run CI twice
    rsps.post(
        url_pattern(f"{BASE}/actions/workflows/ci.yml/dispatches"),
        status=502,
        json={"message": "Server Error"},
    )

    with pytest.raises(GitHubError):
        gh.dispatch_workflow("ci.yml", "ci-healer/12-abc1234")

    assert gh.request_count == 1


def test_ready_for_review_is_one_graphql_mutation(rsps: responses.RequestsMock, gh: GitHub) -> None:
    answer = {"data": {"markPullRequestReadyForReview": {"pullRequest": {"number": 13, "isDraft": False}}}}
    rsps.post(url_pattern(f"{API}/graphql"), json=answer)

    gh.mark_ready_for_review("PR_kwDOA1", 13)

    [call] = rsps.calls
    sent = json.loads(call.request.body)
    assert sent["variables"] == {"id": "PR_kwDOA1"} and "markPullRequestReadyForReview" in sent["query"]


def test_graphql_refuses_with_errors_in_a_200(rsps: responses.RequestsMock, gh: GitHub) -> None:
    refused = {
        "data": {"markPullRequestReadyForReview": None},
        "errors": [{"type": "FORBIDDEN", "message": "Resource not accessible by integration"}],
    }
    rsps.post(url_pattern(f"{API}/graphql"), json=refused)

    with pytest.raises(GitHubError) as failed:
        gh.mark_ready_for_review("PR_kwDOA1", 13)

    assert "ready for review" in str(failed.value) and TOKEN not in str(failed.value)


def test_graphql_lives_beside_the_rest_root_on_enterprise_server(rsps: responses.RequestsMock) -> None:
    ghes = GitHub(TOKEN, REPO, api_url="https://ghe.example.com/api/v3", sleep=lambda s: None)
    answer = {"data": {"markPullRequestReadyForReview": {"pullRequest": {"number": 13, "isDraft": False}}}}
    rsps.post(url_pattern("https://ghe.example.com/api/graphql"), json=answer)

    ghes.mark_ready_for_review("PR_kwDOA1", 13)
    ghes.close()
