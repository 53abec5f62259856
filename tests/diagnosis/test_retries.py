"""A step that ran its whole command more than once: the tests each attempt failed."""

from __future__ import annotations

from healer.diagnosis.retries import attempts, differed_across_attempts, runs_of_one_suite

STAMP = "2026-11-03T10:02:11.0000000Z "


def test_attempts_are_cut_at_the_wrappers_lines_and_keep_the_rest() -> None:
    lines = [
        f"{STAMP}FAILED t.py::test_a - assert 0",
        f"{STAMP}##[warning]Attempt 1 failed. Reason: Child_process exited with error code 1",
        f"{STAMP}FAILED t.py::test_b - assert 0",
    ]
    assert attempts(lines) == [[lines[0]], [lines[2]]]


def test_an_attempt_that_failed_before_any_test_leaves_the_step_as_it_is() -> None:
    lines = [
        "error: could not compile `app`",
        "Attempt 1 failed. Reason: Child_process exited with error code 101",
        "test a::b ... FAILED",
    ]
    assert differed_across_attempts(lines) is None


def test_a_test_that_failed_on_every_attempt_beside_others_that_did_not_is_consistent() -> None:
    lines = [
        "--- FAIL: TestA (0.01s)",
        "--- FAIL: TestB (0.01s)",
        'The command "go test ./..." failed. Retrying, 2 of 3.',
        "--- FAIL: TestA (0.01s)",
    ]
    assert differed_across_attempts(lines) is None


def test_attempts_that_failed_other_tests_differ_and_name_the_last_ones() -> None:
    lines = [
        "--- FAIL: TestA (0.01s)",
        'The command "go test ./..." failed. Retrying, 2 of 3.',
        "--- FAIL: TestB (0.01s)",
    ]
    assert differed_across_attempts(lines) == (2, ("TestB",))


def test_a_test_that_prints_the_wrappers_words_inside_its_output_is_not_a_new_attempt() -> None:
    lines = ["    log: Attempt 1 failed. Reason: Child_process exited", "FAILED t.py::test_a - assert 0"]
    assert len(attempts(lines)) == 1


def test_the_wrappers_closing_words_after_the_last_attempt_are_not_an_attempt() -> None:
    lines = [
        "--- FAIL: TestA (0.01s)",
        "##[warning]Attempt 1 failed. Reason: Child_process exited with error code 1",
        "--- FAIL: TestB (0.01s)",
        "##[warning]Attempt 2 failed. Reason: Child_process exited with error code 1",
        "",
        "##[error]Final attempt failed. Child_process exited with error code 1",
    ]
    assert len(attempts(lines)) == 2
    assert differed_across_attempts(lines) == (2, ("TestB",))


def test_attempts_whose_runner_printed_no_ids_are_told_apart_by_their_failures_titles() -> None:
    # travis_retry around RSpec without its "Failed examples" list, and around AVA
    rspec = [
        "  1) Poller#run delivers events in order",
        "     expected [1, 2, 3] got [1, 3, 2]",
        'The command "bundle exec rspec" failed. Retrying, 2 of 3.',
        "  1) Poller#run stops after shutdown",
        'The command "bundle exec rspec" failed. Retrying, 3 of 3.',
        "  1) Poller#run delivers events in order",
        'The command "bundle exec rspec" failed 3 times.',
    ]
    assert differed_across_attempts(rspec) == (3, ("Poller#run delivers events in order",))
    ava = [
        "  ✖ server › broadcasts to all clients Error: Timeout exceeded",
        'The command "npm test" failed. Retrying, 2 of 3.',
        "  ✖ server › reconnects after drop Error: Timeout exceeded",
    ]
    assert differed_across_attempts(ava) == (2, ("server › reconnects after drop",))


