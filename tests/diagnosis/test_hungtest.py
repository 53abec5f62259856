"""A job its time limit stopped while the test harness named a test still running: the code's test hangs."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.model import Action, Category, Owner

_LIMIT = (
    "##[error]The job running on runner GitHub Actions 7 has exceeded the maximum execution time of 30 "
    "minutes."
)


def limited_log(command: str, *output: str) -> str:
    """A job log whose step ``command`` printed ``output`` until the job's time limit cancelled it."""
    return job_log(
        command, [*output, _LIMIT, "##[error]The operation was canceled."], exit_code=None, cleanup=True
    )


def cargo_log(*output: str) -> str:
    compiled = (
        "   Compiling pool v0.3.0 (/home/runner/work/pool/pool)",
        "running 3 tests",
        "test tests::sums ... ok",
    )
    return limited_log("cargo test --workspace", *compiled, *output)


def test_a_test_libtest_names_as_running_when_the_limit_comes_is_the_codes_with_its_name() -> None:
    diagnosis = diagnose_log(
        cargo_log("test pool::tests::shutdown_waits has been running for over 60 seconds")
    )
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.TEST,
        Action.AGENT,
    )
    assert diagnosis.test_ids == ("pool::tests::shutdown_waits",)
    assert any("shutdown_waits has been running" in line for line in diagnosis.decisive)
    assert "still running" in dict(diagnosis.decided_by)["evidence"]


def pytest_log(*output: str) -> str:
    started = (
        "============================= test session starts ==============================",
        "tests/test_render.py::test_empty PASSED                                   [ 87%]",
    )
    return limited_log("pytest -v", *started, *output)


def test_a_pytest_node_id_with_no_outcome_when_the_limit_comes_is_the_test_that_hangs() -> None:
    # pytest -v writes the node id when a test starts and its outcome when it ends
    diagnosis = diagnose_log(pytest_log("tests/test_tide.py::test_stream_predictions "))
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("tests/test_tide.py::test_stream_predictions",)


def test_pytest_whose_last_test_ended_leaves_the_time_limit_as_it_was() -> None:
    diagnosis = diagnose_log(pytest_log("tests/test_tide.py::test_stream_predictions PASSED     [ 88%]"))
    assert diagnosis.category is Category.TIMEOUT
    assert diagnosis.action is not Action.AGENT


def test_a_slow_test_that_finished_leaves_the_time_limit_nobodys() -> None:
    diagnosis = diagnose_log(
        cargo_log(
            "test pool::tests::big has been running for over 60 seconds",
            "test pool::tests::big ... ok",
            "test result: ok. 3 passed; 0 failed",
            "     Running tests/integration.rs (target/debug/deps/integration-1a2b)",
        )
    )
    assert diagnosis.category is Category.TIMEOUT
    assert diagnosis.owner is not Owner.CODE and diagnosis.action is not Action.AGENT


def test_nextest_slow_without_an_end_is_the_codes() -> None:
    diagnosis = diagnose_log(
        cargo_log(
            "        PASS [   0.012s] pool tests::sums",
            "        SLOW [> 60.000s] pool tests::drains_queue",
        )
    )
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("pool tests::drains_queue",)


def test_a_limit_with_no_harness_warning_stays_as_it_was() -> None:
    diagnosis = diagnose_log(cargo_log("Downloading simulator runtime (4.1 GB) ..."))
    assert diagnosis.category is Category.TIMEOUT
    assert diagnosis.action is not Action.AGENT


def go_log(*output: str) -> str:
    passed = ("=== RUN   TestNack", "--- PASS: TestNack (0.38s)")
    return limited_log("go test -v -run Integration ./...", *passed, *output)


def test_a_go_test_started_with_no_result_when_the_limit_comes_is_the_test_that_hangs() -> None:
    diagnosis = diagnose_log(
        go_log(
            "=== RUN   TestDrain",
            "=== RUN   TestDrain/with_pending",
            "    queue_test.go:88: closing consumer with 3 pending",
        )
    )
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.TEST,
        Action.AGENT,
    )
    # the parent waits on its subtest: the subtest is the one named
    assert diagnosis.test_ids == ("TestDrain/with_pending",)


def test_go_tests_that_all_ended_leave_the_time_limit_as_it_was() -> None:
    diagnosis = diagnose_log(
        go_log(
            "=== RUN   TestDrain",
            "=== PAUSE TestDrain",
            "=== CONT  TestDrain",
            "--- PASS: TestDrain (1.20s)",
            "PASS",
            "ok  \texample.com/queue\t1.902s",
        )
    )
    assert diagnosis.category is Category.TIMEOUT
    assert diagnosis.action is not Action.AGENT


