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
- pytest in verbose mode writes a test's node id when the test starts and its outcome on the same line when
  it ends (``tests/test_a.py::test_b PASSED [ 85%]``): a step whose output ends in a node id with no outcome
  stopped inside that test.
- ``go test -v`` writes ``=== RUN   TestName`` when a test starts (``=== CONT`` when a parallel one resumes)
  and ``--- PASS: TestName (0.38s)`` (``FAIL``, ``SKIP``) when it ends (the ``testing`` package's
  documentation): a test started with no result had not ended. A parent whose subtest is still running is
  not named, the subtest is.
- Node.js's test runner, with its TAP reporter (Node's "Test runner" documentation, reporters), writes ``#
  Subtest: name`` when a test starts and ``ok 3 - name`` (or ``not ok``) when it ends: a test started with no
  result had not ended (a parent whose subtest is still running is not named, the subtest is).

The job's time limit is the GitHub runner's, or Travis CI's own: its 10 minutes without output and its
maximum job time (``runner.travis-time-limit``, re-run when nothing names a test). Travis's words after the
last output ("No output has been received in the last 10m0s …", "The build has been terminated") are not
the step's output.

pytest-timeout, when a test outlives its limit, prints its banner (``+++++ Timeout +++++``) and the stack of
every thread (``~~~~ Stack of MainThread (140…) ~~~~``, its README's thread method): the main thread's frame
in a test function of the checkout names the test that hung. So does a frame of CPython's faulthandler dump
when the timer pytest's ``faulthandler_timeout`` arms runs out (``Timeout (0:05:00)!``, then each thread's
``File "…/tests/test_a.py", line 58 in test_b``: the faulthandler module's documentation).

Jest, whose tests all ended, says so when something they started keeps the process alive: "Jest did not
exit one second after the test run has completed." (its documentation of ``--detectOpenHandles`` and
``--forceExit``): a job time limit after it waited on the tests' open handle (a timer, a server, a
connection), the code's too. Mocha says so by saying nothing: since its version 4 it no longer forces the
process to exit once every test has ended (its ``--exit`` option's documentation: the process stays up
while something the tests started, a server, a socket, a timer, is still running), so a step whose last
output is Mocha's summary of a run with no failure (``412 passing (38s)``, perhaps ``3 pending``) waited on
the tests' leftovers until the limit.

When no test was named and the step's last output is a download still in progress, the time went to the
network: curl's progress meter (its manual, "PROGRESS METER": ``% Total % Received % Xferd Average Speed
Time Time Time Current``, then a row of figures) or its bar (``--progress-bar``, as Homebrew downloads:
``#####     7.9%``, short of 100.0%), apt's acquire progress (``0% [Connecting to ppa.launchpadcontent.net
(185.125.190.80)]``, ``0% [Waiting for headers]``, ``45% [3 Packages 1,234 kB/5,678 kB 22%]``, or without a
terminal the ``Get:3 http://… [7,642 kB]`` line apt prints as an item's fetch starts, its ``Fetched …`` not
yet printed: apt's text progress, ``acqprogress.cc``), wget's dot
and bar progress (its manual, ``--progress``), pip's download bar (``━━━━━━╸━━━━ 14.1/41.2 MB``) or its
retry of a connection that broke (``WARNING: Retrying (Retry(total=3, …)) after connection broken by
'ReadTimeoutError(…)'``), rsync's ``--progress`` line for a file not yet done (its manual: ``782448  63%
110.64kB/s    0:00:04``; a done file's line adds ``(xfr#5, to-chk=169/396)``). Then the platform's, re-run.

Pure: a diagnosis and the failing step's lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread, shown
from healer.diagnosis.raised import in_checkout_terms, in_the_checkout
from healer.diagnosis.testids import GO_STARTED, MAX_TEST_IDS
from healer.model import Action, Category, Diagnosis, Owner

