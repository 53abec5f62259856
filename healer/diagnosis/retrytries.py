"""Tests a runner tried again on the same code whose tries failed a different way, and Bazel's flaky targets.

A test that fails the same way on every try of the same code is a finding; one whose tries fail a different
way each time (a timeout, then a wrong value, then a refused connection) is not the code failing one check,
and neither is a target Bazel calls flaky. Each runner's words, as its documentation shows them:

- Jest's ``jest.retryTimes(n, {logErrorsBeforeRetry: true})``: ``LOGGING RETRY ERRORS  <full name>``, then
  each failed try's error after ``RETRY N`` (its default reporter's ``printTestFileHeader``);
- rspec-retry's ``display_try_failure_messages``: ``1st Try error in ./spec/a_spec.rb:12:`` then the error;
- Maven Surefire's ``rerunFailingTestsCount``: under the test's name, ``Run 1: …``, ``Run 2: …``;
- the ``flaky`` plugin: ``test_a failed (1 runs remaining out of 2).``, each failure's error indented
  under it;
- Bazel's test summary (the command-line reference, ``--flaky_test_attempts``): ``//pkg:t  FLAKY, failed in 1
  out of 2 in 8.4s``, a target that failed and then passed on a retry of the same build.

Pure: lines in, names out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.matching import unwrapped
from healer.diagnosis.testids import FLAKY_VERDICT

_SUREFIRE_TEST = re.compile(r"^[\w$]+(?:\.[\w$]+)+$")
_SUREFIRE_RUN = re.compile(r"^Run \d+: (?P<message>(?!PASS$).+)$")
_LEVEL = re.compile(r"^\[(?:ERROR|WARNING|INFO)\]")
_JEST_RETRY = re.compile(r"^RETRY \d+$")
# the lines under a Jest matcher's message that give the values it compared
_MATCHER_VALUES = ("Expected", "Received")
_JEST_LOGGED = re.compile(r"^LOGGING RETRY ERRORS\s+(?P<name>\S.*)$")
_RSPEC_TRY_ERROR = re.compile(r"^\d+(?:st|nd|rd|th) Try error in (?P<where>\S+_spec\.rb:\d+):$")
FLAKY_FAILED = re.compile(r"^(?P<name>\S+) failed \(\d+ runs? remaining out of \d+\)\.$")


# CTest's result line of a test that failed a try (the pattern, for the readers of other runs too), its start
# line, and the totals that end its run
CTEST_FAILED = r"^(?:\d+/\d+ )?Test +#\d+: (?P<ctest>\S+) \.+ *\*\*\*(?:Failed|Timeout|Exception)\b"
_CTEST_FAILED = re.compile(CTEST_FAILED)
_CTEST_OTHER = re.compile(r"^(?:\d+/\d+ )?Test +#\d+: |^Start +\d+: |^\d+% tests passed|^The following tests")
# the lines of a try's output that say what failed: an assertion, an expectation, an error
_TRY_CAUSE = re.compile(
    r"Failure\b|[Ee]xpected|[Aa]ctual\b|Which is:|Value of:|REQUIRE|with expansion:|[Ee]rror\b|[Aa]ssert"
    r"|panicked|[Ee]xception\b|[=!<>]="
)
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_PLAYWRIGHT_REPORT = re.compile(r"^\d+\) (?P<title>\S.{0,300}?) ─+$")
_PLAYWRIGHT_RETRY = re.compile(r"^Retry #\d+\b")
_PLAYWRIGHT_ERROR = re.compile(
    r"^(?:\w*Error(?: \[\w+\])?: |Test timeout of \d+ms exceeded|Timed out \d+ms\b)"
)

# a target Bazel's test summary marks flaky: it failed, then passed on a retry (`--flaky_test_attempts`)
_BAZEL_FLAKY = re.compile(r"^(?P<target>//\S+)\s+FLAKY, failed in \d+ out of \d+ in [\d.]+s$")


def bazel_flaky(lines: Sequence[str]) -> list[str]:
    """The targets Bazel's test summary calls ``FLAKY, failed in 1 out of 2 in 8.4s``: each failed and then
    passed on a retry of the same build (the Bazel command-line reference, ``--flaky_test_attempts``)."""
    return [
        m["target"] for raw in lines if "FLAKY" in raw and (m := _BAZEL_FLAKY.match(clean_line(raw).strip()))
    ]


def jest_retries(lines: Sequence[str]) -> tuple[list[str], list[str]]:
    """(tests Jest retried that did not fail in the end, tests whose tries failed in different ways).

    Jest's default reporter logs a retried test's errors before the file's result (its
    ``printTestFileHeader``): `` LOGGING RETRY ERRORS  <full name>``, then `` RETRY 1 `` and that try's error,
    for each try; a test that then failed for good is a ``● a › b`` block of the file's failures. Tries
    under a ``● title`` block are read the same way. A try is its error's first line and the matcher's
    ``Expected:``/``Received:`` values under it. Names are compared as Jest's full name (``a b``)."""
    if not any("RETRY" in raw for raw in lines):
        return [], []
    tries: dict[str, list[list[str]]] = {}  # a test's failed tries: each one's error line and values
    finals: dict[str, list[str]] = {}  # a test's final failure: its error line and values
    title, expect = None, ""
    said: list[str] = []  # what the try or failure being read said so far
    for raw in lines:
        line = _clean(raw)
        if not line:
            continue
        if match := _JEST_LOGGED.match(line):
            title, expect = match.group("name")[:200], ""
            tries.setdefault(title, [])
        elif line.startswith("● "):
            title, expect = line[2:].replace(" › ", " ")[:200], "block"
        elif title is None:
            continue
        elif _JEST_RETRY.match(line):
            expect = "retry"
        elif expect in ("block", "retry"):
            said = [line[:200]]
            if expect == "block":
                finals[title] = said
            else:
                tries.setdefault(title, []).append(said)
            expect = "values"
        elif expect == "values" and line.startswith(_MATCHER_VALUES):
            said.append(line[:200])  # the matcher's values: a different value is a different failure
    passed = [title for title in tries if title not in finals]
    varied = [
        title
        for title, seen in tries.items()
        if title in finals and len({tuple(one) for one in [*seen, finals[title]]}) > 1
    ]
    return passed, varied


