"""Failing test ids read from logs: the shared corpus, real tool output, and each runner's documented
lines."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.diagnosis.testids import (
    MAX_TEST_ID_CHARS,
    MAX_TEST_IDS,
    failing_test_ids,
    flaky_plugin_passes,
    passed_pytest_tests,
    retried_gradle_tests,
    retried_xcpretty_tests,
)

FIXTURES = Path(__file__).parent.parent / "fixtures"
CORPUS = FIXTURES / "corpus"
REAL = FIXTURES / "testids"


def ids_of(path: Path) -> tuple[str, ...]:
    return failing_test_ids(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        pytest.param("tool-pytest-exception.log", ("tests/test_d.py::test_zero",), id="pytest-failed"),
        pytest.param("tool-pytest-fixture-error.log", ("tests/test_f.py::test_uses_db",), id="pytest-error"),
        pytest.param(
            "pytorch-pytest-failure.log",
            ("distributed/test_c10d_spawn_gloo.py::TestDistributedNNFunctionsGloo::test_all_gather",),
            id="pytest-verbose-and-rerun-plugin",
        ),
        pytest.param("tool-node-test-fail.log", ("multiplies",), id="node-test-tap"),
        pytest.param(
            "cidiff-breakages-cidiff-57.log", ("ConsoleClientTest.testClassicParsing",), id="gradle"
        ),
        pytest.param(
            "cidiff-breakages-dump-build-terraform-cli-packages-run380.log",
            ("TestProviderTampering/cache_dir_totally_gone",),
            id="go-subtest-not-its-parent",
        ),
        pytest.param(
            "cidiff-breakages-dump-quick-checks-run376.log",
            (
                "TestRemote_VerifyWorkspaceTerraformVersion/local_0.14.0,_remote_1.2.0",
                "TestCloud_VerifyWorkspaceTerraformVersion/local_0.14.0,_remote_1.2.0",
            ),
            id="go-two-packages",
        ),
        pytest.param("tool-ruff-many-rules.log", (), id="a-lint-log-names-no-test"),
        pytest.param("tool-tsc-missing-prop.log", (), id="a-build-log-names-no-test"),
        pytest.param("pytorch-gha-timeout.log", (), id="a-timeout-names-no-test"),
    ],
)
def test_corpus_logs(log: str, expected: tuple[str, ...]) -> None:
    assert ids_of(CORPUS / log) == expected


def test_go_keeps_top_level_tests_and_drops_parents_of_failed_subtests() -> None:
    ids = ids_of(CORPUS / "cidiff-breakages-dump-quick-checks-run104.log")
    assert "TestCloud_config" in ids  # failed by itself, no subtest
    assert "TestCloud_configWithEnvVars" not in ids  # failed because its subtests did
    assert "TestCloud_configWithEnvVars/with_no_hostname_specified" in ids
    assert len(ids) == 10


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        pytest.param("cargo-test.txt", ("tests::nested::fails_too", "tests::adds"), id="cargo-test"),
        pytest.param(
            "unittest.txt",
            ("pkg.test_calc.TestCalc.test_boom", "pkg.test_calc.TestCalc.test_add"),
            id="unittest",
        ),
        pytest.param("node-test-tap.txt", ("multiplies", "inner case"), id="node-test-subtest-not-parent"),
    ],
)
def test_real_tool_output(fixture: str, expected: tuple[str, ...]) -> None:
    assert ids_of(REAL / fixture) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "FAILED tests/test_a.py::TestX::test_y[a-1] - assert 1 == 2\n",
            ("tests/test_a.py::TestX::test_y[a-1]",),
            id="pytest-param",
        ),
        pytest.param(
            "ERROR tests/test_b.py - ModuleNotFoundError: No module named 'x'\n",
            ("tests/test_b.py",),
            id="pytest-collection-error",
        ),
        pytest.param(
            "2026-01-01T00:00:00.1234567Z tests/t.py::test_a FAILED                [ 50%]\n",
            ("tests/t.py::test_a",),
            id="pytest-verbose-with-timestamp",
        ),
        pytest.param(
            "Failed examples:\n\nrspec ./spec/lock_spec.rb:44 # Lock expires after ttl\n"
            "rspec ./spec/models/user_spec.rb[1:2:1] # User is valid\n",
            ("./spec/lock_spec.rb:44", "./spec/models/user_spec.rb[1:2:1]"),
            id="rspec-failed-examples",
        ),
        pytest.param(
            "  Passed Store.Tests.CacheTests.Hits [4 ms]\n  Failed Store.Tests.CacheTests.Evicts [102 ms]\n"
            "  Failed Store.Tests.MathTests.Add(a: 1, b: 2) [< 1 ms]\n  Failed to restore packages [2 s]\n"
            "Failed!  - Failed:     2, Passed:   211, Skipped:     0, Total:   213, Duration: 14 s\n",
            ("Store.Tests.CacheTests.Evicts", "Store.Tests.MathTests.Add(a: 1, b: 2)"),
            id="vstest-console",
        ),
        pytest.param(
            "Chrome Headless 87.0.4280.88 (Linux x86_64) Stage resizes to viewport FAILED\n"
            "\tExpected 800 to be 1024.\n"
            "Chrome Headless 87.0.4280.88 (Linux x86_64): Executed 310 of 310 (1 FAILED) (4.2 secs)\n"
            "TOTAL: 1 FAILED, 309 SUCCESS\n",
            ("Stage resizes to viewport",),
            id="karma-progress",
        ),
        pytest.param(
            "[ RUN      ] StreamTest.Deadline\n[  FAILED  ] StreamTest.Deadline (21 ms)\n"
            "[  FAILED  ] Codec/RoundTrip.Bytes/2, where GetParam() = 16\n"
            "[  FAILED  ] 2 tests, listed below:\n[  FAILED  ] StreamTest.Deadline\n",
            ("StreamTest.Deadline", "Codec/RoundTrip.Bytes/2"),
            id="googletest",
        ),
        pytest.param(
            "  1) Failure:\nTern::ClockTest#test_ticks [test/clock_test.rb:19]:\nExpected: 1\n  Actual: 2\n"
            "  2) Error:\nTern::PoolTest#test_checkout_timeout:\nTimeout::Error: execution expired\n"
            "212 runs, 529 assertions, 1 failures, 1 errors, 0 skips\n",
            ("Tern::ClockTest#test_ticks", "Tern::PoolTest#test_checkout_timeout"),
            id="minitest",
        ),
        pytest.param(
            "Test Case '-[Plinth.CacheTests testEvicts]' passed (0.007 seconds).\n"
            "Test Case '-[Plinth.DebounceTests testFiresOnce]' failed (0.412 seconds).\n"
            "Test Case 'ThrottleTests.testDropsBurst' failed (1.004 seconds).\n",
            ("Plinth.DebounceTests testFiresOnce", "ThrottleTests.testDropsBurst"),
            id="xctest",
        ),
        pytest.param(
            "FAIL: test_add (calc_test.TestCalc)\n",
            ("calc_test.TestCalc.test_add",),
            id="unittest-before-3.11",
        ),
        pytest.param(
            "FAIL src/sum.test.js\n  Math\n    ✕ adds (3 ms)\n\n  ● Math › adds\n\n"
            "    expect(received).toBe(3)\n  ● Console\n\n    console.log\n",
            ("src/sum.test.js › Math › adds",),
            id="jest",
        ),
        pytest.param(
            "FAIL src/broken.test.js\n  ● Test suite failed to run\n\n    Cannot find module './x'\n",
            ("src/broken.test.js",),
            id="jest-suite-failed-to-run",
        ),
        pytest.param(
            " FAIL  src/sum.test.ts > Math > adds\nAssertionError: expected 1 to be 3\n",
            ("src/sum.test.ts > Math > adds",),
            id="vitest",
        ),
        pytest.param(
            "[ERROR] com.example.CalcTest.testAdd -- Time elapsed: 0.012 s <<< FAILURE!\n"
            "[ERROR] com.example.CalcTest.testDiv -- Time elapsed: 0.001 s <<< ERROR!\n",
            ("com.example.CalcTest.testAdd", "com.example.CalcTest.testDiv"),
            id="surefire-3",
        ),
        pytest.param(
            "[ERROR] testAdd(com.example.CalcTest)  Time elapsed: 0.012 sec  <<< FAILURE!\n",
            ("com.example.CalcTest.testAdd",),
            id="surefire-2",
        ),
        pytest.param(
            "com.example.CalcTest > testAdd FAILED\n    java.lang.AssertionError at CalcTest.java:12\n"
            "> Task :app:test FAILED\n",
            ("com.example.CalcTest.testAdd",),
            id="gradle-junit4",
        ),
        pytest.param(
            "\x1b[31mFAILED\x1b[0m tests/t.py::test_colour - x\n", ("tests/t.py::test_colour",), id="ansi"
        ),
        pytest.param("BUILD FAILED in 13s\nFAIL\tgithub.com/x/y\t0.01s\n", (), id="summaries-are-not-tests"),
        pytest.param(
            "FAILED tests/t.py::test_a - x\nFAILED tests/t.py::test_a - x\n",
            ("tests/t.py::test_a",),
            id="once",
        ),
    ],
)
def test_runner_lines(text: str, expected: tuple[str, ...]) -> None:
    assert failing_test_ids(text) == expected


def test_bounded_in_count_and_length() -> None:
    many = "".join(f"FAILED tests/t.py::test_{n} - x\n" for n in range(100))
    assert failing_test_ids(many) == tuple(f"tests/t.py::test_{n}" for n in range(MAX_TEST_IDS))
    long = failing_test_ids(f"test {'a' * 3000} ... FAILED\n")
    assert len(long) == 1 and len(long[0]) == MAX_TEST_ID_CHARS and long[0].endswith("…")


@given(st.lists(st.text(max_size=300), max_size=50))
def test_any_text_gives_bounded_single_line_ids(lines: list[str]) -> None:
    ids = failing_test_ids(lines)
    assert len(ids) <= MAX_TEST_IDS
    assert len(set(ids)) == len(ids)
    assert all(0 < len(i) <= MAX_TEST_ID_CHARS and "\n" not in i and "\x1b" not in i for i in ids)


def test_passed_pytest_tests_reads_verbose_and_xdist_lines() -> None:
    lines = [
        "2026-11-03T10:02:12.0000000Z tests/t.py::test_a[1-3] PASSED                  [ 33%]",
        "[gw1] [ 66%] PASSED tests/t.py::test_a[2-3] ",
        "tests/t.py::test_b FAILED",
        "tests/t.py::test_c SKIPPED",
    ]
    assert passed_pytest_tests(lines) == {"tests/t.py::test_a[1-3]", "tests/t.py::test_a[2-3]"}


def test_flaky_plugin_passes_keeps_the_fewest_passes_of_each_test() -> None:
    lines = [
        "test_a failed; it passed 1 out of the required 2 times.",
        "test_a failed; it passed 0 out of the required 2 times.",
        "test_b failed; it passed 1 out of the required 3 times.",
        "test_c failed (1 runs remaining out of 2).",
    ]
    assert flaky_plugin_passes(lines) == {"test_a": 0, "test_b": 1}


def test_retried_gradle_tests_are_those_that_passed_after_failing_in_the_same_task() -> None:
    lines = [
        "> Task :core:test",
        "com.x.ATest > a() PASSED",
        "> Task :app:test",
        "com.x.ATest > a() FAILED",
        "com.x.BTest > b() FAILED",
        "com.x.BTest > b() PASSED",
        "com.x.CTest > c() PASSED",
        "com.x.CTest > c() FAILED",
    ]
    assert retried_gradle_tests(lines) == {"com.x.BTest.b"}


def test_a_pytest_summary_line_with_an_empty_message_still_names_its_test() -> None:
    lines = ["FAILED tests/integration/test_scheduler.py::test_job_runs_once_per_tick - "]
    assert failing_test_ids(lines) == ("tests/integration/test_scheduler.py::test_job_runs_once_per_tick",)


def test_ctests_list_of_failed_tests_names_each_with_its_final_status() -> None:
    # CTest's summary after a run (the CMake manual's ctest(1) output): the list holds only final statuses
    lines = [
        "  7/12 Test  #7: wal_replay .......................***Failed    0.41 sec",
        "  8/12 Test  #8: pool_grow ........................   Passed    0.10 sec",
        "83% tests passed, 2 tests failed out of 12",
        "",
        "The following tests FAILED:",
        "\t  7 - wal_replay (Failed)",
        "\t 11 - io_uring_submit (Timeout)",
        "Errors while running CTest",
    ]
    assert failing_test_ids(lines) == ("wal_replay", "io_uring_submit")
    # a numbered list item that is not CTest's, and the tests that did not run because they are disabled
    assert failing_test_ids(["  3 - remove the old cache (done)", "\t  4 - slow_soak (Disabled)"]) == ()


def test_nextest_clojure_test_and_automake_name_their_failed_tests() -> None:
    # cargo-nextest: the test binary's id, then the test; its closing list repeats the same test once
    failed = "        FAIL [   0.511s] cobalt-rs::bin/server net::tests::accept"
    summary = "     Summary [  14.812s] 512 tests run: 511 passed, 1 failed"
    assert failing_test_ids([failed, summary, failed]) == ("net::tests::accept",)
    # clojure.test's report (`lein test`), a nested `testing` context's test too
    clojure = ["FAIL in (drains-under-load) (queue_test.clj:40)", "ERROR in (parse-all) (parser_test.clj:7)"]
    assert failing_test_ids(clojure) == ("drains-under-load", "parse-all")
    # Automake's harness: a script test and a TAP test's numbered case; not a bare word after "ERROR:"
    automake = ["PASS: tests/test_parser", "FAIL: tests/test_pool", "XPASS: t/io.tap 3 - reads the header"]
    assert failing_test_ids([*automake, "ERROR: Could not find a version"]) == ("tests/test_pool", "t/io.tap")


def test_unittests_verbose_lines_and_scalatests_reporter_name_their_failed_tests() -> None:
    # unittest -v (and nose): before 3.11 the class in parentheses, from 3.11 the test's full id; "ok" passed
    verbose = [
        "test_merge (tests.test_ranges.RangeTest) ... FAIL",
        "test_expiry (tests.test_cache.CacheTest.test_expiry) ... ERROR",
        "test_split (tests.test_ranges.RangeTest) ... ok",
    ]
    assert failing_test_ids(verbose) == (
        "tests.test_ranges.RangeTest.test_merge",
        "tests.test_cache.CacheTest.test_expiry",
    )
    # the same test in unittest's report after the run is one test
    assert failing_test_ids([verbose[0], "FAIL: test_merge (tests.test_ranges.RangeTest)"]) == (
        "tests.test_ranges.RangeTest.test_merge",
    )
    scalatest = [
        "RateCacheSpec:",
        "[info] - should refresh after the TTL *** FAILED ***",
        "[info] - should evict",
    ]
    assert failing_test_ids(scalatest) == ("should refresh after the TTL",)


def test_retried_xcpretty_tests_failed_and_then_passed_in_the_same_suite() -> None:
    # xcodebuild -retry-tests-on-failure through xcpretty: each suite's name, then its tests' marks
    lines = [
        "SyncTests",
        '    ✗ testMergeRemoteChanges, XCTAssertEqual failed: ("3") is not equal to ("4")',
        "UploadTests",
        "    ✗ testResume, XCTAssertTrue failed - upload did not resume within 2s",
        "    ✓ testCancel (0.105 seconds)",
        "SyncTests",
        "    ✓ testMergeRemoteChanges (0.412 seconds)",
        "CacheTests",
        "    ✓ testResume (0.033 seconds)",
    ]
    # a test of the same name passing in another suite is another test
    assert retried_xcpretty_tests(lines) == {"SyncTests.testMergeRemoteChanges"}