_LIBTEST_SLOW = re.compile(r"^test (?P<name>\S+) has been running for over \d+ seconds$")
_LIBTEST_DONE = re.compile(r"^test (?P<name>\S+) \.\.\. ")
_NEXTEST_SLOW = re.compile(r"^\s*SLOW \[\s*>\s*[\d.]+s\]\s+(?P<name>\S.*?)\s*$")
_NEXTEST_DONE = re.compile(
    r"^\s*(?:PASS|FAIL|TIMEOUT|SIGSEGV|SIGABRT|ABORT|LEAK(?:-FAIL)?) \[\s*[\d.]+s\]\s+(?P<name>\S.*?)\s*$"
)
_HINT = re.compile(r"has been running for over|SLOW \[")
_TRAVIS_RULE = "runner.travis-time-limit"
_PYTEST_STARTED = re.compile(r"^(?P<name>[\w./\\-]+\.py::\S+)$")
_TIMEOUT_BANNER = re.compile(r"^\+{5,} Timeout \+{5,}$")
_MAIN_STACK = re.compile(r"^~{3,} Stack of MainThread \(\d+\) ~{3,}$")
_TEST_FRAME = re.compile(r'^\s*File "(?P<path>[^"]{1,400}\.py)", line \d+, in (?P<test>test\w*)$')
# CPython's faulthandler when a timer it was given runs out (faulthandler.dump_traceback_later, which pytest's
# `faulthandler_timeout` option arms for each test): "Timeout (0:05:00)!", then each thread's frames, most
# recent first, as `  File "…/tests/test_a.py", line 58 in test_b` (no comma before "in")
_FAULTHANDLER_BANNER = re.compile(r"^Timeout \(\d+:\d\d:\d\d(?:\.\d+)?\)!$")
_FAULTHANDLER_FRAME = re.compile(r'^\s*File "(?P<path>[^"]{1,400}\.py)", line \d+ in (?P<test>test\w*)$')
_JEST_OPEN = re.compile(r"^Jest did not exit one second after the test run has completed\.?$")
# Mocha's summary of a run: its passing and pending counts (its spec reporter; a failing count follows them)
_MOCHA_PASSING = re.compile(r"^\d+ passing \(\d+(?:ms|s|m|h)\)$")
_MOCHA_PENDING = re.compile(r"^\d+ pending$")
_GO_DONE = re.compile(r"^\s*--- (?:PASS|FAIL|SKIP): (?P<name>\S+) \(")
_TAP_STARTED = re.compile(r"^(?P<depth>\s*)# Subtest: (?P<name>\S.*?)\s*$")
_TAP_DONE = re.compile(r"^(?P<depth>\s*)(?:not )?ok \d+ - (?P<name>\S.*?)(?:\s+#\s.*)?$")
# a download in progress: a row of curl's progress meter or its bar short of 100%, apt's, wget's dot or bar
# progress, pip's bar or its retry, rsync's progress for a file it has not finished
_DOWNLOADING = re.compile(
    r"^\d{1,3}\s+[\d.]+[kMGT]?\s+\d{1,3}\s+[\d.]+[kMGT]?\s+\d{1,3}\s+[\d.]+[kMGT]?\s+[\d.]+[kMGT]?\s+[\d.]+[kMGT]?"
    r"\s+(?:[\d:-]+\s+){3}[\d.]+[kMGT]?$"
    r"|^\d+[KMG] (?:\.{10} ?){1,5}\s+\d{1,3}%\s+[\d.]+[KMG]?(?:\s+[\dhms.]+)?$"
    r"|\d{1,3}% ?\[[=> ]*\]\s+[\d.,]+[KMG]?B?\s+[\d.,]+[KMG]?B/s\s+eta\b"
    r"|^[━╸╺ ]+\s+[\d.]+/[\d.]+ [kMG]?B\b"
    r"|^WARNING: Retrying \(Retry\(total=\d+.{0,200}\)\) after connection broken by "
    r"|^[\d,.]+[KMG]?\s+\d{1,3}%\s+[\d.]+[kMG]?B/s\s+\d+:\d\d:\d\d$"
    r"|^#{0,200}\s+(?!100\.0%)\d{1,3}\.\d%$"
    r"|^\d{1,3}% \[(?:Connecting to \S|Waiting for headers\]"
    r"|\d+ \S.{0,200} [\d.,]+ ?[kMG]?B/[\d.,]+ ?[kMG]?B \d{1,3}%\])"
)
# apt without a terminal: the line it prints as an item's fetch starts (its `Fetched …` not yet printed)
_APT_FETCHING = re.compile(r"^Get:\d+ (?:https?|ftp)://\S+ .{1,300} \[[\d.,]+ ?[kMG]?B\]$")
# Travis CI's words when it stops a job at its own limit, after the step's last output
_TRAVIS_LIMIT = re.compile(
    r"^(?:No output has been received in the last \d+m\d+s|Check the details on how to adjust your build"
    r"|The build has been terminated|The job exceeded the maxm?imum time limit)"
)


