"""Mix's re-run of the failures (`mix test || mix test --failed`), EUnit, `cargo test` and `mvn verify` run
again by a script: the runs told apart by ExUnit's, rebar3 EUnit's, libtest's and Surefire's totals."""

from __future__ import annotations

from joblogs import diagnose_log, job_log

from healer.diagnosis.retries import attempts, failed_per_attempt, runs_again, runs_of_one_suite
from healer.model import Action, Owner

RERUN = "mix test || mix test --failed"


def exunit_run(total: int, *failed: str, header: bool = True) -> list[str]:
    """One ExUnit run: its seed line (Elixir 1.12 and later), its numbered failures, its totals."""
    lines = ["Running ExUnit with seed: 73104, max_cases: 4", ""] if header else []
    for n, name in enumerate(failed, 1):
        lines += [
            f"  {n}) test {name} (Heron.SessionTest)",
            "     test/heron/session_test.exs:40",
            "     Assertion with == failed",
            "     left:  1",
            "     right: 0",
            "",
        ]
    lines += ["Finished in 6.1 seconds (2.0s async, 4.1s sync)", f"{total} tests, {len(failed)} failures", ""]
    return lines if header else [*lines, "Randomized with seed 11045"]


def test_mix_test_failed_in_the_script_opens_a_run_after_exunits_totals() -> None:
    lines = [*exunit_run(212, "expires idle sessions", "tracks joins"), *exunit_run(2, "tracks joins")]
    assert len(attempts(lines, RERUN)) == 2
    assert failed_per_attempt(lines, RERUN) == [
        ("test expires idle sessions (Heron.SessionTest)", "test tracks joins (Heron.SessionTest)"),
        ("test tracks joins (Heron.SessionTest)",),
    ]
    # ExUnit before 1.12 prints its seed after the totals, not before the run: the run still ends there
    old = [*exunit_run(212, "tracks joins", header=False), *exunit_run(1, "tracks joins", header=False)]
    assert len(attempts(old, RERUN)) == 2


def test_without_failed_in_the_script_or_in_an_umbrella_the_step_is_one_run() -> None:
    lines = [*exunit_run(212, "expires idle sessions"), *exunit_run(40, "tracks joins")]
    # two suites one after the other (`mix test && mix test --only integration`): not a re-run
    assert len(attempts(lines, "mix test && mix test --only integration")) == 1
    # an umbrella project runs ExUnit once an app, each after Mix's `==> app`
    umbrella = ["==> heron_core", *lines[:10], "==> heron_web", *lines[10:]]
    assert len(attempts(umbrella, RERUN)) == 1


def test_a_test_that_passed_under_mix_test_failed_is_re_run_first() -> None:
    output = [
        *exunit_run(241, "broadcasts presence", "expires idle sessions"),
        *exunit_run(2, "expires idle sessions"),
    ]
    diagnosis = diagnose_log(job_log(RERUN, output, exit_code=2), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, True)
    assert "broadcasts presence" in dict(diagnosis.decided_by)["history"]


