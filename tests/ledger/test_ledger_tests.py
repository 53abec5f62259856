"""Test ids in the ledger: attempt and re-run markers carry the failing tests (bounded), flaky markers name
the tests that passed on a re-run of the same commit, and who granted an attempt beyond the budget."""

from __future__ import annotations

import pytest

from healer.ledger.entries import flaky_marker
from healer.ledger.ledger import Ledger
from healer.ledger.markers import MAX_MARKER_TESTS, Kind, Marker, comment_body, decode_markers, encode_marker
from healer.model import Comment

BOT = "github-actions[bot]"
A, B = "a" * 40, "b" * 40


def ledger_of(*markers: Marker, author: str = BOT) -> Ledger:
    return Ledger.from_comments([Comment(id=1, author=author, body=comment_body(list(markers), "text"))], BOT)


def test_test_ids_and_grantor_survive_the_round_trip() -> None:
    hostile = ("tests/t.py::test_a[--> <!-- x]", "Suite › «ünïcode» test", "t\u2028line")
    marker = Marker(Kind.ATTEMPT, A, "test", attempt=4, tests=hostile, by="maintainer")
    line = encode_marker(marker)
    assert "-->" not in line.removesuffix(" -->") and "\n" not in line
    assert decode_markers(line) == [marker]


def test_tests_in_a_marker_are_bounded() -> None:
    many = tuple(f"tests/test_{n}.py::test_{'x' * 300}" for n in range(50))
    marker = Marker(Kind.RERUN, A, "test", tests=many)
    assert 0 < len(marker.tests) <= MAX_MARKER_TESTS
    assert sum(map(len, marker.tests)) <= 1500
    assert decode_markers(encode_marker(marker)) == [marker]


@pytest.mark.parametrize("tests", [pytest.param("a", id="a-string"), pytest.param([1], id="not-text")])
def test_a_marker_with_malformed_tests_is_not_read(tests: object) -> None:
    with pytest.raises(ValueError):
        Marker(Kind.ATTEMPT, A, "test", tests=tests)  # type: ignore[arg-type]
    line = encode_marker(Marker(Kind.ATTEMPT, A, "test")).replace('"kind"', f'"tests":{tests!r},"kind"')
    assert decode_markers(line.replace("'", '"')) == []


def test_failed_tests_are_read_per_check_and_commit() -> None:
    ledger = ledger_of(
        Marker(Kind.ATTEMPT, A, "test", attempt=1, tests=("t::a",)),
        Marker(Kind.RERUN, B, "test", tests=("t::b",)),
    )
    assert ledger.failed_tests("test", A) == ("t::a",)
    assert ledger.failed_tests("test", B) == ("t::b",)
    assert ledger.failed_tests("lint", A) == ()


def test_flaky_tests_are_pull_request_wide_and_survive_a_reset() -> None:
    ledger = ledger_of(
        Marker(Kind.ATTEMPT, A, "test (3.12)", attempt=1, tests=("t::a",)),
        flaky_marker("test (3.12)", A, ["t::a"], 7, 2),
        Marker(Kind.RESET, A, "test (3.12)", run_id=7, run_attempt=2),
    )
    assert ledger.flaky_tests() == ("t::a",)
    # bookkeeping: a flaky record is no history that a pass would reset, nor an attempt
    assert not ledger.has_history("test (3.12)")
    assert ledger.attempts_spent("test (3.12)") == 0


def test_flaky_records_by_anyone_else_are_ignored() -> None:
    assert ledger_of(flaky_marker("test", A, ["t::a"], 7, 2), author="mallory").flaky_tests() == ()
