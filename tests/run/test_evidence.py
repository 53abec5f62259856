"""Choosing failed jobs and reading their evidence."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
import responses
from openapi_contract import check_calls, check_response, example_response, url_pattern
from responses import matchers

from healer.github import GitHub, GitHubError
from healer.logsource import MemoryLogSource
from healer.model import Annotation, Job, LogTail, RunEvent
from healer.run.evidence import RunJobs, collect_evidence, collect_run_jobs, select_jobs

API = "https://api.github.com"
REPO = "octo-org/octo-repo"
BASE = f"{API}/repos/{REPO}"
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"


def job(name: str, conclusion: str | None, *, id: int = 1, attempt: int = 1, started: str = "") -> Job:
    return Job(
        id=id, name=name, status="completed", conclusion=conclusion, run_attempt=attempt, started_at=started
    )


def event(attempt: int = 2) -> RunEvent:
    return RunEvent(
        repository=REPO,
        run_id=30433642,
        run_attempt=attempt,
        workflow_name="CI",
        head_sha=SHA,
        head_branch="topic",
        head_repository=REPO,
        is_fork=False,
        event="pull_request",
        conclusion="failure",
    )


# -- select_jobs (pure) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("jobs", "failed", "passed"),
    [
        pytest.param([job("lint", "failure")], ["lint"], [], id="one-failure"),
        pytest.param(
            [job("t", "timed_out"), job("s", "startup_failure")], ["t", "s"], [], id="timeout-startup"
        ),
        pytest.param(
            [job("c", "cancelled"), job("s", "skipped"), job("n", "neutral")], [], [], id="no-verdicts"
        ),
        pytest.param([job("ok", "success"), job("bad", "failure")], ["bad"], ["ok"], id="mixed"),
        pytest.param([job("x", None)], [], [], id="unfinished"),
        pytest.param(
            [job("test", "failure", id=1, attempt=1), job("test", "success", id=2, attempt=2)],
            [],
            ["test"],
            id="rerun-passed",
        ),
        pytest.param(
            [job("test", "success", id=2, attempt=2), job("test", "failure", id=3, attempt=3)],
            ["test"],
            [],
            id="rerun-failed-again",
        ),
        pytest.param(
            [
                job("test", "failure", id=9, attempt=2, started="2024-05-01T10:00:00Z"),
                job("test", "cancelled", id=8, attempt=2, started="2024-05-01T11:00:00Z"),
            ],
            [],
            [],
            id="newest-by-start-within-attempt",
        ),
        pytest.param([job("t", "failure", id=5), job("t", "failure", id=4)], ["t"], [], id="same-name-once"),
    ],
)
def test_select_jobs(jobs: list[Job], failed: list[str], passed: list[str]) -> None:
    selection = select_jobs(jobs)
    assert [j.name for j in selection.failed] == failed
    assert list(selection.passed) == passed
    assert selection.uninspected == ()


def test_select_jobs_keeps_the_newest_try() -> None:
    selection = select_jobs([job("t", "failure", id=5, attempt=1), job("t", "failure", id=7, attempt=2)])
    assert [j.id for j in selection.failed] == [7]


def test_select_jobs_is_bounded() -> None:
    jobs = [job(f"job {i}", "failure", id=i) for i in range(8)]
    selection = select_jobs(jobs, max_jobs=5)
    assert [j.name for j in selection.failed] == [f"job {i}" for i in range(5)]
    assert selection.uninspected == ("job 5", "job 6", "job 7")


# -- collect_run_jobs with a fake client ------------------------------------------------------------


class FakeGitHub(GitHub):
    """The real interface, answering from memory; ``broken`` job ids fail their log download."""

    def __init__(
        self, jobs: list[Job], *, broken: frozenset[int] = frozenset(), no_checks: bool = False
    ) -> None:
        super().__init__("fake-token", REPO)
        self.jobs = jobs
        self.broken = broken
        self.no_checks = no_checks
        self.reads: list[str] = []

    def list_jobs(self, run_id: int, attempt: int) -> list[Job]:
        self.reads.append(f"jobs {run_id}/{attempt}")
        return self.jobs

    def list_annotations(self, job_id: int) -> list[Annotation]:
        self.reads.append(f"annotations {job_id}")
        if self.no_checks:
            raise GitHubError(
                "GitHub refused (403): the token lacks the `checks: read` permission", status=403
            )
        return [Annotation("src/a.py", 3, "failure", f"boom in {job_id}")]

    def open_log(self, job_id: int, *, limit: int = 4 * 1024 * 1024) -> MemoryLogSource:
        self.reads.append(f"log {job_id} {limit}")
        if job_id in self.broken:
            raise GitHubError("the signed URL of the log answered 404: it expired", status=404)
        return MemoryLogSource(f"log of {job_id}\n".encode())


def test_collects_failed_jobs_and_passed_names() -> None:
    gh = FakeGitHub(
        [job("lint", "failure", id=1), job("test", "success", id=2), job("docs", "skipped", id=3)]
    )
    result = collect_run_jobs(gh, event(attempt=2), read_limit=1000)
    assert isinstance(result, RunJobs)
    (only,) = result.failed
    assert only.job.name == "lint"
    assert only.log == LogTail("log of 1\n", 9, False)
    assert only.annotations == (Annotation("src/a.py", 3, "failure", "boom in 1"),)
    assert only.note == ""
    assert result.passed == ("test",)
    assert result.notes == ()
    assert gh.reads == ["jobs 30433642/2", "annotations 1", "log 1 1000"]


def test_one_broken_log_does_not_lose_the_others() -> None:
    gh = FakeGitHub(
        [job("a", "failure", id=1), job("b", "failure", id=2), job("c", "failure", id=3)], broken={2}
    )
    result = collect_run_jobs(gh, event())
    assert [e.log is not None for e in result.failed] == [True, False, True]
    assert "log unavailable" in result.failed[1].note and "expired" in result.failed[1].note
    assert result.notes == (f"'b': {result.failed[1].note}",)


def test_missing_checks_permission_keeps_the_log() -> None:
    gh = FakeGitHub([job("a", "failure", id=1)], no_checks=True)
    (only,) = collect_evidence(gh, event())
    assert only.log is not None and only.annotations == ()
    assert "`checks: read`" in only.note


def test_at_most_max_jobs_are_read() -> None:
    gh = FakeGitHub([job(f"j{i}", "failure", id=i) for i in range(1, 8)])
    result = collect_run_jobs(gh, event(), max_jobs=5)
    assert len(result.failed) == 5
    assert result.uninspected == ("j6", "j7")
    assert "2 more failed job(s) not inspected" in result.notes[-1]
    assert sum(read.startswith("log") for read in gh.reads) == 5


def test_green_run_reads_only_the_listing() -> None:
    gh = FakeGitHub([job("lint", "success", id=1), job("test", "success", id=2)])
    result = collect_run_jobs(gh, event())
    assert result.failed == () and result.passed == ("lint", "test")
    assert gh.reads == ["jobs 30433642/2"]


# -- the real client against GitHub's shapes --------------------------------------------------------


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock
        check_calls(mock.calls, api_base=API)


def api_job(template: dict[str, Any], id: int, name: str, conclusion: str) -> dict[str, Any]:
    data = copy.deepcopy(template)
    data.update(id=id, name=name, conclusion=conclusion, run_attempt=2)
    return data


def test_one_failed_job_costs_four_requests(rsps: responses.RequestsMock) -> None:
    template = example_response("actions/list-jobs-for-workflow-run-attempt")["jobs"][0]
    listing = {
        "total_count": 2,
        "jobs": [api_job(template, 11, "lint", "failure"), api_job(template, 12, "test", "success")],
    }
    jobs_url = f"{BASE}/actions/runs/30433642/attempts/2/jobs"
    check_response("GET", jobs_url, 200, listing)
    rsps.add("GET", url_pattern(jobs_url), json=listing)
    annotations_url = f"{BASE}/check-runs/11/annotations"
    check_response("GET", annotations_url, 200, example_response("checks/list-annotations"))
    rsps.add("GET", url_pattern(annotations_url), json=example_response("checks/list-annotations"))
    signed = "https://results-receiver.actions.githubusercontent.com/logs/11?sig=x"
    rsps.add("GET", f"{BASE}/actions/jobs/11/logs", status=302, headers={"Location": signed})
    rsps.add(
        "GET",
        signed,
        body=b"##[error]Process completed with exit code 1.\n",
        status=206,
        # the blob store has no suffix ranges: the first range gives the size, and a small log whole
        headers={"Content-Range": "bytes 0-44/45"},
        match=(matchers.header_matcher({"Range": "bytes=0-65535"}),),
    )
    gh = GitHub("a-token", REPO)
    result = collect_run_jobs(gh, event(attempt=2))
    assert [e.job.name for e in result.failed] == ["lint"]
    assert result.failed[0].log is not None and "exit code 1" in result.failed[0].log.text
    assert result.failed[0].annotations[0].path == "README.md"
    assert result.passed == ("test",)
    assert gh.request_count == 4


class LongLogGitHub(FakeGitHub):
    """A job whose failing step prints its failure, then 1.5 MiB of SKIPPED lines."""

    def open_log(self, job_id: int, *, limit: int = 4 * 1024 * 1024) -> MemoryLogSource:
        self.reads.append(f"log {job_id} {limit}")
        stamp = "2026-11-03T10:02:11.0000000Z "
        lines = [
            "##[group]Run ./gradlew test",
            "##[endgroup]",
            "OrderTest > setUp FAILED",
            "    not migrated",
        ]
        lines += [f"OrderTest > creates[{n}] SKIPPED" for n in range(40_000)]
        lines += ["##[error]Process completed with exit code 1."]
        return MemoryLogSource("".join(f"{stamp}{line}\n" for line in lines).encode())


def test_a_log_is_read_back_until_the_failing_steps_start_within_the_read_limit() -> None:
    gh = LongLogGitHub([job("test", "failure", id=1)])
    found = collect_run_jobs(gh, event()).failed[0].log
    assert found is not None and "OrderTest > setUp FAILED" in found.text
    assert gh.reads[-1] == f"log 1 {4 * 1024 * 1024}"
    small = collect_run_jobs(gh, event(), read_limit=512 * 1024).failed[0].log
    assert small is not None and small.bytes_read == 512 * 1024
    assert "setUp FAILED" not in small.text
