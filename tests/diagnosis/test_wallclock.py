"""A test that failed only on a wall-clock budget is re-run first; a runner's timeout, a second failing test
or a time read only in the code's own loop keeps the failure the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, HISTORY_FIRST, diagnose_log, job_log

from healer.model import Action

JEST = [
    "FAIL src/queue.test.ts",
    "  ● queue › drains within the window",
    "",
    "    expect(received).toBeLessThan(expected)",
    "",
    "    Expected: < 500",
    "    Received:   544",
    "",
    "      31 |     await queue.drain();",
    "    > 32 |     expect(Date.now() - start).toBeLessThan(500);",
    "         |                                ^",
    "",
    "Tests:       1 failed, 88 passed, 89 total",
]
PYTEST = [
    "___ test_limiter_spreads_calls ___",
    "    def test_limiter_spreads_calls():",
    "        start = time.monotonic()",
    "        limiter.run(calls)",
    "        elapsed = time.monotonic() - start",
    ">       assert elapsed < 0.5",
    "E       assert 0.61 < 0.5",
    "tests/test_limiter.py:21: AssertionError",
    "=========================== short test summary info ============================",
    "FAILED tests/test_limiter.py::test_limiter_spreads_calls - assert 0.61 < 0.5",
    "========================= 1 failed, 40 passed in 3.02s =========================",
]
GTEST = [
    "[ RUN      ] Timer.Periodic",
    "/home/runner/work/granary/granary/tests/timer_test.cpp:33: Failure",
    "Expected: (elapsed_ms) <= (110), actual: 127 vs 110",
    "[  FAILED  ] Timer.Periodic (127 ms)",
    "[  FAILED  ] 1 test, listed below:",
    "[  FAILED  ] Timer.Periodic",
]


@pytest.mark.parametrize(
    ("command", "output"),
    [("npx jest --ci", JEST), ("pytest -q", PYTEST), ("./build/timer_test", GTEST)],
    ids=["jest-clock-difference", "pytest-elapsed", "gtest-elapsed"],
)
def test_a_test_that_failed_only_on_a_wall_clock_budget_is_re_run_first(
    command: str, output: list[str]
) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "asserts a wall-clock budget" in dict(diagnosis.decided_by)["history"]


def test_a_runners_timeout_beside_the_budget_may_be_the_codes_hang() -> None:
    hung = [*JEST[:3], '    thrown: "Exceeded timeout of 5000 ms for a test.', *JEST[3:]]
    assert (diagnose_log(job_log("npx jest --ci", hung), job="test").owner, Action.AGENT) == CODE


def test_a_second_failing_test_keeps_the_failure_the_codes() -> None:
    other = [
        *PYTEST[:-3],
        "___ test_limiter_counts ___",
        "E       assert 3 == 4",
        "=========================== short test summary info ============================",
        "FAILED tests/test_limiter.py::test_limiter_spreads_calls - assert 0.61 < 0.5",
        "FAILED tests/test_limiter.py::test_limiter_counts - assert 3 == 4",
        "========================= 2 failed, 39 passed in 3.02s =========================",
    ]
    assert (diagnose_log(job_log("pytest -q", other), job="test").owner, Action.AGENT) == CODE


def test_a_time_read_only_in_the_codes_own_loop_is_no_budget() -> None:
    loop = [
        "___ test_retry_gives_up ___",
        "    def wait_ready(self):",
        "        while elapsed < self.timeout:",
        "            elapsed = time.monotonic() - start",
        "E       AssertionError: expected RetryError, got None",
        "=========================== short test summary info ============================",
        "FAILED tests/test_retry.py::test_retry_gives_up - AssertionError: expected RetryError, got None",
        "========================= 1 failed, 12 passed in 0.42s =========================",
    ]
    assert (diagnose_log(job_log("pytest -q", loop), job="test").owner, Action.AGENT) == CODE


def hypothesis_flaky(note: str) -> list[str]:
    return [
        "tests/test_props.py::test_downsample_preserves_mean FAILED                   [100%]",
        "=================================== FAILURES ===================================",
        "________________________ test_downsample_preserves_mean ________________________",
        "E   hypothesis.errors.FlakyFailure: Hypothesis test_downsample_preserves_mean(a=array(...)) "
        "produces unreliable results: Falsified on the first call but did not on a subsequent one (1 "
        "sub-exception)",
        f"E   {note}",
        "=========================== short test summary info ============================",
        "FAILED tests/test_props.py::test_downsample_preserves_mean - hypothesis.errors.FlakyFailure: "
        "Hypothesis test_downsample_preserves_mean(...) produces unreliable results",
        "================== 1 failed, 1060 passed in 141.60s (0:02:21) ==================",
    ]


def test_a_hypothesis_deadline_missed_once_and_met_on_replay_is_re_run_first() -> None:
    note = (
        "Unreliable test timings! On an initial run, this test took 262.81ms, which exceeded the deadline of "
        "200.00ms, but on a subsequent run it took 41.07 ms, which did not. If you expect this sort of "
        "variability in your test timings, consider turning deadlines off for this test by setting "
        "deadline=None."
    )
    diagnosis = diagnose_log(job_log("pytest -v", hypothesis_flaky(note)), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    # a property that answered differently on the same example, with no deadline missed: the code's
    changed = diagnose_log(job_log("pytest -v", hypothesis_flaky("AssertionError")), job="test")
    assert (changed.owner, changed.action) == CODE
    # a note whose first run was within the deadline says no deadline was missed
    within = note.replace("262.81ms", "12.81ms")
    assert diagnose_log(job_log("pytest -v", hypothesis_flaky(within)), job="test").action is Action.AGENT
