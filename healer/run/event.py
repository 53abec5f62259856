"""The ``workflow_run`` payload → :class:`RunEvent`.

The healer runs from a workflow triggered by ``workflow_run: types: [completed]``; everything it needs to
know about the run it reacts to comes from that payload (``$GITHUB_EVENT_PATH``). A payload of another event,
or one whose fields are missing or of the wrong type, is an :class:`EventError` that says what is wrong.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from healer.github.convert import pull_from
from healer.model import PullRequest, RunEvent

TRIGGER_HINT = "the healer's workflow must be triggered by `on: workflow_run: types: [completed]`"

# A commit id: SHA-1, or SHA-256 for repositories using the newer object format.
_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
# Keys whose presence tells another event's payload apart, for a helpful message.
_OTHER_EVENTS = ("check_run", "check_suite", "workflow_job", "pull_request", "issue", "comment", "pusher")


class EventError(Exception):
    """The event is not a usable ``workflow_run`` completion; the message says what is wrong."""


PULL_REQUEST_EVENTS = ("pull_request_target", "pull_request")


@dataclass(frozen=True)
class PullRequestEvent:
    """A ``pull_request_target`` (or ``pull_request``) event: its action and the pull request it is about."""

    action: str
    pull: PullRequest


def load_pull_request_event(
    event_name: str, payload: Mapping[str, Any] | str | os.PathLike[str], *, repository: str
) -> PullRequestEvent:
    """Read a ``pull_request_target``/``pull_request`` payload (the example workflow's ``closed`` trigger,
    which retires the healer's fix PRs of a merged or closed PR)."""
    if event_name not in PULL_REQUEST_EVENTS:
        raise EventError(f"the healer was started by a `{event_name}` event; {TRIGGER_HINT}")
    data = _read(payload)
    action = data.get("action")
    if not isinstance(action, str):
        raise EventError(f"the {event_name} payload has no `action`")
    pull = _object(data, "pull_request", "")
    try:
        parsed = pull_from(pull)
    except (KeyError, TypeError, ValueError):
        raise EventError(f"`pull_request` of the {event_name} payload is malformed") from None
    if parsed.base_repository.lower() != repository.lower():
        raise EventError(
            f"the pull request belongs to {parsed.base_repository or 'another repository'}, but the healer "
            f"runs in {repository}"
        )
    return PullRequestEvent(action, parsed)


def load_event(
    event_name: str, payload: Mapping[str, Any] | str | os.PathLike[str], *, repository: str
) -> RunEvent:
    """Read a ``workflow_run`` ``completed`` payload (a mapping, or the path of the JSON file).

    ``event_name`` is ``$GITHUB_EVENT_NAME`` and ``repository`` is ``$GITHUB_REPOSITORY`` (``owner/name``),
    the repository the healer runs in. ``pull_requests`` keeps only the payload's PRs whose base is that
    repository (GitHub also lists PRs of other repositories whose head is the same commit).
    """
    if event_name != "workflow_run":
        raise EventError(f"the healer was started by a `{event_name}` event; {TRIGGER_HINT}")
    data = _read(payload)
    if "workflow_run" not in data:
        looks_like = next((key for key in _OTHER_EVENTS if key in data), None)
        kind = f" (it looks like a `{looks_like}` payload)" if looks_like else ""
        raise EventError(f"the event payload has no `workflow_run` object{kind}; {TRIGGER_HINT}")
    action = data.get("action")
    if action != "completed":
        raise EventError(
            f"the workflow_run event's action is {action!r}, not 'completed': the healer only reads finished "
            f"runs; {TRIGGER_HINT}"
        )
    run = _object(data, "workflow_run", "")
    where = "workflow_run."

    run_repo = _object(run, "repository", where)
    run_repo_name = _string(run_repo, "full_name", where + "repository.")
    if run_repo_name.lower() != repository.lower():
        raise EventError(
            f"the run belongs to {run_repo_name}, but the healer runs in {repository}: it only heals runs of "
            "its own repository"
        )
    head_repo = run.get("head_repository")
    if head_repo is None:
        # the head repository (a fork) was deleted: treat it as foreign
        head_repository, head_owner = "", ""
    else:
        head = _object(run, "head_repository", where)
        head_repository = _string(head, "full_name", where + "head_repository.")
        owner = head.get("owner")
        head_owner = (
            owner["login"]
            if isinstance(owner, Mapping) and isinstance(owner.get("login"), str)
            else head_repository.partition("/")[0]
        )

    head_sha = _string(run, "head_sha", where)
    if not _SHA.fullmatch(head_sha):
        raise EventError(f"`workflow_run.head_sha` is not a commit id: {head_sha[:80]!r}")
    conclusion = run.get("conclusion")
    if conclusion is not None and not isinstance(conclusion, str):
        raise EventError(f"`workflow_run.conclusion` must be a string or null, not {_kind(conclusion)}")
    head_branch = run.get("head_branch")
    if head_branch is not None and not isinstance(head_branch, str):
        raise EventError(f"`workflow_run.head_branch` must be a string or null, not {_kind(head_branch)}")
    name = run.get("name")
    if not isinstance(name, str) or not name:
        # the run's name can be empty (GitHub's own example has ""); the workflow's name is the fallback
        workflow = data.get("workflow")
        name = workflow.get("name") if isinstance(workflow, Mapping) else None
        if not isinstance(name, str):
            raise EventError("`workflow_run.name` is missing: the payload names no workflow")
    top_repo = data.get("repository")
    default_branch = top_repo.get("default_branch", "") if isinstance(top_repo, Mapping) else ""
    html_url = run.get("html_url")
    path = run.get("path")

    return RunEvent(
        repository=run_repo_name,
        run_id=_integer(run, "id", where),
        run_attempt=_integer(run, "run_attempt", where, minimum=1),
        workflow_name=name,
        head_sha=head_sha,
        head_branch=head_branch or "",
        head_repository=head_repository,
        is_fork=head_repository.lower() != run_repo_name.lower(),
        event=_string(run, "event", where),
        conclusion=conclusion,
        pull_requests=_own_pull_requests(run, run_repo),
        html_url=html_url if isinstance(html_url, str) else "",
        default_branch=default_branch if isinstance(default_branch, str) else "",
        head_owner=head_owner,
        workflow_path=path if isinstance(path, str) else "",
    )


def _read(payload: Mapping[str, Any] | str | os.PathLike[str]) -> Mapping[str, Any]:
    if isinstance(payload, Mapping):
        return payload
    path = Path(payload)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise EventError(f"cannot read the event payload {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"the event payload {path} is not JSON: {exc}") from None
    if not isinstance(data, Mapping):
        raise EventError(f"the event payload {path} is not a JSON object but {_kind(data)}")
    return data


def _own_pull_requests(run: Mapping[str, Any], run_repo: Mapping[str, Any]) -> tuple[int, ...]:
    """The numbers of the payload's PRs whose base is the run's repository.

    GitHub lists every open PR whose head is the run's branch and commit, including PRs into *other*
    repositories (a fork's branch proposed upstream); acting on those would comment on the wrong PR.
    """
    entries = run.get("pull_requests")
    if entries is None:
        return ()
    if not isinstance(entries, list):
        raise EventError(f"`workflow_run.pull_requests` must be a list, not {_kind(entries)}")
    repo_id = run_repo.get("id")
    repo_url = str(run_repo.get("url", "")).rstrip("/").lower()
    numbers: list[int] = []
    for index, entry in enumerate(entries):
        where = f"workflow_run.pull_requests[{index}]."
        if not isinstance(entry, Mapping):
            raise EventError(f"`{where[:-1]}` must be an object, not {_kind(entry)}")
        number = _integer(entry, "number", where, minimum=1)
        base = entry.get("base")
        base_repo = base.get("repo") if isinstance(base, Mapping) else None
        if not isinstance(base_repo, Mapping):
            raise EventError(f"`{where}base.repo` is missing: cannot tell which repository the PR is for")
        same_id = isinstance(repo_id, int) and base_repo.get("id") == repo_id
        same_url = bool(repo_url) and str(base_repo.get("url", "")).rstrip("/").lower() == repo_url
        if (same_id or same_url) and number not in numbers:
            numbers.append(number)
    return tuple(numbers)


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _object(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, Mapping):
        shown = "missing" if key not in data else f"{_kind(value)}, not an object"
        raise EventError(f"`{where}{key}` is {shown}; {TRIGGER_HINT}")
    return value


def _string(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        shown = "missing" if key not in data else f"{_kind(value)}, not a non-empty string"
        raise EventError(f"`{where}{key}` is {shown}; {TRIGGER_HINT}")
    return value


def _integer(data: Mapping[str, Any], key: str, where: str, *, minimum: int = 0) -> int:
    value = data.get(key)
    # JSON has one number type: accept 7.0 from a lenient producer, refuse booleans (a Python int subclass)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        shown = "missing" if key not in data else f"{value!r}, not a whole number >= {minimum}"
        raise EventError(f"`{where}{key}` is {shown}; {TRIGGER_HINT}")
    return value
