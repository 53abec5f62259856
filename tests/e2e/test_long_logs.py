"""End to end: a first failure far before the end of a job log is found by reading back in ranges."""

from __future__ import annotations

import re

from harness import PASSED, heal

from healer.demo.sample import LINT_PR_FILES, job_log
from healer.demo.sandbox import Sandbox

STEPS = (("Run actions/checkout@v5", "success"), ("Run ./gradlew test", "failure"))
FIRST_FAILURE = "OrderServiceTest > setUpDatabase FAILED"


def _long_test_log() -> bytes:
    """A Gradle test step: 300 KiB of build output, the first failure, then about 1.5 MiB of SKIPPED lines."""
    output = [
        *(f"> Task :module{n}:compileJava UP-TO-DATE" for n in range(6_000)),
        "> Task :core:test",
        FIRST_FAILURE,
        "    java.lang.IllegalStateException: Flyway migration V12__orders.sql failed",
        *(f"OrderServiceTest > createsOrder[{n}]({n}) SKIPPED" for n in range(30_000)),
        "30002 tests completed, 1 failed, 30000 skipped",
        "> Task :core:test FAILED",
        "BUILD FAILED in 2m 3s",
    ]
    return job_log("test (3.12)", "./gradlew test", output, exit_code=1).encode()


def test_the_first_failure_far_back_is_read_within_the_read_limit(box: Sandbox) -> None:
    sha = box.commit("feature/orders", LINT_PR_FILES, "Orders table")
    pull = box.open_pull("feature/orders", sha)
    run = box.add_run(pull, [("lint", "success", PASSED)])
    log = _long_test_log()
    failure_at = log.index(FIRST_FAILURE.encode())
    job = box.standin.add_job(run, "test (3.12)", log=log, steps=STEPS)

    def read(inputs: dict[str, str]) -> tuple[str, list[tuple[int, int]], int]:
        result = heal(box, run, dry_run=True, inputs=inputs)
        reads = [r for r in result.requests if r.operation == "signed-log" and r.path.endswith(str(job.id))]
        ranges = [re.fullmatch(r"bytes=(\d+)-(\d+)", r.header("Range") or "") for r in reads]
        assert all(ranges), [r.header("Range") for r in reads]
        spans = [(int(m.group(1)), int(m.group(2))) for m in ranges if m]
        return result.outputs["category"], spans, sum(r.bytes_sent for r in reads)

    category, spans, sent = read({})
    assert category == "test"
    # read back from the end, in ranges, until the failing step's first failure was in view
    assert any(start <= failure_at <= end for start, end in spans[1:])
    assert sent <= 4 * 1024 * 1024 + 64 * 1024

    category, spans, sent = read({"log-read-limit": "512KiB"})
    # a lower limit stops earlier; the summary still says what kind of failure it was
    assert category == "test"
    assert not any(start <= failure_at <= end for start, end in spans[1:])
    assert sent <= 512 * 1024 + 64 * 1024
