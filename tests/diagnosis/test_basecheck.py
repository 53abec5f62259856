"""A step that checks its failure against the base branch: the same failure there is upstream's (a broken
base branch), another failure or none leaves it the pull request's."""

from __future__ import annotations

from joblogs import diagnose_log, job_log, stamped

from healer.model import Action, Owner

FAILED = "FAILED tests/test_ingest.py::test_ingest_handles_bom - KeyError: 'station_id'"
OTHER = "FAILED tests/test_ingest.py::test_ingest_skips_blank_rows - AssertionError: assert 3 == 2"
ON_FAILURE = "pytest -q tests/t.py || (git checkout -q origin/main && pytest -q tests/t.py; exit 1)"


def run(*failed: str, passed: int = 2) -> list[str]:
    """One `pytest -q` run of tests/test_ingest.py: the failures, then its last line."""
    if not failed:
        return [".." * passed, f"{passed} passed in 0.39s"]
    return [*failed, f"{len(failed)} failed, {passed} passed in 0.41s"]


def test_the_same_failure_on_the_base_branch_is_upstreams() -> None:
    diagnosis = diagnose_log(job_log(ON_FAILURE, [*run(FAILED), *run(FAILED)]), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "checked out its base branch" in dict(diagnosis.decided_by)["history"]


def test_a_base_branch_that_passes_or_fails_otherwise_leaves_the_failure_the_pull_requests() -> None:
    passes = diagnose_log(job_log(ON_FAILURE, [*run(FAILED), *run(passed=3)]), job="test")
    assert (passes.owner, passes.action) == (Owner.CODE, Action.AGENT)
    other = diagnose_log(job_log(ON_FAILURE, [*run(FAILED), *run(OTHER)]), job="test")
    assert other.owner is Owner.CODE
    # the same failure twice with no checkout of the base branch is a retry, not a look at the base
    retried = diagnose_log(job_log("pytest -q || pytest -q", [*run(FAILED), *run(FAILED)]), job="test")
    assert retried.owner is Owner.CODE


def test_a_step_that_runs_on_failure_checks_the_run_of_the_steps_before_it() -> None:
    script = [
        "git fetch --depth=1 origin main",
        "git checkout FETCH_HEAD -- .",
        "pytest -q tests/test_ingest.py",
    ]
    lines = [
        "##[group]Run pytest -q",
        "pytest -q",
        "##[endgroup]",
        *run(FAILED),
        "##[error]Process completed with exit code 1.",
        f"##[group]Run {script[0]}",
        *script,
        "##[endgroup]",
        "From https://github.com/acme/ingest",
        " * branch            main       -> FETCH_HEAD",
        *run(FAILED),
        "##[error]Process completed with exit code 1.",
    ]
    diagnosis = diagnose_log(stamped(lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # a FETCH_HEAD that holds a pull request's ref, not a base branch, is no look at the base
    theirs = [line.replace("origin main", "origin pull/12/head") for line in lines]
    assert diagnose_log(stamped(theirs), job="test").owner is Owner.CODE


def go_run(test: str) -> list[str]:
    """One failing `go test` of a package: Go prints no totals a run could be cut at."""
    return [
        f"--- FAIL: {test} (0.00s)",
        f"    {test.lower()}_test.go:38: got 1450, want 1500",
        "FAIL",
        "FAIL\tacme/billing\t0.011s",
    ]


def test_a_quiet_checkout_of_the_base_is_found_by_what_the_script_echoes_before_it() -> None:
    script = "\n".join(
        [
            "go test ./... || true",
            'echo "--- same tests on main ---"',
            "git checkout -q origin/main",
            "go test ./...",
        ]
    )
    marked = [*go_run("TestProrate"), "--- same tests on main ---"]
    same = diagnose_log(job_log(script, [*marked, *go_run("TestProrate")]), job="test")
    assert (same.owner, same.action) == (Owner.UPSTREAM, Action.ESCALATE)
    other = diagnose_log(job_log(script, [*marked, *go_run("TestRefund")]), job="test")
    assert other.owner is Owner.CODE
    # an echo of a variable is no marker (its text is not the script's), and without one the runs are one
    # (the second run's command differs from the first: no line shown twice splits them)
    unknown = "\n".join(
        [
            "go test ./... || true",
            'echo "--- same tests on $BASE ---"',
            "git checkout -q origin/main",
            "go test -count=1 ./...",
        ]
    )
    assert diagnose_log(job_log(unknown, [*marked, *go_run("TestProrate")]), job="test").owner is Owner.CODE


def test_a_step_that_ran_wholly_on_the_base_branch_and_failed_is_upstreams() -> None:
    script = "git fetch origin main --depth=1 && git checkout FETCH_HEAD && pytest -q tests/t.py"
    output = [
        " * branch            main       -> FETCH_HEAD",
        "HEAD is now at b1cdafd Merge pull request #545",
        *run(FAILED),
    ]
    diagnosis = diagnose_log(job_log(script, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "checked out its base branch first" in dict(diagnosis.decided_by)["history"]
    # the pull request checked out again, a checkout of some files, a pull request's ref: not the base alone
    for other in (
        script.replace("&& pytest", "&& git checkout - && pytest"),
        script.replace("git checkout FETCH_HEAD", "git checkout FETCH_HEAD -- tests/fixtures"),
        script.replace("origin main", "origin pull/12/head"),
    ):
        assert diagnose_log(job_log(other, output), job="test").owner is Owner.CODE, other


VITEST = [
    " ❯ test/iter.test.ts (14 tests | 1 failed) 11ms",
    "   × iter > spans are yielded in order 4ms",
    "     → expected [ [ 1, 3 ], [ 5, 9 ] ] to deeply equal [ [ 5, 9 ], [ 1, 3 ] ]",
    " Test Files  1 failed (1)",
    "      Tests  1 failed | 13 passed (14)",
]


def test_a_script_that_fetches_then_switches_to_the_base_ran_wholly_on_it() -> None:
    for script in (
        "git fetch --depth=1 origin main\ngit switch --detach FETCH_HEAD\nnpx vitest run",
        "git fetch --depth=1 origin main && git checkout FETCH_HEAD -- . && npx vitest run",
        # a local branch made there (git-switch(1)'s -c, git-checkout(1)'s -b)
        "git fetch origin main --depth=1\ngit switch -c base FETCH_HEAD\nnpx vitest run",
        "git fetch origin main --depth=1 && git checkout -b base origin/main && npx vitest run",
    ):
        output = [" * branch            main       -> FETCH_HEAD", *VITEST]
        diagnosis = diagnose_log(job_log(script, output), job="test")
        assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE), script


def steps_after_a_base_check(base_run: list[str]) -> str:
    """A job whose first step looks at the base branch (its output ``base_run``, then passes) and whose next
    step runs the pull request's tests, which fail."""
    return stamped(
        [
            "##[group]Run git fetch origin main --depth=1",
            "git fetch origin main --depth=1",
            "git checkout FETCH_HEAD -- src",
            'npx vitest run test/iter.test.ts || echo "main fails too"',
            "##[endgroup]",
            " * branch            main       -> FETCH_HEAD",
            *base_run,
            "##[group]Run npm test",
            "npm test",
            "##[endgroup]",
            *VITEST,
            "##[error]Process completed with exit code 1.",
        ]
    )


def test_the_same_failure_in_an_earlier_step_on_the_base_is_upstreams() -> None:
    diagnosis = diagnose_log(steps_after_a_base_check([*VITEST, "main fails too"]), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "a step before it checked out the base branch" in dict(diagnosis.decided_by)["history"]
    passed = [" ✓ test/iter.test.ts (14 tests) 9ms", " Test Files  1 passed (1)"]
    assert diagnose_log(steps_after_a_base_check(passed), job="test").owner is Owner.CODE


def ctest_run(total: int, *failed: str) -> list[str]:
    """One CTest run: its header, a line per failing test, and its summary (CTest's own words)."""
    lines = ["Test project /home/runner/work/cal/cal/build"]
    lines += [f"  1/{total} Test #1: {name} ........***Failed    0.02 sec" for name in failed]
    passed = 100 * (total - len(failed)) // total
    lines += ["", f"{passed}% tests passed, {len(failed)} tests failed out of {total}", ""]
    if failed:
        lines += ["The following tests FAILED:", *(f"\t  1 - {name} (Failed)" for name in failed)]
    return lines


def test_ctests_summary_ends_the_run_before_the_one_on_the_base() -> None:
    # the script's checkout is quiet and the build between prints nothing git says: CTest's summary ends the
    # first run, so the run after it is the one on the base
    script = "ctest --test-dir b || (git checkout -q origin/main && cmake --build b && ctest --test-dir b)"
    same = diagnose_log(job_log(script, [*ctest_run(6, "tz_test"), *ctest_run(6, "tz_test")]), job="test")
    assert (same.owner, same.action) == (Owner.UPSTREAM, Action.ESCALATE)
    passes = diagnose_log(job_log(script, [*ctest_run(6, "tz_test"), *ctest_run(6)]), job="test")
    assert passes.owner is Owner.CODE


def test_the_same_command_on_each_side_of_a_quiet_checkout_is_split_by_a_line_shown_twice() -> None:
    script = "./hack/verify.sh; git checkout -q origin/main && ./hack/verify.sh"
    error = (
        "Error: no matches for Id ~G_v1_ConfigMap|~X|feature-flags; failed to find unique target for patch "
        "ConfigMap.v1.[noGrp]/feature-flags.[noNs]"
    )
    same = diagnose_log(job_log(script, [error, "verify failed", error, "verify failed"]), job="verify")
    assert (same.owner, same.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # shown once: the run on the base failed otherwise, or not at all
    once = diagnose_log(job_log(script, [error, "verify failed", "ok"]), job="verify")
    assert once.owner is Owner.CODE


def test_a_fetch_of_the_base_named_by_a_quoted_variable_is_a_look_at_the_base() -> None:
    script = (
        'pytest -q tests/t.py || {\n  git fetch --depth=1 origin "$GITHUB_BASE_REF"\n'
        "  git checkout -q FETCH_HEAD\n  pytest -q tests/t.py\n}"
    )
    output = [*run(FAILED), " * branch            main       -> FETCH_HEAD", *run(FAILED)]
    diagnosis = diagnose_log(job_log(script, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # a quoted ref that is not a base branch's
    other = script.replace('"$GITHUB_BASE_REF"', '"pull/12/head"')
    assert diagnose_log(job_log(other, output), job="test").owner is Owner.CODE


def test_a_step_that_ran_in_a_worktree_of_the_base_alone_failed_on_the_base() -> None:
    script = (
        "git fetch origin main --depth=1\ngit worktree add ../base origin/main\n"
        "cd ../base && go test -run=^$ -bench=. ./... > /tmp/base.txt"
    )
    output = [
        " * branch            main       -> FETCH_HEAD",
        "Preparing worktree (detached HEAD 94abdff)",
        "HEAD is now at 6623528 Merge pull request #418 from acme/codec-v2",
        "# github.com/acme/bench/codec",
        "codec/frame.go:33:6: Encode redeclared in this block",
        "FAIL\tgithub.com/acme/bench/codec [build failed]",
    ]
    diagnosis = diagnose_log(job_log(script, output), job="bench")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # the commands after the worktree run in the pull request's own checkout: the pull request's
    beside = script.replace("cd ../base && go test", "go test")
    assert diagnose_log(job_log(beside, output), job="bench").owner is Owner.CODE


def test_the_same_error_in_a_worktree_of_the_base_is_the_same_failure_whatever_its_folder() -> None:
    error = "e: file://{work}/service/src/Routes.kt:112:9 Unresolved reference 'installTracing'."
    script = (
        "./gradlew build || (git fetch --depth=1 origin main && git worktree add ../base FETCH_HEAD && "
        "cd ../base && ./gradlew build)"
    )
    output = [
        error.format(work="/home/runner/work/gannet/gannet"),
        "BUILD FAILED in 51s",
        " * branch            main       -> FETCH_HEAD",
        "HEAD is now at 7f41ac2 Merge pull request #611",
        error.format(work="/home/runner/work/gannet/base"),
        "BUILD FAILED in 49s",
    ]
    diagnosis = diagnose_log(job_log(script, output), job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
