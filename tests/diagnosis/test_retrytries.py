"""A runner's own tries of one test that failed a different way each time: CTest's ``--repeat until-pass``,
Playwright's retries, and Jest's logged retry errors under a monorepo tool's line prefix."""

from __future__ import annotations

import pytest
from joblogs import CODE, HISTORY_FIRST, diagnose_log, job_log

from healer.diagnosis.retrytries import ctest_tries, jest_retries, playwright_retries
from healer.model import Action

CTEST = "ctest --test-dir build --output-on-failure --repeat until-pass:3"
PLAYWRIGHT = "npx playwright test --retries=2"


def ctest_report(*tries: list[str]) -> list[str]:
    """A CTest run of one test that failed each of its tries, each try's output under its result line."""
    lines = [
        "Test project /home/runner/work/granary/granary/build",
        "    Start 7: net.AcceptBacklog",
        " 7/14 Test  #7: net.AcceptBacklog .................   Passed    0.41 sec",
    ]
    for number, output in enumerate(tries):
        lines += [
            "    Start 9: timer.Periodic",
            f" 9/14 Test  #9: timer.Periodic ....................***Failed    1.0{number} sec",
            *output,
        ]
    return [
        *lines,
        "",
        "93% tests passed, 1 tests failed out of 14",
        "The following tests FAILED:",
        "\t  9 - timer.Periodic (Failed)",
        "Errors while running CTest",
    ]


def gtest(actual: int, address: str = "0x7ffd4c2a1b30") -> list[str]:
    return [
        "[ RUN      ] Timer.Periodic",
        "/home/runner/work/granary/granary/tests/timer_test.cpp:33: Failure",
        f"Expected: (elapsed_ms) <= (110), actual: {actual} vs 110",
        f"timer at {address}",
        f"[  FAILED  ] Timer.Periodic ({actual} ms)",
    ]


def test_a_ctest_test_whose_tries_failed_on_different_values_is_re_run_first() -> None:
    output = ctest_report(gtest(127), gtest(114), gtest(131))
    assert ctest_tries(output) == ["timer.Periodic"]
    diagnosis = diagnose_log(job_log(CTEST, output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "failed a different way on each try" in dict(diagnosis.decided_by)["history"]


def test_a_ctest_test_that_failed_every_try_the_same_way_stays_the_codes() -> None:
    # addresses and durations differ from try to try; the assertion does not
    output = ctest_report(gtest(127), gtest(127, "0x7ffd4c2a1c70"), gtest(127, "0x7ffd4c2a1d10"))
    assert ctest_tries(output) == []
    assert (diagnose_log(job_log(CTEST, output), job="test").owner, Action.AGENT) == CODE


def test_a_ctest_try_that_printed_less_of_the_same_output_says_nothing_new() -> None:
    output = ctest_report(gtest(127), gtest(127)[2:3], [])
    assert ctest_tries(output) == []


def playwright_report(*errors: list[str]) -> list[str]:
    """Playwright's list reporter: the failed test's report, its first try's error, then each retry's."""
    lines = [
        "  ✘  5 [chromium] › e2e/subset.spec.ts:31:5 › downloads subset (4.1s)",
        "  ✘  6 [chromium] › e2e/subset.spec.ts:31:5 › downloads subset (retry #1) (2.3s)",
        "",
        "  1) [chromium] › e2e/subset.spec.ts:31:5 › downloads subset ────────────────────────────",
        "",
    ]
    for number, error in enumerate(errors):
        if number:
            lines += [f"    Retry #{number} ───────────────────────────────────────────", ""]
        lines += [
            *(f"    {line}" for line in error),
            "",
            "      29 |   await page.goto('/subset');",
            "    > 30 |   await page.getByRole('button', { name: 'Download' }).click();",
            "",
            "    Error Context: test-results/subset-downloads-subset-chromium"
            + (f"-retry{number}" if number else "")
            + "/error-context.md",
            "",
        ]
    return [
        *lines,
        "  1 failed",
        "    [chromium] › e2e/subset.spec.ts:31:5 › downloads subset",
        "  23 passed (1.4m)",
    ]


def test_a_playwright_test_whose_retries_failed_a_different_way_is_re_run_first() -> None:
    output = playwright_report(
        ["Error: page.goto: net::ERR_ABORTED at http://localhost:4173/subset"],
        ["Error: locator.click: Element is not attached to the DOM"],
    )
    assert playwright_retries(output) == ["[chromium] › e2e/subset.spec.ts:31:5 › downloads subset"]
    diagnosis = diagnose_log(job_log(PLAYWRIGHT, output), job="e2e")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST


@pytest.mark.parametrize(
    "retry",
    [
        # the same error on the retry, whose attachment path names the retry
        ["Test timeout of 30000ms exceeded.", "Error: locator.click: Test timeout of 30000ms exceeded."],
        # the retry printed only the error, not the test timeout before it
        ["Error: locator.click: Test timeout of 30000ms exceeded."],
    ],
    ids=["same-error", "less-of-the-same"],
)
def test_a_playwright_test_that_failed_every_retry_the_same_way_stays_the_codes(retry: list[str]) -> None:
    first = ["Test timeout of 30000ms exceeded.", "Error: locator.click: Test timeout of 30000ms exceeded."]
    output = playwright_report(first, retry, retry)
    assert playwright_retries(output) == []
    diagnosis = diagnose_log(job_log(PLAYWRIGHT, output), job="e2e")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_jests_retry_errors_are_read_under_a_monorepo_tools_line_prefix() -> None:
    prefix = "@cirrus/sync:test: "
    output = [
        f"{prefix}FAIL src/replicator.test.ts (14.2 s)",
        f"{prefix}  ● replicator › resumes after reconnect",
        prefix.rstrip(),
        f'{prefix}    thrown: "Exceeded timeout of 5000 ms for a test.',
        prefix.rstrip(),
        f"{prefix}  ● replicator › resumes after reconnect",
        prefix.rstrip(),
        f"{prefix}    RETRY 1",
        prefix.rstrip(),
        f"{prefix}    expect(received).toEqual(expected) // deep equality",
        prefix.rstrip(),
        f"{prefix}Tests:       1 failed, 140 passed, 141 total",
    ]
    assert jest_retries(output) == ([], ["replicator resumes after reconnect"])
    same = [
        line.replace(
            "expect(received).toEqual(expected) // deep equality",
            'thrown: "Exceeded timeout of 5000 ms for a test.',
        )
        for line in output
    ]
    assert jest_retries(same) == ([], [])


def jest_block(received: int, retry: int | None = None) -> list[str]:
    """A ``● title`` block of Jest's failures: the final failure, or (``retry``) one of its logged tries."""
    return [
        "  ● poller › stops within 200ms of abort",
        "",
        *([f"    RETRY {retry}", ""] if retry else []),
        "    expect(received).toBeLessThan(expected)",
        "    Expected: < 200",
        f"    Received:   {received}",
        "",
    ]


def test_jest_tries_of_the_same_matcher_on_different_values_failed_differently() -> None:
    output = ["FAIL src/poll.test.js", *jest_block(231), *jest_block(214, retry=1), "Tests:       1 failed"]
    assert jest_retries(output) == ([], ["poller stops within 200ms of abort"])
    same = ["FAIL src/poll.test.js", *jest_block(231), *jest_block(231, retry=1), "Tests:       1 failed"]
    assert jest_retries(same) == ([], [])