def test_titles_that_failed_on_every_attempt_are_consistent_and_minitest_names_its_tests() -> None:
    same = [
        "  1) Poller#run stops after shutdown",
        'The command "bundle exec rspec" failed. Retrying, 2 of 3.',
        "  1) Poller#run stops after shutdown",
    ]
    assert differed_across_attempts(same) is None
    # minitest's numbered entries say "Failure:"; the line under each names the test (`ATest#test_a [f:3]:`)
    minitest = [
        "  1) Failure:",
        "ATest#test_a [test/a_test.rb:3]:",
        'The command "rake test" failed. Retrying, 2 of 3.',
        "  1) Failure:",
        "BTest#test_b [test/b_test.rb:9]:",
    ]
    assert differed_across_attempts(minitest) == (2, ("BTest#test_b",))
    again = [*minitest[:3], "  1) Error:", "ATest#test_a:", "Timeout::Error: execution expired"]
    assert differed_across_attempts(again) is None


def test_an_attempt_that_neither_failed_a_test_nor_passed_them_all_leaves_the_step_as_it_is() -> None:
    # a download retried before the tests ran, then one run of the suite
    lines = [
        "retrying in 5s (attempt 2/5)",
        "FAILED tests/test_a.py::test_a - assert 0",
        "==== 1 failed, 9 passed in 1.0s ====",
    ]
    assert differed_across_attempts(lines) is None
    # the second run did not compile: no test ran, nothing passed
    lines = [
        "=== Attempt 1 of 2",
        "--- FAIL: TestA (0.01s)",
        "=== Attempt 2 of 2",
        "./a.go:3:1: syntax error: unexpected }",
        "FAIL\tpkg [build failed]",
    ]
    assert differed_across_attempts(lines) is None


def test_a_runners_own_rerun_of_its_failures_is_an_attempt() -> None:
    rspec = [
        "Failures:",
        "  1) Notifications::Digest sends once per day",
        "412 examples, 1 failure",
        'Run options: include {:last_run_status=>"failed"}',
        "Failures:",
        "  1) Search::Indexer reindexes changed records",
        "1 example, 1 failure",
    ]
    assert differed_across_attempts(rspec) == (2, ("Search::Indexer reindexes changed records",))
    pytest_lf = [
        "tests/test_pool.py ....F",
        "===================== 1 failed, 44 passed in 2.11 seconds =====================",
        "run-last-failure: rerun previous 1 failure",
        "tests/test_pool.py .",
        "tests/test_sched.py F",
        "===================== 1 failed, 45 passed in 2.40 seconds =====================",
    ]
    assert differed_across_attempts(pytest_lf) == (2, ("tests/test_sched.py",))
    # the re-run failed the same test file again: the same failure twice
    again = [*pytest_lf[:3], "tests/test_pool.py F", pytest_lf[-1]]
    assert differed_across_attempts(again) is None


def pytest_run(collected: int, *failed: str) -> list[str]:
    return [
        "============================= test session starts ==============================",
        f"collected {collected} items",
        "",
        *(f"FAILED {name} - assert 0" for name in failed),
        f"========== {len(failed)} failed, {collected - len(failed)} passed in 3.10s ==========",
    ]


def test_a_script_that_ran_the_same_pytest_suite_twice_ran_two_attempts() -> None:
    # `for i in 1 2; do pytest tests/ && exit 0; done`: no wrapper speaks, pytest's header opens each run
    lines = [
        "Successfully installed pytest-8.3.4",
        *pytest_run(260, "t.py::test_a"),
        *pytest_run(260, "t.py::test_b"),
    ]
    assert differed_across_attempts(lines) == (2, ("t.py::test_b",))


def test_the_same_test_failing_in_both_runs_of_a_suite_is_consistent() -> None:
    lines = [*pytest_run(260, "t.py::test_a"), *pytest_run(260, "t.py::test_a", "t.py::test_b")]
    assert differed_across_attempts(lines) is None


def test_two_suites_run_one_after_the_other_are_not_attempts() -> None:
    # `pytest tests/unit || true; pytest tests/integration`: other suites, other failures
    lines = [*pytest_run(180, "tests/unit/t.py::test_a"), *pytest_run(40, "tests/integration/t.py::test_b")]
    assert differed_across_attempts(lines) is None


