"""A test that failed only on a wall-clock budget: the tests' history first, the code's if it fails again.

A test that measures how long the code took and asserts a bound on it (``assert elapsed < 0.5``,
``expect(Date.now() - start).toBeLessThan(250)``, ``expect(duration).to be < 1``, GoogleTest's
``Expected: (elapsed_ms) <= (110), actual: 127 vs 110``) fails whenever a shared runner is slow, on any
code: timing is among the most common causes of flaky tests in the studies of them (Luo et al., "An
Empirical Analysis of Flaky Tests", FSE 2014: asynchronous waits and timing). When the one test that failed
stopped on such an assertion and nothing else (no test timeout, which may be the code's deadlock), the
failure is re-run once before the agent sees it: a needless re-run costs minutes, a needless agent run a fix
pull request that loosens a budget. When the same commit fails again, it goes to the agent
(:mod:`healer.run.testhistory`).

The bound must be asserted on a measured time: a variable named for one (``elapsed``, ``duration``,
``took``, ``latency``, ``time_taken``) or a clock read less a start (``Date.now() - start``,
``time.monotonic() - t0``, ``System.nanoTime() - begin``) on a line that asserts (``assert``,
``expect``, ``Expected:``, ``want``). A timeout the runner enforced is not one (``Exceeded timeout of
5000 ms``, ``Timeout of 2000ms exceeded``, ``panic: test timed out``), nor a time in the code's own loop
that a stack shows.

Hypothesis enforces a per-example deadline itself and reports a miss it could not repeat in its own words:
"Unreliable test timings! On an initial run, this test took 262.81ms, which exceeded the deadline of
200.00ms, but on a subsequent run it took 41.07 ms, which did not." (its ``deadline`` setting; the error
suggests ``deadline=None``; newer releases raise it as a ``FlakyFailure``, "Falsified on the first call but
did not on a subsequent one", with the deadline's ``DeadlineExceeded`` under it). The same example ran again
on the same code within the budget: the budget, not the property, failed. Without that note (or with one
whose first time was within the deadline) a property that failed on one call and not the next is the code
under test answering differently, which stays the code's.

Pure: a diagnosis and the step's lines in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned
from healer.model import Action, Category, Diagnosis, Owner

# a measured time compared with a bound, and the line asserting it
_BUDGET = re.compile(
    r"(?i)(?:\b(?:elapsed|duration|took|latency|wall_?clock|time_?taken)\w*"
    r"|(?:Date\.now|performance\.now|time\.(?:monotonic|perf_counter|time)|System\.(?:currentTimeMillis|nanoTime)"
    r"|process\.hrtime\.bigint)\(\)\s*-\s*\w+)\)?\s*"
    r"(?:<=?\s*\(?[\d.]|\)?\.toBeLessThan(?:OrEqual)?\(|\.to be <=?|\.to be_within\b)"
    r"|^Expected: \((?:elapsed|duration)\w*\) <=? "
)
_ASSERTS = re.compile(r"\bassert\b|\bexpect\(|^Expected: |\bwant\b|Failure/Error:")
# Hypothesis's report of a deadline missed once and met on the replay of the same example, and of a property
# whose result changed between calls (the code's)
_HYPOTHESIS_TIMING = re.compile(
    r"Unreliable test timings! On an initial run, this test took (?P<first>[\d.]+) ?ms, which exceeded the "
    r"deadline of (?P<deadline>[\d.]+) ?ms, but on a subsequent run it took (?P<then>[\d.]+) ?ms"
)
_HYPOTHESIS_FALSIFIED = re.compile(r"Falsified on the first call but did not on a subsequent one")
# what a runner's own time limit on a test says: the test hung, which may be the code's
_TIMED_OUT = re.compile(
    r"Exceeded timeout of \d+ ?ms|Timeout of \d+ ?ms exceeded|test timed out|Timeout >|TimeoutError"
    r"|\btimed out after\b|Test timeout of \d+ ?ms exceeded",
    re.IGNORECASE,
)


def over_its_budget(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the tests' history (re-run first) when the one test that failed stopped only on
    a wall-clock budget (see the module doc); else unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category is not Category.TEST:
        return diagnosis
    if len(diagnosis.test_ids) > 1:
        return diagnosis
    budget = deadline = None
    falsified = False
    for raw in step_lines:
        line = clean_line(raw).strip().lstrip(">|0123456789 ").strip()
        falsified = falsified or bool(_HYPOTHESIS_FALSIFIED.search(line))
        if (timing := _HYPOTHESIS_TIMING.search(line)) and _missed_once(timing):
            deadline = deadline or line[timing.start() :][:200]
            continue
        if _TIMED_OUT.search(line):
            return diagnosis
        if budget is None and _BUDGET.search(line) and _ASSERTS.search(line):
            budget = line[:200]
    budget = deadline or (None if falsified else budget)
    if budget is None:
        return diagnosis
    said = reassigned(
        diagnosis,
        Owner.HISTORY,
        f"the failing test asserts a wall-clock budget ({budget}), which a slow runner misses on any code",
        "rerun once; the agent if the same commit fails again",
        action=Action.RERUN,
    )
    return replace(said, rerun_first=True)


def _missed_once(timing: re.Match[str]) -> bool:
    """Whether Hypothesis's note says the first run exceeded the deadline and the replay met it."""
    first, deadline, then = (float(timing[name]) for name in ("first", "deadline", "then"))
    return first > deadline >= then
