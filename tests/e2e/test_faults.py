"""End to end: GitHub answering badly — a missing permission, a storm of 5xx, a rate limit, a huge log."""

from __future__ import annotations

import re

from harness import PASSED, heal, job_log, lint_log, lint_pull

from healer.demo.sample import LINT_PR_FILES
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.state import RecordedRequest

STEPS = (("Run actions/checkout@v5", "success"), ("Run ruff check .", "failure"))
JOBS = ("actions/list-jobs-for-workflow-run", "actions/list-jobs-for-workflow-run-attempt")


def error_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("::error")]


def test_a_missing_actions_permission_is_named(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    for operation in JOBS:
        box.standin.fail(operation, 403, times=10, message="Resource not accessible by integration")

    result = heal(box, run, expect_exit=1)

    [error] = error_lines(result.stdout + "\n" + result.stderr)
    assert "actions: read" in error
    assert not [r for r in result.requests if r.is_write]


def test_a_storm_of_server_errors_on_writes_ends_cleanly_without_duplicates(box: Sandbox) -> None:
    # (a storm on reads is retried with backoff, 1 + 2 + 4 + 8 s, before the same clean error; the client's
    # own tests cover that without waiting)
    pull, run = lint_pull(box)
    for operation in ("issues/create-comment", "pulls/create", "issues/update-comment"):
        box.standin.fail(operation, 502, times=100, message="Server Error")

    result = heal(box, run, expect_exit=1)

    [error] = error_lines(result.stdout + "\n" + result.stderr)
    assert "502" in error
    # a comment POST that answered 5xx may still have been done: it is not retried, so nothing is posted
    # twice (opening the fix pull request is retried: GitHub refuses a second one from the same branch, and
    # the client then updates the first)
    posts = [r.operation for r in result.requests if r.method == "POST"]
    assert posts.count("issues/create-comment") == 1 and set(posts) == {
        "pulls/create",
        "issues/create-comment",
    }
    assert not box.standin.comments(box.repo, pull.number)
    assert not box.standin.created_pulls(box.repo)


def test_a_short_storm_is_ridden_out(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    box.standin.fail("pulls/get", 502, times=1)

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    assert len(box.standin.created_pulls(box.repo)) == 1
    assert [r.status for r in result.requests if r.operation == "pulls/get"] == [502, 200]


def test_a_secondary_rate_limit_is_waited_out(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    # (the wait itself is the client's unit tests' business; here: the fix pull request still opens, once)
    box.standin.rate_limit("pulls/create", retry_after=0)

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    assert len(box.standin.created_pulls(box.repo)) == 1
    assert [r.status for r in result.requests if r.operation == "pulls/create"] == [403, 201]


def _huge_log(box: Sandbox, size: int) -> bytes:
    tail = lint_log(box).encode()
    filler = b"2026-01-01T12:00:00.0000000Z collecting widgets ... ok\n"
    return filler * ((size - len(tail)) // len(filler)) + tail


def test_a_huge_log_is_read_from_its_tail_and_without_range_support_in_bounded_memory(box: Sandbox) -> None:
    sha = box.commit("feature/big", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/big", sha)
    run = box.add_run(pull, [("test (3.12)", "success", PASSED)])
    log = _huge_log(box, 50 * 1024 * 1024)
    size = len(log)
    job = box.standin.add_job(run, "lint", log=log, steps=STEPS)

    def downloads(result: HealerRun) -> list[RecordedRequest]:
        return [r for r in result.requests if r.operation == "signed-log" and r.path.endswith(str(job.id))]

    tail = heal(box, run, dry_run=True)
    # the blob store (Azure) has no suffix ranges: the size comes with a first range, then the end is read
    assert tail.outputs["category"] == "lint"
    ranges = [r.header("Range") or "" for r in downloads(tail)]
    assert ranges[0] == "bytes=0-65535" and len(ranges) >= 2
    assert all(re.fullmatch(r"bytes=\d+-\d+", r) for r in ranges), ranges
    assert ranges[1].endswith(f"-{size - 1}")
    assert sum(r.bytes_sent for r in downloads(tail)) <= 512 * 1024

    box.standin.range_support = False
    whole = heal(box, run, dry_run=True)
    # the whole body comes back: the healer stops reading before its end and holds only a bounded part
    assert sum(r.bytes_sent for r in downloads(whole)) < size
    if tail.peak_rss_kib and whole.peak_rss_kib:  # 0: the platform cannot say
        grew = (whole.peak_rss_kib - tail.peak_rss_kib) / 1024
        assert grew < 25, f"reading a 50 MiB log without Range took {grew:.0f} MiB more memory"


def test_an_expired_log_url_is_renewed(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    # the signed URL lives about a minute; here the first one has already expired when it is used
    box.standin.expire_signed_logs = 1

    result = heal(box, run, dry_run=True)

    assert result.outputs["category"] == "lint"
    signed = [r.status for r in result.requests if r.operation == "signed-log"]
    assert signed[:2] == [403, 206]
    redirects = [r for r in result.requests if r.operation == "actions/download-job-logs-for-workflow-run"]
    assert len(redirects) == 2


def test_a_large_log_without_range_support_is_streamed_for_its_tail(box: Sandbox) -> None:
    box.standin.range_support = False
    sha = box.commit("feature/big", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/big", sha)
    run = box.add_run(pull, [("test (3.12)", "success", PASSED)])
    box.standin.add_job(run, "lint", log=_huge_log(box, 20 * 1024 * 1024), steps=STEPS)

    result = heal(box, run, dry_run=True)

    # the whole 20 MiB came back; the failure at its very end was still found
    assert result.outputs["category"] == "lint"


NETWORK_LOG = job_log(
    "test (3.12)",
    "git clone https://git.example-host.invalid/org/repo.git",
    ["fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': Could not resolve host"],
    exit_code=128,
)


def test_a_quiet_rerun_that_cannot_read_its_run_re_runs_nothing_and_says_why(box: Sandbox) -> None:
    # With no healer comment to record a re-run in, the run's latest attempt is read from GitHub first (a
    # redelivered event must not re-run twice). A run deleted meanwhile answers 404, a token without
    # `actions: read` 403: either way nothing is re-run and nothing is written, and the error says which.
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("test (3.12)", "failure", NETWORK_LOG)])
    for status, said in ((404, f"run {run.id}"), (403, "actions: read")):
        box.standin.fail("actions/get-workflow-run", status)

        result = heal(box, run, expect_exit=1)

        [error] = error_lines(result.stdout + "\n" + result.stderr)
        assert said in error and str(status) in error, error
        assert not [r for r in result.requests if r.is_write], result.requests
        assert box.standin.reruns == [] and not box.standin.comments(box.repo, pull.number)


def test_a_files_listing_github_refuses_leaves_the_heal_as_it_was(box: Sandbox) -> None:
    # the changed-files reading of a checker's findings costs one request; refused, it changes nothing
    pull, run = lint_pull(box)
    box.standin.fail("pulls/list-files", 403, times=10, message="Resource not accessible by integration")

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    assert [r.operation for r in result.requests].count("pulls/list-files") == 1
    assert f"could not list the files of pull request #{pull.number}" in result.stdout
    assert "`lint` handled as usual" in result.stdout
