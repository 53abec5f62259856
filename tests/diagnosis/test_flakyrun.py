"""A test failure in a run whose own retries showed another test flaky: re-run first (one case per runner's
report, from its documentation), and the failures that stay the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, HISTORY_FIRST, diagnose_log, job_log

from healer.diagnosis.diagnose import to_json
from healer.diagnosis.retryreports import passed_on_retry
from healer.diagnosis.retrytries import surefire_runs
from healer.model import Action, Owner

PYTEST_VERBOSE = [
    "tests/test_cache.py::test_ttl RERUN                                      [ 40%]",
    "tests/test_cache.py::test_ttl PASSED                                     [ 40%]",
    "tests/test_cache.py::test_lru RERUN                                      [ 80%]",
    "tests/test_cache.py::test_lru FAILED                                     [ 80%]",
    "FAILED tests/test_cache.py::test_lru - AssertionError: evicted 3, expected 2",
    "========== 1 failed, 40 passed, 2 rerun in 3.10s ==========",
]
PYTEST_SUMMARY = [
    "========================= rerun test summary info ==========================",
    "RERUN tests/test_ws.py::test_heartbeat",
    "RERUN tests/test_ws.py::test_resume",
    "RERUN tests/test_ws.py::test_resume",
    "FAILED tests/test_ws.py::test_resume - TimeoutError",
    "========== 1 failed, 80 passed, 3 rerun in 12.40s ==========",
]
PYTEST_COUNTS = [
    "FAILED tests/test_sched.py::test_slot - AssertionError: late by 0.4s",
    "========== 1 failed, 99 passed, 3 rerun in 8.20s ==========",
]
PLAYWRIGHT = [
    "  ✘  3 [firefox] › tests/toast.spec.ts:9:5 › toast hides (retry #1) (6.1s)",
    "  ✓  4 [firefox] › tests/chat.spec.ts:21:5 › typing shows (retry #1) (1.9s)",
    "  1 failed",
    "    [firefox] › tests/toast.spec.ts:9:5 › toast hides ─────────────────────",
    "  1 flaky",
    "    [firefox] › tests/chat.spec.ts:21:5 › typing shows ────────────────────",
    "  38 passed (2.2m)",
]
SUREFIRE = [
    "[WARNING] Flakes: ",
    "[WARNING] com.acme.PortTest.binds",
    "[ERROR]   Run 1: PortTest.binds:31 Address already in use",
    "[INFO]   Run 2: PASS",
    "[ERROR] Failures: ",
    "[ERROR]   ClockTest.ticks:22 expected: <10> but was: <9>",
    "[ERROR] Tests run: 140, Failures: 1, Errors: 0, Skipped: 0, Flakes: 1",
]
NEXTEST = [
    "        FAIL [   2.011s] app::net tests::handshake",
    "   TRY 2 PASS [   0.412s] app::net tests::handshake",
    "        FAIL [   1.800s] app::io tests::watch",
    "   TRY 2 FAIL [   1.900s] app::io tests::watch",
    "     Summary [  12.118s] 311 tests run: 310 passed (1 flaky), 1 failed, 0 skipped",
    "        FAIL [   1.900s] app::io tests::watch",
    "error: test run failed",
]
GINKGO = [
    "• [FLAKEY TEST - TOOK 2 ATTEMPTS TO PASS] [22.118 seconds]",
    "Ingress rewrites hosts [It] keeps the host header",
    "------------------------------",
    "• [FAILED] [31.402 seconds]",
    "Ingress rewrites paths [It] strips the prefix",
    "  [FAILED] Expected",
    "      <int>: 404",
    "  to equal",
    "      <int>: 200",
    "Summarizing 1 Failure:",
    "  [FAIL] Ingress rewrites paths [It] strips the prefix",
    "Ran 19 of 19 Specs in 212.544 seconds",
    "FAIL! -- 17 Passed | 1 Failed | 1 Flaked | 0 Pending | 0 Skipped",
    "--- FAIL: TestE2E (212.55s)",
    "FAIL",
]
GOTESTSUM_RERUNS = [
    "DONE 412 tests, 2 failures in 14.903s",
    "DONE 2 runs, 414 tests, 3 failures in 21.337s",
    "=== Failed",
    "=== FAIL: internal/store TestCompact (2.20s)",
    "=== FAIL: internal/upload TestResume (3.02s)",
    "=== FAIL: internal/store TestCompact (re-run 1) (5.03s)",
    "DONE 2 runs, 414 tests, 3 failures in 21.337s",
]
RSPEC_RETRY = [
    "RSpec::Retry: 2nd try ./spec/cache_spec.rb:38",
    "RSpec::Retry: 2nd try ./spec/clock_spec.rb:12",
    "RSpec::Retry: 3rd try ./spec/clock_spec.rb:12",
    "Failed examples:",
    "rspec ./spec/clock_spec.rb:12 # Clock ticks once a second",
]
FLAKY_PLUGIN = [
    "===Flaky Test Report===",
    "test_pool failed (1 runs remaining out of 2).",
    "test_pool passed 1 out of the required 1 times. Success!",
    "===End Flaky Test Report===",
    "FAILED tests/test_parse.py::test_token - ValueError: bad token",
    "1 failed, 9 passed in 2.10s",
]
MINITEST = [
    "[MinitestRetry] retry 'test_lookup_uses_cache' count: 1,  msg: Expected 1 calls, got 2.",
    "[MinitestRetry] retry 'test_sitemap_async' count: 1,  msg: Timed out after 2.0s",
    "[MinitestRetry] retry 'test_sitemap_async' count: 2,  msg: Expected 12 urls, got 11.",
    "[MinitestRetry] retry 'test_sitemap_async' count: 3,  msg: Timed out after 2.0s",
    "  1) Failure:",
    "SitemapTest#test_sitemap_async [test/sitemap_test.rb:22]:",
    "Timed out after 2.0s",
    "40 runs, 80 assertions, 1 failures, 0 errors, 0 skips",
]
GO_COUNT = [
    "--- FAIL: TestLeaderElection (1.52s)",
    "--- PASS: TestLeaderElection (0.84s)",
    "--- FAIL: TestLogReplication (2.04s)",
    "--- PASS: TestLogReplication (1.77s)",
    "--- FAIL: TestSnapshotInstall (5.00s)",
    "FAIL",
    "FAIL\texample.com/raft\t12.3s",
]
VITEST = [
    " ✓ src/clock.test.ts (4 tests) 1204ms",
    "   ✓ clock > ticks every second 1001ms (retry x1)",
    " ❯ src/sync.test.ts (5 tests | 1 failed) 3220ms",
    "   × sync > merges concurrent edits 1040ms (retry x2)",
    " FAIL  src/sync.test.ts > sync > merges concurrent edits",
    "AssertionError: expected 'abXc' to be 'aXbc'",
    " Test Files  1 failed | 22 passed (23)",
]
GOTESTSUM_PACKAGES = [
    "✖  internal/sched (1.204s)",
    "✓  internal/store (0.420s)",
    "DONE 412 tests, 1 failure in 14.331s",
    "✓  internal/sched (1.190s)",
    "✖  internal/gossip (2.551s)",
    "DONE 2 runs, 413 tests, 2 failures in 19.004s",
    "=== FAIL: internal/gossip TestConvergence (2.40s)",
]
GRADLE = [
    "> Task :app:test",
    "CacheTest > evicts() FAILED",
    "CacheTest > evicts() PASSED",
    "ClockTest > ticks() FAILED",
    "ClockTest > ticks() FAILED",
    "4 tests completed, 1 failed",
    "> Task :app:test FAILED",
]
TESTING_PLATFORM = [
    "failed Stagecoach.Tests.DispatcherTests.DeliversInOrderUnderLoad (1s 204ms)",
    "  Assert.AreEqual failed. Expected:<1>. Actual:<2>.",
    "Retry attempt 1 of 2",
    "passed Stagecoach.Tests.DispatcherTests.DeliversInOrderUnderLoad (980ms)",
    "failed Stagecoach.Tests.TimerWheelTests.FiresWithinTolerance (512ms)",
    "Test run summary: Failed! - Stagecoach.Tests.dll (net9.0|x64)",
    "  failed: 1",
]
XCPRETTY = [
    "▸ Build Succeeded",
    "SyncTests",
    '    ✗ testMergeRemoteChanges, XCTAssertEqual failed: ("3") is not equal to ("4")',
    "UploadTests",
    "    ✗ testResume, Asynchronous wait failed: Exceeded timeout of 3 seconds",
    "SyncTests",
    "    ✓ testMergeRemoteChanges (0.412 seconds)",
    "Executed 164 tests, with 2 failures (0 unexpected) in 58.211 (58.402) seconds",
    "** TEST FAILED **",
]


@pytest.mark.parametrize(
    ("command", "output", "named"),
    [
        ("pytest -v --reruns 1", PYTEST_VERBOSE, "tests/test_cache.py::test_ttl"),
        ("pytest -rR --reruns 2", PYTEST_SUMMARY, "tests/test_ws.py::test_heartbeat"),
        ("pytest --reruns 2", PYTEST_COUNTS, "1 re-run(s) of tests that then passed"),
        ("npx playwright test --retries=2", PLAYWRIGHT, "1 flaky test(s)"),
        ("mvn -B verify -Dsurefire.rerunFailingTestsCount=2", SUREFIRE, "1 flaky test(s)"),
        ("cargo nextest run --retries 2", NEXTEST, "1 flaky test(s)"),
        ("ginkgo -r --flake-attempts=2 ./test/e2e", GINKGO, "1 flaky test(s)"),
        ("gotestsum --rerun-fails=2 --packages=./...", GOTESTSUM_RERUNS, "internal/upload TestResume"),
        ("bundle exec rspec", RSPEC_RETRY, "./spec/cache_spec.rb:38"),
        ("pytest", FLAKY_PLUGIN, "test_pool"),
        ("./gradlew test", GRADLE, "CacheTest.evicts"),
        ("bin/rails test", MINITEST, "test_lookup_uses_cache"),
        ("go test -count=3 ./raft/...", GO_COUNT, "TestLeaderElection, TestLogReplication"),
        ("pnpm vitest run --retry=2", VITEST, "clock > ticks every second"),
        ("gotestsum --rerun-fails=2 --packages=./...", GOTESTSUM_PACKAGES, "internal/sched"),
        (
            "dotnet test --retry-failed-tests 2",
            TESTING_PLATFORM,
            "Stagecoach.Tests.DispatcherTests.DeliversInOrderUnderLoad",
        ),
        (
            "xcodebuild test -scheme App -retry-tests-on-failure -test-iterations 3 | xcpretty",
            XCPRETTY,
            "SyncTests.testMergeRemoteChanges",
        ),
    ],
)
def test_a_failure_beside_a_test_that_passed_on_a_retry_is_re_run_first(
    command: str, output: list[str], named: str
) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert named in dict(diagnosis.decided_by)["history"]
    assert dict(diagnosis.decided_by)["row"] == (
        f"(history, {diagnosis.category.value}) → rerun once; the agent if the same commit fails again"
    )


def test_ginkgos_summary_without_a_flaked_spec_keeps_the_failure_the_codes() -> None:
    steady = [line.replace("1 Flaked", "0 Flaked") for line in GINKGO if "FLAKEY" not in line]
    diagnosis = diagnose_log(job_log("ginkgo -r --flake-attempts=2 ./test/e2e", steady), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_gotestsum_runs_that_failed_different_tests_show_them_flaky() -> None:
    lines = [
        "=== FAIL: internal/pool TestAcquire (0.21s)",
        "DONE 312 tests, 1 failure in 14.9s",
        "=== FAIL: internal/pool TestShrink (0.30s)",
        "DONE 2 runs, 313 tests, 2 failures in 17.1s",
    ]
    retried = passed_on_retry(lines, ("TestShrink",))
    assert retried is not None
    assert retried.names == ("internal/pool TestAcquire", "internal/pool TestShrink")


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # re-runs of the failing test only: it failed every time and nothing else was retried
        (
            "pytest -v --reruns 2",
            [
                "tests/test_broker.py::test_ack RERUN",
                "tests/test_broker.py::test_ack RERUN",
                "tests/test_broker.py::test_ack FAILED",
                "FAILED tests/test_broker.py::test_ack - assert [1, 3, 2] == [1, 2, 3]",
                "1 failed, 311 passed, 2 rerun in 44.18s",
            ],
        ),
        (
            "pytest --reruns 2",
            ["FAILED tests/t.py::test_a - assert 0", "1 failed, 9 passed, 2 rerun in 1.0s"],
        ),
        # gotestsum re-ran the failing test, which failed again
        (
            "gotestsum --rerun-fails=2",
            [
                "DONE 10 tests, 1 failure in 1.0s",
                "=== FAIL: pkg TestA (0.01s)",
                "=== FAIL: pkg TestA (re-run 1) (0.01s)",
                "DONE 2 runs, 11 tests, 2 failures in 2.0s",
            ],
        ),
        # a passing test's name mentions flakiness; no runner reported a retry
        ("pytest", ["FAILED tests/test_flaky_io.py::test_flaky_read - assert 0", "1 failed, 2 passed"]),
        # minitest-retry retried one test up to its count: it failed every time
        (
            "bin/rails test",
            [
                "[MinitestRetry] retry 'test_a' count: 1,  msg: Expected 1, got 2.",
                "[MinitestRetry] retry 'test_a' count: 2,  msg: Expected 1, got 2.",
                "ATest#test_a [test/a_test.rb:3]:",
                "1 runs, 1 assertions, 1 failures, 0 errors, 0 skips",
            ],
        ),
        # Surefire's totals with no flake
        ("mvn -B test", ["[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Flakes: 0"]),
    ],
)
def test_a_failure_with_no_test_that_passed_on_a_retry_stays_the_codes(
    command: str, output: list[str]
) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE
    assert not diagnosis.rerun_first


def test_a_race_the_go_race_detector_reported_is_the_codes_beside_flaky_tests() -> None:
    lines = [
        "WARNING: DATA RACE",
        "    testing.go:1465: race detected during execution of test",
        "=== FAIL: internal/pool TestAcquire (0.21s)",
        "DONE 312 tests, 1 failure in 14.9s",
        "=== FAIL: internal/pool TestShrink (0.30s)",
        "DONE 2 runs, 313 tests, 2 failures in 17.1s",
    ]
    diagnosis = diagnose_log(job_log("gotestsum --rerun-fails=2 -- -race ./...", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_a_failing_test_whose_source_carries_a_flaky_marker_is_its_authors_flaky_test() -> None:
    lines = [
        "=================================== FAILURES ===================================",
        "___________________________ test_reconnect_after_drop ___________________________",
        "",
        "    @pytest.mark.flaky(reruns=2)",
        "    def test_reconnect_after_drop(server):",
        ">       assert client.reconnect(timeout=1)",
        "E       AssertionError",
        "FAILED tests/test_ws.py::test_reconnect_after_drop - AssertionError",
        "1 failed, 30 passed in 4.00s",
    ]
    diagnosis = diagnose_log(job_log("pytest", lines), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, False)


def test_a_flaky_marker_on_another_tests_source_does_not_excuse_the_failing_one() -> None:
    lines = [
        "___________________________ test_parse ___________________________",
        "    def test_parse():",
        "E       ValueError: bad token",
        "___________________________ test_retry ___________________________",
        "    @pytest.mark.flaky(reruns=2)",
        "    def test_retry():",
        "FAILED tests/test_p.py::test_parse - ValueError: bad token",
        "FAILED tests/test_p.py::test_retry - TimeoutError",
        "2 failed, 30 passed in 4.00s",
    ]
    diagnosis = diagnose_log(job_log("pytest", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_the_tests_that_failed_every_retry_are_the_ones_named_and_kept() -> None:
    diagnosis = diagnose_log(job_log("go test -count=3 ./raft/...", GO_COUNT), job="test")
    assert diagnosis.test_ids == ("TestSnapshotInstall",)
    assert "beside TestSnapshotInstall, which failed every retry" in dict(diagnosis.decided_by)["history"]


def rspec_tries(*errors: str) -> list[str]:
    lines = []
    for n, error in enumerate(errors, start=1):
        lines += [f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd'} Try error in ./spec/cart_spec.rb:14:"]
        lines += [error, ""]
    return [*lines, "Failed examples:", "rspec ./spec/cart_spec.rb:14 # Cart counts items"]


def test_an_example_that_failed_a_different_way_on_each_try_is_re_run_first() -> None:
    output = rspec_tries(
        "Selenium::WebDriver::Error::StaleElementReferenceError: stale element reference",
        'expected to find text "2 items" in "Cart 1 item Checkout"',
        'expected to find text "2 items" in "Cart 0 items Checkout"',
    )
    diagnosis = diagnose_log(job_log("bundle exec rspec spec/system", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "failed a different way on each try" in dict(diagnosis.decided_by)["history"]


def test_an_example_that_failed_the_same_way_on_each_try_is_the_codes() -> None:
    same = 'expected to find text "2 items" in "Cart 1 item Checkout"'
    diagnosis = diagnose_log(job_log("bundle exec rspec", rspec_tries(same, same, same)), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def jest_retries(*tries: str, final: str | None, other: bool = False) -> list[str]:
    """Jest's output with ``logErrorsBeforeRetry``: each failed try under ``RETRY N``, then the final failure;
    ``other`` adds a second test that failed every try the same way."""
    lines = [" FAIL  src/live/stream.test.ts", "  ● live stream › reconnects", ""]
    for n, error in enumerate(tries, start=1):
        lines += [f"    RETRY {n}", "", f"    {error}", ""]
    if final is not None:
        lines += ["  ● live stream › reconnects", "", f"    {final}", ""]
    if other:
        lines += ["  ● live stream › buffers", "", "    RETRY 1", "", "    expect(x).toBe(2)", ""]
        lines += ["  ● live stream › buffers", "", "    expect(x).toBe(2)", ""]
    return [*lines, "Tests:       1 failed, 64 passed, 65 total"]


def test_a_jest_test_that_failed_a_different_way_on_each_try_is_re_run_first() -> None:
    output = jest_retries(
        "expect(received).toBe(expected)",
        'thrown: "Exceeded timeout of 5000 ms"',
        final=("expect(jest.fn()).toHaveBeenCalledTimes(expected)"),
    )
    diagnosis = diagnose_log(job_log("npx jest --ci", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "failed a different way on each try" in dict(diagnosis.decided_by)["history"]


def test_a_jest_test_that_passed_on_a_retry_beside_one_that_failed_every_try_is_re_run_first() -> None:
    output = jest_retries("expect(received).toBe(expected)", final=None, other=True)
    diagnosis = diagnose_log(job_log("npx jest --ci", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "live stream reconnects failed and then passed" in dict(diagnosis.decided_by)["history"]


def test_a_jest_test_that_failed_the_same_way_on_every_try_is_the_codes() -> None:
    same = "expect(received).toBe(expected)"
    diagnosis = diagnose_log(job_log("npx jest --ci", jest_retries(same, same, final=same)), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_healer_diagnose_json_says_the_failure_is_re_run_first() -> None:
    diagnosis = diagnose_log(job_log("go test -count=3 ./raft/...", GO_COUNT), job="test")
    record = to_json("raft.log", diagnosis)
    assert (record["action"], record["rerun_first"], record["test_ids"]) == (
        "rerun",
        True,
        ["TestSnapshotInstall"],
    )
    plain = to_json("plain.log", diagnose_log(job_log("go test ./...", GO_COUNT[-3:]), job="test"))
    assert plain["rerun_first"] is False


GO_RERUN = [
    "--- FAIL: TestLeaseRenews (1.21s)",
    "FAIL",
    "FAIL\texample.com/lease\t1.633s",
    "Retrying failed packages once...",
    "--- PASS: TestLeaseRenews (1.01s)",
    "PASS",
    "ok  \texample.com/lease\t1.100s",
]
DOTNET_RERUN = [
    "  Failed Mail.Tests.ImapTests.IdleWakes [5 s]",
    "Failed!  - Failed:     1, Passed:   311, Skipped:     0, Total:   312",
    "Attempt 2 of 2 (only failed tests)",
    "  Failed Mail.Tests.SmtpTests.Pipelines [2 s]",
    "  Passed Mail.Tests.ImapTests.IdleWakes [1 s]",
    "Failed!  - Failed:     1, Passed:     1, Skipped:     0, Total:     2",
]
XCTEST = [
    "Test Case '-[AppTests.SyncTests testRefresh]' failed (2.113 seconds).",
    "Test Case '-[AppTests.SyncTests testRefresh]' passed (0.412 seconds).",
    "Test Case '-[AppTests.CacheTests testWarmup]' failed (1.020 seconds).",
    "Test Case '-[AppTests.CacheTests testWarmup]' failed (1.004 seconds).",
    "** TEST FAILED **",
]
CYPRESS = [
    "    (Attempt 1 of 3) acknowledges an alert",
    "    (Attempt 2 of 3) acknowledges an alert",
    "    ✓ acknowledges an alert (3121ms)",
    "    (Attempt 1 of 3) shows live CPU graph",
    "    (Attempt 2 of 3) shows live CPU graph",
    "    1) shows live CPU graph",
    "  1 passing",
    "  1 failing",
]


CTEST_UNTIL_PASS = [
    "Test project /home/runner/work/udpframe/udpframe/build",
    "      Start  7: net_loopback_burst",
    " 7/12 Test  #7: net_loopback_burst ...............***Failed    1.02 sec",
    "lost 3 of 10000 datagrams (tolerance 0)",
    "      Start  7: net_loopback_burst",
    "      Test  #7: net_loopback_burst ...............   Passed    0.98 sec",
    "      Start  9: net_reorder",
    " 9/12 Test  #9: net_reorder .....................***Failed    0.70 sec",
    "      Start  9: net_reorder",
    " 9/12 Test  #9: net_reorder .....................***Failed    0.71 sec",
    "92% tests passed, 1 tests failed out of 12",
    "The following tests FAILED:",
    "\t  9 - net_reorder (Failed)",
    "Errors while running CTest",
]


@pytest.mark.parametrize(
    ("command", "output", "named"),
    [
        ("./scripts/test-with-retry.sh", GO_RERUN, "TestLeaseRenews failed and then passed"),
        ("./build/test-with-retry.sh", DOTNET_RERUN, "Mail.Tests.ImapTests.IdleWakes failed and then passed"),
        ("npx cypress run", CYPRESS, "acknowledges an alert failed and then passed"),
        (
            "xcodebuild test -scheme App -retry-tests-on-failure",
            XCTEST,
            "testRefresh] failed and then passed",
        ),
        (
            "ctest --test-dir build --repeat until-pass:2 --output-on-failure",
            CTEST_UNTIL_PASS,
            "net_loopback_burst failed and then passed",
        ),
    ],
    ids=[
        "go-package-run-again",
        "dotnet-only-failed-tests-again",
        "cypress-attempts",
        "xctest-retry",
        "ctest-until-pass",
    ],
)
def test_a_test_that_failed_and_later_passed_in_the_step_is_re_run_first(
    command: str, output: list[str], named: str
) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert named in dict(diagnosis.decided_by)["history"]


def test_a_go_test_passing_earlier_or_in_another_package_is_not_read_as_a_re_run() -> None:
    other = [
        "--- PASS: TestOpen (0.01s)",
        "ok  \texample.com/a\t0.2s",
        "--- FAIL: TestOpen (0.01s)",
        "FAIL\texample.com/b\t0.3s",
        "--- PASS: TestOpen (0.01s)",
        "ok  \texample.com/c\t0.2s",
    ]
    diagnosis = diagnose_log(job_log("go test -v ./...", other), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_an_rspec_retry_example_tried_fewer_times_than_another_passed_on_a_try() -> None:
    """Without RSpec's failed-examples list, rspec-retry's tries say it: it tries until the example passes."""
    output = [
        "RSpec::Retry: 2nd try ./spec/jobs/sync_job_spec.rb:14",
        "RSpec::Retry: 2nd try ./spec/requests/health_spec.rb:5",
        "RSpec::Retry: 3rd try ./spec/requests/health_spec.rb:5",
        "Failures:",
        "  1) GET /health returns ok",
        "     Failure/Error: expect(response).to have_http_status(:ok)",
        "402 examples, 1 failure",
    ]
    diagnosis = diagnose_log(job_log("bundle exec rspec", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "./spec/jobs/sync_job_spec.rb:14 failed and then passed" in dict(diagnosis.decided_by)["history"]


def test_a_go_test_that_failed_on_fewer_runs_than_count_passed_the_others() -> None:
    output = [
        "--- FAIL: TestDebounce (0.06s)",
        "    debounce_test.go:29: fired 2 times within window, want 1",
        "FAIL",
        "FAIL\texample.com/raceflake/debounce\t0.183s",
    ]
    diagnosis = diagnose_log(job_log("go test -count=3 -run TestDebounce ./...", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, False)
    assert "fewer than 3 runs" in dict(diagnosis.decided_by)["history"]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # it failed on every one of the three runs
        ("go test -count=3 ./...", ["--- FAIL: TestA (0.01s)"] * 3 + ["FAIL\tpkg\t0.1s"]),
        # -failfast stops at the first failure: the other runs never happened
        ("go test -count=3 -failfast ./...", ["--- FAIL: TestA (0.01s)", "FAIL\tpkg\t0.1s"]),
        # a panic ends the test binary after the first run
        (
            "go test -count=5 ./...",
            [
                "--- FAIL: TestA (0.01s)",
                "panic: runtime error: index out of range [recovered]",
                "FAIL\tpkg\t0.1s",
            ],
        ),
        # -v prints each run's outcome: a run that said neither PASS nor FAIL did not finish
        (
            "go test -v -count=3 ./...",
            ["--- PASS: TestB (0.01s)", "--- FAIL: TestA (0.01s)", "FAIL\tpkg\t0.1s"],
        ),
    ],
)
def test_a_go_test_that_failed_on_every_run_it_had_stays_the_codes(command: str, output: list[str]) -> None:
    assert (diagnose_log(job_log(command, output), job="test").owner, "code") == (Owner.CODE, "code")


def test_a_vitest_test_that_failed_every_retry_alone_stays_the_codes() -> None:
    output = [
        "   × sync > merges concurrent edits 1040ms (retry x2)",
        " FAIL  src/sync.test.ts > sync > merges concurrent edits",
        "AssertionError: expected 'abXc' to be 'aXbc'",
        " Test Files  1 failed | 22 passed (23)",
    ]
    assert (diagnose_log(job_log("npx vitest run --retry=2", output), job="test").owner) is Owner.CODE


def test_ctest_tests_that_failed_every_repeat_stay_the_codes() -> None:
    output = [
        " 9/12 Test  #9: net_reorder .....................***Failed    0.70 sec",
        " 9/12 Test  #9: net_reorder .....................***Failed    0.71 sec",
        "10/12 Test #10: net_parse .......................   Passed    0.10 sec",
        "92% tests passed, 1 tests failed out of 12",
        "The following tests FAILED:",
        "\t  9 - net_reorder (Failed)",
    ]
    diagnosis = diagnose_log(job_log("ctest --repeat until-pass:2", output), job="test")
    assert diagnosis.owner is Owner.CODE


def test_a_surefire_rerun_test_that_failed_a_different_way_each_run_is_re_run_first() -> None:
    output = [
        "[ERROR] Tests run: 58, Failures: 1, Errors: 0, Skipped: 0",
        "[ERROR] Failures: ",
        "[ERROR] com.acme.bus.AsyncDispatchTest.deliversInOrder",
        "[ERROR]   Run 1: AsyncDispatchTest.deliversInOrder:44 expected: <[1, 2, 3]> but was: <[1, 3, 2]>",
        "[ERROR]   Run 2: AsyncDispatchTest.deliversInOrder:44 expected: <[1, 2, 3]> but was: <[2, 1, 3]>",
        "[ERROR]   Run 3: AsyncDispatchTest.deliversInOrder:41 ConditionTimeout Condition not satisfied",
        "[ERROR] Tests run: 58, Failures: 1, Errors: 0, Skipped: 0, Flakes: 0",
    ]
    command = "mvn -B -Dsurefire.rerunFailingTestsCount=2 test"
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    # the same message on every run: it failed the same way each time
    same = output[:4] + [output[3].replace("Run 1", "Run 2"), output[3].replace("Run 1", "Run 3"), output[-1]]
    assert diagnose_log(job_log(command, same), job="test").owner is Owner.CODE


def test_a_flaky_tests_runs_under_surefires_flakes_are_not_another_tests() -> None:
    # Surefire names the flaky test at WARNING level: its runs are its own, not the failing test's above it
    output = [
        "[ERROR] Failures: ",
        "[ERROR] io.acme.CacheTest.expiresAfterTtl",
        '[ERROR]   Run 1: CacheTest.expiresAfterTtl:48 expected: <null> but was: <"v1">',
        '[ERROR]   Run 2: CacheTest.expiresAfterTtl:48 expected: <null> but was: <"v1">',
        "[INFO] ",
        "[WARNING] Flakes: ",
        "[WARNING] io.acme.SchedulerTest.firesOnce",
        "[ERROR]   Run 1: SchedulerTest.firesOnce:71 expected: <1> but was: <2>",
        "[INFO]   Run 2: PASS",
        "[ERROR] Tests run: 311, Failures: 1, Errors: 0, Skipped: 4, Flakes: 1",
    ]
    assert surefire_runs(output) == []
    # the failing test's own runs, told apart, still are
    varied = [*output[:3], output[3].replace('"v1"', '"v2"'), *output[4:]]
    assert surefire_runs(varied) == ["io.acme.CacheTest.expiresAfterTtl"]


def test_jests_logged_retry_errors_of_a_test_that_then_passed_show_the_run_flaky() -> None:
    """Jest's default reporter logs a retried test's errors before the file's result (printTestFileHeader):
    `LOGGING RETRY ERRORS  <full name>`, then `RETRY N` and each try's error."""
    output = [
        " LOGGING RETRY ERRORS  queue drains in order",
        " RETRY 1 ",
        "",
        '    thrown: "Exceeded timeout of 5000 ms for a test."',
        "",
        " FAIL  src/ws/socket.test.ts",
        "  ● socket › closes",
        "",
        "    expect(received).toBe(expected)",
        "",
        "Tests:       1 failed, 611 passed, 612 total",
    ]
    diagnosis = diagnose_log(job_log("npx jest --ci", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST
    assert "queue drains in order failed and then passed" in dict(diagnosis.decided_by)["history"]
    # the logged test is the one that failed for good: it failed every try, the same way
    same = [
        " LOGGING RETRY ERRORS  socket closes",
        " RETRY 1 ",
        "    expect(received).toBe(expected)",
        " FAIL  src/ws/socket.test.ts",
        "  ● socket › closes",
        "",
        "    expect(received).toBe(expected)",
    ]
    assert diagnose_log(job_log("npx jest --ci", same), job="test").owner is Owner.CODE


def gtest_iteration(n: int, *failed: str) -> list[str]:
    """One of GoogleTest's `--gtest_repeat` iterations, printed with `--gtest_brief=1` (failures only)."""
    lines = [f"Repeating all tests (iteration {n}) . . .", ""]
    lines += [f"[  FAILED  ] {name} (21 ms)" for name in failed]
    lines += ["[==========] 184 tests from 22 test suites ran. (1120 ms total)"]
    if failed:
        lines += [f"[  FAILED  ] {len(failed)} test, listed below:", *(f"[  FAILED  ] {t}" for t in failed)]
    else:
        lines += ["[  PASSED  ] 184 tests."]
    return lines


def test_a_gtest_that_passed_in_another_iteration_of_the_repeat_is_flaky() -> None:
    command = "./build/codec_tests --gtest_repeat=3 --gtest_brief=1"
    output = [*gtest_iteration(1), *gtest_iteration(2, "StreamTest.Deadline"), *gtest_iteration(3)]
    diagnosis = diagnose_log(job_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert diagnosis.test_ids == ("StreamTest.Deadline",)
    # failing in every iteration is the code's
    every = [line for n in (1, 2, 3) for line in gtest_iteration(n, "StreamTest.Deadline")]
    assert diagnose_log(job_log(command, every), job="test").owner is Owner.CODE


def bazel_summary(*targets: str) -> list[str]:
    return [
        "[  FAILED  ] LedgerTest.ConcurrentPostings (412 ms)",
        "INFO: Build completed, 1 test FAILED, 3921 total actions",
        "//lattice:zenith_test                      PASSED in 4.1s",
        *targets,
        "Executed 72 out of 72 tests: 71 tests pass and 1 fails locally.",
    ]


def test_a_bazel_target_that_failed_in_some_of_its_runs_is_flaky() -> None:
    command = "bazel test //... --runs_per_test=3 --test_output=errors"
    some = bazel_summary("//services/ledger:ledger_test          FAILED in 1 out of 3 in 2.1s")
    diagnosis = diagnose_log(job_log(command, some), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    # a target that failed every run, or beside one that failed once with no count, stays the code's
    for also in ("//storage:wal_test  FAILED in 3 out of 3 in 9.0s", "//storage:wal_test  FAILED in 9.0s"):
        mixed = bazel_summary("//services/ledger:ledger_test  FAILED in 1 out of 3 in 2.1s", also)
        assert diagnose_log(job_log(command, mixed), job="test").owner is Owner.CODE


def test_a_target_bazel_calls_flaky_beside_a_failing_one_is_rerun_first() -> None:
    # --flaky_test_attempts=3: one target failed, then passed on a retry; another failed all three
    command = "bazel test //... --flaky_test_attempts=3 --test_output=errors"
    flaky = "//raft:election_test                    FLAKY, failed in 1 out of 2 in 8.4s"
    failed = "//services/ledger:ledger_test          FAILED in 3 out of 3 in 14.2s"
    diagnosis = diagnose_log(job_log(command, bazel_summary(flaky, failed)), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, True)
    said = dict(diagnosis.decided_by)["history"]
    assert "//raft:election_test failed and then passed on a retry" in said
    # Bazel retries the target whole: its failing case need not have failed on every attempt
    assert said.endswith(", beside LedgerTest.ConcurrentPostings, which failed")
    # without the flaky target, the target that failed every attempt is the code's
    assert diagnose_log(job_log(command, bazel_summary(failed)), job="test").owner is Owner.CODE


def flaky_report(first: str, last: str) -> list[str]:
    return [
        "===Flaky Test Report===",
        "",
        "test_lock_expiry passed 1 out of the required 1 times. Success!",
        "test_watchdog_restarts failed (1 runs remaining out of 2).",
        "\t<class 'AssertionError'>",
        f"\t{first}",
        "test_watchdog_restarts failed; it passed 0 out of the required 1 times.",
        "\t<class 'AssertionError'>",
        f"\t{last}",
        "",
        "===End Flaky Test Report===",
        "FAILED tests/test_watchdog.py::test_watchdog_restarts - assert 2 == 1",
        "========== 1 failed, 401 passed in 48.02s ==========",
    ]


def test_a_test_the_flaky_plugin_saw_fail_a_different_way_each_run_failed_differently() -> None:
    varied = passed_on_retry(flaky_report("assert 0 == 1", "assert 2 == 1"), ())
    assert varied is not None and varied.differently and varied.names == ("test_watchdog_restarts",)
    # the same error on both runs: no retry showed the suite answering differently
    assert passed_on_retry(flaky_report("assert 0 == 1", "assert 0 == 1"), ()) is None
    # without the summary's test ids (pytest without -r), the run is re-run first
    output = flaky_report("assert 0 == 1", "assert 2 == 1")[:-2] + [
        "========== 1 failed, 401 passed in 48.02s =========="
    ]
    diagnosis = diagnose_log(job_log("pytest", output), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == HISTORY_FIRST


def travis_log(first: str, output: list[str], again: str, code: int) -> str:
    """A Travis CI job whose script phase ran ``first`` (failing with ``output``), then ``again`` (exit
    ``code``): Travis runs every script command even after one failed."""
    lines = [
        "travis_time:start:0c6d0705\r\x1b[0K$ " + first,
        *output,
        "travis_time:end:0c6d0705:start=1,finish=2,duration=1\r\x1b[0K\x1b[31;1m"
        f'The command "{first}" exited with 1.',
        "travis_time:start:575995e4\r\x1b[0K$ " + again,
        "1 passed in 0.41s",
        "travis_time:end:575995e4:start=3,finish=4,duration=1\r\x1b[0K"
        f'The command "{again}" exited with {code}.',
        "",
        "Done. Your build exited with 1.",
    ]
    return "\n".join(lines) + "\n"


PYTEST_FAILED = [
    "tests/test_watch.py .F.                                                  [100%]",
    "FAILED tests/test_watch.py::test_watcher_sees_rename - AssertionError: no event in 2.0s",
    "========================= 1 failed, 2 passed in 3.10s =========================",
]


def test_failures_a_later_travis_command_re_ran_and_saw_pass_are_the_tests_history() -> None:
    diagnosis = diagnose_log(travis_log("pytest", PYTEST_FAILED, "pytest --lf", 0))
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "`pytest --lf` re-ran the failures" in dict(diagnosis.decided_by)["history"]


@pytest.mark.parametrize(
    ("again", "code"),
    [
        pytest.param("pytest --lf", 1, id="the-re-run-failed-too"),
        pytest.param("pytest tests/test_other.py", 0, id="not-a-re-run-of-the-failures"),
        pytest.param("mix test --failed", 0, id="another-runners-re-run"),
    ],
)
def test_failures_not_seen_to_pass_later_stay_the_codes(again: str, code: int) -> None:
    diagnosis = diagnose_log(travis_log("pytest", PYTEST_FAILED, again, code))
    assert (diagnosis.owner, diagnosis.action) == CODE


JEST_FAILED = [
    "FAIL src/jobs/digest.test.js",
    "  ● digest › sends at 08:00 local",
    "",
    "    expect(received).toBe(expected) // Object.is equality",
    "",
    "Tests:       1 failed, 96 passed, 97 total",
]


@pytest.mark.parametrize("first", ["npm test", "npx jest --ci"])
def test_jest_failures_a_later_only_failures_run_saw_pass_are_the_tests_history(first: str) -> None:
    again = f"{first} {'-- ' if first.startswith('npm') else ''}--onlyFailures"
    diagnosis = diagnose_log(travis_log(first, JEST_FAILED, again, 0))
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "--onlyFailures` re-ran the failures" in dict(diagnosis.decided_by)["history"]
    # the same re-run failing again keeps them the code's
    assert diagnose_log(travis_log(first, JEST_FAILED, again, 1)).owner is Owner.CODE
