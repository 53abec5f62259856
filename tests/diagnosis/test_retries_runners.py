"""A suite run again by the step's own script, told apart by more runners' output: cargo-nextest's header,
PHPUnit's totals, Automake's test harness summary, and clojure.test's and ScalaTest's failures under
`travis_retry`."""

from __future__ import annotations

from joblogs import diagnose_log, job_log

from healer.diagnosis.retries import differed_across_attempts, failed_per_attempt, runs_of_one_suite
from healer.model import Action, Category, Owner


def nextest_run(failed: str, total: int = 512) -> list[str]:
    """One `cargo nextest run` that failed one test: its header, a pass, the failure with libtest's output,
    its summary and the failure again in its closing list."""
    name = failed.rpartition(" ")[2]
    return [
        f"    Starting {total} tests across 9 binaries (3 tests skipped)",
        "        PASS [   1.561s] cobalt-rs delta::tests::session_format",
        f"        FAIL [   0.511s] {failed}",
        "",
        f"--- STDOUT:              {failed} ---",
        "running 1 test",
        f"test {name} ... FAILED",
        "",
        f"--- STDERR:              {failed} ---",
        f"thread '{name}' panicked at src/net.rs:114:9:",
        "assertion failed: elapsed < Duration::from_millis(50)",
        "------------",
        f"     Summary [  14.812s] {total} tests run: {total - 1} passed, 1 failed, 3 skipped",
        f"        FAIL [   0.511s] {failed}",
        "error: test run failed",
    ]


