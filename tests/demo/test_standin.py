"""The GitHub stand-in: GitHub's shapes (checked against the OpenAPI description), what it enforces, its
faults, its signed log URLs, and that PyGithub reads it as it reads GitHub."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import github
import jsonschema
import pytest
import requests
from openapi_contract import check_request, check_response

from healer.deliver.suggestions import suggest
from healer.demo import pullops
from healer.demo.agent import main as agent_main
from healer.demo.lint import unused_imports
from healer.demo.sample import BASE_FILES, LINT_FIXED_CALC, LINT_PR_FILES, job_log
from healer.demo.sandbox import Sandbox, git, parse_github_output
from healer.demo.standin import StandIn
from healer.demo.state import Pull, ReviewComment
from healer.github import GitHub, GitHubError

TOKEN = "ghs_standinTestToken0123456789"
AUTH = {"Authorization": f"token {TOKEN}"}
FIXTURES = Path(__file__).parent.parent / "fixtures" / "github"
SHA_A, SHA_F = "a" * 40, "f" * 40


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with StandIn(token=TOKEN) as server:
        yield server


@pytest.fixture
def seeded(standin: StandIn) -> dict[str, int]:
    """A repository with a same-repository PR, a fork PR, a failed run with two attempts, comments."""
    standin.add_repository("octo/widgets")
    standin.add_repository("eve/widgets", fork=True)
    standin.add_pull("octo/widgets", head_ref="feat", head_sha=SHA_A, labels=["bug"])
    standin.add_pull("octo/widgets", head_ref="feat", head_sha=SHA_F, head_repo="eve/widgets", author="eve")
    run = standin.add_run("octo/widgets", head_sha=SHA_A, head_branch="feat", pull_requests=[1])
    standin.add_job(run, "lint", log="first attempt\n")
    standin.add_run_attempt(run)
    job = standin.add_job(
        run,
        "lint",
        log="line\n" * 100,
        steps=[("Run ruff check .", "failure")],
        annotations=[{"path": "a.py", "line": 3, "level": "failure", "message": "F401", "title": "ruff"}],
    )
    for index in range(35):
        standin.add_comment("octo/widgets", 1, f"comment {index}", author="someone")
    return {"run": run.id, "job": job.id, "comment": standin.comments("octo/widgets", 1)[0].id}


def call(
    standin: StandIn, method: str, path: str, body: object = None, **kwargs: object
) -> requests.Response:
    headers = kwargs.pop("headers", AUTH)
    return requests.request(
        method,
        standin.api_url + path,
        json=body,
        headers=headers,
        allow_redirects=False,
        timeout=10,
        **kwargs,
    )


R = "/repos/octo/widgets"
OPERATIONS = [
    pytest.param("GET", R, None, 200, id="repos/get"),
    pytest.param("GET", R + "/pulls/1", None, 200, id="pulls/get"),
    pytest.param("GET", R + "/pulls/2", None, 200, id="pulls/get-fork"),
    pytest.param("GET", R + "/pulls?state=all&head=eve:feat&per_page=5", None, 200, id="pulls/list"),
    pytest.param(
        "POST",
        R + "/pulls",
        {"title": "t", "head": "fix", "base": "feat", "body": "b", "draft": True},
        201,
        id="pulls/create",
    ),
    pytest.param("PATCH", R + "/pulls/1", {"title": "new", "state": "closed"}, 200, id="pulls/update"),
    pytest.param("GET", R + "/pulls/1/files?per_page=100", None, 200, id="pulls/list-files"),
    pytest.param(
        "POST", R + "/pulls/1/reviews", {"body": "r", "event": "COMMENT"}, 200, id="pulls/create-review"
    ),
    pytest.param("GET", R + f"/commits/{SHA_A}/pulls", None, 200, id="commits-pulls"),
    pytest.param(
        "GET", R + f"/commits/{SHA_A}/check-runs?filter=latest", None, 200, id="checks/list-for-ref"
    ),
    pytest.param("GET", R + "/check-runs/{job}/annotations", None, 200, id="checks/list-annotations"),
    pytest.param("GET", R + "/actions/runs/{run}", None, 200, id="actions/get-workflow-run"),
    pytest.param("GET", R + "/actions/runs/{run}/jobs?filter=all", None, 200, id="actions/list-jobs"),
    pytest.param("GET", R + "/actions/runs/{run}/attempts/2/jobs", None, 200, id="actions/list-jobs-attempt"),
    pytest.param(
        "GET", R + "/actions/runs/{run}/attempts/3/jobs", None, 404, id="actions/list-jobs-no-attempt"
    ),
    pytest.param("GET", R + "/actions/jobs/{job}", None, 200, id="actions/get-job"),
    pytest.param("GET", R + "/actions/jobs/{job}/logs", None, 302, id="actions/download-job-logs"),
    pytest.param("POST", R + "/actions/runs/{run}/rerun-failed-jobs", None, 201, id="actions/rerun-failed"),
    pytest.param("POST", R + "/actions/jobs/{job}/rerun", None, 201, id="actions/rerun-job"),
    pytest.param("GET", R + "/issues/1/comments?per_page=10&page=2", None, 200, id="issues/list-comments"),
    pytest.param("POST", R + "/issues/1/comments", {"body": "hello"}, 201, id="issues/create-comment"),
    pytest.param(
        "PATCH", R + "/issues/comments/{comment}", {"body": "edited"}, 200, id="issues/update-comment"
    ),
    pytest.param("DELETE", R + "/issues/comments/{comment}", None, 204, id="issues/delete-comment"),
    pytest.param("POST", R + "/issues/1/labels", {"labels": ["ci-healer"]}, 200, id="issues/add-labels"),
    pytest.param(
        "GET", R + "/collaborators/eve/permission", None, 200, id="repos/get-collaborator-permission"
    ),
    pytest.param(
        "GET", R + "/collaborators/dependabot[bot]/permission", None, 404, id="permission-of-an-apps-bot"
    ),
    pytest.param("GET", R + "/issues/1", None, 200, id="issues/get-of-a-pull-request"),
    pytest.param("GET", R + "/issues/99", None, 404, id="issues/get-not-found"),
    pytest.param("GET", R + "/pulls/99", None, 404, id="not-found"),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), OPERATIONS)
def test_every_operation_answers_with_githubs_shape(
    standin: StandIn, seeded: dict[str, int], method: str, path: str, body: object, status: int
) -> None:
    url = standin.api_url + path.format(**seeded)
    check_request(method, url, body)
    response = call(standin, method, path.format(**seeded), body)
    assert response.status_code == status, response.text
    check_response(method, url, status, response.json() if response.content and status != 302 else None)
    assert response.headers["x-ratelimit-limit"] == "1000"


def test_pygithub_reads_the_stand_in_as_it_reads_github(standin: StandIn, seeded: dict[str, int]) -> None:
    client = github.Github(
        auth=github.Auth.Token(TOKEN),
        base_url=standin.api_url,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )
    repo = client.get_repo("octo/widgets")
    assert (repo.full_name, repo.default_branch) == ("octo/widgets", "main")
    fork_pr = repo.get_pull(2)
    assert (fork_pr.head.repo.full_name, fork_pr.head.sha, fork_pr.base.ref) == ("eve/widgets", SHA_F, "main")
    assert [label.name for label in repo.get_pull(1).labels] == ["bug"]
    # 35 comments arrive over two pages, following the Link header
    assert len(list(repo.get_pull(1).get_issue_comments())) == 35
    run = repo.get_workflow_run(seeded["run"])
    assert (run.conclusion, run.run_attempt) == ("failure", 2)
    assert [(job.name, job.conclusion) for job in run.jobs()] == [("lint", "failure")]
    assert [p.number for p in repo.get_pulls(state="open", head="eve:feat")] == [2]
    created = repo.create_pull(title="Fix lint", body="body", head="fix", base="feat", draft=True)
    assert (created.number, created.draft, created.user.login) == (3, True, "github-actions[bot]")
    comment = repo.get_pull(1).create_issue_comment("a note")
    comment.edit("an edited note")
    assert standin.comments("octo/widgets", 1)[-1].body == "an edited note"


def test_a_private_repositorys_non_collaborator_has_no_permission_to_read(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    standin.set_permission("octo/widgets", "outsider", "none")
    assert call(standin, "GET", R + "/collaborators/outsider/permission").status_code == 404
    answer = call(standin, "GET", R + "/collaborators/someone/permission").json()  # a public repository
    assert (answer["permission"], answer["role_name"]) == ("read", "read")


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        pytest.param({}, "Requires authentication", id="no-token"),
        pytest.param({"Authorization": "token wrong"}, "Bad credentials", id="wrong-token"),
        pytest.param({"Authorization": f"basic {TOKEN}"}, "Bad credentials", id="wrong-scheme"),
    ],
)
def test_api_paths_need_the_token(
    standin: StandIn, seeded: dict[str, int], headers: dict[str, str], message: str
) -> None:
    response = call(standin, "GET", R + "/pulls/1", headers=headers)
    assert (response.status_code, response.json()["message"]) == (401, message)
    check_response("GET", standin.api_url + R + "/pulls/1", 401, response.json())


def test_a_bearer_token_is_accepted(standin: StandIn, seeded: dict[str, int]) -> None:
    assert call(standin, "GET", R, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_a_second_pull_request_from_the_same_head_into_the_same_base_is_refused(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    body = {"title": "fix", "head": "octo:fix", "base": "feat"}
    assert call(standin, "POST", R + "/pulls", body).status_code == 201
    again = call(standin, "POST", R + "/pulls", body)
    assert again.status_code == 422
    assert again.json()["errors"][0]["message"] == "A pull request already exists for octo:fix."
    check_response("POST", standin.api_url + R + "/pulls", 422, again.json())
    # a closed one does not count
    call(standin, "PATCH", R + "/pulls/3", {"state": "closed"})
    assert call(standin, "POST", R + "/pulls", body).status_code == 201


def test_pulls_filter_by_head_owner_and_branch(standin: StandIn, seeded: dict[str, int]) -> None:
    def numbers(query: str) -> list[int]:
        return [pr["number"] for pr in call(standin, "GET", R + "/pulls?" + query).json()]

    assert numbers("head=eve:feat") == [2]
    assert numbers("head=octo:feat") == [1]
    assert numbers("head=octo:other") == []
    assert numbers("state=closed") == []


def test_commit_pulls_are_empty_for_a_forks_commit(standin: StandIn, seeded: dict[str, int]) -> None:
    assert [pr["number"] for pr in call(standin, "GET", R + f"/commits/{SHA_A}/pulls").json()] == [1]
    assert call(standin, "GET", R + f"/commits/{SHA_F}/pulls").json() == []


def test_comments_paginate_with_link_headers(standin: StandIn, seeded: dict[str, int]) -> None:
    response = call(standin, "GET", R + "/issues/1/comments?per_page=10&page=2")
    assert [c["body"] for c in response.json()] == [f"comment {i}" for i in range(10, 20)]
    links = requests.utils.parse_header_links(response.headers["Link"])
    assert {link["rel"]: link["url"].split("?", 1)[1] for link in links} == {
        "next": "per_page=10&page=3",
        "last": "per_page=10&page=4",
        "first": "per_page=10&page=1",
        "prev": "per_page=10&page=1",
    }
    last = call(standin, "GET", R + "/issues/1/comments?per_page=10&page=4")
    assert len(last.json()) == 5 and 'rel="next"' not in last.headers["Link"]


def test_comment_bodies_are_capped_and_authored_by_the_token_owner(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    too_long = call(standin, "POST", R + "/issues/1/comments", {"body": "x" * 65_537})
    assert too_long.status_code == 422
    assert call(standin, "POST", R + "/issues/1/comments", {"body": "ok"}).json()["user"]["login"] == (
        "github-actions[bot]"
    )
    standin.comment_author = "mallory"
    assert (
        call(standin, "POST", R + "/issues/1/comments", {"body": "ok"}).json()["user"]["login"] == "mallory"
    )


def test_job_logs_redirect_to_a_signed_url_that_needs_no_token(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    redirect = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs")
    assert redirect.status_code == 302
    location = redirect.headers["Location"]
    assert location.startswith(standin.server_url + "/_signed/logs/") and "sig=" in location
    tail = requests.get(location, headers={"Range": "bytes=490-"}, timeout=10)
    assert (tail.status_code, tail.content) == (206, b"line\nline\n")
    assert tail.headers["Content-Range"] == "bytes 490-499/500"
    recorded = standin.requests[-1]
    assert (recorded.operation, recorded.authorization_sent, recorded.bytes_sent) == ("signed-log", False, 10)


@pytest.mark.parametrize(
    ("range_header", "status", "content_range", "length"),
    [
        pytest.param("bytes=0-0", 206, "bytes 0-0/500", 1, id="first-byte-gives-the-size"),
        pytest.param("bytes=100-199", 206, "bytes 100-199/500", 100, id="start-end"),
        pytest.param("bytes=400-9999", 206, "bytes 400-499/500", 100, id="end-past-the-blob"),
        pytest.param("bytes=500-", 416, "bytes */500", 0, id="start-past-the-blob"),
        pytest.param("bytes=-10", 200, None, 500, id="suffix-form-unsupported"),
        pytest.param("bytes=0-1,5-6", 200, None, 500, id="several-ranges"),
    ],
)
def test_signed_log_ranges_are_answered_as_azure_blob_storage_does(
    standin: StandIn,
    seeded: dict[str, int],
    range_header: str,
    status: int,
    content_range: str | None,
    length: int,
) -> None:
    # Azure Blob Storage accepts `bytes=<start>-` and `bytes=<start>-<end>` only; the suffix form is not
    # supported and the whole blob comes back ("Specifying the range header for Blob service operations",
    # https://learn.microsoft.com/rest/api/storageservices/specifying-the-range-header-for-blob-service-operations)
    location = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs").headers["Location"]
    answer = requests.get(location, headers={"Range": range_header}, timeout=10)
    assert (answer.status_code, answer.headers.get("Content-Range"), len(answer.content)) == (
        status,
        content_range,
        length,
    )


def test_without_range_support_the_whole_log_comes_back(standin: StandIn, seeded: dict[str, int]) -> None:
    standin.range_support = False
    location = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs").headers["Location"]
    whole = requests.get(location, headers={"Range": "bytes=490-"}, timeout=10)
    assert (whole.status_code, len(whole.content)) == (200, 500)


def test_signed_log_urls_can_be_made_to_expire_for_a_number_of_requests(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    location = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs").headers["Location"]
    standin.expire_signed_logs = 1
    assert requests.get(location, timeout=10).status_code == 403
    assert requests.get(location, timeout=10).status_code == 200


def test_signed_log_urls_expire_and_cannot_be_forged(standin: StandIn, seeded: dict[str, int]) -> None:
    standin.log_url_ttl = -1
    expired = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs").headers["Location"]
    assert requests.get(expired, timeout=10).status_code == 403
    standin.log_url_ttl = 60
    good = call(standin, "GET", R + f"/actions/jobs/{seeded['job']}/logs").headers["Location"]
    assert requests.get(good.replace("sig=", "sig=0"), timeout=10).status_code == 403
    assert requests.get(good, timeout=10).status_code == 200


def test_faults_answer_for_the_given_number_of_calls(standin: StandIn, seeded: dict[str, int]) -> None:
    path = R + f"/actions/runs/{seeded['run']}/attempts/2/jobs"
    standin.fail("actions/list-jobs-for-workflow-run-attempt", 403, times=2)
    statuses = [call(standin, "GET", path).status_code for _ in range(3)]
    assert statuses == [403, 403, 200]
    standin.fail("*", 502, times=1)
    assert call(standin, "GET", R).status_code == 502
    assert call(standin, "GET", R).status_code == 200


def test_a_rate_limit_says_when_to_retry(standin: StandIn, seeded: dict[str, int]) -> None:
    standin.rate_limit("issues/create-comment", retry_after=7)
    limited = call(standin, "POST", R + "/issues/1/comments", {"body": "x"})
    assert (limited.status_code, limited.headers["retry-after"]) == (403, "7")
    assert "secondary rate limit" in limited.json()["message"]
    check_response("POST", standin.api_url + R + "/issues/1/comments", 403, limited.json())


def test_requests_are_recorded_without_the_token(standin: StandIn, seeded: dict[str, int]) -> None:
    call(standin, "POST", R + "/issues/1/comments", {"body": "hello"})
    recorded = standin.requests[-1]
    assert (recorded.method, recorded.path, recorded.body, recorded.status) == (
        "POST", R + "/issues/1/comments", {"body": "hello"}, 201,
    )  # fmt: skip
    assert recorded.operation == "issues/create-comment" and recorded.authorization_sent
    assert recorded.header("Authorization") == "<redacted>"
    assert TOKEN not in repr(standin.requests)
    assert standin.writes() == [recorded]


def test_an_enterprise_server_prefix_is_honoured() -> None:
    with StandIn(token=TOKEN, api_prefix="/api/v3") as server:
        server.add_repository("octo/widgets", default_branch="trunk")
        assert server.api_url.endswith("/api/v3")
        assert requests.get(server.server_url + R, headers=AUTH, timeout=10).status_code == 404
        client = github.Github(auth=github.Auth.Token(TOKEN), base_url=server.api_url, retry=None)
        assert client.get_repo("octo/widgets").default_branch == "trunk"


# -- the sandbox: a real bare repository behind the stand-in ---------------------------------------------


@pytest.fixture
def sandbox(tmp_path: Path, standin: StandIn) -> Sandbox:
    return Sandbox.create(tmp_path, standin, files=BASE_FILES)


def test_contents_come_from_the_repository(standin: StandIn, sandbox: Sandbox) -> None:
    got = call(standin, "GET", "/repos/octo-org/widgets/contents/widgets/calc.py?ref=main")
    assert got.status_code == 200
    check_response(
        "GET", standin.api_url + "/repos/octo-org/widgets/contents/widgets/calc.py", 200, got.json()
    )
    assert base64.b64decode(got.json()["content"]).decode() == BASE_FILES["widgets/calc.py"]
    assert call(standin, "GET", "/repos/octo-org/widgets/contents/.github/ci-healer.yml").status_code == 404
    raw = call(
        standin,
        "GET",
        "/repos/octo-org/widgets/contents/widgets/calc.py",
        headers={**AUTH, "Accept": "application/vnd.github.raw+json"},
    )
    assert raw.text == BASE_FILES["widgets/calc.py"]


def test_a_fix_pull_request_must_name_a_pushed_branch_with_commits(
    standin: StandIn, sandbox: Sandbox
) -> None:
    sha = sandbox.commit("feature", LINT_PR_FILES, "Add double()")
    pulls = "/repos/octo-org/widgets/pulls"
    missing = call(standin, "POST", pulls, {"title": "t", "head": "nope", "base": "main"})
    assert (missing.status_code, missing.json()["errors"][0]["field"]) == (422, "head")
    empty = call(standin, "POST", pulls, {"title": "t", "head": "feature", "base": "feature"})
    assert empty.status_code == 422 and "No commits between" in empty.json()["errors"][0]["message"]
    created = call(standin, "POST", pulls, {"title": "t", "head": "feature", "base": "main"})
    assert (created.status_code, created.json()["head"]["sha"]) == (201, sha)


def test_a_fork_pull_request_keeps_the_forks_commits_out_of_the_workspace(sandbox: Sandbox) -> None:
    sandbox.add_fork("eve/widgets")
    sha = sandbox.commit(
        "patch-1", {"widgets/evil.py": "print('x')\n"}, "evil", remote="eve/widgets", base="origin/main"
    )
    pull = sandbox.open_pull("patch-1", sha, head_repo="eve/widgets")
    assert pull.is_fork
    # GitHub keeps refs/pull/N/head in the base repository; the workflow's checkout never fetched it
    assert sandbox.origin_refs()[f"refs/pull/{pull.number}/head"] == sha
    assert not sandbox.has_object(sandbox.workspace, sha)


def test_the_event_payload_validates_against_githubs_webhook_schema(
    standin: StandIn, sandbox: Sandbox
) -> None:
    sha = sandbox.commit("feature", LINT_PR_FILES, "Add double()")
    pull = sandbox.open_pull("feature", sha)
    run = sandbox.add_run(pull, [("lint", "failure", job_log("lint", "ruff check .", ["x"]))])
    payload = json.loads(sandbox.write_event(run).read_text())
    schemas = json.loads((FIXTURES / "webhook-schemas.json").read_text())
    schema = {"definitions": schemas["definitions"], "$ref": "#/definitions/workflow_run$completed"}
    # GitHub's schema needs no checking of its own (that alone takes a second): validate the payload only
    jsonschema.Draft7Validator(schema).validate(payload)
    example = json.loads((FIXTURES / "webhooks" / "workflow_run.completed.0.json").read_text())
    # the same field set as GitHub's own example payload (plus what newer payloads carry)
    assert set(example["workflow_run"]) <= set(payload["workflow_run"])
    assert set(example["repository"]) <= set(payload["repository"])
    assert payload["workflow_run"]["pull_requests"][0]["number"] == pull.number
    assert payload["workflow_run"]["head_sha"] == sha


def test_the_sample_lint_checker_and_agent_fix_the_sample_failure(tmp_path: Path, monkeypatch) -> None:
    calc = tmp_path / "widgets" / "calc.py"
    calc.parent.mkdir()
    calc.write_text(LINT_PR_FILES["widgets/calc.py"])
    findings = list(unused_imports(calc.read_text(), "widgets/calc.py"))
    assert findings == ["widgets/calc.py:3:1: F401 'os' imported but unused"]
    frame = tmp_path / "frame.md"
    frame.write_text("````text\n" + job_log("lint", "flake8 .", findings) + "````\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HEALER_FRAME", str(frame))
    assert agent_main() == 0
    assert calc.read_text() == LINT_FIXED_CALC
    assert list(unused_imports(calc.read_text(), "widgets/calc.py")) == []


def test_the_sample_agent_never_edits_outside_its_checkout(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("import os\n")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    frame = "../outside.py:1:1: F401 'os' imported but unused\n"
    done = subprocess.run(
        [sys.executable, "-m", "healer.demo.agent"],
        cwd=checkout,
        input=frame,
        text=True,
        capture_output=True,
        env={**os.environ, "HEALER_FRAME": ""},
        check=True,
    )
    assert "skipped" in done.stdout and outside.read_text() == "import os\n"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("decision=healed\nattempt=1\n", {"decision": "healed", "attempt": "1"}, id="simple"),
        pytest.param(
            "frame-path<<EOF_1\n/tmp/a\nb=c\nEOF_1\ncategory=lint\n",
            {"frame-path": "/tmp/a\nb=c", "category": "lint"},
            id="delimited",
        ),
    ],
)
def test_github_output_is_parsed(text: str, expected: dict[str, str]) -> None:
    assert parse_github_output(text) == expected


# -- reviews: line comments only on the pull request's diff --------------------------------------------------

LONG = "".join(f"line {n}\n" for n in range(1, 31))


@pytest.fixture
def fork_pull(sandbox: Sandbox) -> Pull:
    """A fork's PR that adds an unused import to calc.py and changes lines 2 and 28 of a 30-line file (two
    hunks: lines 1-5 and 25-30 on the RIGHT side)."""
    sandbox.commit("main", {"widgets/long.py": LONG}, "a long file")
    sandbox.add_fork("eve/widgets")
    head = LONG.replace("line 2\n", "line two\n").replace("line 28\n", "line twenty-eight\n")
    sha = sandbox.commit(
        "patch-1",
        {"widgets/long.py": head, **LINT_PR_FILES},
        "patch",
        remote="eve/widgets",
        base="origin/main",
    )
    return sandbox.open_pull("patch-1", sha, head_repo="eve/widgets", author="eve")


def test_a_forks_suggested_changes_on_its_diff_are_accepted_and_recorded(
    standin: StandIn, sandbox: Sandbox, fork_pull: Pull
) -> None:
    # the fix, made as the heal stage makes it: staged on the PR's head, diffed against it
    (sandbox.seed / "widgets" / "calc.py").write_text(LINT_FIXED_CALC)
    fixed_long = (sandbox.seed / "widgets" / "long.py").read_text()
    fixed_long = fixed_long.replace("line twenty-eight", "line 28, fixed").replace("line 15\n", "line xv\n")
    (sandbox.seed / "widgets" / "long.py").write_text(fixed_long)
    git(sandbox.seed, "add", "--all")
    fix_diff = git(sandbox.seed, "diff", "--cached", "--no-renames")
    git(sandbox.seed, "reset", "--quiet", "--hard")
    merge_base = git(sandbox.seed, "merge-base", "origin/main", fork_pull.head_sha).strip()
    pr_diff = git(sandbox.seed, "diff", "-U3", "--no-renames", merge_base, fork_pull.head_sha)
    changes = suggest(fix_diff, pr_diff)
    assert [(s.path, s.start_line, s.line) for s in changes.suggestions] == [
        ("widgets/calc.py", 3, 4),
        ("widgets/long.py", None, 28),
    ]
    assert [(item.path, item.line) for item in changes.left_out] == [("widgets/long.py", 15)]
    client = GitHub(TOKEN, sandbox.repo, api_url=standin.api_url)
    try:
        review_id = client.create_review(
            fork_pull.number,
            commit_id=fork_pull.head_sha,
            body="ci-healer: a fix as suggested changes",
            comments=changes.suggestions,
        )
    finally:
        client.close()
    (review,) = standin.reviews
    assert review.id == review_id and review.event == "COMMENT" and review.commit_id == fork_pull.head_sha
    assert review.comments == (
        ReviewComment("widgets/calc.py", 4, "```suggestion\n```", "RIGHT", 3, "RIGHT"),
        ReviewComment("widgets/long.py", 28, "```suggestion\nline 28, fixed\n```"),
    )
    (sent,) = standin.writes()
    check_request(sent.method, sent.url, sent.body)


def test_a_forks_changed_files_are_listed_from_its_diff_as_github_lists_them(
    standin: StandIn, sandbox: Sandbox, fork_pull: Pull
) -> None:
    client = GitHub(TOKEN, sandbox.repo, api_url=standin.api_url)
    try:
        changed = client.changed_files(fork_pull.number)
    finally:
        client.close()
    assert set(changed.paths) == {"widgets/long.py", *LINT_PR_FILES} and changed.complete
    url = standin.api_url + f"/repos/{sandbox.repo}/pulls/{fork_pull.number}/files"
    answer = call(standin, "GET", f"/repos/{sandbox.repo}/pulls/{fork_pull.number}/files?per_page=1", None)
    check_response("GET", url, 200, answer.json())
    assert len(answer.json()) == 1 and 'rel="next"' in answer.headers["link"]
    assert answer.json()[0]["status"] == "modified" and answer.json()[0]["changes"] > 0


def test_the_files_listing_stops_where_githubs_does(
    standin: StandIn, sandbox: Sandbox, fork_pull: Pull, monkeypatch: pytest.MonkeyPatch
) -> None:
    # GitHub lists at most 3,000 files of a pull request; here the bound is 1 of the fork pull's 2 files
    monkeypatch.setattr(pullops, "MAX_LISTED_FILES", 1)
    answer = call(standin, "GET", f"/repos/{sandbox.repo}/pulls/{fork_pull.number}/files?per_page=100", None)
    assert len({"widgets/long.py", *LINT_PR_FILES}) == 2
    assert [f["filename"] for f in answer.json()] == ["widgets/calc.py"] and "link" not in answer.headers


def test_a_review_of_a_forks_newer_commit_reads_it_from_the_fork(
    standin: StandIn, sandbox: Sandbox, fork_pull: Pull
) -> None:
    # a later push to the fork moves the base repository's refs/pull/N/head, as on GitHub
    sha = sandbox.push_to_pull(fork_pull, {"widgets/extra.py": "x = 1\ny = 2\n"}, "more")
    assert git(sandbox.origin, "rev-parse", f"refs/pull/{fork_pull.number}/head").strip() == sha
    comment = {"path": "widgets/extra.py", "line": 2, "start_line": 1, "side": "RIGHT", "body": "b"}
    answer = call(standin, "POST", R2 + f"/pulls/{fork_pull.number}/reviews", _review(sha, comment))
    assert answer.status_code == 200, answer.text
    assert standin.reviews[-1].comments[0].start_line == 1


R2 = "/repos/octo-org/widgets"


def _review(commit_id: str, *comments: dict[str, object]) -> dict[str, object]:
    return {"commit_id": commit_id, "body": "ci-healer's fix", "event": "COMMENT", "comments": list(comments)}


OFF = "Pull request review thread line must be part of the diff"
BLANK = "Pull request review thread diff hunk can't be blank"
SAME = "Pull request review thread start line must be part of the same hunk as the line."


@pytest.mark.parametrize(
    ("comment", "said"),
    [
        pytest.param({"line": 15}, f"{OFF} and {BLANK}", id="a line between the hunks"),
        pytest.param({"line": 31}, f"{OFF} and {BLANK}", id="a line past the end"),
        pytest.param({"start_line": 3, "line": 27}, SAME, id="a range across two hunks"),
        pytest.param(
            {"start_line": 13, "line": 20}, f"{OFF}, {SAME}, and {BLANK}", id="a range off the diff"
        ),
        pytest.param(
            {"start_line": 4, "line": 3},
            "Pull request review thread start line must precede the end line.",
            id="start line after the line",
        ),
        pytest.param(
            {"start_line": 3, "line": 3},
            "Pull request review thread start line must precede the end line.",
            id="start line equal to the line",
        ),
        pytest.param({"line": 15, "side": "LEFT"}, f"{OFF} and {BLANK}", id="the left side off the diff"),
        pytest.param(
            {"path": "README.md", "line": 1}, "Path could not be resolved", id="a path off the diff"
        ),
    ],
)
def test_a_review_comment_off_the_diff_is_refused_as_github_refuses_it(
    standin: StandIn, fork_pull: Pull, comment: dict[str, object], said: str
) -> None:
    good = {"path": "widgets/long.py", "line": 2, "side": "RIGHT", "body": "fine"}
    bad = {"path": "widgets/long.py", "side": "RIGHT", "body": "```suggestion\nx\n```", **comment}
    url = R2 + f"/pulls/{fork_pull.number}/reviews"
    answer = call(standin, "POST", url, _review(fork_pull.head_sha, good, bad))
    assert answer.status_code == 422
    check_response("POST", standin.api_url + url, 422, answer.json())
    assert answer.json()["message"] == "Unprocessable Entity"
    assert answer.json()["errors"] == [said]
    assert standin.reviews == []  # all or nothing: the good comment was not posted either


def test_the_client_words_the_refusal_for_a_person(
    standin: StandIn, sandbox: Sandbox, fork_pull: Pull
) -> None:
    client = GitHub(TOKEN, sandbox.repo, api_url=standin.api_url)
    off = ReviewComment("widgets/long.py", 15, "```suggestion\nx\n```")
    try:
        with pytest.raises(GitHubError, match="not on the diff GitHub shows for pull request #1"):
            client.create_review(fork_pull.number, commit_id=fork_pull.head_sha, body="b", comments=[off])
    finally:
        client.close()


def test_a_review_is_requested_from_collaborators_only_as_github_does(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    gh = GitHub(TOKEN, "octo/widgets", api_url=standin.api_url)
    standin.set_permission("octo/widgets", "hubot", "write")
    gh.request_reviewers(1, ["hubot"])
    with pytest.raises(GitHubError) as stranger:
        gh.request_reviewers(1, ["stranger"])
    with pytest.raises(GitHubError) as author:
        gh.request_reviewers(1, ["mona"])  # the pull request's own author
    assert (stranger.value.status, author.value.status) == (422, 422)
    assert "only be requested from collaborators" in str(stranger.value)
    assert "cannot be requested from pull request author" in str(author.value)
    assert standin.pulls("octo/widgets")[0].requested_reviewers == ["hubot"]
    for request in standin.requests:
        check_response(request.method, request.url, request.status, request.response)


def test_what_github_would_notify_tells_created_texts_from_edits(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    from healer.demo.notifications import heard, texts

    gh = GitHub(TOKEN, "octo/widgets", api_url=standin.api_url)
    before = len(standin.requests)
    created = gh.create_comment(1, "<!-- ci-healer:v1 {} -->\n\n:wrench: fixing `lint`, cc @octo/team `@not`")
    gh.update_comment(created.id, "<!-- ci-healer:v1 {} -->\n\n:wrench: done, cc @hubot")
    said = texts(standin.requests[before:])
    assert [(t.kind, t.number, t.first_line, t.notifies) for t in said] == [
        ("comment", 1, ":wrench: fixing `lint`, cc @octo/team `@not`", True),
        ("edit", 1, ":wrench: done, cc @hubot", False),  # a mention added by an edit notifies nobody
    ]
    assert [t.mentions for t in heard(standin.requests[before:])] == [("octo/team",)]


def test_a_rerun_starts_the_runs_next_attempt_at_once_as_github_does(
    standin: StandIn, seeded: dict[str, int]
) -> None:
    path = "/repos/octo/widgets/actions/runs/{run}"
    before = call(standin, "GET", path.format(**seeded)).json()
    assert (before["run_attempt"], before["status"]) == (2, "completed")

    assert call(standin, "POST", "/repos/octo/widgets/actions/jobs/{job}/rerun".format(**seeded)).ok
    queued = call(standin, "GET", path.format(**seeded)).json()
    assert (queued["run_attempt"], queued["status"], queued["conclusion"]) == (3, "queued", None)
    # a second request while it is queued starts no other attempt
    call(standin, "POST", "/repos/octo/widgets/actions/runs/{run}/rerun-failed-jobs".format(**seeded))
    assert call(standin, "GET", path.format(**seeded)).json()["run_attempt"] == 3

    # the attempt the re-run started is the one that completes
    run = standin.runs[seeded["run"]]
    standin.add_run_attempt(run, conclusion="success")
    done = call(standin, "GET", path.format(**seeded)).json()
    assert (done["run_attempt"], done["status"], done["conclusion"]) == (3, "completed", "success")
