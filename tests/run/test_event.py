"""workflow_run payloads → RunEvent, on GitHub's own example payloads."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from healer.run.event import EventError, load_event, load_pull_request_event

FIXTURES = Path(__file__).parent.parent / "fixtures" / "github"
REPO = "octo-org/octo-repo"


def payload(name: str = "workflow_run.completed.success.2.json", **run: Any) -> dict[str, Any]:
    data = json.loads((FIXTURES / "webhooks" / name).read_text(encoding="utf-8"))
    data["workflow_run"].update(run)
    return data


@pytest.fixture(scope="module")
def completed_schema() -> jsonschema.Draft7Validator:
    schemas = json.loads((FIXTURES / "webhook-schemas.json").read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(
        {"definitions": schemas["definitions"], "$ref": "#/definitions/workflow_run$completed"}
    )


def test_failed_run_from_real_payload(completed_schema: jsonschema.Draft7Validator) -> None:
    data = payload(conclusion="failure")
    completed_schema.validate(data)  # still GitHub's shape after the edit

    event = load_event("workflow_run", data, repository=REPO)

    assert event.repository == REPO
    assert event.run_id == 289782451
    assert event.run_attempt == 1
    assert event.workflow_name == "test"  # the run's name is "" in the example: the workflow's name
    assert event.head_sha == "3484a3fb816e0859fd6e1cea078d76385ff50625"
    assert event.head_branch == "master"
    assert event.head_repository == REPO
    assert event.head_owner == "octo-org"
    assert event.is_fork is False
    assert event.event == "repository_dispatch"
    assert event.conclusion == "failure"
    assert event.default_branch == "master"
    assert event.html_url == "https://github.com/octo-org/octo-repo/actions/runs/289782451"


def test_reads_a_payload_file(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload(conclusion="failure")), encoding="utf-8")
    assert load_event("workflow_run", path, repository=REPO).run_id == 289782451
    assert load_event("workflow_run", str(path), repository=REPO).run_id == 289782451


def test_repository_name_is_compared_without_case() -> None:
    event = load_event("workflow_run", payload(), repository="Octo-Org/Octo-Repo")
    assert event.repository == REPO


def test_pull_requests_of_other_repositories_are_dropped() -> None:
    # The example lists a PR of Codertocat/Hello-World: GitHub names PRs of any repository whose head matches.
    data = payload()
    assert (
        data["workflow_run"]["pull_requests"][0]["base"]["repo"]["id"]
        != data["workflow_run"]["repository"]["id"]
    )
    assert load_event("workflow_run", data, repository=REPO).pull_requests == ()


@pytest.mark.parametrize(
    "base_repo",
    [
        pytest.param({"id": 300029405, "url": "https://example.invalid/other", "name": "x"}, id="same-id"),
        pytest.param(
            {"id": 1, "url": "https://api.github.com/repos/Octo-Org/octo-repo", "name": "x"}, id="same-url"
        ),
    ],
)
def test_pull_requests_of_this_repository_are_kept(base_repo: dict[str, Any]) -> None:
    data = payload()
    own = copy.deepcopy(data["workflow_run"]["pull_requests"][0])
    own["number"] = 7
    own["base"]["repo"] = base_repo
    data["workflow_run"]["pull_requests"].append(own)
    data["workflow_run"]["pull_requests"].append(copy.deepcopy(own))  # listed twice: kept once
    assert load_event("workflow_run", data, repository=REPO).pull_requests == (7,)


def test_fork_head_is_a_fork() -> None:
    data = payload(conclusion="failure")
    head = data["workflow_run"]["head_repository"]
    head["full_name"] = "contributor/octo-repo"
    head["owner"]["login"] = "contributor"
    event = load_event("workflow_run", data, repository=REPO)
    assert event.is_fork is True
    assert event.head_repository == "contributor/octo-repo"
    assert event.head_owner == "contributor"


def test_deleted_fork_counts_as_a_fork() -> None:
    event = load_event("workflow_run", payload(head_repository=None), repository=REPO)
    assert event.is_fork is True
    assert event.head_repository == ""


def test_null_conclusion_and_branch_are_accepted() -> None:
    event = load_event("workflow_run", payload("workflow_run.completed.0.json"), repository=REPO)
    assert event.conclusion is None
    assert event.workflow_name == "Manually triggered workflow"


def test_float_integers_are_accepted() -> None:
    assert load_event("workflow_run", payload(run_attempt=2.0), repository=REPO).run_attempt == 2


CHECK_RUN = "check_run.completed.failure.1.json"


@pytest.mark.parametrize(
    ("event_name", "name", "expected"),
    [
        pytest.param("check_run", CHECK_RUN, "`check_run` event", id="other-event-name"),
        pytest.param("workflow_run", CHECK_RUN, "`check_run` payload", id="other-payload"),
        pytest.param(
            "workflow_run", "workflow_job.completed.failure.1.json", "`workflow_job`", id="job-payload"
        ),
        pytest.param(
            "workflow_run", "workflow_run.requested.3.json", "'requested', not 'completed'", id="requested"
        ),
    ],
)
def test_other_events_are_refused(event_name: str, name: str, expected: str) -> None:
    data = json.loads((FIXTURES / "webhooks" / name).read_text(encoding="utf-8"))
    with pytest.raises(EventError) as caught:
        load_event(event_name, data, repository=REPO)
    assert expected in str(caught.value)
    assert "workflow_run: types: [completed]" in str(caught.value)


def run_set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["workflow_run"].update(fields)


def run_drop(key: str) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["workflow_run"].pop(key)


def first_pr(edit: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
    return lambda data: edit(data["workflow_run"]["pull_requests"][0])


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        pytest.param(run_drop("id"), "`workflow_run.id` is missing", id="no-id"),
        pytest.param(run_set(id="12"), "`workflow_run.id` is '12'", id="id-string"),
        pytest.param(run_set(id=True), "`workflow_run.id` is True", id="id-bool"),
        pytest.param(run_set(run_attempt=0), "run_attempt` is 0", id="attempt-0"),
        pytest.param(run_set(head_sha="main; rm -rf /"), "not a commit id", id="bad-sha"),
        pytest.param(run_drop("head_sha"), "head_sha` is missing", id="no-sha"),
        pytest.param(run_set(conclusion=1), "conclusion` must be", id="conclusion-int"),
        pytest.param(run_set(head_branch=[]), "head_branch` must be", id="branch-list"),
        pytest.param(run_set(repository="x"), "repository` is str", id="repo-string"),
        pytest.param(run_set(head_repository={}), "full_name` is missing", id="no-head"),
        pytest.param(run_set(pull_requests={}), "must be a list", id="prs-object"),
        pytest.param(run_set(pull_requests=[3]), "must be an object", id="pr-int"),
        pytest.param(first_pr(lambda pr: pr.pop("base")), "cannot tell which", id="pr-without-base"),
        pytest.param(first_pr(lambda pr: pr.update(number="2")), "number` is '2'", id="pr-number-string"),
        pytest.param(lambda d: d.update(workflow_run=[]), "`workflow_run` is list", id="run-list"),
        pytest.param(lambda d: d.pop("action"), "action is None", id="no-action"),
        pytest.param(
            lambda d: d["workflow_run"]["repository"].update(full_name="someone/else"),
            "belongs to someone/else",
            id="other-repository",
        ),
    ],
)
def test_malformed_payloads_are_clear_errors(edit: Callable[[dict[str, Any]], None], expected: str) -> None:
    data = payload(conclusion="failure")
    edit(data)
    with pytest.raises(EventError) as caught:
        load_event("workflow_run", data, repository=REPO)
    assert expected in str(caught.value)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param("{not json", "is not JSON", id="not-json"),
        pytest.param("[1, 2]", "not a JSON object but list", id="array"),
        pytest.param(b"\xff\xfe", "is not JSON", id="not-utf8"),
    ],
)
def test_unreadable_payload_files(tmp_path: Path, content: str | bytes, expected: str) -> None:
    path = tmp_path / "event.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(EventError, match=expected):
        load_event("workflow_run", path, repository=REPO)


def test_missing_payload_file(tmp_path: Path) -> None:
    with pytest.raises(EventError, match="cannot read the event payload"):
        load_event("workflow_run", tmp_path / "absent.json", repository=REPO)


# -- pull_request_target: [closed] -------------------------------------------------------------------------

CLOSED = Path(__file__).parent.parent / "fixtures" / "github" / "webhooks" / "pull_request.closed.3.json"


def test_a_closed_pull_request_payload_as_github_sends_it() -> None:
    schemas = json.loads((CLOSED.parent.parent / "webhook-schemas.json").read_text(encoding="utf-8"))
    payload = json.loads(CLOSED.read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(
        {"definitions": schemas["definitions"], "$ref": "#/definitions/pull_request$closed"}
    ).validate(payload)
    event = load_pull_request_event("pull_request_target", CLOSED, repository="Codertocat/Hello-World")
    assert (event.action, event.pull.number, event.pull.head_ref, event.pull.merged) == (
        "closed",
        2,
        "changes",
        False,
    )
    assert event.pull.default_branch == "master"


def test_a_pull_request_event_of_another_repository_is_refused() -> None:
    with pytest.raises(EventError, match="belongs to Codertocat/Hello-World"):
        load_pull_request_event("pull_request_target", CLOSED, repository="octo/other")


def test_a_pull_request_payload_without_its_pull_request_is_refused() -> None:
    with pytest.raises(EventError, match="pull_request"):
        load_pull_request_event("pull_request", {"action": "closed"}, repository="octo/repo")


def test_a_merged_pull_request_names_who_merged_it() -> None:
    # GitHub's example PR was closed unmerged; merged, it carries `merged` and a `merged_by` user
    schemas = json.loads((CLOSED.parent.parent / "webhook-schemas.json").read_text(encoding="utf-8"))
    payload = json.loads(CLOSED.read_text(encoding="utf-8"))
    payload["pull_request"].update(merged=True, merged_by=payload["sender"], merged_at="2019-05-15T15:20:40Z")
    jsonschema.Draft7Validator(
        {"definitions": schemas["definitions"], "$ref": "#/definitions/pull_request$closed"}
    ).validate(payload)
    event = load_pull_request_event("pull_request_target", payload, repository="Codertocat/Hello-World")
    assert (event.pull.merged, event.pull.merged_by) == (True, "Codertocat")