def test_failures_that_moved_under_mix_test_failed_are_the_tests_history() -> None:
    output = [*exunit_run(201, "presence tracks joins"), *exunit_run(1, "channel replays history")]
    diagnosis = diagnose_log(job_log(RERUN, output, exit_code=2), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_the_same_test_failing_again_under_mix_test_failed_stays_the_codes() -> None:
    output = [*exunit_run(201, "presence tracks joins"), *exunit_run(1, "presence tracks joins")]
    diagnosis = diagnose_log(job_log(RERUN, output, exit_code=2), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_rebar3_eunit_run_twice_by_the_script_is_cut_after_each_runs_totals() -> None:
    def run(failed: str) -> list[str]:
        return [
            "===> Performing EUnit tests...",
            "..F.....",
            "Failures:",
            "",
            f"  1) {failed}",
            "     Failure/Error: ?assertEqual(10, 9)",
            "Finished in 0.512 seconds",
            "88 tests, 1 failures",
        ]

    lines = [*run("limiter_tests:sliding_window_test/0"), *run("limiter_tests:refill_test/0")]
    assert len(runs_of_one_suite(lines)) == 2
    assert failed_per_attempt(lines) == [
        ("limiter_tests:sliding_window_test/0",),
        ("limiter_tests:refill_test/0",),
    ]
    # two suites of other sizes, one after the other, are not attempts
    other = [
        *run("limiter_tests:sliding_window_test/0"),
        *run("ring_tests:wrap_test/0")[:-1],
        "12 tests, 1 failures",
    ]
    assert len(runs_of_one_suite(other)) == 1


def libtest_run(failed: str, total: int = 212) -> list[str]:
    return [
        f"running {total} tests",
        "test sync::tests::applies_snapshot ... ok",
        f"test {failed} ... FAILED",
        "",
        "failures:",
        "",
        f"---- {failed} stdout ----",
        "thread 'main' panicked at src/sync.rs:88:9:",
        "timed out waiting for condition",
        "",
        "failures:",
        f"    {failed}",
        "",
        f"test result: FAILED. {total - 1} passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 5.12s",
        "",
    ]


def test_cargo_test_run_again_by_a_loop_is_cut_after_each_binarys_test_result() -> None:
    lines = [*libtest_run("sync::tests::follower_catches_up"), *libtest_run("net::tests::backpressure")]
    assert failed_per_attempt(lines) == [("sync::tests::follower_catches_up",), ("net::tests::backpressure",)]
    command = "for i in 1 2 3; do cargo test && exit 0; done; exit 1"
    diagnosis = diagnose_log(job_log(command, lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    # the same test failing in both runs is the code's; two binaries of other sizes are not two runs
    same = [*libtest_run("sync::tests::follower_catches_up")] * 2
    assert diagnose_log(job_log(command, same), job="test").owner is Owner.CODE
    binaries = [*libtest_run("sync::tests::a"), *libtest_run("tests::b", total=30)]
    assert len(runs_of_one_suite(binaries)) == 1


def surefire_run(failed: str, total: int = 412) -> list[str]:
    """One `mvn verify` run that failed one test: Surefire's class line, its Results and totals."""
    cls, _, method = failed.rpartition(".")
    return [
        "[INFO] --- surefire:3.5.2:test (default-test) @ garnet ---",
        "[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 2.3 s <<< FAILURE! -- in "
        + cls,
        f"[ERROR] {failed} -- Time elapsed: 1.1 s <<< FAILURE!",
        "[INFO] Results:",
        "[ERROR] Failures: ",
        f"[ERROR]   {cls.rpartition('.')[2]}.{method} expected: <1> but was: <2>",
        f"[ERROR] Tests run: {total}, Failures: 1, Errors: 0, Skipped: 0",
        "[INFO] BUILD FAILURE",
    ]


def test_maven_run_again_by_the_script_is_cut_after_surefires_totals() -> None:
    first, second = "com.acme.ExpiryTest.expiresAfterTtl", "com.acme.CronTest.firesOnce"
    lines = [*surefire_run(first), "First attempt failed; retrying once", *surefire_run(second)]
    assert len(runs_of_one_suite(lines)) == 2
    assert failed_per_attempt(lines) == [(first,), (second,)]
    # the same test failing in both runs is the code's; two modules' suites of other sizes are not attempts
    assert failed_per_attempt([*surefire_run(first), *surefire_run(first)]) == [(first,), (first,)]
    assert len(runs_of_one_suite([*surefire_run(first, 412), *surefire_run(second, 88)])) == 1


def go_run(failed: str, *packages: str) -> list[str]:
    """One `go test ./...` run without -v: a result line for each package, the failing test's lines first."""
    lines = []
    for package in packages:
        if package == "internal/app":
            lines += [f"--- FAIL: {failed} (0.31s)", f"    app_test.go:41: {failed}: deadline", "FAIL"]
            lines.append(f"FAIL\tgithub.com/acme/bulbul/{package}\t1.204s")
        else:
            lines.append(f"ok  \tgithub.com/acme/bulbul/{package}\t0.512s")
    return [*lines, "FAIL"]


GO_AGAIN = "go test -race -count=1 ./... || go test -race -count=1 ./..."


def test_a_script_that_runs_go_test_again_on_failure_runs_it_twice_whatever_each_run_printed() -> None:
    # the second run crashed before it reported every package: its packages differ from the first run's
    first = go_run("TestDebounce", "internal/range", "internal/app", "internal/ui")
    second = go_run("TestShutdownOrder", "internal/range", "internal/app")
    output = [*first, *second]
    assert failed_per_attempt(output, "go test -race -count=1 ./...") is None
    assert len(failed_per_attempt(output, GO_AGAIN) or []) == 2
    diagnosis = diagnose_log(job_log(GO_AGAIN, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_a_test_that_failed_both_runs_of_a_script_that_runs_again_is_the_codes() -> None:
    output = [
        *go_run("TestDebounce", "internal/range", "internal/app", "internal/ui"),
        *go_run("TestDebounce", "internal/range", "internal/app"),
    ]
    diagnosis = diagnose_log(job_log(GO_AGAIN, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_two_suites_one_after_the_other_are_no_second_try() -> None:
    output = [
        *go_run("TestDebounce", "internal/range", "internal/app", "internal/ui"),
        *go_run("TestShutdownOrder", "internal/range", "internal/app"),
    ]
    two = "go test ./... && go test -tags integration ./..."
    diagnosis = diagnose_log(job_log(two, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def jest_run(total: int, *failed: str) -> list[str]:
    """One Jest run of ``src/sync.test.js``: a ``●`` block for each failing test, then its totals."""
    lines = ["FAIL src/sync.test.js"]
    for name in failed:
        lines += [f"  ● sync › {name}", "", "    expect(received).toBe(expected) // Object.is equality", ""]
    return [*lines, f"Tests:       {len(failed)} failed, {total - len(failed)} passed, {total} total", ""]


# npm's echo of the package script, then Jest's two runs: the whole suite, then only what failed
JEST_AGAIN = ["> sync@1.0.0 test", "> jest --ci || jest --ci --onlyFailures", ""]


def test_a_runners_re_run_of_its_failures_after_it_failed_is_a_second_try_of_the_same_code() -> None:
    # the re-run names a smaller suite than the first run, so its size does not tell the two runs apart
    moved = [*JEST_AGAIN, *jest_run(42, "retries after a 503"), *jest_run(8, "closes the socket")]
    diagnosis = diagnose_log(job_log("npm test", moved), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    # the same test failing in the re-run stays the code's
    same = [*JEST_AGAIN, *jest_run(42, "retries after a 503"), *jest_run(8, "retries after a 503")]
    diagnosis = diagnose_log(job_log("npm test", same), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_re_run_of_the_failures_is_known_by_the_runners_option_and_program() -> None:
    assert runs_again("pytest || pytest --lf -p no:randomly")
    assert runs_again("bundle exec rspec || (bundle exec rspec --only-failures)")
    assert runs_again("ctest --test-dir build || ctest --test-dir build --rerun-failed --output-on-failure")
    assert runs_again("npm test", ["> jest --ci || jest --ci --onlyFailures"])
    # another program after `||`, or no option of a re-run of the failures, is no second try
    assert not runs_again("pytest || coverage report --lf")
    assert not runs_again("pytest tests/unit || pytest tests/integration")
    assert not runs_again("make lint || npx eslint --onlyFailures")


def rspec_run(total: int, *failed: str, listed: bool = True) -> list[str]:
    """One RSpec run: its numbered failures, its totals, and (``listed``) its "Failed examples:" list."""
    lines = ["Failures:", ""]
    for n, name in enumerate(failed, 1):
        lines += [f"  {n}) Pantry {name}", "     Failure/Error: expect(x).to eq(1)", ""]
    lines += [
        "Finished in 2.1 seconds (files took 1.2 seconds to load)",
        f"{total} examples, {len(failed)} failures",
    ]
    if listed:
        lines += ["", "Failed examples:", ""]
        lines += [f"rspec ./spec/pantry_spec.rb:{10 * n} # Pantry {name}" for n, name in enumerate(failed, 1)]
    return lines


RSPEC_AGAIN = "bundle exec rspec || bundle exec rspec --only-failures"
RERUN_HEADER = ['Run options: include {:last_run_status=>"failed"}', ""]


def test_attempts_named_by_ids_in_one_and_titles_in_another_are_compared_by_their_titles() -> None:
    # the first run's list of failed examples is missing: its failures are known by their titles alone
    moved = [*rspec_run(300, "syncs stock", listed=False), *RERUN_HEADER, *rspec_run(2, "ranks names")]
    assert failed_per_attempt(moved, RSPEC_AGAIN) == [("Pantry syncs stock",), ("Pantry ranks names",)]
    # a title that failed on both is not told apart from an id that failed once: no reading
    both = [
        *rspec_run(300, "syncs stock", "ranks names", listed=False),
        *RERUN_HEADER,
        *rspec_run(2, "ranks names"),
    ]
    assert failed_per_attempt(both, RSPEC_AGAIN) is None
