"""Log text → the ids of the tests that failed, as the test runner printed them.

Pure and bounded: at most :data:`MAX_TEST_IDS` ids, each at most :data:`MAX_TEST_ID_CHARS` characters, in the
order the log first names them, without duplicates. The runners and the lines read:

- pytest: ``FAILED tests/t.py::test_a[x] - msg`` (also ``ERROR``), or ``tests/t.py::test_a FAILED`` (``-v``)
  → ``tests/t.py::test_a[x]``
- unittest: ``FAIL: test_a (pkg.mod.TestX.test_a)`` (also ``ERROR:``; before 3.11 the class only)
  → ``pkg.mod.TestX.test_a``
- jest: ``FAIL src/a.test.js``, then ``● Suite › test a`` → ``src/a.test.js › Suite › test a``
- vitest: `` FAIL  src/a.test.ts > Suite > test a`` → ``src/a.test.ts > Suite > test a``
- node:test (TAP): ``not ok 1 - test a`` → ``test a`` (a parent whose subtest failed is left out)
- go test: ``--- FAIL: TestA/sub (0.00s)`` → ``TestA/sub`` (a parent whose subtest failed is left out)
- cargo test: ``test tests::a ... FAILED`` → ``tests::a``
- Maven Surefire 3 and 2: ``[ERROR] com.x.ATest.testA -- Time elapsed … <<< FAILURE!`` and
  ``[ERROR] testA(com.x.ATest)  Time elapsed … <<< ERROR!`` → ``com.x.ATest.testA``
- Gradle: ``com.x.ATest > testA() FAILED`` → ``com.x.ATest.testA``
- XCTest: ``Test Case '-[Module.ATests testA]' failed (0.41 seconds).`` (swift-corelibs-xctest:
  ``Test Case 'ATests.testA' failed``) → ``Module.ATests testA``
- Minitest: ``  1) Failure:`` (or ``Error:``), then ``Mod::ATest#test_a [test/a_test.rb:19]:`` →
  ``Mod::ATest#test_a``
- GoogleTest: ``[  FAILED  ] Suite.Test (21 ms)`` (and its list of failed tests after the totals) →
  ``Suite.Test``
- Karma's progress reporter: ``Chrome Headless 87.0.4280.88 (Linux x86_64) Suite test FAILED`` → ``Suite
  test`` (the browser, its version and platform left out)
- VSTest (``dotnet test``'s console logger): ``  Failed Ns.ATest.TestA [312 ms]`` → ``Ns.ATest.TestA``
- RSpec's "Failed examples:" list: ``rspec ./spec/a_spec.rb:12 # A does x`` (the command that re-runs the
  example) → ``./spec/a_spec.rb:12``
- CTest's list after ``The following tests FAILED:``: a tab, then `` 88 - ipc_roundtrip (Failed)`` (or
  ``Timeout``, ``SEGFAULT``, ``Not Run``, …: the test's final status, after any ``--repeat``) →
  ``ipc_roundtrip``
- unittest's verbose run (``-v``, nose too): ``test_a (pkg.mod.TestX) ... FAIL`` (also ``ERROR``; 3.11+
  prints ``(pkg.mod.TestX.test_a)``) → ``pkg.mod.TestX.test_a``
- ScalaTest (under sbt's ``[info]``): ``- should refresh after the TTL *** FAILED ***`` → ``should refresh
  after the TTL``
- cargo-nextest: ``FAIL [   0.511s] my-crate net::tests::accept`` (the binary's id, then the test) →
  ``net::tests::accept``
- clojure.test (``lein test``, ``clojure -X:test``): ``FAIL in (drains-under-load) (queue_test.clj:40)``
  (also ``ERROR in``) → ``drains-under-load``
- Automake's parallel test harness (``make check``): ``FAIL: tests/test_pool`` (also ``ERROR:`` and
  ``XPASS:``; a TAP test adds its number and description) → ``tests/test_pool``

Test ids are untrusted text (a PR names its own tests): callers show them in code spans and never run them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from healer.diagnosis.logs import clean_line

MAX_TEST_IDS = 20
MAX_TEST_ID_CHARS = 200

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A cheap first look: a line that holds none of these names no failed test (every shape below spells them
# so, in this case: a passing test named ``test_error_handling`` is not looked at further).
_HINT = re.compile(r"FAIL|ERROR|not ok|●|_spec\.rb|Failed |#test|' failed \(|\d - \S")

_PYTEST_SUMMARY = re.compile(
    r"^(?:FAILED|ERROR) (?:\[[\d.]+m?s\] )?(?P<id>[^\s:]+\.py(?:::[^\s\[]+)*(?:\[.*?\])?)(?: -(?: .*)?)?$"
)
_PYTEST_VERBOSE = re.compile(r"^(?P<id>[^\s:]+\.py::[^\s\[]+(?:\[[^\]\s]*\])?) (?:FAILED|ERROR)\b")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): (?P<name>[\w.]+) \((?P<where>[\w.$]+)\)")
_JEST_FILE = re.compile(r"^\s*FAIL\s+(?P<file>\S+?)(?:\s+\(\d[\d.]* ?m?s\))?$")
_JEST_TEST = re.compile(r"^\s*● (?P<name>.+\S)\s*$")
_VITEST = re.compile(r"^\s*FAIL\s+(?P<id>\S.*? > .+?)\s*(?:\[.*\])?$")
_TAP = re.compile(r"^\s*not ok \d+ - (?P<name>.+?)(?:\s+#\s.*)?$")
GO_FAILED = re.compile(r"^\s*--- FAIL: (?P<name>\S+) \(\d")
# `go test -v`'s line when a test starts (`=== CONT` when a parallel one resumes)
GO_STARTED = re.compile(r"^=== (?:RUN|CONT)\s+(?P<name>\S+)$")
_GO_PASS = re.compile(r"^\s*--- PASS: (?P<name>\S+) \(\d")
_CARGO = re.compile(r"^test (?P<name>\S+) \.\.\. FAILED$")
# RSpec's list of failed examples: the command that re-runs each, then `#` and its description
_RSPEC = re.compile(r"^rspec (?P<id>\S+_spec\.rb(?::\d+|\[[\d:]+\])) # ")
# CTest's list of the tests that failed, each with its final status (cmCTestRunTest's status names)
_CTEST_LISTED = re.compile(
    r"^\s*\d+ - (?P<id>\S.{0,300}?) \((?:Failed|Timeout|SEGFAULT|ILLEGAL|INTERRUPT|NUMERICAL|OTHER_FAULT"
    r"|BAD_COMMAND|Not Run|Subprocess aborted|Child aborted|Exception)\)$"
)
# XCTest's line for a test that failed, on macOS and in swift-corelibs-xctest
_XCTEST = re.compile(r"^Test Case '(?:-\[(?P<objc>[\w.]+ \w+)\]|(?P<id>[\w.]+\.\w+))' failed \(")
# Minitest's line naming the test under its "1) Failure:" or "1) Error:" header, with the assertion's place
_MINITEST = re.compile(r"^(?P<id>[A-Z][\w:]{0,200}#test\w{0,200})(?: \[[^\]]{1,300}:\d+\])?:$")
# GoogleTest's line for a failed test (a parameterised one adds ", where GetParam() = …")
GTEST_FAILED = re.compile(r"^\[  FAILED  \] (?P<id>[\w/]+\.[\w/]+)(?: \(\d+ ms\)|, where .*)?$")
# Karma's line for a failed test: the browser, its version, its platform, the suites and the test, "FAILED"
_KARMA = re.compile(r"^[A-Z][\w ]{1,40}? \d+(?:\.\d+)+ \([^)]{1,80}\) (?P<id>\S.{0,300}?) FAILED$")
# unittest's verbose line for a test that failed: its name, where it is, its outcome
_UNITTEST_VERBOSE = re.compile(r"^(?P<name>\w+) \((?P<where>[\w.$]+)\) \.\.\. (?:FAIL|ERROR)$")
# ScalaTest's reporter: a failed test's name (sbt prefixes each line with "[info] ")
_SCALATEST = re.compile(r"^(?:\[info\] )?- (?P<id>\S.{0,300}?) \*\*\* FAILED \*\*\*$")
# cargo-nextest's line for a failed test: its time, the test binary's id, the test's name
_NEXTEST = re.compile(r"^\s*FAIL \[\s*[\d.]+s\] \S+ (?P<id>\S+)$")
# clojure.test's report of a failed or erring test: the test's name, then its file and line
_CLOJURE = re.compile(
    r"^(?:FAIL|ERROR) in \((?P<id>[^()\s]{1,200}(?: [^()\s]{1,200})*)\) \([^()]{1,300}:\d+\)$"
)
# Automake's harness: a test's result and its path in the build tree (a TAP test adds its number and name)
_AUTOMAKE = re.compile(r"^(?:FAIL|ERROR|XPASS): (?P<id>[\w.+-]+/[\w./+-]+)(?: \d+ .*)?$")
# VSTest's console logger: each failed test with its duration ("  Failed Ns.ATest.TestA [312 ms]", "[< 1 ms]")
_VSTEST = re.compile(r"^\s*Failed (?P<id>[\w.$`+<>]+(?:\(.{0,200}?\))?) \[(?:< ?)?\d[\d.,]* ?(?:ms|s|m|h)\]$")
_SUREFIRE3 = re.compile(
    r"^\[ERROR\] (?P<id>[\w.$]+\.[\w$]+(?:\([^)]*\))?(?:\[[^\]]*\])?)"
    r" +-- Time elapsed.*<<< (?:FAILURE|ERROR)!"
)
_SUREFIRE2 = re.compile(
    r"^\[ERROR\] (?P<method>[\w$]+(?:\[[^\]]*\])?)\((?P<cls>[\w.$]+)\) +Time elapsed.*<<< (?:FAILURE|ERROR)!"
)
_PYTEST_PASSED = re.compile(
    r"^(?:\[gw\d+\] \[\s*\d+%\] PASSED (?P<xdist>\S+\.py::\S+)|(?P<plain>\S+\.py::\S+) PASSED\b)"
)
FLAKY_VERDICT = re.compile(
    r"^(?P<name>\S+) failed; it passed (?P<passes>\d+) out of the required \d+ times\.$"
)
_GRADLE_OUTCOME = re.compile(r"^(?P<cls>[\w.$]+(?: > [^>]+?)*) > (?P<method>.+?) (?P<outcome>FAILED|PASSED)$")
_GRADLE_TASK = re.compile(r"^> Task (:\S+)")


def failing_test_ids(lines: Iterable[str], *, limit: int = MAX_TEST_IDS) -> tuple[str, ...]:
    """The failing test ids printed in ``lines`` (a job log's lines, or a text split into lines)."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    found: dict[str, None] = {}
    go_tests: list[str] = []
    jest_file: str | None = None
    tap_indents: list[int] = []  # the indentation of each failed TAP test so far
    for raw in lines:
        if not _HINT.search(raw):
            continue
        line = _clean(raw)
        test_id = None
        if (match := _JEST_FILE.match(line)) and " > " not in line:
            jest_file = match.group("file")
            continue
        if jest_file is not None and (match := _JEST_TEST.match(line)):
            name = match.group("name")
            if name.startswith("Console") or name == "Test suite failed to run":
                test_id = jest_file if name != "Console" else None
            else:
                test_id = f"{jest_file} › {name}"
        elif match := GO_FAILED.match(line):
            go_tests.append(match.group("name"))
            continue
        elif match := _TAP.match(line):
            # node:test fails a test whose subtest failed; the subtest, printed first and deeper, says which
            depth = len(line) - len(line.lstrip())
            parent = bool(tap_indents) and tap_indents[-1] > depth
            tap_indents.append(depth)
            test_id = None if parent else match.group("name")
        else:
            test_id = _one_line_id(line)
        if test_id:
            found.setdefault(_bounded(test_id))
            if len(found) >= limit and not go_tests:
                break
    # ``go test`` fails the parent of every failed subtest; the subtests say which case it was.
    for name in go_tests:
        if not any(other.startswith(name + "/") for other in go_tests):
            found.setdefault(_bounded(name))
    return tuple(found)[:limit]


def passed_go_tests(lines: Iterable[str]) -> frozenset[str]:
    """The Go tests ``lines`` report as passed (``--- PASS: Name (0.01s)``): with ``go test -count=N`` one
    test can pass and fail in the same run, on the same code."""
    return frozenset(
        match.group("name") for raw in lines if "--- PASS" in raw and (match := _GO_PASS.match(_clean(raw)))
    )


def failed_go_counts(lines: Iterable[str]) -> dict[str, int]:
    """How often each Go test ``lines`` report as failed (``--- FAIL: Name (0.01s)``), by name: with ``go test
    -count=N`` each run of a test that failed says so once."""
    counts: dict[str, int] = {}
    for raw in lines:
        if "--- FAIL" in raw and (match := GO_FAILED.match(_clean(raw))):
            counts[match.group("name")] = counts.get(match.group("name"), 0) + 1
    return counts


def passed_pytest_tests(lines: Iterable[str]) -> frozenset[str]:
    """The pytest tests ``lines`` report as passed in verbose mode (``tests/t.py::test_a[1-3] PASSED``, or
    pytest-xdist's ``[gw0] [ 33%] PASSED tests/t.py::test_a[1-3]``): with pytest-repeat's ``--count=N`` one
    test runs N times on the same code."""
    found = set()
    for raw in lines:
        if "PASSED" in raw and (match := _PYTEST_PASSED.match(_clean(raw))):
            found.add(match.group("xdist") or match.group("plain"))
    return frozenset(found)


def flaky_plugin_passes(lines: Iterable[str]) -> dict[str, int]:
    """The tests the ``flaky`` plugin failed for good, by name, with how often each passed first: its report's
    ``test_a failed; it passed 1 out of the required 2 times.`` (a test of ``@flaky(min_passes=2)``)."""
    found: dict[str, int] = {}
    for raw in lines:
        if "out of the required" in raw and (match := FLAKY_VERDICT.match(_clean(raw))):
            name, passes = match.group("name"), int(match.group("passes"))
            found[name] = min(passes, found.get(name, passes))
    return found


def retried_gradle_tests(lines: Iterable[str]) -> frozenset[str]:
    """The Gradle tests ``lines`` report as ``FAILED`` and then, later in the same task's output (``> Task
    :app:test``), as ``PASSED``: the test-retry plugin reports each execution on the console and retries a
    failed test after the task's other tests (its README, "Reporting"). Ids as :func:`failing_test_ids` gives
    them (``com.x.ATest.testA``)."""
    failed: set[tuple[str, str]] = set()
    found: set[str] = set()
    task = ""
    for raw in lines:
        if not ("> " in raw and ("FAILED" in raw or "PASSED" in raw or "Task :" in raw)):
            continue
        line = _clean(raw)
        if match := _GRADLE_TASK.match(line):
            task = match.group(1)
        elif match := _GRADLE_OUTCOME.match(line):
            test_id = _bounded(_gradle_id(match))
            if match.group("outcome") == "FAILED":
                failed.add((task, test_id))
            elif (task, test_id) in failed:
                found.add(test_id)
    return frozenset(found)


# xcpretty's lines (its README and formatter): a test suite's name alone on its line, then each test under it,
# `✗ testA, <failure message>` or `✓ testA (0.412 seconds)`
_XCPRETTY_SUITE = re.compile(r"^(?P<suite>[A-Z]\w{0,200})$")
_XCPRETTY_TEST = re.compile(
    r"^(?:(?P<failed>✗) (?P<name>\w{1,200}), |(?P<passed>✓) (?P<ok>\w{1,200}) \([\d.]+ seconds\)$)"
)


def retried_xcpretty_tests(lines: Iterable[str]) -> frozenset[str]:
    """The XCTest tests xcpretty shows failed (``✗``) and then, later, passed (``✓``) in the same suite:
    xcodebuild ran them again on the same code (``-retry-tests-on-failure``, ``-test-iterations``); named
    ``Suite.testA``."""
    failed: set[str] = set()
    found: set[str] = set()
    suite = ""
    for raw in lines:
        if "✗" not in raw and "✓" not in raw:
            if "Tests" in raw and (heading := _XCPRETTY_SUITE.match(clean_line(raw).strip())):
                suite = heading["suite"]
            continue
        if match := _XCPRETTY_TEST.match(clean_line(raw).strip()):
            test_id = f"{suite}.{match['name'] or match['ok']}"
            if match["failed"]:
                failed.add(test_id)
            elif test_id in failed:
                found.add(test_id)
    return frozenset(found)


def _gradle_id(match: re.Match[str]) -> str:
    method = match.group("method")
    method = method[:-2] if method.endswith("()") else method
    return f"{match.group('cls').replace(' > ', '.')}.{method}"


# the runners' one-line reports of a failed test whose `id` group is the test's id, tried in this order
_ID_SHAPES = (
    _SUREFIRE3,
    _VSTEST,
    _KARMA,
    GTEST_FAILED,
    _MINITEST,
    _CTEST_LISTED,
    _NEXTEST,
    _CLOJURE,
    _AUTOMAKE,
    _SCALATEST,
)


def _one_line_id(line: str) -> str | None:
    if match := _PYTEST_SUMMARY.match(line) or _PYTEST_VERBOSE.match(line):
        return match.group("id")
    if match := _UNITTEST.match(line) or _UNITTEST_VERBOSE.match(line):
        name, where = match.group("name"), match.group("where")
        # Python 3.11+ prints the full id in the parentheses; older ones print the class only.
        return where if where.endswith("." + name) else f"{where}.{name}"
    if match := _VITEST.match(line):
        return match.group("id")
    if match := _CARGO.match(line):
        return match.group("name")
    if match := _RSPEC.match(line):
        return match.group("id")
    for shape in _ID_SHAPES:
        if match := shape.match(line):
            return match.group("id")
    if match := _XCTEST.match(line):
        return match.group("objc") or match.group("id")
    if match := _SUREFIRE2.match(line):
        return f"{match.group('cls')}.{match.group('method')}"
    if not line.startswith(">") and (match := _GRADLE_OUTCOME.match(line)) and match["outcome"] == "FAILED":
        return _gradle_id(match)
    return None


def _clean(line: str) -> str:
    """The line as the tool printed it: the log's own cleaning, and the runner's ``##[error]`` prefix cut."""
    line = clean_line(line)
    return line[len("##[error]") :] if line.startswith("##[error]") else line


def _bounded(test_id: str) -> str:
    flat = " ".join(_CONTROL.sub(" ", test_id).split())
    return flat if len(flat) <= MAX_TEST_ID_CHARS else flat[: MAX_TEST_ID_CHARS - 1] + "…"
