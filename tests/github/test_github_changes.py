"""The files a pull request changes (``pulls/list-files``), against GitHub's payload shape (``responses``,
every request fired and checked against the REST description)."""

from __future__ import annotations

from typing import Any

import pytest
import responses
from fakegithub import API, BASE, REPO, SHA
from openapi_contract import check_response, url_pattern
from responses import matchers

from healer.demo.shapes import diff_entry
from healer.github import GitHub, GitHubError


def entry(path: str, status: str = "modified", **extra: Any) -> dict[str, Any]:
    return {**diff_entry(REPO, SHA, path, status, 3, 1, API, "https://github.com"), **extra}


def fake(rsps: responses.RequestsMock, body: Any, *, status: int = 200) -> None:
    check_response("GET", BASE + "/pulls/7/files", status, body)
    query = matchers.query_param_matcher({"per_page": "100", "page": "1"})
    rsps.add("GET", url_pattern(BASE + "/pulls/7/files"), json=body, status=status, match=(query,))


def test_one_page_of_files_is_one_request_and_a_rename_counts_under_both_names(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(
        rsps,
        [
            entry("src/app.py"),
            entry("docs/new.md", "renamed", previous_filename="docs/old.md"),
            entry("a.txt"),
        ],
    )
    changed = gh.changed_files(7)
    assert changed.paths == ("src/app.py", "docs/new.md", "docs/old.md", "a.txt")
    assert changed.complete and gh.request_count == 1


def test_a_full_page_may_have_more_after_it(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, [entry(f"src/m{n}.py") for n in range(100)])
    changed = gh.changed_files(7)
    assert len(changed.paths) == 100 and not changed.complete


def test_a_pull_request_github_does_not_find_is_an_error_that_says_what_was_asked(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    fake(rsps, {"message": "Not Found"}, status=404)
    with pytest.raises(GitHubError, match="list the files of pull request #7"):
        gh.changed_files(7)


@pytest.mark.parametrize(
    ("body", "match"),
    [({"message": "not a list"}, "malformed listing"), ([{"status": "modified"}], "a file without a name")],
)
def test_a_body_github_would_not_send_is_refused(gh: GitHub, body: Any, match: str) -> None:
    # outside the `rsps` fixture: these bodies break GitHub's description on purpose
    with responses.RequestsMock() as mock:
        mock.add("GET", url_pattern(BASE + "/pulls/7/files"), json=body)
        with pytest.raises(GitHubError, match=match):
            gh.changed_files(7)
