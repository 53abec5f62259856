"""A test run's totals: the line a runner prints at the end of each run, after its failures, and the size of
the suite it names.

RSpec, VSTest (``dotnet test``), Jest and others print no header at the start of a run, but end each run with
its totals after its failures (RSpec's ``143 examples, 1 failure``, then its "Failed examples:" list; VSTest's
``Failed!  - Failed: 1, Passed: 211, Skipped: 0, Total: 212``, before .NET 5 ``Total tests: 212`` over its
counts; Jest's ``Tests: 1 failed, 210 passed, 211 total``; mocha's ``11 passing (3s)`` with its ``1 failing``;
Minitest's ``212 runs, 530 assertions, 1 failures, 0 errors``; XCTest's ``Executed 71 tests, with 1 failure (0
unexpected) in …``; ExUnit's ``212 tests, 1 failure`` and rebar3 EUnit's ``88 tests, 1 failures``; Rust's
libtest, each test binary's ``test result: FAILED. 211 passed; 1 failed; 0 ignored; 0 measured; 0 filtered
out; …``; Surefire's ``Tests run: 412, Failures: 1, Errors: 0, Skipped: 0`` under its "Results:" (``mvn verify
|| mvn verify``); PHPUnit's ``Tests: 1190, Assertions: 3522, Failures: 1.`` after its failures; unittest's
``Ran 151 tests in 3.902s``; Automake's summary's ``# TOTAL: 27`` (``make check || make check``); Karma's
``TOTAL: 1 FAILED, 611 SUCCESS``; pytest's last line, ``1 failed, 169 passed in 22.31s``, where ``-q`` left
out its header): those end the runs, again only when every run names the same total. Mocha lists a run's
failures after its totals, indented (``  1) Suite``, then the test's title and a colon, then the error): the
run ends after them, and each is read as the suite and the test's title together.

Pure: lines in, runs and counts out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line

# a run's totals where the runner prints them after its failures, and the size of the suite they name
RUN_END = re.compile(
    r"^(?P<rspec>\d+) examples?, \d+ failures?\b"
    r"|^(?:Failed|Passed)!\s+- Failed:\s+\d+, Passed:\s+\d+, Skipped:\s+\d+, Total:\s+(?P<vstest>\d+)\b"
    # VSTest's totals before .NET 5: "Total tests: 96" over "Passed: 95" and "Failed: 1" (SDK 3.x), or one
    # line, "Total tests: 96. Passed: 95. Failed: 1. Skipped: 0." (SDK 2.x)
    r"|^Total tests: (?P<vstest_legacy>\d+)(?:\. (?:Passed|Failed|Skipped): \d+)*\.?$"
    r"|^Tests:\s+.*?\b(?P<jest>\d+) total$"
    r"|^(?P<mocha>\d+) passing \(\d[^)]*\)$"
    # XCTest's totals: "Executed 71 tests, with 1 failure (0 unexpected) in 3.118 (3.131) seconds"
    r"|^Executed (?P<xctest>\d+) tests?, with \d+ failures? \(\d+ unexpected\) in "
    # ExUnit's totals ("1 doctest, 212 tests, 1 failure, 3 excluded"), rebar3 EUnit's ("88 tests, 1 failures")
    r"|^(?:\d+ (?:doctests?|propert(?:y|ies)), )*(?P<exunit>\d+) tests?, \d+ failures?"
    r"(?:, \d+ (?:excluded|skipped|invalid))*$"
    # Minitest's totals: "212 runs, 530 assertions, 1 failures, 0 errors, 0 skips"
    r"|^(?P<minitest>\d+) runs, \d+ assertions, \d+ failures, \d+ errors(?:, \d+ skips)?$"
    # pytest's last line, its counts (`-q` prints no header): "1 failed, 169 passed in 22.31s"
    r"|^=*\s*(?P<pytest>\d+ (?:failed|passed|error)[^=]*?) in [\d.]+s(?: \([\d:]+\))?\s*=*$"
    # Rust's libtest (`cargo test`), each test binary's last line: "test result: FAILED. 211 passed; 1 failed;
    # 0 ignored; 0 measured; 0 filtered out; finished in 5.12s"
    r"|^test result: (?:FAILED|ok)\. (?P<libtest>\d+ passed; \d+ failed; \d+ ignored; \d+ measured);"
    # Surefire's and Failsafe's totals under "Results:" (a test class's line adds ", Time elapsed: …"):
    # "[ERROR] Tests run: 412, Failures: 1, Errors: 0, Skipped: 0"
    r"|^\[(?:ERROR|WARNING|INFO)\] Tests run: (?P<surefire>\d+), Failures: \d+, Errors: \d+, Skipped: \d+"
    r"(?:, Flakes: \d+)?$"
    # unittest's line after its failures: "Ran 151 tests in 3.902s" (then "OK" or "FAILED (failures=1)")
    r"|^Ran (?P<unittest>\d+) tests? in [\d.]+s$"
    # PHPUnit's totals after its failures: "Tests: 1190, Assertions: 3522, Failures: 1."
    r"|^Tests: (?P<phpunit>\d+), Assertions: \d+, "
    # Automake's parallel test harness, the first line of its summary: "# TOTAL: 27"
    r"|^# TOTAL: (?P<automake>\d+)$"
    # Karma's reporters at the run's end: "TOTAL: 1 FAILED, 611 SUCCESS" (or "TOTAL: 612 SUCCESS")
    r"|^TOTAL: (?P<karma>(?:\d+ FAILED, )?\d+ SUCCESS)$"
    # CTest's summary at each run's end: "83% tests passed, 1 tests failed out of 6"
    r"|^\d+% tests passed, \d+ tests? failed out of (?P<ctest>\d+)$"
)
# the counts of pytest's last line that are tests it ran
_PYTEST_COUNTS = re.compile(r"(\d+) (?:failed|passed|skipped|xfailed|xpassed|errors?)\b")
_LIBTEST_COUNTS = re.compile(r"(\d+) (?:passed|failed|ignored|measured)\b")
_KARMA_COUNTS = re.compile(r"(\d+) (?:FAILED|SUCCESS)\b")
# what RSpec prints after its totals and before the next run: its failed examples' re-run commands, the seed;
# and the rest of mocha's totals
AFTER_END = re.compile(
    r"^(?:|Failed examples:|rspec \S+ # .*|Randomized with seed \d+|(?P<more>\d+) (?:pending|failing)"
    # and the counts VSTest before .NET 5 prints under its totals, then its time
    r"|(?:Passed|Failed|Skipped): \d+|Total time: \d[\d.:]* \w+"
    # and what CTest prints under its summary: its time, the tests that failed, its last word
    r"|Total Test time \(real\) = +[\d.]+ sec|The following tests FAILED:"
    r"|\d+ - \S+ \((?:Failed|Timeout|Not Run|SEGFAULT|Subprocess aborted|Exception|Child aborted)\)"
    r"|Errors while running CTest)$"
)


def runs_ended_by_totals(lines: Sequence[str], again: bool = False) -> list[list[str]]:
    """The runs of a runner that prints its totals at each run's end (:data:`RUN_END`), cut after each
    run's totals and what RSpec prints after them, when two or more runs name the same total, or when the
    script runs its command again on failure (``again``) and there are two runs; one part, the whole step,
    otherwise."""
    cuts: list[int] = []
    sizes: set[int] = set()
    n = 0
    while n < len(lines):
        found = totals(lines[n])
        n += 1
        if found:
            runner, size = found.lastgroup, totals_size(found)
            while n < len(lines) and (after := AFTER_END.match(clean_line(lines[n]).strip())):
                size += int(after["more"] or 0) if runner == "mocha" else 0
                n += 1
            # mocha's failure details follow its totals, each line indented
            while runner == "mocha" and n < len(lines) and clean_line(lines[n])[:1] in ("", " "):
                n += 1
            sizes.add(size)
            cuts.append(n)
    if len(cuts) < 2 or len(sizes) != 1 and not (again and len(cuts) == 2):
        return [list(lines)]
    bounds = [0, *cuts[:-1], len(lines)]
    return [list(lines[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def totals(raw: str) -> re.Match[str] | None:
    """A run's totals line (:data:`RUN_END`), its words looked for first, without a regular expression (a
    chain of ``in`` tests: cheaper per line than ``any()`` over a tuple of them)."""
    hinted = "examples" in raw or "test result" in raw or "otal" in raw or "passing" in raw or " in " in raw
    hinted = hinted or "runs," in raw or "tests," in raw or "Tests run:" in raw or "Assertions:" in raw
    hinted = hinted or "TOTAL:" in raw or "Ran " in raw or "tests passed" in raw
    return RUN_END.match(clean_line(raw).strip()) if hinted else None


def totals_size(found: re.Match[str]) -> int:
    """The size of the suite a totals line names: each runner's totals are one named group of RUN_END."""
    runner, total = found.lastgroup, found[found.lastgroup or 0]
    counts = {"pytest": _PYTEST_COUNTS, "libtest": _LIBTEST_COUNTS, "karma": _KARMA_COUNTS}.get(runner or "")
    return sum(map(int, counts.findall(total))) if counts else int(total)


# a run's totals that count a failure or an error; a run whose totals count none passed
_FAILURES = re.compile(
    r"\b[1-9]\d* (?:tests? )?(?:failed|failures?|errors?)\b|\b(?:Failed|Failures|Errors): *[1-9]|FAIL"
)
# runners whose totals cannot say a run passed: unittest, Automake, mocha and VSTest before .NET 5 put it on
# later lines, libtest on each binary's
_NO_VERDICT = frozenset({"unittest", "automake", "mocha", "libtest", "vstest_legacy"})


def run_passed(run: Sequence[str]) -> bool:
    """Whether the run's last totals line says it passed: it counts no failure or error."""
    for raw in reversed(run):
        if found := RUN_END.match(line := clean_line(raw).strip()):
            return found.lastgroup not in _NO_VERDICT and not _FAILURES.search(line)
    return False
