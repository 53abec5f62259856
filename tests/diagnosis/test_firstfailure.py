"""The first failure header of a step, the lines the rules read in a long step, and the excerpt's order."""

from __future__ import annotations

import pytest

from healer.diagnosis.excerpt import priority
from healer.diagnosis.firstfailure import MAX_SCAN_LINES, first_failure, is_header, scan_scope


@pytest.mark.parametrize(
    "line",
    [
        "________________________ ERROR at setup of test_insert _________________________",
        "ERROR: test_parse[5, x] (test_parse.ParseTests.test_parse[5, x])",
        "  ● Test suite failed to run",
        " FAIL  __tests__/price.test.js",
        "  1) parser case 1",
        "[ERROR] com.acme.LedgerTest.nameOfNull -- Time elapsed: 0.036 s <<< ERROR!",
        "OrderServiceTest > setUpDatabase FAILED",
        "  2:40  error  'missingValue' is not defined  no-undef",
        "  ✖  5:19  Argument of type string is not assignable to parameter of type number.",
        "src/a.c:3:5: error: unknown type name 'sizet'",
        "    [java] Failures (1):",
    ],
)
def test_failure_headers_are_recognised(line: str) -> None:
    assert is_header(line)


@pytest.mark.parametrize(
    "line",
    [
        "  24:17  warning  Expected '===' and instead saw '=='  eqeqeq",
        "    1) parses record 1",  # mocha's listing, indented under its describe
        "PASS __tests__/mod1.test.js",
        "OrderServiceTest > createsOrder[3](3) SKIPPED",
    ],
)
def test_other_lines_are_not_headers(line: str) -> None:
    assert not is_header(line)


def test_an_ant_testcase_is_a_header_only_when_the_next_line_says_it_failed() -> None:
    lines = [
        "    [junit] Testcase: ok took 0 sec",
        "    [junit] Testcase: bad took 0.01 sec",
        "    [junit] \tFAILED",
    ]
    assert first_failure(lines, range(len(lines))) == 1


def test_a_long_step_is_scanned_around_its_failures_and_at_its_end() -> None:
    lines = ["ok"] * 50_000
    lines[1000] = "__________ test_a __________"
    lines[1100] = "__________ test_b __________"
    scope = scan_scope(lines, range(len(lines)), 1000)
    assert len(scope) <= MAX_SCAN_LINES + 200
    assert {1000, 1001, 1100, 1101, 49_999} <= set(scope)


def test_the_excerpt_leads_with_the_first_failure_and_leaves_far_noise_out() -> None:
    # 10: analyser noise far above; 500, 520: failures; 900: the summary
    assert priority([10, 500, 520, 900], first_failure=500) == [500, 900, 520]
    # a line just above the first failure (a data race report) still counts, after the others
    assert priority([470, 500, 900], first_failure=500) == [500, 900, 470]
    assert priority([10, 20], first_failure=None) == [10, 20]
