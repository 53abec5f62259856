"""A retry loop in the step's own script: the line it echoes for each attempt cuts the step into attempts."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.diagnosis.retryloop import loop_attempts, loop_marks
from healer.model import Action, Owner

GO_LOOP = 'for i in 1 2 3; do\n  echo "attempt $i/3"\n  go test -count=1 ./... && exit 0\ndone\nexit 1'


@pytest.mark.parametrize(
    ("script", "echoed", "other"),
    [
        pytest.param(GO_LOOP, "attempt 2/3", "attempt x/3", id="numbers-listed"),
        pytest.param(
            'for n in {1..3}; do echo "::group::try $n"; pytest -q -x && exit 0; echo "::endgroup::"; done',
            "##[group]try 3",
            "##[group]try three",
            id="brace-range-and-a-group",
        ),
        pytest.param(
            'for i in $(seq 1 3); do npm test && exit 0; echo "attempt ${i} of $MAX failed"; done',
            "attempt 1 of 3 failed",
            "attempt 1 of 3 passed",
            id="seq-and-another-variable",
        ),
        pytest.param(
            'for i in 1 2; do\necho "Attempt $i/2"\n./gradlew test --continue && exit 0\n'
            '[ $i -lt 2 ] && echo "Attempt $i failed; retrying in 15s" && sleep 15\ndone\nexit 1',
            "Attempt 1/2",
            "Attempt 1 failed; retrying in 15s",
            id="a-test-of-whether-to-try-again",
        ),
    ],
)
def test_a_counting_loop_echoes_its_attempts_number(script: str, echoed: str, other: str) -> None:
    marks = loop_marks(script)
    assert marks is not None
    assert marks.match(echoed)
    assert not marks.match(other)


@pytest.mark.parametrize(
    "script",
    [
        pytest.param(
            'for pkg in api web; do echo "testing $pkg"; go test ./$pkg/...; done', id="over-packages"
        ),
        pytest.param(
            'for i in 1 2; do echo "shard $i"; go test -run "Shard$i" ./...; done', id="count-in-command"
        ),
        pytest.param(
            "for i in 1 2 3; do echo 'attempt $i'; go test ./... && exit 0; done", id="single-quoted"
        ),
        pytest.param("for i in 1 2 3; do go test ./... && exit 0; done", id="echoes-nothing"),
        pytest.param('go test ./... || (echo "retrying"; go test ./...)', id="no-loop"),
    ],
)
def test_a_loop_that_runs_something_else_each_pass_or_says_nothing_is_not_read(script: str) -> None:
    assert loop_marks(script) is None


def go_attempt(n: int, test: str, package: str) -> list[str]:
    return [
        f"attempt {n}/3",
        "ok  \tgithub.com/acme/hopper/internal/ledger\t4.056s",
        f"--- FAIL: {test} (0.26s)",
        "    watch_test.go:41: expected 1 event, got 2",
        "FAIL",
        f"FAIL\tgithub.com/acme/hopper/internal/{package}\t1.204s",
        "FAIL",
    ]


def test_the_loops_echoed_lines_cut_the_step_and_the_words_around_them_are_left_out() -> None:
    lines = [
        "go: downloading golang.org/x/sync v0.7.0",
        *go_attempt(1, "TestA", "a"),
        *go_attempt(2, "TestB", "b"),
    ]
    parts = loop_attempts(
        [*lines, "##[error]Process completed with exit code 1."], GO_LOOP, lambda p: "FAIL" in p
    )
    assert [part[1] for part in parts] == ["--- FAIL: TestA (0.26s)", "--- FAIL: TestB (0.26s)"]
    # one echoed line is one attempt: nothing to cut
    assert len(loop_attempts(go_attempt(1, "TestA", "a"), GO_LOOP, lambda p: True)) == 1


def test_tests_that_move_between_the_loops_attempts_are_the_tests_history() -> None:
    output = [*go_attempt(1, "TestDebounce", "watch"), *go_attempt(2, "TestTickerDrift", "clock")]
    output += go_attempt(3, "TestBackoffJitter", "retry")
    diagnosis = diagnose_log(job_log(GO_LOOP, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "no test failed on every one of 3 attempts" in dict(diagnosis.decided_by)["history"]
    # the same test failing on every attempt is the code's
    same = [line for n in (1, 2, 3) for line in go_attempt(n, "TestDebounce", "watch")]
    assert diagnose_log(job_log(GO_LOOP, same), job="test").owner is Owner.CODE
