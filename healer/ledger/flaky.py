"""Flaky tests: which failures are known flaky, and which tests a green re-run just showed to be flaky. Pure.

A test is *known flaky* on a pull request when the healer recorded it as flaky there (it failed, and the same
commit passed when it ran again), or when the repository lists it under ``flaky-tests:`` in its config file
(``fnmatch`` globs over test ids, e.g. ``tests/test_net.py::*`` or ``*TestUpload.test_retry*``). A check
whose failing tests are all known flaky is re-run (once per commit), never sent to the agent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase

from healer.ledger.ledger import Ledger
from healer.text.frames import code


def is_known_flaky(test_id: str, *, recorded: Iterable[str], patterns: Iterable[str]) -> bool:
    """Whether ``test_id`` was recorded as flaky, or matches one of the repository's ``patterns``."""
    return test_id in set(recorded) or any(fnmatchcase(test_id, pattern) for pattern in patterns)


def all_known_flaky(test_ids: Sequence[str], *, recorded: Iterable[str], patterns: Iterable[str]) -> bool:
    """Whether a failure names failing tests and every one of them is known flaky."""
    recorded = set(recorded)
    patterns = tuple(patterns)
    return bool(test_ids) and all(
        is_known_flaky(test_id, recorded=recorded, patterns=patterns) for test_id in test_ids
    )


def flaky_on_green(ledger: Ledger, passed: Iterable[str], sha: str) -> list[tuple[str, tuple[str, ...]]]:
    """(check, tests) for each check that passed at ``sha`` after the healer recorded failing tests for it on
    the same commit: those tests are flaky. Tests already recorded as flaky are not listed again."""
    known = set(ledger.flaky_tests())
    found = []
    for check in dict.fromkeys(passed):
        tests = tuple(t for t in ledger.failed_tests(check, sha) if t not in known)
        if tests:
            found.append((check, tests))
            known.update(tests)
    return found


def flaky_line(flaky: Sequence[tuple[str, tuple[str, ...]]], sha: str) -> str:
    """The one line the healer adds to its existing comment when a re-run showed tests to be flaky."""
    tests = [test for _, found in flaky for test in found]
    shown = ", ".join(code(test) for test in tests[:10]) + (
        f" and {len(tests) - 10} more" if len(tests) > 10 else ""
    )
    one = len(tests) == 1
    return (
        f":game_die: Flaky: {shown} failed on `{sha[:7]}` and passed when the same commit ran again. If "
        f"{'it fails' if one else 'they fail'} again on this pull request, the healer re-runs the job "
        "instead "
        "of asking for a fix."
    )
