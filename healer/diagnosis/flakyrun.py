"""A test failure the step's own lines show to be the tests' history, not the code's (flakiness in the log).

Pure: a diagnosis and the failing step's lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from healer.diagnosis.basecheck import checks_out_the_base
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned
from healer.diagnosis.retries import differed, read_runs
from healer.diagnosis.retryreports import GO_COUNT, passed_on_retry
from healer.diagnosis.testids import (
    GTEST_FAILED,
    MAX_TEST_IDS,
    failed_go_counts,
    flaky_plugin_passes,
    passed_go_tests,
    passed_pytest_tests,
    retried_gradle_tests,
)
from healer.diagnosis.wallclock import over_its_budget
from healer.model import Action, Category, Diagnosis, Owner

# what stops `go test -count=N` before its N runs: `-failfast` in the command, and a panic in the output (a
# test's, or the -timeout's `panic: test timed out`), which ends the test binary
_FAILFAST = re.compile(r"(?<!\S)-?-failfast\b")
# the Go race detector's report of a race that happened
_RACE = re.compile(r"WARNING: DATA RACE|race detected during execution of test")
# pytest-repeat's option, and the id it gives the i-th of N repetitions: `test_a[1-3]`, `test_a[param-1-3]`
_PYTEST_COUNT = re.compile(r"(?<!\S)--count[= ](\d+)\b")
_REPETITION = re.compile(r"^(?P<key>.+\[(?:.*-)?)\d+-(?P<count>\d+)\]$")
# what stops pytest before every repetition ran: -x (alone or among short options: -vx), --exitfirst,
# --maxfail=N
_EXITFIRST = re.compile(r"(?<!\S)(?:-\w*x\w*|--exitfirst|--maxfail(?:=|\s+)\d+)(?!\S)")
# pytest's header of one failure's traceback (`____ test_a ____`, `____ TestX.test_a[1] ____`), and a marker
# line of the test's source shown in it (the flaky plugin's `@flaky`, pytest-rerunfailures'
# `@pytest.mark.flaky`)
_PYTEST_SECTION = re.compile(r"^_{3,} (?:\w+\.)*(?P<name>\w+)(?:\[.*\])? _{3,}$")
# a target's line of Bazel's test summary that is not a pass or a flaky pass ("FLAKY, failed in 1 out of 2")
_BAZEL_TARGET = re.compile(
    r"^//\S+\s+(?:FAILED in (?:(?P<failed>\d+) out of (?P<runs>\d+) in )?[\d.]+s|TIMEOUT\b|INCOMPLETE\b)"
)
_GTEST_ITERATION = re.compile(r"^Repeating all tests \(iteration \d+\) \. \. \.$")
_GTEST_RAN = re.compile(r"^\[==========\] \d+ tests? from \d+ test suites? ran\.")
_FLAKY_MARK = re.compile(r"^\s*@(?:pytest\.mark\.)?flaky\b")
# Travis CI's word that a command passed, and a runner's own re-run of only the tests that failed in its last
# run, with that runner: pytest's `--lf`/`--last-failed`, RSpec's `--only-failures`, Mix's `mix test --failed`
_TRAVIS_PASSED = re.compile(r'^The command "(?P<command>.{1,1000})" exited with 0\.$')
_RERUNS_FAILURES = (
    ("pytest", re.compile(r"(?<!\S)(?:--lf|--last-failed)(?!\S)")),
    ("rspec", re.compile(r"(?<!\S)--only-failures(?!\S)")),
    ("mix test", re.compile(r"(?<!\S)--failed(?!\S)")),
    # Jest's `--onlyFailures` ("Run tests that failed in the previous execution", its CLI reference), given to
    # jest itself or through a package script (`npm test -- --onlyFailures`)
    *(
        (runner, re.compile(r"(?<!\S)--onlyFailures(?!\S)"))
        for runner in ("jest", "npm test", "yarn test", "pnpm test")
    ),
)


def flaky_in_the_log(diagnosis: Diagnosis, step_lines: Iterable[str]) -> Diagnosis:
    """A test failure the step's own lines (``step_lines``) show not to be the code's alone. Read only for a
    test failure of the code, in this order:

    1. **Every failing test also passed in the step**: the same code both passed and failed it, the tests'
       history (re-run; escalated when re-runs do not help):

       - ``go test -count=N`` runs each test N times (the Go documentation's ``-count``): a ``--- PASS:`` of
         the failed test's name;
       - pytest-repeat's ``--count=N`` runs each test N times as ``test[1-N]`` … ``test[N-N]`` (its README): a
         ``PASSED`` of another repetition of the failed test, in verbose mode;
       - the ``flaky`` plugin's report: ``test failed; it passed 1 out of the required 2 times.``
         (``@flaky(min_passes=2)``, its README): it passed, then failed;
       - Gradle's test-retry plugin with ``failOnPassedAfterRetry``: ``ATest > a() FAILED``, then ``ATest >
         a() PASSED`` later in the same task's output (its README: each execution is reported on the console);
       - a retry wrapper (nick-fields/retry, ``travis_retry``) that ran the whole command again, each attempt
         failing other tests and none failing them all (:mod:`healer.diagnosis.retries`);
       - a script that ran the same suite again, one run failing tests and another passing them all.
    2. **Every failing test is one its authors marked flaky**: the ``flaky`` plugin reports only tests marked
       ``@flaky`` (its README), and pytest shows a failing test's source with its ``@flaky`` or
       ``@pytest.mark.flaky`` marker. The repository said so, as with its ``flaky-tests:`` list: history.
    3. **Another test of the step failed and then passed on a retry, or a test failed a different way on
       each retry** (a runner's own retry report, :func:`healer.diagnosis.retryreports.passed_on_retry`, and
       a target Bazel's summary calls ``FLAKY``):
       the run shows the suite does not give the same answer twice on this machine. The failing tests are
       re-run first (``rerun_first``): a needless re-run costs minutes, a needless agent run a bogus fix pull
       request. When the same commit fails again after that re-run, the failure is the code's and goes to
       the agent (:mod:`healer.run.testhistory`).
    4. **The one failing test stopped only on a wall-clock budget** (:mod:`healer.diagnosis.wallclock`):
       re-run first, as in 3.

    A data race that Go's race detector reported is not flakiness: the detector reports races that happened
    (the Go documentation, "Data Race Detector"), a bug of the code even when the next run missed it."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category is not Category.TEST:
        return diagnosis
    lines = list(step_lines)
    # a script that checked out its base branch ran its next run on other code (healer.diagnosis.basecheck)
    if checks_out_the_base(f"{diagnosis.command or ''}\n" + "\n".join(raw for raw in lines if "git " in raw)):
        return diagnosis
    failed, runs = read_runs(lines, diagnosis.command or "")  # the step's runs, cut once for both readings
    if moving := differed(failed):
        tries, last = moving
        # a runner that printed no ids is known by its failures' titles, shown but not kept as ids
        return _flaky(
            replace(diagnosis, test_ids=last) if diagnosis.test_ids else diagnosis,
            f"failed, and no test failed on every one of {tries} attempts of the same command",
            shown=last,
        )
    if runs:
        return _flaky(diagnosis, f"failed in one of {runs} runs of the same suite and passed in another")
    if diagnosis.test_ids and (every := _every_one_passed(diagnosis, lines)):
        return every
    if _raced(lines):
        return diagnosis
    if diagnosis.test_ids and _all_marked_flaky(diagnosis.test_ids, lines):
        return _flaky(diagnosis, "failed, and the repository marks every failing test flaky (@flaky)")
    # a test that failed on some attempt of a retry wrapper and not on every one
    moved = set().union(*failed) - set(failed[0]).intersection(*failed[1:]) if failed else set()
    others = passed_on_retry(lines, diagnosis.test_ids, diagnosis.command or "", sorted(moved))
    if others is None:
        return over_its_budget(diagnosis, lines)
    # the tests that failed every retry: the ones the runner did not see pass
    steady = tuple(t for t in diagnosis.test_ids if not any(_same(t, name) for name in others.names))
    history = (
        f"{others.words} failed a different way on each try of the same code"
        if others.differently
        else f"{others.words} failed and then passed on a retry in this run"
    )
    if steady and not others.differently:
        # a flaky Bazel target beside a failing one: that target's cases need not have failed on every attempt
        how_often = "" if all(name.startswith("//") for name in others.names) else " every retry"
        history += f", beside {', '.join(steady[:3])}, which failed{how_often}"
    said = reassigned(
        replace(diagnosis, test_ids=steady or diagnosis.test_ids),
        Owner.HISTORY,
        history,
        "rerun once; the agent if the same commit fails again",
        action=Action.RERUN,
    )
    return replace(said, rerun_first=True)


def passed_when_run_again(diagnosis: Diagnosis, log_lines: Sequence[str], after: int) -> Diagnosis:
    """A test failure of the code that a later command of the same Travis CI job re-ran and saw pass: the
    tests' history. Travis runs every command of the ``script`` phase even after one failed (its
    documentation, "Job Lifecycle": the build is marked failed and the next commands still run), so a
    ``pytest`` that failed and a ``pytest --lf`` after it that ``exited with 0`` ran the same failing tests
    twice on the same code. ``after``: the index of the line after the failing command's output."""
    command = diagnosis.command or ""
    if diagnosis.owner is not Owner.CODE or diagnosis.category is not Category.TEST or not command:
        return diagnosis
    for raw in log_lines[after:]:
        if "exited with 0" not in raw or not (done := _TRAVIS_PASSED.match(clean_line(raw).strip())):
            continue
        again = done["command"]
        if any(
            runner in command and runner in again and flag.search(again) for runner, flag in _RERUNS_FAILURES
        ):
            return _flaky(
                diagnosis, f"failed, and passed when `{again[:200]}` re-ran the failures later in the job"
            )
    return diagnosis


def _same(test_id: str, name: str) -> bool:
    """Whether a runner's name for a test (``pkg TestA``, ``tests/t.py::test_a``) is the failing test id."""
    return test_id == name or name.endswith((f" {test_id}", f".{test_id}")) or test_id.endswith(f".{name}")


def _every_one_passed(diagnosis: Diagnosis, lines: Sequence[str]) -> Diagnosis | None:
    if len(diagnosis.test_ids) >= MAX_TEST_IDS:
        return None  # the ids are cut off: a failing test beyond them was not seen to pass
    if (repeated := GO_COUNT.search(diagnosis.command or "")) and not _raced(lines):
        passed = passed_go_tests(lines)  # with one run each, a test of the same name may be another package's
        if passed and set(diagnosis.test_ids) <= passed:
            return _flaky(diagnosis, "passed and failed in the same run of the same code")
        # without -v (no test said it passed), a test that failed on fewer than N runs passed the others
        if not passed and _failed_fewer_times(
            diagnosis.test_ids, lines, diagnosis.command or "", int(repeated["times"])
        ):
            return _flaky(
                diagnosis, f"failed on fewer than {repeated['times']} runs of the same code (-count)"
            )
    if "bazel" in (diagnosis.command or "") and _bazel_failed_some_runs(lines):
        return _flaky(diagnosis, "failed in some of Bazel's runs of the same target and passed in the others")
    if "gtest_repeat" in (diagnosis.command or "") and _passed_in_another_iteration(
        diagnosis.test_ids, lines
    ):
        return _flaky(diagnosis, "passed in another iteration of the same run (--gtest_repeat)")
    if diagnosis.rule == "jvm.gradle-test-failed":
        if set(diagnosis.test_ids) <= retried_gradle_tests(lines):
            return _flaky(diagnosis, "failed, then passed on a retry in the same Gradle test task")
        return None
    if not diagnosis.rule.startswith("python.pytest"):
        return None
    count = _PYTEST_COUNT.search(diagnosis.command or "")
    if count and int(count.group(1)) >= 2:
        keys = [_repetition(test_id, count.group(1)) for test_id in diagnosis.test_ids]
        passed_keys = {_repetition(test_id, count.group(1)) for test_id in passed_pytest_tests(lines)}
        if all(keys) and set(keys) <= passed_keys:
            return _flaky(diagnosis, "passed in another repetition of the same run (pytest-repeat --count)")
        # without -v (no repetition said PASSED), a test that failed in fewer than N of its repetitions passed
        # the others, unless the run could stop at its first failures (-x, --maxfail)
        times = int(count.group(1))
        stopped = _EXITFIRST.search(diagnosis.command or "")
        if all(keys) and not passed_keys and not stopped and all(keys.count(key) < times for key in keys):
            return _flaky(diagnosis, f"failed in fewer than {times} repetitions of one run (pytest-repeat)")
    verdicts = flaky_plugin_passes(lines)
    names = [test_id.rpartition("::")[2] for test_id in diagnosis.test_ids]
    if verdicts and all(verdicts.get(name, 0) >= 1 for name in names):
        return _flaky(diagnosis, "passed, then failed, in the flaky plugin's re-runs of the same code")
    return None


def _bazel_failed_some_runs(lines: Sequence[str]) -> bool:
    """Whether every target Bazel's test summary says failed ran more than once and passed in some runs:
    ``//pkg:test  FAILED in 1 out of 3 in 2.1s`` (``--runs_per_test``, the Bazel user manual); a target that
    failed every run, or once with no count (``FAILED in 2.1s``, ``TIMEOUT``), keeps it the code's."""
    some = False
    for raw in lines:
        if "//" not in raw or not ("FAILED" in raw or "TIMEOUT" in raw or "INCOMPLETE" in raw):
            continue
        match = _BAZEL_TARGET.match(clean_line(raw).strip())
        if match is None:
            continue
        if match["failed"] is None or int(match["failed"]) >= int(match["runs"]):
            return False
        some = True
    return some


def _passed_in_another_iteration(test_ids: Sequence[str], lines: Sequence[str]) -> bool:
    """Whether every failing test ran without failing in another of GoogleTest's iterations
    (``--gtest_repeat=N`` opens each with "Repeating all tests (iteration N) . . ." and ends it with
    "[==========] N tests from M test suites ran.", its advanced guide): an iteration that finished without
    naming the test as failed passed it, on the same code."""
    finished: list[set[str]] = []
    failed: set[str] | None = None
    for raw in lines:
        if "Repeating all tests" in raw or "[  FAILED  ]" in raw or "[==========]" in raw:
            line = clean_line(raw).strip()
            if _GTEST_ITERATION.match(line):
                failed = set()
            elif failed is not None and (match := GTEST_FAILED.match(line)):
                failed.add(match.group("id"))
            elif failed is not None and _GTEST_RAN.match(line):
                finished.append(failed)
    return len(finished) >= 2 and all(any(t not in done for done in finished) for t in test_ids)


def _failed_fewer_times(test_ids: Sequence[str], lines: Sequence[str], command: str, times: int) -> bool:
    """Whether every failing test failed on fewer than ``times`` of ``go test -count=times``'s runs: it
    passed the others (the same name in two packages only adds failures). Not when the run could stop early
    (``-failfast``, a panic) or a failure is no ``--- FAIL:`` of its own (a subtest's parent counts once per
    run too). Read only without ``-v`` (the caller checks no test said ``--- PASS:``): with it, every run
    says ``--- PASS:`` or ``--- FAIL:``, and a run that said neither did not finish."""
    if _FAILFAST.search(command) or any(
        "panic: " in raw and clean_line(raw).strip().startswith("panic: ") for raw in lines
    ):
        return False
    counts = failed_go_counts(lines)
    return all(0 < counts.get(test_id, 0) < times for test_id in test_ids)


def _repetition(test_id: str, count: str) -> str | None:
    """A pytest-repeat id without its repetition (``t.py::test_a[x-2-3]`` → ``t.py::test_a[x-``); None for an
    id that is not a repetition of ``count``."""
    match = _REPETITION.match(test_id)
    return match.group("key") if match and match.group("count") == count else None


def _flaky(diagnosis: Diagnosis, how: str, *, shown: Sequence[str] = ()) -> Diagnosis:
    names = ", ".join((shown or diagnosis.test_ids)[:3]) or "the tests"
    return reassigned(diagnosis, Owner.HISTORY, f"{names} {how}", Action.RERUN.value, action=Action.RERUN)


def _raced(lines: Sequence[str]) -> bool:
    return any(_RACE.search(line) for line in lines)


def _all_marked_flaky(test_ids: Sequence[str], lines: Sequence[str]) -> bool:
    """Whether every failing test is in the flaky plugin's report or shows a flaky marker in its traceback."""
    names = {test_id.rpartition("::")[2].partition("[")[0] for test_id in test_ids}
    marked = set(flaky_plugin_passes(lines))
    section = None
    for raw in lines:
        if "_" not in raw and "flaky" not in raw:
            continue
        line = clean_line(raw).strip()
        if match := _PYTEST_SECTION.match(line):
            section = match.group("name")
        elif section and _FLAKY_MARK.match(line):
            marked.add(section)
    return names <= marked