def test_pytest_xdist_runs_name_their_size_in_their_totals() -> None:
    # pytest-xdist's workers collect, so no run prints `collected N items`: each run's totals name its size
    def xdist_run(total: int, failed: str) -> list[str]:
        run = pytest_run(total, failed)
        return [run[0], "created: 4/4 workers", *run[2:]]

    lines = [*xdist_run(640, "t.py::test_a"), *xdist_run(640, "t.py::test_b"), *xdist_run(640, "t.py::c")]
    assert differed_across_attempts(lines) == (3, ("t.py::c",))
    # suites of other sizes are other suites
    other = [*xdist_run(640, "t.py::test_a"), *xdist_run(120, "it.py::test_b")]
    assert differed_across_attempts(other) is None


def test_phpunit_run_twice_by_the_script_is_read_by_its_banner_and_totals() -> None:
    def run(name: str) -> list[str]:
        return [
            "PHPUnit 11.4.4 by Sebastian Bergmann and contributors.",
            "Runtime:       PHP 8.3.14",
            "...........F..",
            "There was 1 failure:",
            f"1) {name}",
            "Failed asserting that 0 is identical to 1.",
            "FAILURES!",
            "Tests: 244, Assertions: 611, Failures: 1.",
        ]

    lines = [*run("Tests\\QueueTest::testDelay"), *run("Tests\\LockTest::testRelease")]
    assert differed_across_attempts(lines) == (2, ("Tests\\LockTest::testRelease",))


def go_run(failed: str, packages: tuple[str, ...] = ("api", "lease", "store", "watch")) -> list[str]:
    out = []
    for package in packages:
        if package == failed:
            out += [
                f"--- FAIL: Test{package.title()} (1.50s)",
                "FAIL",
                f"FAIL\texample.com/app/{package}\t1.902s",
            ]
        else:
            out.append(f"ok  \texample.com/app/{package}\t0.412s")
    return [*out, "FAIL"]


def test_go_test_run_again_by_a_loop_is_cut_where_a_package_reports_twice() -> None:
    # `for i in 1 2; do go test ./... && break; done`: go test prints each package's result once a run
    lines = [*go_run("watch"), *go_run("lease")]
    assert differed_across_attempts(lines) == (2, ("TestLease",))


def test_go_test_failing_the_same_test_in_each_run_is_consistent() -> None:
    assert differed_across_attempts([*go_run("watch"), *go_run("watch")]) is None


def test_go_test_runs_of_other_packages_are_not_attempts() -> None:
    # `go test ./internal/... || true; go test ./cmd/...` shares no package: two suites
    first = go_run("watch", ("api", "lease", "store", "watch"))
    second = go_run("cli", ("cli", "server", "api"))
    assert differed_across_attempts([*first, *second]) is None


def test_go_test_run_again_on_only_the_packages_that_failed_is_a_re_run() -> None:
    # a script re-running the failed packages: the second run tests `watch` alone, which failed in the first
    first = [
        "--- FAIL: TestWatchDebounce (1.50s)",
        "FAIL",
        "FAIL\texample.com/app/watch\t1.902s",
        "ok  \texample.com/app/api\t0.412s",
        "FAIL",
    ]
    second = ["--- FAIL: TestWatchReload (0.20s)", "FAIL", "FAIL\texample.com/app/watch\t0.302s", "FAIL"]
    assert differed_across_attempts([*first, *second]) == (2, ("TestWatchReload",))
    # a second run of a package that passed in the first is not a re-run of the failures
    other = [line.replace("/watch\t0.302s", "/api\t0.302s") for line in second]
    assert differed_across_attempts([*first, *other]) is None


