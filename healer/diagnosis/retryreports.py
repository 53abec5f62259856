"""What a test runner's own retries report: tests that failed and then passed on a retry, in one step.

A test that failed and then passed on the same code, in the same run, shows the suite does not give the same
answer twice on this machine. Read from each runner's documented console output (tries that failed a
different way each time, and Bazel's flaky targets, are read by :mod:`healer.diagnosis.retrytries`):

- pytest-rerunfailures (its README, "Re-run all failures" and ``-r R``): a re-run test's ``RERUN`` outcome
  (``tests/t.py::test_a RERUN`` in verbose mode, ``RERUN tests/t.py::test_a`` in the rerun summary); a test
  re-run and not among the failed tests passed on a re-run. Without names: the summary's ``N rerun`` beyond
  ``--reruns K`` re-runs of each failed test;
- Playwright's list and line reporters (the "Retries" guide): ``N flaky`` in the summary, a test that failed
  and then passed on a retry, and a failed test whose ``Retry #N`` errors differ;
- Maven Surefire and Failsafe with ``rerunFailingTestsCount`` ("Rerun Failing Tests"): ``Flakes: N`` in the
  ``Tests run:`` totals, and a failing test whose ``Run 1: …``, ``Run 2: …`` messages differ (it failed a
  different way on each run);
- cargo-nextest with ``--retries`` (its "Retries and flaky tests" page): ``TRY 2 PASS``, ``FLAKY 2/3``, or
  ``(N flaky)`` in its summary;
- Ginkgo with ``--flake-attempts`` (its "Repeating Spec Runs and Managing Flaky Specs"): a spec that passed
  on a later attempt is counted as ``N Flaked`` in the suite's summary (``FAIL! -- 17 Passed | 1 Failed | 1
  Flaked | 0 Pending | 0 Skipped``, as cloudfoundry/cf-acceptance-tests#283 quotes it);
- gotestsum ``--rerun-fails`` (its README, "Re-running failed tests"): it re-runs only the failed tests and
  ends each run with ``DONE …``, the last one ``DONE N runs, …``; a failure of a re-run is ``=== FAIL: pkg
  TestA (re-run 1)``. A test that failed on fewer runs than there were failed on one and passed on another,
  and so did a package of its ``pkgname`` format marked ``✖  pkg (1.2s)`` and, in a later run, ``✓  pkg``;
- rspec-retry with ``verbose_retry`` (its README): ``RSpec::Retry: 2nd try ./spec/a_spec.rb:12``; a retried
  example missing from RSpec's failed examples passed on a try; with ``display_try_failure_messages``, each
  try's error under ``1st Try error in ./spec/a_spec.rb:12:``: an example that failed a different way on
  its tries did not fail the same way twice on the same code;
- Jest's ``jest.retryTimes(n, {logErrorsBeforeRetry: true})`` (its API reference; its default reporter's
  ``printTestFileHeader``): ``LOGGING RETRY ERRORS  <full name>``, then each failed try's error after
  ``RETRY N``; a test with tries and no final ``● title`` failure passed on one, and a test whose tries and
  final failure say different things failed a different way each time;
- minitest-retry (its README and tests): ``[MinitestRetry] retry 'test_a' count: 1,  msg: …`` before each
  retry of a failed test, up to ``retry_count``; a test retried fewer times than another stopped because it
  passed;
- the ``flaky`` plugin (its README): ``test_a failed (1 runs remaining out of 2).``, then ``test_a passed 1
  out of the required 1 times. Success!``; each failure's error follows its line, indented: a test whose
  failures say different things failed a different way each time;
- Vitest's ``--retry`` (its reporters' test suffix): ``✓ suite > test 12ms (retry x1)``, a test that passed
  after failing;
- Gradle's test-retry plugin: ``ATest > a() FAILED``, then ``PASSED`` in the same task
  (:func:`healer.diagnosis.testids.retried_gradle_tests`), and xcodebuild's ``-retry-tests-on-failure`` as
  xcpretty shows it, ``✗ testA, …`` then ``✓ testA (0.4 seconds)`` in the same suite;
- ``go test -count=N`` (the Go documentation's ``-count``): a test with both ``--- FAIL:`` and ``--- PASS:``
  in the same run;
- a test any runner reports failed and, later in the step, passed: ``go test -v``'s ``--- FAIL:`` then
  ``--- PASS:``, ``dotnet test``'s ``Failed`` then ``Passed`` (Microsoft.Testing.Platform's ``failed … (1s
  204ms)`` then ``passed …``), pytest's verbose ``FAILED`` then ``PASSED``, Cypress's ``(Attempt 1 of 3)
  title`` then ``✓ title``, CTest's ``--repeat until-pass:N`` (``Test #7: name ...***Failed`` then ``…
  Passed``, or a failed try's output unlike another's): a script or the runner ran it again on the same code;
- a retry wrapper that ran the whole command again (:mod:`healer.diagnosis.retries`): a test that failed on
  one attempt and not on another.

Pure: lines in, words out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import shown
from healer.diagnosis.retrytries import (
    CTEST_FAILED,
    FLAKY_FAILED,
    bazel_flaky,
    ctest_tries,
    flaky_tries,
    jest_retries,
    playwright_retries,
    rspec_tries,
    surefire_runs,
)
from healer.diagnosis.testids import (
    MAX_TEST_IDS,
    passed_go_tests,
    retried_gradle_tests,
    retried_xcpretty_tests,
)

_HINT = re.compile(
    r"RERUN|rerun|flaky|Flakes: [1-9]|TRY \d+ PASS|FLAKY|DONE |re-run|RSpec::Retry|Success!|runs? remaining"
    r"|MinitestRetry|--- FAIL|--- PASS|RETRY \d|●|Try error|Failed |Passed |FAILED|PASSED|Attempt |✓"
    r"|Test Case |\(retry x| Flaked \|"
)
_PYTEST_RERUN = re.compile(r"^(?:RERUN (?P<summary>\S+\.py::\S+)|(?P<verbose>\S+\.py::\S+) RERUN\b)")
_PYTEST_TOTALS = re.compile(r"\b(?:(?P<failed>\d+) failed\b.*?)?\b(?P<rerun>\d+) rerun\b")
_PYTEST_ERRORS = re.compile(r"\b(\d+) errors?\b")
_RERUNS_OPTION = re.compile(r"(?<!\S)--reruns[= ](\d+)\b")
_PLAYWRIGHT = re.compile(r"^\s*([1-9]\d*) flaky\s*$")
# Surefire's and Failsafe's totals, cargo-nextest's summary and Ginkgo's, with the flaky tests they counted
_COUNTED = re.compile(
    r"Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+, Flakes: ([1-9]\d*)"
    r"|\bSummary \[.*\(([1-9]\d*) flaky\)"
    r"|^(?:SUCCESS|FAIL)! -- \d+ Passed \| \d+ Failed \| ([1-9]\d*) Flaked \|"
)
_NEXTEST_TRY = re.compile(r"^\s*(?:TRY \d+ PASS|FLAKY \d+/\d+) ")
_GOTESTSUM_DONE = re.compile(r"^DONE (?:(?P<runs>\d+) runs, )?\d+ tests?\b")
_GOTESTSUM_FAIL = re.compile(r"^=== FAIL: (?P<pkg>\S+) (?P<name>\S+)(?: \(re-run (?P<rerun>\d+)\))? \(")
_GOTESTSUM_PACKAGE = re.compile(r"^(?P<mark>[✖✓])\s+(?P<pkg>[\w.-]+(?:/[\w.-]+)*) \([\d.]+m?s\)")
_RSPEC_TRY = re.compile(r"^RSpec::Retry: (?P<try>\d+)(?:st|nd|rd|th) try (?P<where>\S+_spec\.rb:\d+)")
# `go test -count=N` with N of 2 or more runs each test N times on the same code
GO_COUNT = re.compile(r"(?<!\S)-?-count[= ](?P<times>[2-9]|\d\d+)\b")
# a test's failed and passed outcomes, as go test -v, dotnet test, pytest -v and Cypress print them
_OUTCOME_WORDS = (
    "FAIL",
    "PASS",
    "ok ",
    "ok\t",
    "Failed ",
    "Passed ",
    "Attempt ",
    "✓",
    "Test Case ",
    "failed ",
    "passed ",
)
_GO_OUTCOME = re.compile(r"^--- (FAIL|PASS): (\S+) \(")
# the line go test prints when a package's run ends: `ok  \tpkg\t0.5s`, `FAIL\tpkg\t0.5s`
_GO_PACKAGE = re.compile(r"^(?:ok|FAIL)\s+(\S+)\s+(?:[\d.]+s|\(cached\))")
_FAILED_OUTCOME = re.compile(
    r"^Failed (\S+) \[|^(\S+\.py::\S+) FAILED\b|^FAILED (\S+\.py::\S+)|^\(Attempt \d+ of \d+\) (.{1,200})$"
    r"|^Test Case '(.{1,200})' failed \("
    rf"|{CTEST_FAILED}"
    # Microsoft.Testing.Platform's terminal reporter: "failed Ns.ATests.TestA (1s 204ms)"
    r"|^failed ([\w.`+<>]+(?:\(.{0,200}?\))?) \((?:\d+(?:h|m|s|ms) ?)+\)$"
)
_PASSED_OUTCOME = re.compile(
    r"^Passed (\S+) \[|^(\S+\.py::\S+) PASSED\b|^✓ (.{1,200}?)(?: \(\d+(?:\.\d+)?m?s\))?$"
    r"|^Test Case '(.{1,200})' passed \("
    r"|^(?:\d+/\d+ )?Test +#\d+: (\S+) \.+ +Passed\b"
    r"|^passed ([\w.`+<>]+(?:\(.{0,200}?\))?)(?: \((?:\d+(?:h|m|s|ms) ?)+\))?$"
)
# Vitest's reporters: a test case's duration and, when it was retried, `(retry xN)` (its `getTestCaseSuffix`);
# a test marked passed with a retry count failed first
_VITEST_RETRIED = re.compile(r"^✓ (?P<name>.{1,300}?)(?: \d+ ?ms)? \(retry x[1-9]\d*\)(?: \d+ ?ms)?$")
# Surefire's report of a test it re-ran (rerunFailingTestsCount): the test's name, then each run's outcome
_MINITEST_RETRY = re.compile(r"^\[MinitestRetry\] retry '(?P<name>[^']{1,200})' count: (?P<count>\d+),")
_FLAKY_PASSED = re.compile(r"^(?P<name>\S+) passed \d+ out of the required \d+ times\. Success!$")


class Retried(NamedTuple):
    """Tests of a step that failed and then passed on a retry: ``words`` for people (their names, or how
    many), ``names`` where the runner names them."""

    words: str
    names: tuple[str, ...] = ()
    # how they showed it: they passed on a retry, or (``differently``) failed a different way each try
    differently: bool = False


def passed_on_retry(
    lines: Sequence[str], failed: Sequence[str], command: str = "", moved: Sequence[str] = ()
) -> Retried | None:
    """The tests of this step that failed and then passed on a retry of the same code; None when no runner
    reported one. ``failed`` are the step's failing test ids
    (:func:`healer.diagnosis.testids.failing_test_ids`), ``command`` its command line, ``moved`` the tests
    that failed on some attempt of a retry wrapper and not on every one (:mod:`healer.diagnosis.retries`)."""
    cleaned = [_clean(line) for line in lines if _HINT.search(line)]
    named = (
        _pytest(cleaned, failed, command)
        or _gotestsum(lines)
        or _rspec(cleaned, failed)
        or _flaky_plugin(cleaned)
        or _minitest(cleaned)
        or sorted(retried_gradle_tests(lines) | retried_xcpretty_tests(lines))
        or _go_count(lines, command)
        or _vitest(cleaned)
        or _passed_after_failing(lines)
        or list(moved)
        or bazel_flaky(lines)
    )
    if named:
        return Retried(shown(named), tuple(named))
    passed, varied = jest_retries(lines)
    if passed:
        return Retried(shown(passed), tuple(passed))
    varied = (
        varied
        or rspec_tries(lines)
        or surefire_runs(lines)
        or flaky_tries(lines)
        or ctest_tries(lines)
        or playwright_retries(lines)
    )
    if varied:
        return Retried(shown(varied), tuple(varied), differently=True)
    counts = [
        next(filter(None, m.groups()))
        for line in cleaned
        if (m := _PLAYWRIGHT.match(line) or _COUNTED.search(line))
    ]
    if counts:
        return Retried(f"{counts[-1]} flaky test(s)")
    return Retried("a test") if any(_NEXTEST_TRY.match(line) for line in cleaned) else None


def _pytest(lines: Sequence[str], failed: Sequence[str], command: str) -> list[str]:
    rerun: dict[str, None] = {}
    for line in lines:
        if match := _PYTEST_RERUN.match(line):
            rerun.setdefault(match.group("summary") or match.group("verbose"))
    if rerun:
        return [test for test in rerun if test not in failed] if len(failed) < MAX_TEST_IDS else []
    option = _RERUNS_OPTION.search(command)
    for line in reversed(lines):
        if "rerun" in line and (match := _PYTEST_TOTALS.search(line)) and option:
            errors = _PYTEST_ERRORS.search(line)
            bad = int(match.group("failed") or 0) + int(errors.group(1) if errors else 0)
            extra = int(match.group("rerun")) - bad * int(option.group(1))
            return [f"{extra} re-run(s) of tests that then passed"] if bad and extra > 0 else []
    return []


def _gotestsum(lines: Sequence[str]) -> list[str]:
    runs = 0
    fails: dict[str, set[int]] = {}
    sections: list[set[str]] = [set()]
    # its package lines (`✖  pkg (1.2s)`, `✓  pkg (1.1s)`): the run each package last failed in, and the
    # packages that passed in a later run than one they failed in
    crossed: dict[str, int] = {}
    recovered: list[str] = []
    for raw in lines:
        if not ("DONE " in raw or "FAIL" in raw or "✖" in raw or "✓" in raw):
            continue
        line = _clean(raw)
        if match := _GOTESTSUM_DONE.match(line):
            runs = max(runs, int(match.group("runs") or 1))
            sections.append(set())
        elif match := _GOTESTSUM_PACKAGE.match(line):
            if match.group("mark") == "✖":
                crossed[match.group("pkg")] = len(sections)
            elif crossed.get(match.group("pkg"), len(sections)) < len(sections):
                recovered.append(match.group("pkg"))
        elif match := _GOTESTSUM_FAIL.match(line):
            name = f"{match.group('pkg')} {match.group('name')}"
            fails.setdefault(name, set()).add(int(match.group("rerun") or 0))
            sections[-1].add(name)
        elif (match := _GO_OUTCOME.match(line)) and match.group(1) == "FAIL":
            sections[-1].add(match.group(2))
    if runs < 2:
        return []
    if recovered:
        return recovered
    if any(tries - {0} for tries in fails.values()):
        return [name for name, tries in fails.items() if len(tries) < runs]
    ran = [found for found in sections[:-1] if found][:runs]
    if len(ran) < 2:
        return []
    common = set.intersection(*ran)
    return sorted(set.union(*ran) - common)


def _rspec(lines: Sequence[str], failed: Sequence[str]) -> list[str]:
    """Examples rspec-retry tried again that did not fail in the end: missing from RSpec's failed examples, or
    (without that list) tried fewer times than another, as rspec-retry tries until one passes."""
    tries: dict[str, int] = {}
    for line in lines:
        if match := _RSPEC_TRY.match(line):
            tries[match.group("where")] = max(tries.get(match.group("where"), 0), int(match.group("try")))
    if failed:
        done = {test.removeprefix("./") for test in failed}
        return [where for where in tries if where.removeprefix("./") not in done]
    most = max(tries.values(), default=0)
    return [where for where, count in tries.items() if count < most]


def _flaky_plugin(lines: Sequence[str]) -> list[str]:
    failed = {m.group("name") for line in lines if (m := FLAKY_FAILED.match(line))}
    return [
        m.group("name") for line in lines if (m := _FLAKY_PASSED.match(line)) and m.group("name") in failed
    ]


def _vitest(lines: Sequence[str]) -> list[str]:
    return [match.group("name") for line in lines if (match := _VITEST_RETRIED.match(line))]


def _minitest(lines: Sequence[str]) -> list[str]:
    counts: dict[str, int] = {}
    for line in lines:
        if match := _MINITEST_RETRY.match(line):
            name = match.group("name")
            counts[name] = max(counts.get(name, 0), int(match.group("count")))
    most = max(counts.values(), default=0)
    return [name for name, count in counts.items() if count < most]


def _go_count(lines: Sequence[str], command: str) -> list[str]:
    if not GO_COUNT.search(command):
        return []
    failed = {m.group(2) for raw in lines if "--- FAIL" in raw and (m := _GO_OUTCOME.match(_clean(raw)))}
    return sorted(failed & passed_go_tests(lines))


def _passed_after_failing(lines: Sequence[str]) -> list[str]:
    """Tests the step reports failed and, later, passed: a script or a runner ran them again on the same code.
    Read where a runner names each outcome: ``go test -v`` (``--- FAIL: TestA``, then ``--- PASS: TestA`` in
    a later run of the same package: a package's run ends with its ``ok``/``FAIL`` line, and one run never
    reports a test twice without ``-count``), ``dotnet test`` (``Failed Ns.ATest.A [1 s]``, then ``Passed
    …``), pytest's verbose outcomes, Cypress (``(Attempt 1 of 3) title``, then ``✓ title``), and CTest's
    ``--repeat until-pass:N`` (``Test #7: name ....***Failed``, then ``Test #7: name ....   Passed``)."""
    failed: set[tuple[str, str]] = set()
    found: dict[str, None] = {}
    block: list[tuple[str, str]] = []  # the go tests' outcomes since the last package line
    for raw in lines:
        if not any(word in raw for word in _OUTCOME_WORDS):
            continue
        line = _clean(raw)
        if match := _GO_OUTCOME.match(line):
            block.append((match.group(1), match.group(2)))
        elif match := _GO_PACKAGE.match(line):
            keys = [(outcome, (f"go {match.group(1)}", name)) for outcome, name in block]
            found.update(
                dict.fromkeys(key[1] for outcome, key in keys if outcome == "PASS" and key in failed)
            )
            failed.update(key for outcome, key in keys if outcome == "FAIL")
            block = []
        elif match := _FAILED_OUTCOME.match(line):
            failed.add(("", next(filter(None, match.groups()))))
        elif match := _PASSED_OUTCOME.match(line):
            name = next(filter(None, match.groups()))
            if ("", name) in failed:
                found.setdefault(name)
    return list(found)


def _clean(line: str) -> str:
    line = clean_line(line).strip()
    return line[len("##[error]") :] if line.startswith("##[error]") else line
