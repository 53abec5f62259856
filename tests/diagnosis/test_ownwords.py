"""What the repository's own scripts say in the failing step: the base branch fails the same way (upstream), a
failing test is known to be flaky (history); and the words that only look like it."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log

from healer.model import Action, Owner

PYTEST_FAILED = [
    "FAILED tests/test_sched.py::test_weekly_rollover - AssertionError: 2026-12-28 != 2027-01-04",
    "1 failed, 310 passed in 14.22s",
]


@pytest.mark.parametrize(
    "said",
    [
        "check-base: the base branch fails the same way; this failure is not from the pull request",
        "check-base: the same tests fail on main; this failure is not from the pull request.",
        "Base branch fails the same test: main is broken (see the last push run on main).",
        "The failure is present on the base branch; rebasing will not help.",
        "check-base: base branch fails too; not caused by this pull request",
        "The same test fails on the base branch: master is red.",
        "check-base: origin/main fails the same way; this PR only changes docs/",
        "::notice::main@3f9e1a2 (scheduled run #881) fails tests/test_tls.py::test_tls the same way",
        "check-base: failure reproduces on the base branch; not introduced by this pull request",
        "check-base: origin/main fails with the same error; the breakage is not from this PR.",
    ],
)
def test_a_step_that_says_the_base_branch_fails_the_same_way_is_upstreams(said: str) -> None:
    diagnosis = diagnose_log(job_log("pytest && ./scripts/check-base.sh", [*PYTEST_FAILED, said]), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "base branch fails the same way" in dict(diagnosis.decided_by)["history"]


def test_a_lint_finding_the_base_branch_has_too_is_upstreams() -> None:
    output = [
        "internal/feed/feed.go:41:2: ineffectual assignment to err (ineffassign)",
        "# checking base branch main @ 71c0e2a",
        "base branch fails the same check; this PR does not touch internal/feed",
    ]
    diagnosis = diagnose_log(job_log("make lint check-base", output), job="lint")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


@pytest.mark.parametrize(
    "said",
    [
        "  1) Board drag and drop moves the card (quarantined: flaky, see #311)",
        "note: this test is listed in .github/flaky-tests.txt (intermittent, issue #77)",
        "note: TestGossipJoin is quarantined in .github/flaky-tests.txt",
        "NOTE: spec/cache_spec.rb examples depend on Time.now (sleep 1); tracked as flaky",
        "# retrying once: TestSuspectTimeout is on the known-flaky list (ci/flaky.txt)",
        "Note: 'drains after shutdown' failed on attempt 1 and passed on attempt 2.",
        "E       AssertionError: lost 1 of 20000 messages under contention (known flaky: issue #377)",
        "[sig-network] Services should serve endpoints on same port [Flaky]",
        "# restarted build 2 of this commit passed (see .travis.yml comment: known race)",
        "  # previous run of this commit (attempt 1): quiz.cy.ts passed; results.cy.ts failed 'renders'",
        "  ● Uploader › reports progress (retry 1) passed on a previous run of this commit (#4411)",
        "\t  7 - udp_loopback (Failed)                    flaky",
        "    gossip_test.go:88: FLAKY(#214): cluster did not converge within 5s (3/5 nodes agree)",
    ],
)
def test_a_failing_test_the_step_calls_known_flaky_is_the_tests_history(said: str) -> None:
    diagnosis = diagnose_log(job_log("pytest", [said, *PYTEST_FAILED]), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "the failing tests are flaky" in dict(diagnosis.decided_by)["history"]


@pytest.mark.parametrize(
    "said",
    [
        # the code under test: a transport double named for flakiness, a mail quarantine feature
        "fake_transport = <tests.fakes.FlakyTransport object at 0x7f3a2c9e1d90>",
        "E       AssertionError: expected message 42 to be quarantined",
        # the main thread, a main function, the main branch of an if
        "E       RuntimeError: callback fails on the main thread",
        "E       assert 'feature/x' == 'main'",
        "E       AssertionError: main fails to start: port 8080 in use",
        # a CTest label that is not flaky, a test named for flakiness
        "\t  7 - udp_loopback (Failed)                    network slow",
        "\t  8 - flaky_detector_test (Failed)",
        # a message about commits that says nothing of another run
        "E       AssertionError: expected the commit to pass validation",
        # a lint tool's name
        "flake8...................................................................Failed",
    ],
)
def test_words_that_only_look_like_the_repositorys_word_leave_the_failure_the_codes(said: str) -> None:
    diagnosis = diagnose_log(job_log("pytest", [said, *PYTEST_FAILED]), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_the_steps_own_script_is_not_what_it_found() -> None:
    # the script mentions the flaky list and the base branch; its output says neither
    log = job_log(
        "pytest || { echo 'see .github/flaky-tests.txt'; ./ci/check-base.sh main is broken; }",
        PYTEST_FAILED,
    )
    assert (diagnose_log(log, job="test").owner) is Owner.CODE


def test_a_build_error_is_never_read_as_flaky() -> None:
    output = ["src/app.c:12:5: error: 'count' undeclared (first use in this function)", "known flaky: #12"]
    diagnosis = diagnose_log(job_log("make", output), job="build")
    assert (diagnosis.owner, diagnosis.action) == CODE