def test_vitest_run_twice_by_a_loop_is_read_by_its_run_header_and_totals() -> None:
    def run(failed: str) -> list[str]:
        return [
            " RUN  v2.1.8 /home/runner/work/app/app",
            " ✓ src/graph.test.ts (13 tests) 211ms",
            f" FAIL  {failed}",
            " Test Files  1 failed | 54 passed (55)",
            "      Tests  1 failed | 611 passed (612)",
        ]

    lines = [
        *run("src/presence.test.ts > presence > marks offline"),
        *run("src/socket.test.ts > socket > reconnects"),
    ]
    assert differed_across_attempts(lines) == (2, ("src/socket.test.ts > socket > reconnects",))


def ctest_run(failed: str, build: str = "build") -> list[str]:
    """One CTest run as a script's loop prints it: its project line, its tests, its totals and list."""
    return [
        f"Test project /home/runner/work/eagle/eagle/{build}",
        "  1/88 Test   #1: parse ............................   Passed    0.34 sec",
        f" 88/88 Test  #88: {failed} ........................***Failed    0.69 sec",
        "",
        "99% tests passed, 1 tests failed out of 88",
        "",
        "The following tests FAILED:",
        f"\t 88 - {failed} (Failed)",
        "Errors while running CTest",
    ]


def test_ctest_run_again_by_a_loop_is_read_by_its_project_line_and_totals() -> None:
    lines = [*ctest_run("ipc_roundtrip"), "== attempt 2 ==", *ctest_run("timer_wheel_order")]
    assert len(runs_of_one_suite(lines)) == 2
    assert differed_across_attempts(lines) == (2, ("timer_wheel_order",))
    assert differed_across_attempts([*ctest_run("ipc_roundtrip"), *ctest_run("ipc_roundtrip")]) is None


def test_ctest_runs_of_two_build_directories_are_not_attempts() -> None:
    # a Debug and a Release build of the same suite: a test failing in one only is not flaky
    lines = [*ctest_run("ipc_roundtrip", "build-debug"), *ctest_run("timer_wheel_order", "build-release")]
    assert runs_of_one_suite(lines) == [lines]
    assert differed_across_attempts(lines) is None


def test_go_test_runs_that_did_not_report_the_same_packages_are_not_cut() -> None:
    # go test prints one result line a package a run: a run missing one is not the same suite's
    first = go_run("watch", ("api", "lease", "store", "watch"))
    second = go_run("lease", ("api", "lease", "store"))
    assert differed_across_attempts([*first, *second]) is None


def rspec_run(total: int, *failed: tuple[str, str]) -> list[str]:
    """One `bundle exec rspec` run: its failures, its totals, then its "Failed examples:" list."""
    out = ["Randomized with seed 11873", "", "Failures:", ""]
    for n, (spec, title) in enumerate(failed, 1):
        out += [f"  {n}) {title}", "     Failure/Error: expect(x).to eq(1)", f"     # {spec}", ""]
    out += ["Finished in 4.1 seconds", f"{total} examples, {len(failed)} failure{'s' * (len(failed) != 1)}"]
    out += ["", "Failed examples:", ""] + [f"rspec {spec} # {title}" for spec, title in failed] + [""]
    return out


DRIFT = ("./spec/drift_spec.rb:22", "Drift settles within the window")
CACHE = ("./spec/cache_spec.rb:48", "Cache expires stale keys")


def test_rspec_run_again_by_a_loop_is_cut_after_each_runs_totals_and_failed_examples() -> None:
    # `for i in 1 2 3; do bundle exec rspec && exit 0; done`: no header, the totals end each run
    lines = [*rspec_run(143, DRIFT), *rspec_run(143, CACHE)]
    assert differed_across_attempts(lines) == (2, ("./spec/cache_spec.rb:48",))


def test_rspec_failing_the_same_example_in_each_run_is_consistent() -> None:
    # the first run's "Failed examples:" list follows its totals: it stays with that run
    assert differed_across_attempts([*rspec_run(143, DRIFT, CACHE), *rspec_run(143, CACHE)]) is None


def test_rspec_runs_of_other_suites_are_not_attempts() -> None:
    # `rspec spec/unit; rspec spec/system`: other totals, other suites
    assert differed_across_attempts([*rspec_run(120, DRIFT), *rspec_run(23, CACHE)]) is None