def test_jests_finished_run_that_did_not_exit_by_the_limit_left_a_handle_open() -> None:
    finished = (
        "Tests:       244 passed, 244 total",
        "Ran all test suites.",
        "Jest did not exit one second after the test run has completed.",
        "",
    )
    diagnosis = diagnose_log(limited_log("npm test", "PASS src/scheduler.test.ts", *finished))
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.TEST,
        Action.AGENT,
    )
    assert "open handle" in dict(diagnosis.decided_by)["evidence"]
    # the same run, ended before Jest's warning: the limit says nothing more
    assert diagnose_log(limited_log("npm test", "PASS src/scheduler.test.ts", *finished[:2])).action is not (
        Action.AGENT
    )


def test_mochas_passing_run_that_did_not_exit_by_the_limit_left_something_running() -> None:
    run = ("  sweeper", "    ✓ expires idle sessions (41ms)", "", "  212 passing (3s)", "  2 pending", "")
    diagnosis = diagnose_log(limited_log("npx mocha", *run))
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.TEST,
        Action.AGENT,
    )
    assert "did not exit" in dict(diagnosis.decided_by)["evidence"]
    # output after the summary: the step went on to something else, and the limit says nothing more
    later = (*run, "Uploading coverage report...")
    assert diagnose_log(limited_log("npx mocha", *later)).action is not Action.AGENT


def test_pytest_timeouts_stack_of_the_main_thread_names_the_test_that_hung() -> None:
    work = "/home/runner/work/grove/grove"
    dump = (
        "tests/test_pool.py ....",
        "+++++++++++++++++++++++++++++++++++ Timeout ++++++++++++++++++++++++++++++++++++",
        "~~~~~~~~~~~~~~~~~~~~~~ Stack of pool-worker-0 (140212331276864) ~~~~~~~~~~~~~~~~~~~~~~",
        f'  File "{work}/src/grove/pool.py", line 77, in _run',
        "    with self._state_lock:",
        "~~~~~~~~~~~~~~~~~~~~~~~~~ Stack of MainThread (140212349642560) ~~~~~~~~~~~~~~~~~~~~~~~~~",
        f'  File "{work}/tests/test_pool.py", line 58, in test_shutdown_drains_queue',
        "    pool.shutdown(wait=True)",
        f'  File "{work}/src/grove/pool.py", line 116, in shutdown',
        "    t.join()",
        "+++++++++++++++++++++++++++++++++++ Timeout ++++++++++++++++++++++++++++++++++++",
    )
    diagnosis = diagnose_log(limited_log("pytest", *dump))
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("tests/test_pool.py::test_shutdown_drains_queue",)
    # a dump whose main thread is in no test of the checkout names nothing
    elsewhere = [line.replace(f"{work}/tests/", "/usr/lib/python3.12/") for line in dump]
    assert diagnose_log(limited_log("pytest", *elsewhere)).action is not Action.AGENT


def test_faulthandlers_dump_at_its_timeout_names_the_test_a_thread_waits_in() -> None:
    work = "/home/runner/work/spoolr/spoolr"
    lib = "/opt/hostedtoolcache/Python/3.12.7/x64/lib/python3.12"
    dump = (
        "tests/test_worker.py ........",
        "Timeout (0:05:00)!",
        "Thread 0x00007f4b8a7fc6c0 (most recent call first):",
        f'  File "{lib}/queue.py", line 171 in get',
        f'  File "{work}/src/spoolr/worker.py", line 77 in _run',
        "",
        "Thread 0x00007f4b96a1c740 (most recent call first):",
        f'  File "{lib}/queue.py", line 90 in join',
        f'  File "{work}/src/spoolr/worker.py", line 112 in shutdown',
        f'  File "{work}/tests/test_worker.py", line 58 in test_drain_on_shutdown',
        f'  File "{lib}/site-packages/_pytest/python.py", line 159 in pytest_pyfunc_call',
    )
    diagnosis = diagnose_log(limited_log("pytest", *dump))
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("tests/test_worker.py::test_drain_on_shutdown",)
    # without the timer's banner, the same frames are some other traceback and name nothing
    unbannered = [line for line in dump if not line.startswith("Timeout (")]
    assert diagnose_log(limited_log("pytest", *unbannered)).action is not Action.AGENT


def tap_log(*output: str) -> str:
    started = ("# Subtest: map raven", "ok 38 - map raven", "  ---", "  duration_ms: 99.05", "  ...")
    return limited_log("node --test --test-reporter=tap", *started, *output)


def test_a_node_test_started_with_no_result_when_the_limit_comes_is_the_test_that_hangs() -> None:
    diagnosis = diagnose_log(
        tap_log("# Subtest: reconnect", "    # Subtest: reconnects after the peer closes")
    )
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("reconnects after the peer closes",)
    # every test the reporter started ended: the limit stays nobody's
    ended = diagnose_log(tap_log("# Subtest: reconnect", "ok 39 - reconnect"))
    assert ended.owner is not Owner.CODE