def test_nextest_run_again_by_the_script_is_cut_at_each_runs_header() -> None:
    first, second = "cobalt-rs net::tests::accept_backlog", "cobalt-rs store::tests::compaction"
    lines = [*nextest_run(first), "+ cargo nextest run --profile ci", *nextest_run(second)]
    assert len(runs_of_one_suite(lines)) == 2
    assert failed_per_attempt(lines) == [("net::tests::accept_backlog",), ("store::tests::compaction",)]
    command = "cargo nextest run --profile ci || cargo nextest run --profile ci"
    diagnosis = diagnose_log(job_log(command, lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    # the same test failing twice is the code's; two suites of other sizes are not two runs
    assert diagnose_log(job_log(command, nextest_run(first) * 2), job="test").owner is Owner.CODE
    assert len(runs_of_one_suite([*nextest_run(first), *nextest_run(second, total=30)])) == 1


def phpunit_run(failed: str, seed: int) -> list[str]:
    """One run under ParaTest, whose banner is not PHPUnit's own, with PHPUnit's failure and totals."""
    return [
        "ParaTest v7.4.3 upon PHPUnit 10.5.2 by Sebastian Bergmann and contributors.",
        "",
        f"Random Seed:   {seed}",
        "...............F....",
        "",
        "There was 1 failure:",
        "",
        f"1) {failed}",
        "Failed asserting that two strings are identical.",
        "",
        "FAILURES!",
        "Tests: 1190, Assertions: 3522, Failures: 1.",
    ]


def test_phpunit_run_again_by_a_loop_is_cut_after_its_totals() -> None:
    first, second = r"Tests\Unit\RegistryTest::testStartsEmpty", r"Tests\Unit\ClockTest::testFrozenNow"
    lines = [*phpunit_run(first, 1001), *phpunit_run(second, 2002)]
    assert len(runs_of_one_suite(lines)) == 2
    command = "for seed in 1001 2002; do vendor/bin/paratest --random-order-seed=$seed || status=1; done"
    diagnosis = diagnose_log(job_log(command, lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert diagnose_log(job_log(command, phpunit_run(first, 1) * 2), job="test").owner is Owner.CODE


def automake_run(failed: str) -> list[str]:
    """One `make check` under Automake's parallel test harness: each test's result, then its summary."""
    return [
        "PASS: tests/test_parser",
        f"FAIL: {failed}",
        "PASS: tests/test_router",
        "============================================================================",
        "Testsuite summary for snotter 2.1.0",
        "============================================================================",
        "# TOTAL: 3",
        "# PASS:  2",
        "# SKIP:  0",
        "# XFAIL: 0",
        "# FAIL:  1",
        "# XPASS: 0",
        "# ERROR: 0",
        "See ./test-suite.log",
        "make[1]: *** [Makefile:1211: test-suite.log] Error 1",
        "make: *** [Makefile:1466: check-am] Error 2",
    ]


def test_automakes_harness_names_failed_tests_and_ends_each_make_check() -> None:
    once = diagnose_log(job_log("make check", automake_run("tests/test_pool"), exit_code=2), job="test")
    assert (once.rule, once.category) == ("cpp.automake-tests-failed", Category.TEST)
    assert once.action is Action.AGENT
    assert once.test_ids == ("tests/test_pool",)
    twice = [*automake_run("tests/test_timerwheel"), *automake_run("tests/test_pool")]
    assert failed_per_attempt(twice) == [("tests/test_timerwheel",), ("tests/test_pool",)]
    moved = diagnose_log(job_log("make check || make check", twice, exit_code=2), job="test")
    assert (moved.owner, moved.action) == (Owner.HISTORY, Action.RERUN)


def lein_attempt(name: str, line: int) -> list[str]:
    """One `lein test` attempt that failed one clojure.test test: the namespace, the report, the totals."""
    return [
        "lein test weir.core-test",
        "",
        f"FAIL in ({name}) (queue_test.clj:{line})",
        "expected: (= 0 (count q))",
        "  actual: (not (= 0 1))",
        "",
        "Ran 64 tests containing 310 assertions.",
        "1 failures, 0 errors.",
        "Tests failed.",
    ]


def test_clojure_tests_that_move_between_travis_retry_attempts_are_history() -> None:
    retry = 'The command "lein test" failed. Retrying, {} of 3.'
    lines = [
        *lein_attempt("drains-under-load", 40),
        retry.format(2),
        *lein_attempt("ticks-monotonic", 18),
        retry.format(3),
        *lein_attempt("drains-under-load", 40),
        'The command "lein test" failed 3 times.',
    ]
    assert failed_per_attempt(lines, "travis_retry lein test") == [
        ("drains-under-load",),
        ("ticks-monotonic",),
        ("drains-under-load",),
    ]
    diagnosis = diagnose_log(job_log("travis_retry lein test", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def sbt_attempt(failed: str) -> list[str]:
    """One `sbt test` attempt that failed one ScalaTest test: its suite, the failure, sbt's error."""
    return [
        "[info] RateCacheSpec:",
        "[info] - should serve a cached rate",
        f"[info] - {failed} *** FAILED ***",
        "[info]   1 was not equal to 2 (RateCacheSpec.scala:41)",
        "[info] *** 1 TEST FAILED ***",
        "[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful",
    ]


def test_scalatest_failures_that_move_between_travis_retry_attempts_are_history() -> None:
    retry = 'The command "sbt ++2.13.5 test" failed. Retrying, {} of 3.'
    lines = [
        *sbt_attempt("should refresh after the TTL"),
        retry.format(2),
        *sbt_attempt("should fire jobs in submission order"),
        retry.format(3),
        *sbt_attempt("should refresh after the TTL"),
    ]
    command = "travis_retry sbt ++2.13.5 test"
    assert diagnose_log(job_log(command, lines), job="test").action is Action.RERUN
    same = [
        *sbt_attempt("should refresh after the TTL"),
        retry.format(2),
        *sbt_attempt("should refresh after the TTL"),
    ]
    assert diagnose_log(job_log(command, same), job="test").owner is Owner.CODE


def pytest_run(failed: str | None) -> list[str]:
    """One `pytest -q` run of a 455-test suite: its header, and a failure or none, then its last line."""
    lines = [
        "============================= test session starts ==============================",
        "collected 455 items",
    ]
    if failed:
        lines += [
            f"FAILED {failed} - AssertionError: assert 'k' not in cache",
            "1 failed, 454 passed in 8.12s",
        ]
    return [*lines, "455 passed in 7.55s"] if not failed else lines


def test_a_suite_that_passed_in_another_run_of_the_same_step_is_history() -> None:
    failed = "tests/test_cache_ttl.py::test_entry_expires_after_ttl"
    command = 'fail=0; for i in 1 2 3; do pytest -p randomly || fail=$((fail+1)); done; test "$fail" -eq 0'
    lines = [*pytest_run(None), *pytest_run(failed), *pytest_run(None)]
    diagnosis = diagnose_log(job_log(command, lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "passed in another" in dict(diagnosis.decided_by)["history"]
    # every run failing the same test is the code's; one run alone says nothing of another
    assert (
        diagnose_log(job_log(command, [*pytest_run(failed), *pytest_run(failed)]), job="test").owner
        is Owner.CODE
    )
    assert diagnose_log(job_log("pytest", pytest_run(failed)), job="test").owner is Owner.CODE


def test_unittest_run_twice_by_the_script_is_cut_after_each_runs_ran_line() -> None:
    def run(name: str, where: str) -> list[str]:
        return [
            f"{name} ({where}) ... FAIL",
            "=" * 70,
            f"FAIL: {name} ({where})",
            "-" * 70,
            "AssertionError: False is not true",
            "Ran 151 tests in 3.902s",
            "",
            "FAILED (failures=1)",
        ]

    lines = [
        *run("test_lock_released", "tests.test_lock.LockTest"),
        *run("test_cleanup", "tests.test_spool.SpoolTest"),
    ]
    assert failed_per_attempt(lines) == [
        ("tests.test_lock.LockTest.test_lock_released",),
        ("tests.test_spool.SpoolTest.test_cleanup",),
    ]
    diagnosis = diagnose_log(job_log("nosetests -v || nosetests -v", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_karma_run_again_by_the_script_is_cut_after_its_total() -> None:
    # `npm run test:ci || npm run test:ci` around `karma start --single-run`
    def run(test: str, failed: int = 1) -> list[str]:
        browser = "Chrome Headless 121.0.6167.85 (Linux x86_64)"
        return [
            "> karma start --single-run --browsers ChromeHeadless",
            f"{browser}: Executed 64 of 612 SUCCESS (0 secs / 0.256 secs)",
            f"{browser} {test} FAILED",
            "\tExpected 12 to equal 10.",
            f"{browser}: Executed 612 of 612 ({failed} FAILED) (9.842 secs / 9.1 secs)",
            f"TOTAL: {failed} FAILED, {612 - failed} SUCCESS",
        ]

    lines = [*run("Tooltip positions after scroll"), *run("Autosave debounces keystrokes")]
    assert differed_across_attempts(lines) == (2, ("Autosave debounces keystrokes",))
    assert differed_across_attempts([*run("Tooltip positions"), *run("Tooltip positions")]) is None