def test_dotnet_test_run_again_by_a_script_is_read_by_its_totals() -> None:
    def run(*failed: str) -> list[str]:
        return [
            "Starting test execution, please wait...",
            *(f"  Failed {name} [312 ms]" for name in failed),
            f"Failed!  - Failed:     {len(failed)}, Passed:   {492 - len(failed)}, Skipped:     0, "
            "Total:   492, Duration: 41 s - Linnet.Tests.dll (net8.0)",
        ]

    clipboard, autosave = (
        "Linnet.Tests.ClipboardTests.CopiesRichText",
        "Linnet.Tests.AutosaveTests.WritesWithin",
    )
    assert differed_across_attempts([*run(clipboard), *run(autosave)]) == (2, (autosave,))
    assert differed_across_attempts([*run(clipboard, autosave), *run(autosave)]) is None


def test_dotnet_test_before_net5_run_again_by_a_loop_is_cut_after_its_totals_and_counts() -> None:
    # `for i in 1 2 3; do dotnet test && exit 0; done` on SDK 3.1: "Total tests: N" over its counts
    def run(failed: str, legacy_one_line: bool = False) -> list[str]:
        lines = ["  Passed Notify.Tests.SmsTests.StoresKeys [79 ms]", f"  Failed {failed} [2929 ms]"]
        lines += ["  Error Message:", "   Assert.Equal() Failure", "Test Run Failed."]
        if legacy_one_line:
            return [*lines, "Total tests: 96. Passed: 95. Failed: 1. Skipped: 0."]
        return [*lines, "Total tests: 96", "     Passed: 95", "     Failed: 1", " Total time: 2.9 Seconds"]

    queue, backoff = "Notify.Tests.QueueTests.DequeuesInOrder", "Notify.Tests.RetryTests.BackoffDoubles"
    assert differed_across_attempts([*run(queue), "attempt 1 failed", *run(backoff)]) == (2, (backoff,))
    assert differed_across_attempts([*run(queue, True), *run(backoff, True)]) == (2, (backoff,))
    assert differed_across_attempts([*run(queue), *run(queue)]) is None
    # another suite's size is another suite
    other = [line.replace("96", "12") for line in run(backoff)]
    assert differed_across_attempts([*run(queue), *other]) is None


def test_microsoft_testing_platforms_retry_extension_cuts_its_attempts() -> None:
    # `dotnet test -- --retry-failed-tests 2`: the extension's line after each attempt, then its verdict
    def attempt(n: int, test: str) -> list[str]:
        return [
            "Running tests from /src/tests/bin/Debug/net9.0/Shearwater.Tests.dll (net9.0|x64)",
            f"failed {test} (2s 301ms)",
            "  Assert.Equal() Failure: Values differ",
            f"Tests suite failed, total failed tests: 1, exit code: 2, attempt: {n}/3",
        ]

    queue, presence = "QueueTests.DrainsBeforeShutdown", "PresenceTests.ExpiresIdleClients(client: 7)"
    closing = ["Tests suite failed in all 3 attempts", "##[error]Process completed with exit code 2."]
    lines = [*attempt(1, queue), *attempt(2, queue), *attempt(3, presence), *closing]
    assert len(attempts(lines)) == 3
    assert differed_across_attempts(lines) == (3, (presence,))
    # the same test failed on every attempt: the code's
    assert differed_across_attempts([*attempt(1, queue), *attempt(2, queue), *closing]) is None


def test_jest_run_twice_by_the_script_is_read_by_its_totals() -> None:
    def run(test: str) -> list[str]:
        return [
            "FAIL src/broker.test.ts",
            f"  ● Broker › {test}",
            "Tests:       1 failed, 210 passed, 211 total",
            "Snapshots:   0 total",
            "Ran all test suites.",
        ]

    lines = [*run("delivers to late subscriber"), *run("acks in order")]
    assert differed_across_attempts(lines) == (2, ("src/broker.test.ts › Broker › acks in order",))