def rspec_tries(lines: Sequence[str]) -> list[str]:
    """Examples rspec-retry (``display_try_failure_messages``) shows failing a different way on its tries:
    ``1st Try error in ./spec/a_spec.rb:14:`` then the error's first line, for each try."""
    errors: dict[str, set[str]] = {}
    where = None
    for raw in lines:
        if "Try error in" in raw and (match := _RSPEC_TRY_ERROR.match(_clean(raw))):
            where = match.group("where")
        elif where is not None and (line := _clean(raw)):
            errors.setdefault(where, set()).add(line[:200])
            where = None
    return [where for where, seen in errors.items() if len(seen) > 1]


def surefire_runs(lines: Sequence[str]) -> list[str]:
    """Tests Surefire's ``rerunFailingTestsCount`` shows failing a different way on its runs: under the
    test's name, ``Run 1: ATest.a:44 expected: <1> but was: <2>``, ``Run 2: …`` for each run."""
    messages: dict[str, set[str]] = {}
    test = None
    for raw in lines:
        if "Run " not in raw and "[ERROR]" not in raw and "[WARNING]" not in raw:
            continue
        # Surefire names a failing test at ERROR level and a flaky one, under "Flakes:", at WARNING level
        line = _LEVEL.sub("", _clean(raw)).strip()
        if match := _SUREFIRE_RUN.match(line):
            if test is not None:
                messages.setdefault(test, set()).add(match.group("message")[:200])
        elif _SUREFIRE_TEST.match(line):
            test = line
    return [test for test, seen in messages.items() if len(seen) > 1]


