"""A step that ran its whole command more than once: which tests failed on each attempt.

A retry wrapper re-runs the failing command on the same checkout and says so between the attempts:

- nick-fields/retry (``uses: nick-fields/retry``; its ``src/index.ts``): ``Attempt N failed. Reason: …``
  after each attempt but the last (a warning, or plain output with ``warning_on_retry: false``), then
  ``Final attempt failed. …``;
- Travis CI's ``travis_retry`` (travis-build's ``travis_retry.bash``, also copied into other CI scripts):
  ``The command "…" failed. Retrying, N of M.`` before each further attempt, then ``The command "…" failed
  M times.``;
- a runner's own re-run of what failed, in the same step (``rspec || rspec --only-failures``, ``pytest ||
  pytest --lf``): RSpec's ``Run options: include {:last_run_status=>"failed"}`` and pytest's
  ``run-last-failure: rerun previous N failures`` open the re-run.

Tests that failed on one attempt and not on another failed on the same code: the tests' history. A test that
failed on every attempt failed the same way each time: the code's. Runners that retry a single test
themselves (pytest-rerunfailures, jest's ``retryTimes``, Cypress, rspec-retry, minitest-retry, gotestsum's
``--rerun-fails``) report a test as failed only when every retry of it failed, so their failing tests are
the code's; only a run failed for tests that passed on a retry (Playwright's ``failOnFlakyTests``, Surefire's
``failOnFlakeCount``, Gradle's ``failOnPassedAfterRetry``) is history, and those are read where their rules
and :func:`healer.diagnosis.flakyrun.flaky_in_the_log` read them.
Pure: lines in, a verdict out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from healer.diagnosis.logs import clean_line
from healer.diagnosis.testids import MAX_TEST_IDS, failing_test_ids

# nick-fields/retry's reason for an attempt it killed at its time limit: that attempt's tests did not all run
_TIMED_OUT = re.compile(r"(?:Attempt \d+|Final attempt) failed\.(?: Reason:)? Timeout of \d+ms hit")
# the line a wrapper prints between two attempts (timestamps and ``##[warning]`` are cut before matching)
_BETWEEN = re.compile(
    r"^(?:##\[(?:warning|error)\])?(?:Attempt \d+ failed\. Reason: "
    r'|The command ".{1,1000}" failed\. Retrying, \d+ of \d+\.$)'
)
# the first line of a runner's own re-run of the tests that failed before: RSpec's `--only-failures` ("Run
# options: include {:last_run_status=>\"failed\"}") and pytest's `--last-failed` ("run-last-failure: rerun
# previous 2 failures"), each its documented header
_RERUN_HEADER = re.compile(
    r'^Run options: include \{:last_run_status=>"failed"\}$|^run-last-failure: rerun previous \d+ failures?\b'
)

# a failure's numbered title in RSpec's, mocha's and PHPUnit's failure lists (`  1) Poller#run stops`), and a
# failed test's line in AVA's and node-tap's reporters (`  ✖ server › reconnects Error: …`): a way to tell
# one attempt's failures from another's when the runner printed no test ids
_TITLE = re.compile(
    r"^\s*(?:\d{1,4}\) (?P<numbered>\S.{0,300}?)|✖ (?P<crossed>\S.{0,300}?)(?: Error: .*)?"
    # pytest's progress line of a test file with a failure or an error in it (`tests/test_pool.py ..F`)
    r"|(?P<file>\S+\.py) [.sxX]*[FE][.sxXFE]*(?: +\[ *\d+%\])?)\s*$"
)
# a numbered entry that is not a test's title (minitest's `1) Failure:`, PHPUnit's `1) There was 1 error:`)
_NOT_A_TITLE = re.compile(r"^(?:Failure|Error|There (?:was|were) )")

# what a wrapper and the runner print after the last attempt: blank lines, `Final attempt failed. …`, the
# runner's `##[error]…`, Travis's `The command "…" failed N times.`
_CLOSING = re.compile(
    r'^(?:$|(?:Error: )?Final attempt failed\.|##\[|The command ".{1,1000}" failed \d+ times\.$)'
)


def attempts(lines: Iterable[str]) -> list[list[str]]:
    """The step's lines cut into its attempts at the wrapper's lines between them (one attempt, the whole
    step, when no wrapper spoke). What follows the last attempt's line with nothing but the wrapper's and the
    runner's own closing words (``Final attempt failed. …``, ``##[error]…``) is not an attempt."""
    out: list[list[str]] = [[]]
    for raw in lines:
        line = clean_line(raw).strip()
        if ("Attempt " in line or "Retrying, " in line) and _BETWEEN.match(line):
            out.append([])
        elif ("Run options" in line or "run-last-failure" in line) and _RERUN_HEADER.match(line):
            out.append([raw])
        else:
            out[-1].append(raw)
    if len(out) > 1 and all(_CLOSING.match(clean_line(raw).strip()) for raw in out[-1]):
        out.pop()
    return out


def failed_per_attempt(lines: Iterable[str]) -> list[tuple[str, ...]] | None:
    """The failing tests of each attempt when a retry wrapper ran the command two or more times and every
    attempt failed tests; None otherwise (one attempt, an attempt killed at the wrapper's time limit or that
    failed before any test did, or a list of failing tests cut off at :data:`MAX_TEST_IDS`)."""
    lines = list(lines)
    if any("Timeout of" in line and _TIMED_OUT.search(line) for line in lines):
        return None
    parts = attempts(lines)
    if len(parts) < 2:
        return None
    failed = [failing_test_ids(part) or _titles(part) for part in parts]
    return None if any(not ids or len(ids) >= MAX_TEST_IDS for ids in failed) else failed


def _titles(lines: Iterable[str]) -> tuple[str, ...]:
    """The failures' titles of one attempt when the runner printed no test ids (:data:`_TITLE`), in order,
    each once."""
    found: dict[str, None] = {}
    for raw in lines:
        if ")" not in raw and "✖" not in raw and ".py " not in raw:
            continue
        match = _TITLE.match(clean_line(raw))
        title = match and (match.group("numbered") or match.group("crossed") or match.group("file"))
        if title and not _NOT_A_TITLE.match(title):
            found.setdefault(title, None)
    return tuple(found)[:MAX_TEST_IDS]


def differed_across_attempts(lines: Iterable[str]) -> tuple[int, tuple[str, ...]] | None:
    """``(attempts, ids)`` when a retry wrapper ran the command two or more times, every attempt failed
    tests, and no test failed on all of them (``ids``: the last attempt's failing tests); None otherwise
    (:func:`failed_per_attempt`, or a test that failed every time)."""
    failed = failed_per_attempt(lines)
    if failed is None:
        return None
    common = set(failed[0]).intersection(*failed[1:])
    return None if common else (len(failed), failed[-1])