def test_attempts_named_by_ids_in_one_and_titles_in_another_are_not_compared() -> None:
    # the first run lists `rspec ./spec/…` ids, the re-run of its failures only titles: the same example
    lines = [*rspec_run(402, CACHE), 'Run options: include {:last_run_status=>"failed"}']
    lines += ["Failures:", f"  1) {CACHE[1]}", "1 example, 1 failure"]
    assert differed_across_attempts(lines) is None


def mocha_run(failed: str) -> list[str]:
    """One `npm test` run of mocha's spec reporter: its listing, its totals, then its failures' details."""
    return [
        "> lamplight@0.12.0 test",
        "> mocha --timeout 5000 test/integration",
        "",
        "  Integration",
        *(f"    {'1) ' if name == failed else '✓ '}{name}" for name in ("boots", "streams logs", "rotates")),
        "",
        "  2 passing (3s)",
        "  1 failing",
        "",
        "  1) Integration",
        f"       {failed}:",
        "     AssertionError [ERR_ASSERTION]: expected 2 rotated files, found 1",
        "",
        "npm ERR! Test failed.  See above for more details.",
    ]


def test_mocha_run_twice_by_the_script_is_cut_after_each_runs_failure_details() -> None:
    # `npm test || npm test`: each run's details follow its totals and stay with that run
    lines = [*mocha_run("streams logs"), "retrying once...", *mocha_run("rotates")]
    assert differed_across_attempts(lines) == (2, ("rotates", "Integration rotates"))
    assert differed_across_attempts([*mocha_run("rotates"), *mocha_run("rotates")]) is None


def test_mochas_failure_details_name_the_suite_and_the_test() -> None:
    # travis_retry cuts the attempts; each lists only its details: two tests of one suite are two tests
    def details(test: str) -> list[str]:
        return ["  1 failing", "", "  1) sheet", f"       {test}:", "     Error: Timeout of 4000ms exceeded."]

    lines = [*details("trims when the wind backs"), 'The command "npm test" failed. Retrying, 2 of 2.']
    lines += details("eases on a gust")
    assert differed_across_attempts(lines) == (2, ("sheet eases on a gust",))


def test_pytest_q_run_again_by_a_loop_is_cut_after_each_runs_last_line() -> None:
    # `for i in 1 2 3; do pytest -q && exit 0; done`: -q prints no header, each run ends with its counts
    def run(test: str, passed: int = 169) -> list[str]:
        return ["....F....", f"FAILED {test} - assert 0", f"1 failed, {passed} passed in 22.31s"]

    lines = [*run("tests/test_pool.py::test_fair"), *run("tests/test_timeouts.py::test_cancel")]
    assert differed_across_attempts(lines) == (2, ("tests/test_timeouts.py::test_cancel",))
    assert differed_across_attempts([*run("tests/a.py::t"), *run("tests/a.py::t")]) is None
    # unit tests, then integration tests: other totals, other suites
    assert differed_across_attempts([*run("tests/a.py::t"), *run("tests/it/b.py::t", passed=20)]) is None


def test_pytest_runs_without_a_summary_are_told_apart_by_their_failures_section_headings() -> None:
    # pytest before 6 prints no short summary unless asked (-r): each failure's section heading names it
    def run(test: str) -> list[str]:
        return ["....F....", "=" * 20 + " FAILURES " + "=" * 20, f"{'_' * 12} {test} {'_' * 12}"] + [
            "E       assert 0.052 <= 0.05",
            "tests/test_sensor.py:71: AssertionError",
            "1 failed, 205 passed in 4.81s",
        ]

    lines = [*run("test_gate_closes"), *run("TestSensor.test_poll_jitter[fast]")]
    assert differed_across_attempts(lines) == (2, ("TestSensor.test_poll_jitter[fast]",))
    assert differed_across_attempts([*run("test_gate_closes"), *run("test_gate_closes")]) is None
    # a traceback's own separator (`_ _ _ _`) is no heading
    assert differed_across_attempts([*run("test_a"), "_ _ _ _ _ _ _ _", *run("test_a")]) is None


