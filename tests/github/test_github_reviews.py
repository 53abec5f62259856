"""The client's review of suggested changes (a fork's fix), against GitHub's payloads (``responses``)."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from fakegithub import BASE, REPO, SHA, TOKEN
from openapi_contract import check_response, example_response, url_pattern
from responses import matchers

from healer.deliver.suggestions import Suggestion
from healer.github import GitHub, GitHubError

DOCS = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"


def fake(
    rsps: responses.RequestsMock,
    path: str,
    body: Any,
    *,
    status: int = 200,
    match: tuple[Any, ...] = (),
) -> None:
    url = BASE + path
    check_response("POST", url, status, body)
    rsps.add("POST", url_pattern(url), json=body, status=status, match=match)


ONE = Suggestion("widgets/calc.py", None, 12, "```suggestion\n    return 2 * a\n```")
RANGE = Suggestion("widgets/calc.py", 3, 4, "````suggestion\n````")


def test_a_review_carries_one_comment_per_suggestion_on_the_right_side(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    expected = {
        "commit_id": SHA,
        "body": "ci-healer's fix",
        "event": "COMMENT",
        "comments": [
            {"path": "widgets/calc.py", "line": 12, "side": "RIGHT", "body": ONE.body},
            {
                "path": "widgets/calc.py",
                "line": 4,
                "side": "RIGHT",
                "start_line": 3,
                "start_side": "RIGHT",
                "body": RANGE.body,
            },
        ],
    }
    fake(
        rsps,
        "/pulls/12/reviews",
        example_response("pulls/create-review"),
        match=(matchers.json_params_matcher(expected),),
    )
    assert gh.create_review(12, commit_id=SHA, body="ci-healer's fix", comments=[ONE, RANGE]) == 80
    assert gh.request_count == 1


def test_a_start_line_equal_to_the_line_is_not_sent(rsps: responses.RequestsMock, gh: GitHub) -> None:
    # GitHub: "Pull request review thread start line must precede the end line."
    same = Suggestion("a.py", 7, 7, "```suggestion\nx\n```")
    expected = {
        "commit_id": SHA,
        "body": "b",
        "event": "COMMENT",
        "comments": [{"path": "a.py", "line": 7, "side": "RIGHT", "body": same.body}],
    }
    fake(
        rsps,
        "/pulls/12/reviews",
        example_response("pulls/create-review"),
        match=(matchers.json_params_matcher(expected),),
    )
    gh.create_review(12, commit_id=SHA, body="b", comments=[same])


@pytest.mark.parametrize(
    "said",
    [
        pytest.param(
            "Pull request review thread line must be part of the diff and Pull request review thread diff "
            "hunk can't be blank",
            id="line off the diff",
        ),
        pytest.param(
            "Pull request review thread line must be part of the diff, Pull request review thread start line "
            "must be part of the same hunk as the line., and Pull request review thread diff hunk can't be "
            "blank",
            id="range across hunks",
        ),
        pytest.param("Path could not be resolved", id="path not in the diff"),
    ],
)
def test_a_comment_off_the_diff_is_a_refusal_a_person_can_act_on(
    rsps: responses.RequestsMock, gh: GitHub, said: str
) -> None:
    # GitHub's answer, as reported by its users (parkerbxyz/suggest-changes#28, warpdotdev/oz-for-oss#310)
    answer = {"message": "Unprocessable Entity", "errors": [said], "documentation_url": DOCS, "status": "422"}
    fake(rsps, "/pulls/12/reviews", answer, status=422)
    with pytest.raises(GitHubError) as caught:
        gh.create_review(12, commit_id=SHA, body="b", comments=[ONE])
    text = str(caught.value)
    assert caught.value.status == 422
    assert said in text
    assert "not on the diff GitHub shows for pull request #12 at 6dcb09b5b578" in text
    assert "moved on" in text and "the patch comment still holds the whole fix" in text
    assert TOKEN not in text
    assert gh.request_count == 1  # a refusal is not retried


def test_another_refusal_keeps_githubs_words(rsps: responses.RequestsMock, gh: GitHub) -> None:
    answer = {"message": "Resource not accessible by integration", "documentation_url": DOCS}
    fake(rsps, "/pulls/12/reviews", answer, status=403)
    with pytest.raises(GitHubError, match="lacks the `pull-requests: write` permission"):
        gh.create_review(12, commit_id=SHA, body="b", comments=[ONE])


def test_a_review_is_not_posted_twice_after_a_5xx(rsps: responses.RequestsMock, gh: GitHub) -> None:
    rsps.add("POST", url_pattern(BASE + "/pulls/12/reviews"), json={"message": "Server Error"}, status=502)
    with pytest.raises(GitHubError):
        gh.create_review(12, commit_id=SHA, body="b", comments=[ONE])
    assert gh.request_count == 1


def test_a_comment_too_long_is_refused_before_sending(gh: GitHub) -> None:
    long = Suggestion("a.py", None, 1, "```suggestion\n" + "x" * 70_000 + "\n```")
    with pytest.raises(GitHubError, match="review comment on a.py is 70,018 characters"):
        gh.create_review(12, commit_id=SHA, body="b", comments=[long])
    assert gh.request_count == 0


# -- review requests: the fix pull request's news, as a notification -----------------------------------------


def test_a_review_request_names_the_reviewer(rsps: responses.RequestsMock, gh: GitHub) -> None:
    answer = example_response("pulls/list")[0]
    fake(rsps, "/pulls/1348/requested_reviewers", answer, status=201,
         match=(matchers.json_params_matcher({"reviewers": ["octocat"]}),))  # fmt: skip
    gh.request_reviewers(1348, ["octocat"])
    assert gh.request_count == 1


def test_a_review_request_github_refuses_is_a_422_the_caller_can_tell(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    words = (
        "Reviews may only be requested from collaborators. One or more of the users or teams you specified "
        f"is not a collaborator of the {REPO} repository."
    )
    refusal = {"message": words, "documentation_url": "https://docs.github.com/rest/pulls/review-requests"}
    fake(rsps, "/pulls/1348/requested_reviewers", refusal, status=422)
    with pytest.raises(GitHubError) as caught:
        gh.request_reviewers(1348, ["stranger"])
    assert caught.value.status == 422 and "only be requested from collaborators" in str(caught.value)
    assert TOKEN not in str(caught.value)
