"""Flaky tests: known flaky (recorded or listed), found flaky on a green re-run, the config file's
``flaky-tests:``, and what ``decide`` does with a check whose failing tests are all known flaky."""

from __future__ import annotations

from dataclasses import replace

import pytest

from healer.config import Config, ConfigError, load_config_file
from healer.ledger.entries import flaky_marker
from healer.ledger.flaky import all_known_flaky, flaky_line, flaky_on_green
from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker, comment_body
from healer.model import DEFAULT_ACTIONS, Category, Comment, Diagnosis, Owner, PullRequest, RunEvent, Verdict
from healer.run.policy import decide

BOT = "github-actions[bot]"
SHA, OLD = "a" * 40, "b" * 40
CONFIG = Config(agent_command="my-agent")
PULL = PullRequest(7, "open", "t", "alice", SHA, "feature", "octo/app", "main", "octo/app")
RUN = RunEvent("octo/app", 500, 1, "CI", SHA, "feature", "octo/app", False, "pull_request", "failure")


def ledger(*markers: Marker) -> Ledger:
    return Ledger.from_comments([Comment(1, BOT, comment_body(list(markers), "text"))], BOT)


def failing(*tests: str) -> Diagnosis:
    return Diagnosis(Category.TEST, 0.9, "r", DEFAULT_ACTIONS[Category.TEST], ("E",), test_ids=tests)


@pytest.mark.parametrize(
    ("tests", "recorded", "patterns", "expected"),
    [
        pytest.param(("t::a",), ("t::a",), (), True, id="recorded"),
        pytest.param(("t::a", "t::b"), ("t::a",), (), False, id="one-of-two"),
        pytest.param(("t::a", "t::b"), ("t::a",), ("t::b*",), True, id="recorded-and-listed"),
        pytest.param(("tests/net/test_x.py::test_y[1]",), (), ("tests/net/*",), True, id="glob"),
        pytest.param((), ("t::a",), ("*",), False, id="no-failing-tests-is-never-flaky"),
        pytest.param(("T::A",), ("t::a",), (), False, id="case-sensitive"),
    ],
)
def test_all_known_flaky(tests, recorded, patterns, expected) -> None:
    assert all_known_flaky(tests, recorded=recorded, patterns=patterns) is expected


def test_tests_that_failed_on_the_same_commit_and_passed_are_flaky() -> None:
    found = ledger(
        Marker(Kind.ATTEMPT, SHA, "test", attempt=1, tests=("t::a", "t::b")),
        Marker(Kind.RERUN, OLD, "lint", tests=("l::x",)),
        flaky_marker("other", OLD, ["t::b"], 1, 2),
    )
    # t::b is already known; lint failed on another commit; "docs" never failed
    assert flaky_on_green(found, ["test", "lint", "docs"], SHA) == [("test", ("t::a",))]


def test_the_flaky_line_names_the_tests_in_code_spans() -> None:
    line = flaky_line([("test", ("t::a`x",))], SHA)
    assert "``t::a`x``" in line and "`aaaaaaa`" in line and "it fails" in line


def test_known_flaky_failures_are_rerun_once_per_commit_then_escalated_never_healed() -> None:
    known = ledger(flaky_marker("test", OLD, ["t::a"], 1, 2))
    [first] = decide({"test": failing("t::a")}, ledger=known, config=CONFIG, pull=PULL, run=RUN).checks
    assert first.verdict is Verdict.RERUN and first.flaky == ("t::a",)
    # whose it is: history's, and what decided it says so
    assert first.diagnosis is not None and first.diagnosis.owner is Owner.HISTORY
    assert dict(first.diagnosis.decided_by)["history"] == "every failing test is known to be flaky"
    again = replace(RUN, run_attempt=2)
    [second] = decide({"test": failing("t::a")}, ledger=known, config=CONFIG, pull=PULL, run=again).checks
    assert second.verdict is Verdict.ESCALATE and "flaky" in second.detail
    # another failing test besides the flaky one: the agent is asked as usual
    [mixed] = decide(
        {"test": failing("t::a", "t::new")}, ledger=known, config=CONFIG, pull=PULL, run=RUN
    ).checks
    assert mixed.verdict is Verdict.HEAL
    assert mixed.diagnosis is not None and mixed.diagnosis.owner is not Owner.HISTORY


def test_the_config_file_lists_flaky_tests() -> None:
    config = load_config_file(
        "flaky-tests:\n  - 'tests/net/*'\n  - '*::test_upload[a,b]'\n", CONFIG, source="f"
    )
    assert config.flaky_tests == ("tests/net/*", "*::test_upload[a,b]")
    [plan] = decide(
        {"test": failing("tests/net/t.py::x")}, ledger=Ledger.empty(), config=config, pull=PULL, run=RUN
    ).checks
    assert plan.verdict is Verdict.RERUN


@pytest.mark.parametrize("text", ["flaky-tests: tests/*\n", "flaky-tests: [1]\n", "flaky-tests: ['']\n"])
def test_a_malformed_flaky_tests_list_is_a_clear_error(text: str) -> None:
    with pytest.raises(ConfigError, match="`flaky-tests` must be a list"):
        load_config_file(text, CONFIG, source="f")
