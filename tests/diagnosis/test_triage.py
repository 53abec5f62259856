"""Which runs and jobs are a verdict: event kinds, branches, and `cancelled` jobs that are timeouts."""

from __future__ import annotations

import pytest

from healer.demo.sample import job_log
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.diagnosis.triage import (
    CANCELLED,
    DEFAULT_EVENTS,
    TIMEOUT,
    cancellation,
    event_skip_reason,
    never_started,
    pull_skip_reason,
)
from healer.model import Annotation, Category, Evidence, Job, LogTail, PullRequest, RunEvent, Step
from healer.run.evidence import select_jobs

SHA = "a" * 40
FORK = "alice/repo"
RULES = load_rules(())
JOB_LIMIT = (
    "The job running on runner GitHub Actions 3 has exceeded the maximum execution time of 15 minutes."
)
STEP_LIMIT = "The action 'Run tests' has timed out after 10 minutes."


def run(event: str = "pull_request", branch: str = "feature", head_repo: str = "octo/repo") -> RunEvent:
    fork = head_repo != "octo/repo"
    return RunEvent(
        "octo/repo", 1, 1, "CI", SHA, branch, head_repo, fork, event, "failure", default_branch="main"
    )


def pull(head_ref: str = "feature", head_repo: str = "octo/repo") -> PullRequest:
    return PullRequest(7, "open", "t", "mona", SHA, head_ref, head_repo, "main", "octo/repo",
                       default_branch="main")  # fmt: skip


@pytest.mark.parametrize("event", DEFAULT_EVENTS)
def test_a_prs_own_triggers_count(event: str) -> None:
    assert event_skip_reason(run(event), DEFAULT_EVENTS) is None


@pytest.mark.parametrize("event", ["schedule", "workflow_dispatch", "merge_group", "workflow_run", "release"])
def test_other_events_are_skipped_with_a_reason(event: str) -> None:
    why = event_skip_reason(run(event), DEFAULT_EVENTS)
    assert why is not None and f"`{event}`" in why


def test_the_setting_can_narrow_the_list() -> None:
    assert event_skip_reason(run("push"), ("pull_request",)) is not None


@pytest.mark.parametrize(
    ("the_run", "the_pull", "skipped"),
    [
        pytest.param(run(), pull(), False, id="pull_request"),
        pytest.param(run("push"), pull(), False, id="push-to-the-prs-head-branch"),
        pytest.param(run("push", branch="other"), pull(), True, id="push-to-another-branch"),
        pytest.param(run("push", head_repo=FORK), pull(head_repo=FORK), True, id="push-in-a-fork"),
        pytest.param(run(branch="main"), pull(head_ref="main"), True, id="release-pr-from-main"),
        pytest.param(run(head_repo=FORK), pull("main", FORK), False, id="fork-main-is-not-ours"),
    ],
)  # fmt: skip
def test_which_pull_requests_count(the_run: RunEvent, the_pull: PullRequest, skipped: bool) -> None:
    assert (pull_skip_reason(the_run, the_pull, "main") is not None) is skipped


def annotation(message: str) -> Annotation:
    return Annotation(".github", 1, "failure", message)


@pytest.mark.parametrize(
    ("messages", "said"),
    [
        pytest.param([JOB_LIMIT, "The operation was canceled."], TIMEOUT, id="job-time-limit"),
        pytest.param([STEP_LIMIT], TIMEOUT, id="step-time-limit"),
        pytest.param(
            [
                "Canceling since a higher priority waiting request for 'ci-x' exists",
                "The operation was canceled.",
            ],
            CANCELLED,
            id="concurrency-group",
        ),
        pytest.param(["The operation was canceled."], CANCELLED, id="a-person"),
        pytest.param(
            ['The strategy configuration was canceled because "test.ubuntu-latest_3_11" failed'],
            CANCELLED,
            id="a-matrix-fail-fast",
        ),
        pytest.param([], None, id="nothing-said"),
        pytest.param(["Process completed with exit code 1."], None, id="unrelated"),
    ],
)
def test_cancellation_reads_the_annotations(messages: list[str], said: str | None) -> None:
    assert cancellation([annotation(m) for m in messages]) == said


def cancelled_job(*steps: tuple[str, str | None]) -> Job:
    return Job(1, "test", "completed", "cancelled",
               steps=tuple(Step(i + 1, n, "completed", c) for i, (n, c) in enumerate(steps)))  # fmt: skip


def test_a_job_cancelled_while_pending_never_started() -> None:
    assert never_started(cancelled_job())
    assert not never_started(cancelled_job(("Set up job", "success"), ("Run tests", "cancelled")))
    selection = select_jobs([cancelled_job(), Job(2, "lint", "completed", "success")])
    assert selection.cancelled == () and selection.failed == ()


@pytest.mark.parametrize("line", [JOB_LIMIT, STEP_LIMIT])
def test_a_cancelled_job_whose_log_shows_a_time_limit_is_a_timeout(line: str) -> None:
    text = job_log("test", "pytest", ["tests/test_long.py ....", f"##[error]{line}"], exit_code=0)
    text += "##[error]The operation was canceled.\n"
    job = cancelled_job(("Set up job", "success"), ("Run pytest", "cancelled"))
    diagnosis = classify(Evidence(job, LogTail(text, len(text), False)), RULES)
    assert diagnosis.category is Category.TIMEOUT


def test_a_cancelled_job_without_a_time_limit_stays_cancelled() -> None:
    text = job_log("test", "pytest", ["tests/test_long.py ....", "##[error]The operation was canceled."])
    job = cancelled_job(("Set up job", "success"), ("Run pytest", "cancelled"))
    assert classify(Evidence(job, LogTail(text, len(text), False)), RULES).category is Category.CANCELLED
