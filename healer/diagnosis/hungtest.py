"""A job its time limit stopped while the test runner had named a test that never finished: the test hangs.

The runner's time limit says only that the job ran too long; nobody's in particular (the machine may be slow,
a download may crawl). When the test harness itself said, before the limit, that one test had been running
for a long time, and no result of that test followed, the job waited on that test: a deadlock or a wait that
never ends in the code under test, for the agent with the test's name. Read from each harness's documented
warning:

- Rust's libtest: ``test tests::name has been running for over 60 seconds`` (its ``TEST_WARN_TIMEOUT_S``),
  then, if it ends, ``test tests::name ... ok`` (or ``FAILED``, ``ignored``);
- cargo-nextest: ``SLOW [> 60.000s] crate tests::name`` (its "Slow tests and timeouts" page), then ``PASS``,
  ``FAIL`` or ``TIMEOUT`` lines naming the test when it ends.

Pure: a diagnosis and the failing step's lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread, shown
from healer.diagnosis.testids import MAX_TEST_IDS
from healer.model import Action, Category, Diagnosis, Owner

_LIBTEST_SLOW = re.compile(r"^test (?P<name>\S+) has been running for over \d+ seconds$")
_LIBTEST_DONE = re.compile(r"^test (?P<name>\S+) \.\.\. ")
_NEXTEST_SLOW = re.compile(r"^\s*SLOW \[\s*>\s*[\d.]+s\]\s+(?P<name>\S.*?)\s*$")
_NEXTEST_DONE = re.compile(
    r"^\s*(?:PASS|FAIL|TIMEOUT|SIGSEGV|SIGABRT|ABORT|LEAK(?:-FAIL)?) \[\s*[\d.]+s\]\s+(?P<name>\S.*?)\s*$"
)
_HINT = re.compile(r"has been running for over|SLOW \[")


def hung_at_the_limit(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the code when the job's time limit (a ``runner.`` rule's timeout nobody owns)
    ended a step whose test harness had named tests still running that never finished; else unchanged."""
    if not (
        diagnosis.category is Category.TIMEOUT
        and diagnosis.rule.startswith("runner.")
        and diagnosis.owner is Owner.UNKNOWN
    ):
        return diagnosis
    slow: dict[str, str] = {}
    for raw in step_lines:
        if not _HINT.search(raw) and not slow:
            continue
        line = clean_line(raw)
        started = _LIBTEST_SLOW.match(line) or _NEXTEST_SLOW.match(line)
        if started:
            slow[started.group("name")] = line
            continue
        ended = _LIBTEST_DONE.match(line) or _NEXTEST_DONE.match(line)
        if ended:
            slow.pop(ended.group("name"), None)
    if not slow:
        return diagnosis
    names = shown(list(slow))
    said = f"the test harness named {names} as still running, and the job's time limit came before it ended"
    lines = tuple(slow.values())[:3]
    hung = replace(
        diagnosis,
        test_ids=tuple(slow)[:MAX_TEST_IDS],
        decisive=(*diagnosis.decisive, *lines),
        excerpt=(*diagnosis.excerpt, *(line for line in lines if line not in diagnosis.excerpt)),
    )
    return reread(hung, Owner.CODE, Category.TEST, Action.AGENT, said)
