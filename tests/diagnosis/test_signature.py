"""A failure's signature: equal for two runs of one failure, different when the failure differs."""

from __future__ import annotations

import pytest

from healer.diagnosis.signature import failure_signature, mask_line, same_failure
from healer.model import Action, Category, Diagnosis


def diagnosis(*decisive: str, rule: str = "pytest-failure", excerpt: tuple[str, ...] = ()) -> Diagnosis:
    return Diagnosis(Category.TEST, 0.9, rule, Action.AGENT, excerpt or decisive, decisive=decisive)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param(
            "2026-01-01T12:00:00.1234567Z FAILED tests/test_calc.py::test_add - assert -1 == 3",
            "2026-03-04T08:09:10.0000001Z FAILED tests/test_calc.py::test_add - assert -1 == 3",
            id="runner-timestamp",
        ),
        pytest.param(
            "widgets/calc.py:12:5: F401 `os` imported but unused",
            "widgets/calc.py:14:5: F401 `os` imported but unused",
            id="line-number",
        ),
        pytest.param("1 failed, 3 passed in 0.42s", "1 failed, 3 passed in 12.07s", id="duration"),
        pytest.param(
            "/home/runner/work/widgets/widgets/src/a.c:3: error: x",
            "/__w/widgets/widgets/src/a.c:3: error: x",
            id="checkout-path",
        ),
        pytest.param(
            "error at /tmp/pytest-of-runner/pytest-7/x0/f",
            "error at /tmp/pytest-of-runner/pytest-9/x3/f",
            id="temp-path",
        ),
        pytest.param("HEAD is now at 5f1c2a9 Merge", "HEAD is now at 0b7e3d1 Merge", id="commit-hash"),
        pytest.param(
            "request 1b4e28ba-2fa1-11d2-883f-0016d3cca427 failed",
            "request 6ba7b810-9dad-11d1-80b4-00c04fd430c8 failed",
            id="uuid",
        ),
        pytest.param("\x1b[31mFAILED\x1b[0m test_add", "FAILED test_add", id="colours"),
    ],
)
def test_volatile_parts_do_not_change_the_signature(one: str, other: str) -> None:
    assert mask_line(one) == mask_line(other)
    assert same_failure(diagnosis(one), diagnosis(other))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        pytest.param(
            "FAILED tests/test_calc.py::test_add", "FAILED tests/test_calc.py::test_sub", id="another-test"
        ),
        pytest.param("F401 `os` imported but unused", "F401 `sys` imported but unused", id="another-name"),
        pytest.param("error[E0308]: mismatched types", "error[E0599]: no method named", id="another-error"),
    ],
)
def test_a_different_failure_has_a_different_signature(one: str, other: str) -> None:
    assert not same_failure(diagnosis(one), diagnosis(other))


def test_a_pull_request_that_adds_a_failure_of_its_own_is_not_the_base_branch_failure() -> None:
    base = diagnosis("FAILED tests/test_calc.py::test_add")
    both = diagnosis("FAILED tests/test_calc.py::test_add", "FAILED tests/test_calc.py::test_new")
    assert not same_failure(base, both)


def test_the_same_lines_under_another_rule_are_another_failure() -> None:
    assert not same_failure(diagnosis("boom", rule="a"), diagnosis("boom", rule="b"))


def test_without_decisive_lines_the_excerpt_is_the_signature() -> None:
    one = diagnosis(excerpt=("Error: 2026-01-01T00:00:00Z exit 3",))
    other = diagnosis(excerpt=("Error: 2026-02-02T00:00:00Z exit 3",))
    assert failure_signature(one) == failure_signature(other)
    assert failure_signature(one) != failure_signature(diagnosis(excerpt=("Error: other",)))
