"""Which runs and jobs are a verdict on a pull request's code. Pure: values in, a reason (or None) out.

GitHub attaches more to a pull request than its own CI (``BEHAVIOUR.md``, "Events and runs"):

- ``workflow_run.pull_requests`` lists every open PR whose head commit *or head branch* matches the run, so a
  ``push``, ``schedule``, ``workflow_dispatch``, ``merge_group`` or chained ``workflow_run`` run on a PR's
  branch arrives with that PR. Only the events in ``events`` count (by default a PR's own triggers and a push
  to the PR's own head branch).
- A release PR whose head is the default branch (``main`` → ``release``) gets every failure of the default
  branch attached; the healer never works on (or pushes to) the default branch.
- A job stopped by ``timeout-minutes`` ends ``cancelled``, like one cancelled by a person or a concurrency
  group; its check-run annotations (or its log) tell them apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from healer.model import Annotation, Job, PullRequest, RunEvent

# The events whose runs test a pull request's code (a push only when it is to the PR's own head branch).
DEFAULT_EVENTS = ("pull_request", "pull_request_target", "push")

# The runner's words for a time limit, job level and step level ("has exceeded the maximum execution time of
# 360 minutes" on older runners, a Go duration such as "6h0m0s" on newer ones).
_TIMEOUT = re.compile(
    r"has exceeded the maximum execution time of |The (?:action|job|step) .{0,300}? has timed out after \d+"
)
# Its words for a cancellation by a person, a newer push or a concurrency group.
_CANCELLED = re.compile(
    r"The operation was canceled|Canceling since a higher priority waiting request|The run was canceled by"
    r"|The job was canceled because|The strategy configuration was canceled because"
)

TIMEOUT = "timeout"
CANCELLED = "cancelled"


def event_skip_reason(run: RunEvent, events: Sequence[str]) -> str | None:
    """Why the run's triggering event is not a pull request's CI, or None when it counts."""
    if run.event in events:
        return None
    listed = ", ".join(f"`{name}`" for name in events) or "none"
    return (
        f"a `{run.event}` run is not a pull request's CI (the `events` setting counts {listed}); "
        "GitHub attaches it to the PR only because it ran on the PR's branch"
    )


def pull_skip_reason(run: RunEvent, pull: PullRequest, default_branch: str) -> str | None:
    """Why the run does not count for ``pull``: a PR from the default branch, or a push to another branch."""
    default = default_branch or pull.default_branch
    if not pull.is_fork and default and pull.head_ref == default:
        return (
            f"#{pull.number}'s head branch is the default branch `{default}`: the healer never works on the "
            "default branch (its failures are not this PR's to fix)"
        )
    if run.event == "push" and (
        pull.is_fork
        or run.head_branch != pull.head_ref
        or run.head_repository.lower() != pull.head_repository.lower()
    ):
        return f"the push run was not to #{pull.number}'s own head branch"
    return None


def cancellation(annotations: Iterable[Annotation]) -> str | None:
    """What the annotations of a ``cancelled`` job say: :data:`TIMEOUT`, :data:`CANCELLED`, or None.

    A timed-out job carries both the time-limit line and "The operation was canceled.": the time limit wins.
    """
    said = None
    for annotation in annotations:
        text = f"{annotation.title}\n{annotation.message}"
        if _TIMEOUT.search(text):
            return TIMEOUT
        if _CANCELLED.search(text):
            said = CANCELLED
    return said


def timed_out(lines: Iterable[str]) -> bool:
    """Whether a log says a job or step time limit stopped it."""
    return any(_TIMEOUT.search(line) for line in lines)


def never_started(job: Job) -> bool:
    """A job cancelled before any step of it ran to an end (queued or pending when the run was cancelled):
    there is nothing in it to read. A timed-out job has at least "Set up job" behind it."""
    return not any(step.conclusion in ("success", "failure") for step in job.steps)
