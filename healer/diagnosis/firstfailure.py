"""Where the first failure of a step starts, and which lines of a long step the rules read.

Tools print a header where each failure's report begins: pytest's ``___ test_x ___``, unittest's
``FAIL: test_x (…)``, jest's ``●``, mocha's ``1) …``, Surefire's ``<<< FAILURE!``, Gradle's ``Test > name
FAILED``, a compiler's ``file:line: error:``, eslint's ``12:5  error``. :data:`FAILURE_HEADER` recognises
them in one cheap pass; the first one in the failing step is the first failure, which the excerpt leads
with.

Matching every rule against every line costs time in proportion to the lines, so a long step is not read
whole by the rules: :func:`scan_scope` keeps the lines around the first failure and the end of the step
(where the summary is), at most :data:`MAX_SCAN_LINES` in all.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MAX_SCAN_LINES = 3000
# when a step is too long to be read whole: the lines kept after each failure header (from the first on),
# and how many lines in all go to those headers; the rest is the end of the step
HEADER_LINES = 60
HEADS_BUDGET = 1200
# what the runner or a wrapping tool puts before a tool's line (see matching._WRAPPER for the full list)
_PREFIX = r"^(?:##\[error\]|\s*\[(?:junit|java|exec|ant:\w+)\] |\s*\[ERROR\] )?"

FAILURE_HEADER = re.compile(
    _PREFIX + r"(?:"
    r"_{3,} .+ _{3,}$"  # pytest: a failing test's or a collection error's header
    r"|=+ (?:FAILURES|ERRORS) =+$"
    r"|(?:FAIL|ERROR): \S.*\(.+\)$"  # unittest
    r"|\s*● (?!.*\bskipped\b)\S"  # jest
    r"|\s?FAIL\s+\S"  # jest / vitest file badge
    r"| {2}\d+\) \S"  # mocha's numbered failure reports (the listing above them is indented deeper)
    r"|\s*\d+ failing$"
    r"|.*<<< (?:FAILURE|ERROR)!$"  # surefire / failsafe
    r"|COMPILATION ERROR\s*:?\s*$"
    r"|\S+\.(?:java|kt|scala|groovy):\[\d+,\d+\] "
    r"|.* > .* FAILED$"  # Gradle test events
    r"|> Task \S+ FAILED$"
    r"|Testcase: .* took .*"  # Ant JUnit 4 (a passing testcase too; the next line says)
    r"|Tests run: \d+, Failures: [1-9]|Tests run: \d+, Failures: \d+, Errors: [1-9]"
    r"|Failures \(\d+\):$"  # JUnit console launcher
    r"|--- FAIL: "  # go test
    r"|---- \S+ stdout ----$"  # cargo test
    r"|thread '.*' panicked at "
    r"|error(?:\[E\d+\])?: "  # rustc, many compilers and CLIs
    r"|\S+:\d+(?::\d+)?: (?:fatal )?error[:\s]"  # gcc, clang, mypy, javac, checkstyle plain
    r"|\S+\(\d+,\d+\): error "  # tsc
    r"|\s+\d+:\d+\s+error\s"  # eslint stylish
    r"|\S+:\d+:\d+: .* \[Error/\S+\]$|\S+: line \d+, col \d+, Error - "  # eslint unix, compact
    r"|\s*✖\s+\d+:\d+\s"  # tsd
    r"|Traceback \(most recent call last\):$"
    r"|Failures:$"  # rspec, minitest
    r"|(?:npm ERR!|npm error) "
    r"|e: (?:file://)?/\S+:\d+"  # kotlinc
    r")"
)


def is_header(line: str, previous: str = "", following: str = "") -> bool:
    """True when ``line`` starts a failure's report (``following``: the next line, for Ant's testcases)."""
    if not FAILURE_HEADER.match(line):
        return False
    if "Testcase: " in line:
        return "Caused an ERROR" in following or "FAILED" in following
    return True


def first_failure(lines: Sequence[str], indexes: Sequence[int]) -> int | None:
    """The index of the first failure header among ``indexes`` (in order), or None."""
    for n, index in enumerate(indexes):
        following = lines[indexes[n + 1]] if n + 1 < len(indexes) else ""
        if is_header(lines[index], following=following):
            return index
    return None


def scan_scope(lines: Sequence[str], scope: Sequence[int], first: int | None) -> list[int]:
    """The lines of ``scope`` the rules read: all of them when few enough; else, from the ``first`` failure
    header on, each header with the :data:`HEADER_LINES` after it (:data:`HEADS_BUDGET` lines in all), and
    the end of the scope."""
    if len(scope) <= MAX_SCAN_LINES:
        return list(scope)
    head: set[int] = set()
    if first is not None:
        at = next((n for n, i in enumerate(scope) if i >= first), len(scope))
        n = at
        while n < len(scope) and len(head) < HEADS_BUDGET:
            following = lines[scope[n + 1]] if n + 1 < len(scope) else ""
            if n == at or is_header(lines[scope[n]], following=following):
                head.update(scope[max(0, n - 5) : n + HEADER_LINES])
                n += HEADER_LINES
            else:
                n += 1
    tail = scope[-max(0, MAX_SCAN_LINES - len(head)) :]
    return sorted(head.union(tail))
