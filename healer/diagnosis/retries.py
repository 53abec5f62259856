"""A step that ran its whole command more than once: which tests failed on each attempt.

A retry wrapper re-runs the failing command on the same checkout and says so between the attempts:

- nick-fields/retry (``uses: nick-fields/retry``; its ``src/index.ts``): ``Attempt N failed. Reason: …``
  after each attempt but the last (a warning, or plain output with ``warning_on_retry: false``), then
  ``Final attempt failed. …``;
- Travis CI's ``travis_retry`` (travis-build's ``travis_retry.bash``, also copied into other CI scripts):
  ``The command "…" failed. Retrying, N of M.`` before each further attempt, then ``The command "…" failed
  M times.``;
- Microsoft.Testing.Platform's Retry extension (``dotnet test -- --retry-failed-tests N``), which runs the
  tests that failed again: ``Tests suite failed, total failed tests: 1, exit code: 2, attempt: 1/3`` after
  each attempt, then ``Tests suite failed in all 3 attempts``;
- a runner's own re-run of what failed, in the same step (``rspec || rspec --only-failures``, ``pytest ||
  pytest --lf``): RSpec's ``Run options: include {:last_run_status=>"failed"}`` and pytest's
  ``run-last-failure: rerun previous N failures`` open the re-run. Mix's ``mix test --failed`` ("runs only
  tests that failed the last time they ran", ``mix help test``) prints no header of its own, but ExUnit
  ends every run with its totals (``212 tests, 1 failure``): when the step's script runs ``mix test
  --failed``, each run ends there (not in an umbrella project, where Mix prints ``==> app`` and runs ExUnit
  once for each of its apps).

A script may also run the same suite again itself, with no wrapper to say so (``phpunit || phpunit``, a
``for`` loop around ``pytest``): then the runner's own header opens each run, pytest's ``test session
starts``, PHPUnit's version banner (``PHPUnit 11.4.4 by Sebastian Bergmann and contributors.``) and Vitest's
`` RUN  v2.1.8 /path``, CTest's ``Test project /path/build``, cargo-nextest's ``Starting 512 tests across 9
binaries``, and the runs are attempts only when each header is the same and each run names the same size of
suite (pytest's ``collected N items``, PHPUnit's ``Tests: N, Assertions: …``, Vitest's ``Tests  1 failed | 611
passed (612)``, CTest's ``99% tests passed, 1 tests failed out of 88``, nextest's header): two suites run one
after the other (unit, then integration; a Debug and a Release build) are not. ``go test`` prints no header
but one result line a package a run (``ok  pkg 1.2s``, ``FAIL pkg 0.4s``): a package that reports again opens
the next run, when the runs tested the same packages. Runners that print no header end each run with their
totals after their failures (:mod:`healer.diagnosis.runtotals`): those end the runs, again only when every run
names the same total.
A counting retry loop in the step's script that echoes each attempt's number is cut at the lines it echoed,
whatever its runner prints (:mod:`healer.diagnosis.retryloop`). A script that runs the same command again
when it fails (``go test ./... || go test ./...``, in the step's script or a recipe ``make`` echoes), or the
same runner with its option to run only what failed (``jest --ci || jest --ci --onlyFailures``), says itself
that its two runs are attempts of one suite on the same code: their sizes and packages need not agree (a run
cut short by a crash names fewer; a re-run of the failures names only them), but there must be two runs.

Tests that failed on one attempt and not on another failed on the same code: the tests' history, and so
are tests of one run when another run of the same suite passed them all. A test that failed on every
attempt failed the same way each time: the code's. Runners that retry a single test
themselves (pytest-rerunfailures, jest's ``retryTimes``, Cypress, rspec-retry, minitest-retry, gotestsum's
``--rerun-fails``) report a test as failed only when every retry of it failed, so their failing tests are
the code's; only a run failed for tests that passed on a retry (Playwright's ``failOnFlakyTests``, Surefire's
``failOnFlakeCount``, Gradle's ``failOnPassedAfterRetry``) is history, and those are read where their rules
and :func:`healer.diagnosis.flakyrun.flaky_in_the_log` read them.
Pure: lines in, a verdict out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.retryloop import loop_attempts
from healer.diagnosis.runtotals import (
    AFTER_END,
    RUN_END,
    run_passed,
    runs_ended_by_totals,
    totals,
    totals_size,
)
from healer.diagnosis.testids import MAX_TEST_IDS, failing_test_ids

# nick-fields/retry's reason for an attempt it killed at its time limit: that attempt's tests did not all run
_TIMED_OUT = re.compile(r"(?:Attempt \d+|Final attempt) failed\.(?: Reason:)? Timeout of \d+ms hit")
# the line a wrapper prints between two attempts (timestamps and ``##[warning]`` are cut before matching)
_BETWEEN = re.compile(
    r"^(?:##\[(?:warning|error)\])?(?:Attempt \d+ failed\. Reason: "
    r'|The command ".{1,1000}" failed\. Retrying, \d+ of \d+\.$'
    r"|Tests suite failed, total failed tests: \d+, exit code: \d+, attempt: \d+/\d+$)"
)
# the first line of a runner's own re-run of the tests that failed before: RSpec's `--only-failures` ("Run
# options: include {:last_run_status=>\"failed\"}") and pytest's `--last-failed` ("run-last-failure: rerun
# previous 2 failures"), each its documented header
_RERUN_HEADER = re.compile(
    r'^Run options: include \{:last_run_status=>"failed"\}$|^run-last-failure: rerun previous \d+ failures?\b'
)
# a script's run of Mix's re-run of the failures ("mix test --failed", maybe with other options), and Mix's
# line before each app's run in an umbrella project
_MIX_FAILED = re.compile(r"\bmix test\b[^|;&\n]*?(?<!\S)--failed\b")
_UMBRELLA_APP = re.compile(r"^==> [a-z]\w*$")

# a test runner's header at the start of each of its runs, and the size of the suite a run names
_RUN_HEADER = re.compile(
    r"^=+ test session starts =+$|^PHPUnit \d+\.\d+\S* by Sebastian Bergmann and contributors\.$"
    # Vitest's default reporter: " RUN  v2.1.8 /home/runner/work/app/app"
    r"|^RUN\s+v\d+\.\d+\S*\s+\S"
    # CTest's first line of a run, its build directory
    r"|^Test project \S"
    # cargo-nextest's first line of a run: "Starting 512 tests across 9 binaries (3 tests skipped)"
    r"|^Starting \d+ tests? across \d+ binar(?:y|ies)\b"
)
_SUITE_SIZE = re.compile(
    r"\bcollected (\d+) items?\b|^Tests: (\d+), Assertions: "
    # Vitest's totals: "Tests  1 failed | 611 passed (612)"
    r"|^Tests\s+\d.*\((\d+)\)$"
    # CTest's totals: "99% tests passed, 1 tests failed out of 88"
    r"|^\d+% tests passed, \d+ tests? failed out of (\d+)$"
    r"|^Starting (\d+) tests? across \d+ binar(?:y|ies)\b"
)
_GO_PACKAGE = re.compile(
    r"^(?:ok|FAIL|\?)\s+(?P<pkg>[\w.-]+(?:/[\w.-]+)+)\s+"
    r"(?:[\d.]+s\b|\(cached\)|\[(?:build failed|setup failed|no test files)\])"
)

# a failure's numbered title in RSpec's, mocha's and PHPUnit's failure lists (`  1) Poller#run stops`), and a
# failed test's line in AVA's and node-tap's reporters (`  ✖ server › reconnects Error: …`): a way to tell
# one attempt's failures from another's when the runner printed no test ids
_TITLE = re.compile(
    r"^\s*(?:\d{1,4}\) (?P<numbered>\S.{0,300}?)|✖ (?P<crossed>\S.{0,300}?)(?: Error: .*)?"
    # Vitest's default reporter: a failed test's cross and name, then its duration (`× parses a date 31ms`)
    r"|× (?P<vitest>\S.{0,300}?)(?: \d+(?:\.\d+)? ?m?s)?"
    # pytest's progress line of a test file with a failure or an error in it (`tests/test_pool.py ..F`)
    r"|(?P<file>\S+\.py) [.sxX]*[FE][.sxXFE]*(?: +\[ *\d+%\])?"
    # pytest's heading of each failure's section, the test's name between rules (`____ test_pool_drains ____`)
    r"|_{3,} (?P<section>\S.{0,300}?) _{3,}"
    # Microsoft.Testing.Platform's terminal reporter: "failed Ns.ATests.TestA (1s 204ms)"
    r"|failed (?P<mtp>[\w.`+<>]+(?:\(.{0,200}?\))?) \((?:\d+(?:h|m|s|ms) ?)+\)"
    # Cypress's table after a run ("(Run Finished)"): a spec with a failure, its time, then its counts
    r"|│ ✖ +(?P<spec>\S{1,300}) +(?:\d+:)?\d\d:\d\d .{0,200}│)\s*$"
)
# a numbered entry that is not a test's title (minitest's `1) Failure:`, PHPUnit's `1) There was 1 error:`)
_NOT_A_TITLE = re.compile(r"^(?:Failure|Error|There (?:was|were) )")

# what a wrapper and the runner print after the last attempt: blank lines, `Final attempt failed. …`, the
# runner's `##[error]…`, Travis's `The command "…" failed N times.`, Microsoft.Testing.Platform's `Tests suite
# failed in all N attempts`
_CLOSING = re.compile(
    r'^(?:$|(?:Error: )?Final attempt failed\.|##\[|The command ".{1,1000}" failed \d+ times\.$'
    r"|Tests suite failed in all \d+ attempts$)"
)


def attempts(lines: Iterable[str], command: str = "") -> list[list[str]]:
    """The step's lines cut into its attempts at the wrapper's lines between them, or at the runner's own
    re-run of its failures (``command``: the step's script, which may ask for it); one attempt, the whole
    step, when neither spoke. What follows the last attempt's line with nothing but the wrapper's and the
    runner's own closing words (``Final attempt failed. …``, ``##[error]…``) is not an attempt."""
    lines = list(lines)
    out: list[list[str]] = [[]]
    mix_failed, ended = _mix_reruns_failures(command, lines), False
    for raw in lines:
        line = clean_line(raw).strip()
        after = ended and AFTER_END.match(line)  # still among ExUnit's totals and its seed
        if ended and not after:
            out.append([])  # the first line after them opens the re-run
        ended = bool(after)
        if ("Attempt " in line or "Retrying, " in line or "attempt: " in line) and _BETWEEN.match(line):
            out.append([])
        elif ("Run options" in line or "run-last-failure" in line) and _RERUN_HEADER.match(line):
            out.append([raw])
        else:
            out[-1].append(raw)
            found = mix_failed and "tests," in line and RUN_END.match(line)
            ended = ended or bool(found and found.lastgroup == "exunit")
    if len(out) > 1 and all(_CLOSING.match(clean_line(raw).strip()) for raw in out[-1]):
        out.pop()
    return out


def _mix_reruns_failures(command: str, lines: Sequence[str]) -> bool:
    """Whether the step's script (``command``) runs ``mix test --failed``, outside an umbrella project."""
    if "--failed" not in command or not _MIX_FAILED.search(command):
        return False
    return not any("==> " in raw and _UMBRELLA_APP.match(clean_line(raw).strip()) for raw in lines)


# a run of tox's or nox's environments (tox 4's "py39: commands[0]> pytest", tox 3's "py39 run-test:
# commands[0] | pytest", nox's "nox > Running session tests-3.12"): the same suite on other Pythons or
# dependencies is not an attempt, and a test failing on one of them only is not flaky
_ENVIRONMENT = re.compile(
    r"^(?P<tox>[\w.-]+): commands\[\d+\]> |^(?P<tox3>[\w.-]+) run-test: commands\[\d+\] \|"
    r"|^nox > Running session (?P<nox>\S+)"
)


def _environments(lines: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for raw in lines:
        if "commands[" in raw or "Running session" in raw:
            match = _ENVIRONMENT.match(clean_line(raw).strip())
            if match:
                found.add(match["tox"] or match["tox3"] or match["nox"])
    return found


# a shell line that runs one command and, when it fails, the same command again: `A || A`
_OR_AGAIN = re.compile(r"^(?:\$ )?(?P<once>[^|;&\n]{3,500}?) \|\| (?P=once)$")


# a test runner's documented option to run only the tests that failed in its last run: pytest's `--lf` and
# `--last-failed`, RSpec's `--only-failures`, Jest's `--onlyFailures`, CTest's `--rerun-failed`, Mix's
# `mix test --failed` (each runner's command-line reference)
_FAILURES_AGAIN = re.compile(
    r"(?<!\S)(?:--lf|--last-failed|--only-failures|--onlyFailures|--rerun-failed|--failed)(?![^\s)])"
)


def runs_again(command: str, lines: Sequence[str] = ()) -> bool:
    """Whether the step's script (``command``), or a recipe ``make`` echoed among its first ``lines``, runs
    one command and, when it fails, the same command again (``pytest -q || pytest -q``), or the same runner
    on what failed (``jest --ci || jest --ci --onlyFailures``, ``pytest || pytest --lf -p no:randomly``)."""
    said = [*command.splitlines(), *(clean_line(raw) for raw in lines[:5] if " || " in raw)]
    return any(" || " in line and (_OR_AGAIN.match(line.strip()) or _failures_again(line)) for line in said)


def _failures_again(line: str) -> bool:
    """``A || B`` where ``B`` runs ``A``'s program with its runner's option for the last run's failures: the
    words before ``B``'s first option (``npm test``, ``bundle exec rspec``) begin ``A``'s."""
    # the shell's echo (`$ `), or npm's of a package script (`> `)
    once, _, again = line.strip().removeprefix("$ ").removeprefix("> ").partition(" || ")
    if not _FAILURES_AGAIN.search(again) or " || " in again:
        return False
    first, then = _program(once), _program(again.lstrip("( "))
    return bool(then) and first[: len(then)] == then


def _program(command: str) -> list[str]:
    """The words of a command before its first option: ``bundle exec rspec`` of ``bundle exec rspec -f d``."""
    words: list[str] = []
    for word in command.split():
        if word.startswith("-") or any(mark in word for mark in "|;&<>"):
            break
        words.append(word)
    return words


def runs_of_one_suite(lines: Sequence[str], again: bool = False) -> list[list[str]]:
    """The step's lines cut into runs of one suite when a test runner ran it two or more times: at a runner's
    header (:data:`_RUN_HEADER`) when every run names the same size of suite, or, for ``go test``, after a
    run's last package result when the next result names a package again and every run tested the same
    packages; one part, the whole step, otherwise, and when tox or nox ran the suite in two or more
    environments. ``again``: the script runs its command a second time when it fails (:func:`runs_again`),
    so two runs are its attempts whatever their sizes."""
    if len(_environments(lines)) > 1:
        return [list(lines)]
    starts: list[int] = []
    headers: set[str] = set()  # each run's header as the runner printed it
    for n, raw in enumerate(lines):
        hinted = (
            "session starts" in raw
            or "PHPUnit " in raw
            or "RUN " in raw
            or "Test project " in raw
            or "Starting " in raw
        )
        if hinted and _RUN_HEADER.match(header := clean_line(raw).strip()):
            starts.append(n)
            headers.add(header)
    if len(starts) >= 2:
        runs = [list(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]
        sizes = {_suite_size(run) for run in runs}
        same = len(sizes) == 1 and None not in sizes or again and len(runs) == 2
        return runs if same and len(headers) == 1 else [list(lines)]
    runs = _go_runs(lines, again)
    return runs if len(runs) > 1 else runs_ended_by_totals(lines, again)


def _go_runs(lines: Sequence[str], again: bool = False) -> list[list[str]]:
    """``go test``'s runs of the same packages: each package's result line (``ok  pkg 1.2s``, ``FAIL pkg
    0.4s``, the Go documentation's ``go test`` output) once a run; or a run of only the packages that failed
    in the run before it (a script re-running what failed, as RSpec's ``--only-failures`` does)."""
    cuts: list[int] = []
    packages: list[set[str]] = [set()]
    failed: list[set[str]] = [set()]
    last = -1
    for n, raw in enumerate(lines):
        if "ok " not in raw and "FAIL" not in raw and "?" not in raw:
            continue
        found = _GO_PACKAGE.match(clean_line(raw).strip())
        if not found:
            continue
        if found.group("pkg") in packages[-1]:
            cuts.append(last + 1)
            packages.append(set())
            failed.append(set())
        packages[-1].add(found.group("pkg"))
        if clean_line(raw).strip().startswith("FAIL"):
            failed[-1].add(found.group("pkg"))
        last = n
    # the same packages each run (go test prints one result line a package), or the last run's failed ones;
    # else other suites one by one
    repeated = (run == packages[0] or run <= failed[i] for i, run in enumerate(packages[1:]))
    if not cuts or not (all(repeated) or again and len(cuts) == 1):
        return [list(lines)]
    bounds = [0, *cuts, len(lines)]
    return [list(lines[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]


def _suite_size(run: Sequence[str]) -> int | None:
    """The size of the suite a run names after its header (pytest's ``collected N items``), else in its last
    totals (pytest-xdist's workers collect, so its runs print no ``collected`` line)."""
    for raw in run:
        if "collected " in raw or "Tests" in raw or "out of " in raw or "Starting " in raw:
            found = _SUITE_SIZE.search(clean_line(raw).strip())
            if found:
                return int(next(filter(None, found.groups())))
    return next((totals_size(found) for raw in reversed(run) if (found := totals(raw))), None)


def failed_per_attempt(lines: Iterable[str], command: str = "") -> list[tuple[str, ...]] | None:
    """The failing tests of each attempt when a retry wrapper, or the step's script itself
    (:func:`runs_of_one_suite`), ran the command two or more times and every attempt failed tests; None
    otherwise (one attempt, an attempt killed at the wrapper's time limit or that failed before any test did,
    or a list of failing tests cut off at :data:`MAX_TEST_IDS`)."""
    return read_runs(lines, command)[0]


def read_runs(lines: Iterable[str], command: str = "") -> tuple[list[tuple[str, ...]] | None, int | None]:
    """From one cut of the step into its runs: :func:`failed_per_attempt`, and how many runs of the same suite
    the step made when one failed tests and another passed them all on the same code (its totals count no
    failure nor error, e.g. ``455 passed in 7.55s``), else None."""
    lines = list(lines)
    parts = _runs(lines, command)
    if len(parts) < 2:
        return None, None
    ids = [failing_test_ids(part) for part in parts]
    named = [found or failure_titles(part) for part, found in zip(parts, ids, strict=True)]  # no ids: titles
    passed = len(parts) if any(named) and any(run_passed(part) for part in parts) else None
    if any("Timeout of" in line and _TIMED_OUT.search(line) for line in lines):
        return None, passed
    if any(ids) and not all(ids):
        # test ids in one attempt and titles in another name a test differently: the titles of each, when no
        # title failed on every attempt (a title that did is no id, to set apart from the tests that moved)
        named = [failure_titles(part) for part in parts]
        if not all(named) or set(named[0]).intersection(*named[1:]):
            return None, passed
    failed = None if any(not found or len(found) >= MAX_TEST_IDS for found in named) else named
    return failed, passed


def _runs(lines: Sequence[str], command: str) -> list[list[str]]:
    """The step's attempts (a wrapper's, a runner's re-run of its failures, the passes of the script's own
    retry loop), else its runs of one suite."""
    parts = attempts(lines, command)
    if len(parts) < 2:
        parts = loop_attempts(
            lines, command, lambda part: bool(failing_test_ids(part) or failure_titles(part))
        )
    return parts if len(parts) > 1 else runs_of_one_suite(lines, runs_again(command, lines))


def failure_titles(lines: Iterable[str]) -> tuple[str, ...]:
    """The failures' titles of one attempt when the runner printed no test ids (:data:`_TITLE`), in order,
    each once."""
    found: dict[str, None] = {}
    lines = list(lines)
    for n, raw in enumerate(lines):
        if ")" not in raw and "✖" not in raw and "×" not in raw and ".py " not in raw and "___ " not in raw:
            continue
        match = _TITLE.match(clean_line(raw))
        title = match and (
            match["numbered"]
            or match["crossed"]
            or match["vitest"]
            or match["file"]
            or match["section"]
            or match["mtp"]
            or match["spec"]
        )
        if title and not _NOT_A_TITLE.match(title):
            found.setdefault(_with_mocha_title(lines, n, title), None)
    return tuple(found)[:MAX_TEST_IDS]


def _with_mocha_title(lines: Sequence[str], n: int, title: str) -> str:
    """``title`` and the test's title when the numbered line ``n`` opens one of mocha's failure details
    (``  1) Suite``, then the test's title deeper and ending in a colon): ``Suite rotates files``, as the
    listing's ``1) rotates files`` under ``Suite`` names the same test."""
    line, after = clean_line(lines[n]), clean_line(lines[n + 1]) if n + 1 < len(lines) else ""
    indent = len(after) - len(after.lstrip())
    if after.endswith(":") and indent > len(line) - len(line.lstrip()):
        return f"{title} {after.strip()[:-1]}"
    return title


def differed_across_attempts(lines: Iterable[str], command: str = "") -> tuple[int, tuple[str, ...]] | None:
    """``(attempts, ids)`` when a retry wrapper ran the command two or more times, every attempt failed
    tests, and no test failed on all of them (``ids``: the last attempt's failing tests); None otherwise
    (:func:`failed_per_attempt`, or a test that failed every time)."""
    return differed(failed_per_attempt(lines, command))


def differed(failed: list[tuple[str, ...]] | None) -> tuple[int, tuple[str, ...]] | None:
    """:func:`differed_across_attempts` of the failing tests of each attempt (:func:`failed_per_attempt`)."""
    if failed is None or set(failed[0]).intersection(*failed[1:]):
        return None
    return len(failed), failed[-1]