def flaky_tries(lines: Sequence[str]) -> list[str]:
    """Tests the ``flaky`` plugin re-ran whose failures show different errors: each failure's line (``test_a
    failed (1 runs remaining out of 2).``, the last one ``test_a failed; it passed 0 out of the required 1
    times.``), then the error's class and message, indented."""
    errors: dict[str, set[str]] = {}
    test: str | None = None
    said: list[str] = []
    for raw in [*lines, ""]:
        line = clean_line(raw)
        if test is not None and line[:1] in ("\t", " ") and line.strip():
            said.append(line.strip())
            continue
        if test is not None and said:  # a failure shown without its error says nothing of it
            errors.setdefault(test, set()).add("\n".join(said)[:400])
        test, said = None, []
        if "failed" in line and (
            match := FLAKY_FAILED.match(line.strip()) or FLAKY_VERDICT.match(line.strip())
        ):
            test = match.group("name")
    return [name for name, seen in errors.items() if len(seen) > 1]


def ctest_tries(lines: Sequence[str]) -> list[str]:
    """Tests CTest's ``--repeat until-pass:N`` shows failing a different way on its tries: each failed try's
    result line (``Test #9: name ....***Failed  1.02 sec``), then that try's output. A try's assertion and
    error lines (addresses aside) are what it said; two tries differ when neither one's are all among the
    other's (a try that printed less of the same output says nothing new)."""
    said: dict[str, list[frozenset[str]]] = {}
    name: str | None = None
    causes: set[str] = set()
    for raw in [*lines, "The following tests"]:
        line = _clean(raw)
        if not line or (name is None and "Test" not in line):
            continue
        ended = _CTEST_OTHER.match(line)
        if ended and name is not None:
            if causes:
                said.setdefault(name, []).append(frozenset(causes))
            name, causes = None, set()
        if match := _CTEST_FAILED.match(line):
            name = match.group("ctest")
        elif name is not None and not ended and _TRY_CAUSE.search(line):
            causes.add(_ADDRESS.sub("0x…", line)[:200])
    return [name for name, tries in said.items() if _differ(tries)]


def playwright_retries(lines: Sequence[str]) -> list[str]:
    """Tests Playwright's report shows failing a different way on its retries: under the test's
    ``1) [chromium] › a.spec.ts:3:5 › title ───`` line its first try's error, then ``Retry #1 ───`` and the
    next try's. A try's error lines (``Error: …``, ``TimeoutError: …``, ``Test timeout of 30000ms
    exceeded.``) are what it said; an attachment's ``Error Context: …`` path is not."""
    if not any("Retry #" in raw for raw in lines):
        return []
    said: dict[str, list[frozenset[str]]] = {}
    title: str | None = None
    errors: set[str] = set()
    for raw in [*lines, "1) end ─"]:
        line = _clean(raw)
        report = _PLAYWRIGHT_REPORT.match(line)
        if (report or _PLAYWRIGHT_RETRY.match(line)) and title is not None:
            if errors:
                said.setdefault(title, []).append(frozenset(errors))
            errors = set()
        if report:
            title = report.group("title")
        elif title is not None and _PLAYWRIGHT_ERROR.match(line):
            errors.add(line[:200])
    return [title for title, tries in said.items() if _differ(tries)]


def _differ(tries: list[frozenset[str]]) -> bool:
    """Whether two tries said different things: neither one's lines are all among the other's (a line that
    begins another, or that another begins, is the same line printed longer or cut short)."""
    return any(not (_among(a, b) or _among(b, a)) for i, a in enumerate(tries) for b in tries[i + 1 :])


def _among(some: frozenset[str], others: frozenset[str]) -> bool:
    return all(any(one.startswith(other) or other.startswith(one) for other in others) for one in some)


def _clean(line: str) -> str:
    line = unwrapped(clean_line(line).strip()).strip()
    return line[len("##[error]") :] if line.startswith("##[error]") else line
