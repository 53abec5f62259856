"""The stand-in answers ``workflow_dispatch`` and GraphQL's ready for review as GitHub does, unkind answers
included: 404 for a workflow the default branch lacks, 422 for a missing ref or trigger, 403 for a read-only
token, and GraphQL's refusals as ``errors`` in a 200."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from openapi_contract import check_request, check_response

from healer.demo.reposhapes import node_id
from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox
from healer.demo.standin import StandIn

TOKEN = "ghs_standinTestToken0123456789"
READ = "ghs_readOnlyToken0123456789"
REPO = "octo/widgets"
DISPATCHABLE = "name: Tests\non:\n  pull_request:\n  workflow_dispatch:\njobs: {}\n"


@pytest.fixture
def box(tmp_path: Path) -> Iterator[Sandbox]:
    with StandIn(token=TOKEN) as standin:
        standin.read_tokens = {READ}  # type: ignore[attr-defined]
        sandbox = Sandbox.create(tmp_path / "gh", standin, repo=REPO, files=BASE_FILES)
        sandbox.commit("main", {".github/workflows/tests.yml": DISPATCHABLE}, "tests workflow")
        sandbox.commit("fix", {"README.md": "x\n"}, "a branch")
        yield sandbox


def dispatch(box: Sandbox, workflow: str, body: object, token: str = TOKEN) -> requests.Response:
    url = f"{box.standin.api_url}/repos/{REPO}/actions/workflows/{workflow}/dispatches"
    answer = requests.post(url, json=body, headers={"Authorization": f"token {token}"}, timeout=10)
    if isinstance(body, dict) and "ref" in body:
        check_request("POST", url, body)
        check_response("POST", url, answer.status_code, answer.json() if answer.content else None)
    return answer


def test_an_accepted_dispatch_queues_a_run_of_the_branch_with_no_pull_requests(box: Sandbox) -> None:
    answer = dispatch(box, "tests.yml", {"ref": "fix"})

    assert answer.status_code == 204 and answer.content == b""
    [run] = box.standin.dispatched
    assert (run.name, run.path, run.event, run.head_branch) == (
        "Tests",
        ".github/workflows/tests.yml",
        "workflow_dispatch",
        "fix",
    )
    assert run.head_sha == box.origin_refs()["refs/heads/fix"]
    assert run.pull_requests == () and run.status == "queued" and run.conclusion is None


@pytest.mark.parametrize(
    ("workflow", "body", "status", "says"),
    [
        pytest.param(
            "ci.yml", {"ref": "fix"}, 422, "does not have 'workflow_dispatch' trigger", id="no-trigger"
        ),
        pytest.param("tests.yml", {"ref": "gone"}, 422, "No ref found for: gone", id="no-ref"),
        pytest.param("missing.yml", {"ref": "fix"}, 404, "Not Found", id="no-workflow"),
    ],
)
def test_refused_dispatches_say_why_and_start_nothing(
    box: Sandbox, workflow: str, body: dict[str, str], status: int, says: str
) -> None:
    answer = dispatch(box, workflow, body)
    assert answer.status_code == status and says in answer.json()["message"]
    assert box.standin.dispatched == []


def test_a_read_only_token_cannot_dispatch(box: Sandbox) -> None:
    answer = dispatch(box, "tests.yml", {"ref": "fix"}, token=READ)
    assert answer.status_code == 403 and box.standin.dispatched == []


def graphql(box: Sandbox, pr_node: str, token: str = TOKEN) -> dict[str, object]:
    query = (
        "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) "
        "{ pullRequest { number } } }"
    )
    answer = requests.post(
        f"{box.standin.api_url}/graphql",
        json={"query": query, "variables": {"id": pr_node}},
        headers={"Authorization": f"bearer {token}"},
        timeout=10,
    )
    assert answer.status_code == 200  # GraphQL says no inside the body
    return answer.json()


def test_ready_for_review_takes_a_draft_out_of_draft(box: Sandbox) -> None:
    pull = box.standin.add_pull(REPO, head_ref="fix", head_sha="a" * 40)
    pull.draft = True

    data = graphql(box, node_id("PR", pull.id))

    assert "errors" not in data and not pull.draft and box.standin.readied == [pull.number]


def test_graphql_refusals_are_errors_in_a_200(box: Sandbox) -> None:
    pull = box.standin.add_pull(REPO, head_ref="fix", head_sha="a" * 40)
    pull.draft = True

    forbidden = graphql(box, node_id("PR", pull.id), token=READ)
    unknown = graphql(box, "PR_nope")

    assert [e["type"] for e in forbidden["errors"]] == ["FORBIDDEN"]  # type: ignore[index]
    assert [e["type"] for e in unknown["errors"]] == ["NOT_FOUND"]  # type: ignore[index]
    assert pull.draft and box.standin.readied == []