def hung_at_the_limit(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the code when the job's time limit (a ``runner.`` rule's timeout nobody owns, or
    Travis CI's own limit) ended a step whose test harness had named tests still running that never finished;
    else unchanged."""
    nobodys = diagnosis.rule.startswith("runner.") and diagnosis.owner is Owner.UNKNOWN
    if diagnosis.category is not Category.TIMEOUT or not (nobodys or diagnosis.rule == _TRAVIS_RULE):
        return diagnosis
    slow = (
        _slow_unfinished(step_lines)
        or _pytest_started_last(step_lines)
        or _go_unfinished(step_lines)
        or _tap_unfinished(step_lines)
        or _pytest_timeout_stack(step_lines)
    )
    if slow:
        said = f"the test harness showed {shown(list(slow))} still running when the job's time limit came"
        named = replace(diagnosis, test_ids=tuple(slow)[:MAX_TEST_IDS])
        return reread(
            _showing(named, tuple(slow.values())[:3]), Owner.CODE, Category.TEST, Action.AGENT, said
        )
    held = _jest_open_handle(step_lines)
    said = "Jest's tests left something running (an open handle) until the job's time limit"
    if held is None and (held := _mocha_ended_passing(step_lines)) is not None:
        said = "Mocha's tests all passed and the process did not exit until the job's time limit"
    if held is None:
        return _downloading_at_the_limit(diagnosis, step_lines)
    return reread(_showing(diagnosis, (held,)), Owner.CODE, Category.TEST, Action.AGENT, said)


def _last_output(step_lines: Sequence[str]) -> str:
    """The step's last line of output (cleaned): not a blank line, not the runner's own ``##[…]`` lines, not
    Travis CI's words when it stopped the job at its limit; empty when there is none."""
    for raw in reversed(step_lines):
        line = clean_line(raw).strip()
        if line and not line.startswith("##[") and not _TRAVIS_LIMIT.match(line):
            return line
    return ""


def _downloading_at_the_limit(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to the platform when the step's last output is a download still in progress."""
    last = _last_output(step_lines)
    # (apt's fetch line only where nobody owned the limit yet: Travis CI's silence is already the platform's)
    fetching = diagnosis.owner is Owner.UNKNOWN and _APT_FETCHING.match(last)
    if not (_DOWNLOADING.search(last) or fetching):
        return diagnosis
    said = "the job's time limit came while the step was still downloading"
    return reread(_showing(diagnosis, (last,)), Owner.PLATFORM, Category.TRANSIENT, Action.RERUN, said)


def _showing(diagnosis: Diagnosis, lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` with ``lines`` among its decisive lines and in its excerpt (once)."""
    return replace(
        diagnosis,
        decisive=(*diagnosis.decisive, *lines),
        excerpt=(*diagnosis.excerpt, *(line for line in lines if line not in diagnosis.excerpt)),
    )


def _slow_unfinished(step_lines: Sequence[str]) -> dict[str, str]:
    """The tests libtest or cargo-nextest said had been running long and wrote no result for after (by name,
    with the warning's line)."""
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
    return slow


def _pytest_started_last(step_lines: Sequence[str]) -> dict[str, str]:
    """The node id a step's output ends in (by itself, :func:`_last_output`) when pytest (verbose) had started
    that test and written no outcome for it."""
    found = _PYTEST_STARTED.match(_last_output(step_lines))
    return {found.group("name"): found.group("name")} if found else {}


def _go_unfinished(step_lines: Sequence[str]) -> dict[str, str]:
    """The Go tests ``go test -v`` started and wrote no result for (by name, with the line that started
    each), leaving out a parent whose subtest is among them."""
    started: dict[str, str] = {}
    for raw in step_lines:
        if "=== " not in raw and "--- " not in raw:
            continue
        line = clean_line(raw)
        if found := GO_STARTED.match(line):
            started.setdefault(found.group("name"), line)
        elif found := _GO_DONE.match(line):
            started.pop(found.group("name"), None)
    return {
        name: line
        for name, line in started.items()
        if not any(other.startswith(name + "/") for other in started)
    }


def _tap_unfinished(step_lines: Sequence[str]) -> dict[str, str]:
    """The tests Node's TAP reporter started (``# Subtest: name``) and wrote no ``ok``/``not ok`` for, by name
    with the line that started each, leaving out a parent whose subtest is among them (deeper indent)."""
    started: dict[tuple[int, str], str] = {}
    for raw in step_lines:
        if "Subtest: " not in raw and "ok " not in raw:
            continue
        line = clean_line(raw)
        if found := _TAP_STARTED.match(line):
            started[(len(found["depth"]), found["name"])] = line.strip()
        elif found := _TAP_DONE.match(line):
            started.pop((len(found["depth"]), found["name"]), None)
    deepest = max((depth for depth, _ in started), default=0)
    return {name: line for (depth, name), line in started.items() if depth == deepest}


def _jest_open_handle(step_lines: Sequence[str]) -> str | None:
    """Jest's line saying its finished tests left something running, when the step shows it."""
    return next((line for raw in step_lines if _JEST_OPEN.match(line := clean_line(raw).strip())), None)


def _mocha_ended_passing(step_lines: Sequence[str]) -> str | None:
    """Mocha's summary of a run with no failure, when it is the step's last output (pending count aside)."""
    last = _last_output([raw for raw in step_lines if not _MOCHA_PENDING.match(clean_line(raw).strip())])
    return last if _MOCHA_PASSING.match(last) else None


def _pytest_timeout_stack(step_lines: Sequence[str]) -> dict[str, str]:
    """The test pytest-timeout's dump shows the main thread in (``tests/test_a.py::test_b``, with the frame's
    line), or a thread of faulthandler's dump when its timer ran out, when the dump is there and that frame is
    a test function of the checkout."""
    banner = main = faulthandler = False
    for raw in step_lines:
        line = clean_line(raw)
        if _TIMEOUT_BANNER.match(line.strip()):
            banner, main, faulthandler = True, False, False
        elif _FAULTHANDLER_BANNER.match(line.strip()):
            faulthandler = True
        elif banner and line.startswith("~"):
            main = bool(_MAIN_STACK.match(line.strip()))
        else:
            frame = (_TEST_FRAME.match(line) if main else None) or (
                _FAULTHANDLER_FRAME.match(line) if faulthandler else None
            )
            if frame and in_the_checkout(frame["path"]):
                return {f"{in_checkout_terms(frame['path'])}::{frame['test']}": line.strip()}
    return {}