def travis_log(*output: str) -> str:
    """A Travis CI log whose `pytest -v` printed ``output`` until Travis stopped it for its silence."""
    lines = [
        "$ pytest -v",
        "============================= test session starts ==============================",
        "tests/test_pager.py::test_task_tree PASSED                               [ 74%]",
        *output,
        "",
        "\x1b[31;1mNo output has been received in the last 10m0s, this potentially indicates a stalled build "
        "or something wrong with the build itself.\x1b[0m",
        "\x1b[31;1mCheck the details on how to adjust your build configuration on: "
        "https://docs.travis-ci.com/user/common-build-problems/\x1b[0m",
        "",
        "\x1b[31;1mThe build has been terminated\x1b[0m",
    ]
    return "\n".join(lines) + "\n"


def test_travis_stopping_a_silent_pytest_inside_a_test_names_the_test_that_hangs() -> None:
    diagnosis = diagnose_log(travis_log("tests/test_lock.py::test_nested_update_under_lock "))
    assert diagnosis.rule == "runner.travis-time-limit"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.test_ids == ("tests/test_lock.py::test_nested_update_under_lock",)
    # silent after a finished test (a download, a prompt): Travis's limit, re-run
    quiet = diagnose_log(travis_log("Downloading dataset…"))
    assert (quiet.owner, quiet.action) == (Owner.PLATFORM, Action.RERUN)


@pytest.mark.parametrize(
    "progress",
    [
        # curl's progress meter
        " 84 38.2G   84 32.1G    0     0  1638k      0  6:52:51  5:50:11  1:02:16 1541k",
        # wget's dot progress (not a terminal) and its bar
        "  1050K .......... .......... .......... .......... ..........  1% 2.5M 3s",
        "dataset.tar.zst     61%[=========>      ] 183.80M  3.80KB/s    eta 4h 3m",
        # pip's download bar, and its retry of a broken connection
        "     ━━━━━━━━━━━━━╸━━━━━━━━━━━━━━━━━━━━━━━━━━ 14.1/41.2 MB 38.2 kB/s eta 0:11:49",
        "WARNING: Retrying (Retry(total=3, connect=None, read=None, redirect=None, status=None)) after "
        "connection broken by 'ReadTimeoutError(\"HTTPSConnectionPool(host='files.pythonhosted.org', "
        "port=443): Read timed out. (read timeout=15)\")': /packages/scipy.whl",
        # rsync's --progress for a file it has not finished
        "     60,289,477  95%  139.97kB/s    0:30:59",
        # curl's --progress-bar, as Homebrew downloads a bottle
        "#####                                                                      7.9%",
        # apt's acquire progress: connecting to a mirror, waiting for its answer, part way through a file
        "0% [Connecting to ppa.launchpadcontent.net (185.125.190.80)]",
        "0% [Waiting for headers]",
        "45% [3 Packages 1,234 kB/5,678 kB 22%]",
        # apt without a terminal: an item's fetch started, its "Fetched …" never printed
        "Get:3 http://azure.archive.ubuntu.com/ubuntu jammy/universe amd64 libgdal30 amd64 3.4.1+dfsg-1build4"
        " [7,642 kB]",
    ],
)
def test_a_download_still_in_progress_when_the_limit_comes_is_the_networks(progress: str) -> None:
    diagnosis = diagnose_log(limited_log("./scripts/fetch-data.sh", "fetching the benchmark data", progress))
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
    assert "still downloading" in dict(diagnosis.decided_by)["evidence"]


def test_a_limit_after_a_finished_download_stays_as_it_was() -> None:
    done = "100 38.2G  100 38.2G    0     0  1638k      0  6:52:51  6:52:51 --:--:-- 1541k"
    diagnosis = diagnose_log(limited_log("./scripts/run-benchmarks.sh", done, "running benchmark 3 of 40"))
    assert diagnosis.owner is not Owner.PLATFORM
    # rsync's line for a file it finished, then the step went on to other work
    synced = "    74,963,889 100%  614.88kB/s    0:01:59 (xfr#5, to-chk=169/396)"
    diagnosis = diagnose_log(limited_log("./scripts/mirror.sh", "receiving incremental file list", synced))
    assert diagnosis.owner is not Owner.PLATFORM
    # curl's bar at 100.0%: Homebrew had the bottle, and the time went to what came after
    # apt's summary after its fetches: the download was done
    fetched = "Fetched 92.4 MB in 3s (30.2 MB/s)"
    diagnosis = diagnose_log(
        limited_log("sudo apt-get install -y gdal-bin", "Get:41 http://x/y z [1 kB]", fetched)
    )
    assert diagnosis.owner is not Owner.PLATFORM
    bar = "######################################################################## 100.0%"
    diagnosis = diagnose_log(limited_log("brew install gettext", "==> Downloading https://ghcr.io/v2/x", bar))
    assert diagnosis.owner is not Owner.PLATFORM