def test_vitests_crossed_tests_name_each_attempts_failures_without_their_durations() -> None:
    def attempt(test: str, ms: int) -> list[str]:
        return [" ✓ src/queue.test.ts (12 tests) 41ms", " ❯ src/cron.test.ts (9 tests | 1 failed) 52ms"] + [
            f"   × {test} {ms}ms",
            "      Tests  1 failed | 402 passed (403)",
        ]

    between = "##[warning]Attempt 1 failed. Reason: Child_process exited with error code 1"
    lines = [*attempt("runs jobs in cron order", 31), between, *attempt("serves health on a free port", 12)]
    assert differed_across_attempts(lines) == (2, ("serves health on a free port",))
    # the same test, slower the second time, failed on both attempts
    same = [*attempt("runs jobs in cron order", 31), between, *attempt("runs jobs in cron order", 48)]
    assert differed_across_attempts(same) is None


def test_one_suite_run_by_tox_in_two_environments_is_not_two_attempts() -> None:
    # `tox -e py39,py312`: the same suite on two Pythons, a test failing on each of them only
    lines = [
        "py39: commands[0]> pytest",
        *pytest_run(260, "t.py::test_zoneinfo"),
        "py312: commands[0]> pytest",
        *pytest_run(260, "t.py::test_distutils"),
    ]
    assert differed_across_attempts(lines) is None
    # the same runs with no environment named between them are attempts
    runs = [line for line in lines if "commands[" not in line]
    assert differed_across_attempts(runs) == (2, ("t.py::test_distutils",))


def test_swift_test_run_twice_is_cut_after_each_runs_xctest_totals() -> None:
    def run(test: str) -> list[str]:
        return [
            "Test Case '-[Plinth.CacheTests testEvicts]' passed (0.007 seconds).",
            f"Test Case '-[Plinth.{test}]' failed (0.412 seconds).",
            "Executed 71 tests, with 1 failure (0 unexpected) in 3.118 (3.131) seconds",
        ]

    lines = [*run("DebounceTests testFiresOnce"), *run("ThrottleTests testDropsBurst")]
    assert differed_across_attempts(lines) == (2, ("Plinth.ThrottleTests testDropsBurst",))
    assert differed_across_attempts([*run("A testA"), *run("A testA")]) is None


def test_cypress_runs_retried_by_a_wrapper_are_told_apart_by_their_tables_failed_specs() -> None:
    # Cypress's table after each run ("(Run Finished)"): a spec with a failure is crossed; the totals line
    # under it ("✖  1 of 3 failed (33%)") names no spec
    def run(failed: str) -> list[str]:
        counts = {True: ("✖", "3", "1"), False: ("✔", "4", "-")}
        rows = [
            f"  │ {mark}  {spec:<40} 00:12        4        {passing}        {failing}        -        - │"
            for spec in ("auth.cy.ts", "search.cy.ts", "upload.cy.ts")
            for mark, passing, failing in [counts[spec == failed]]
        ]
        return [
            "       Spec      Tests  Passing  Failing  Pending  Skipped",
            *rows,
            "    ✖  1 of 3 failed (33%)",
        ]

    lines = [
        *run("upload.cy.ts"),
        "##[warning]Attempt 1 failed. Reason: Child_process exited with error code 1",
        *run("search.cy.ts"),
        "##[warning]Attempt 2 failed. Reason: Child_process exited with error code 1",
        *run("auth.cy.ts"),
        "##[error]Final attempt failed. Child_process exited with error code 1",
    ]
    assert differed_across_attempts(lines) == (3, ("auth.cy.ts",))
    # the same spec failing in every run: consistent, the code's
    same = [*run("auth.cy.ts"), "##[warning]Attempt 1 failed. Reason: Child_process exited with error code 1"]
    assert differed_across_attempts([*same, *run("auth.cy.ts")]) is None
