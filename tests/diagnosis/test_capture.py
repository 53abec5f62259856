"""gh run view --log-failed captures: split by job, the first real failure first."""

from __future__ import annotations

from healer.diagnosis.capture import failing_steps, split_capture
from healer.diagnosis.classify import classify, diagnose_jobs
from healer.diagnosis.diagnose import diagnose_tail
from healer.diagnosis.rules import load_rules
from healer.model import Action, Category, Evidence, Job, LogTail, Owner


def _job(name: str, step: str, lines: list[str]) -> str:
    return "".join(f"{name}\t{step}\t2026-11-03T10:02:11.0000000Z {line}\n" for line in lines)


def _step(command: str, output: list[str], last: str) -> list[str]:
    return [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]", *output, last]


CANCELLED = _job(
    "test (3.11)",
    "Run pytest",
    _step("pytest", ["collected 4 items"], "##[error]The operation was canceled."),
)
FAILED = _job(
    "test (3.12)",
    "Run pytest",
    _step(
        "pytest",
        [
            "E       assert 3 == 2",
            "FAILED tests/test_a.py::test_reserve - assert 3 == 2",
            "1 failed in 0.02s",
        ],
        "##[error]Process completed with exit code 1.",
    ),
)
DEPLOY = _job(
    "docs",
    "Run mkdocs gh-deploy",
    _step(
        "mkdocs gh-deploy",
        ["fatal: unable to access 'https://github.com/o/r.git/': The requested URL returned error: 403"],
        "##[error]Process completed with exit code 1.",
    ),
)


def test_a_capture_is_split_by_job_in_order() -> None:
    parts = split_capture(CANCELLED + FAILED + DEPLOY)
    assert [name for name, _ in parts] == ["test (3.11)", "test (3.12)", "docs"]
    assert "assert 3 == 2" in parts[1][1] and "403" not in parts[1][1]


def test_plain_logs_are_not_captures() -> None:
    assert split_capture("2026-11-03T10:02:11.0000000Z hello\nplain line\n") == []


def test_the_first_real_failure_decides_not_a_cancelled_sibling_nor_a_later_job() -> None:
    text = CANCELLED + FAILED + DEPLOY
    jobs = diagnose_jobs(text, load_rules())
    assert [name for name, _ in jobs] == ["test (3.12)", "docs", "test (3.11)"]
    assert jobs[-1][1].category is Category.CANCELLED
    job = Job(id=1, name="ci", status="completed", conclusion="failure")
    tail = LogTail(text=text, bytes_read=len(text), truncated=False)
    diagnosis = classify(Evidence(job=job, log=tail), load_rules())
    assert diagnosis.category is Category.TEST
    assert diagnosis.job == "test (3.12)"
    assert any("assert 3 == 2" in line for line in diagnosis.excerpt)


def _bom_job(name: str, step: str, lines: list[str]) -> str:
    """As gh prints a step: its first line starts with the raw log's byte-order mark, after the job and step
    columns; a file saved from Windows tools may carry one before the job column too."""
    stamp = "2026-11-03T10:02:11.0000000Z "
    first = f"\ufeff{name}\t{step}\t\ufeff{stamp}{lines[0]}\n"
    return first + "".join(f"{name}\t{step}\t{stamp}{line}\n" for line in lines[1:])


PUBLISH = _bom_job(
    "release",
    "Publish to npm",
    _step(
        "npm publish --access public",
        [
            "npm ERR! code E403",
            "npm ERR! 403 403 Forbidden - PUT https://registry.npmjs.org/acme - You do not "
            'have permission to publish "acme". Are you logged in as the correct user?',
        ],
        "##[error]Process completed with exit code 1.",
    ),
)


def test_a_capture_gives_the_job_and_the_failing_step_even_after_a_byte_order_mark() -> None:
    assert failing_steps(PUBLISH + FAILED) == {"release": "Publish to npm", "test (3.12)": "Run pytest"}
    jobs = diagnose_jobs(PUBLISH, load_rules(), workflow="Release")
    [(name, diagnosis)] = jobs
    assert name == "release" and diagnosis.step == "Publish to npm"
    assert diagnosis.command == "npm publish --access public"
    assert (diagnosis.owner, diagnosis.purpose, diagnosis.action) == (
        Owner.REPOSITORY,
        "release",
        Action.ESCALATE,
    )
    # every line was read past its columns: none of them leaks into the excerpt
    assert not any("\t" in line or "\ufeff" in line for line in diagnosis.excerpt)


def test_healer_diagnose_reads_a_capture_of_one_job() -> None:
    tail = LogTail(text=PUBLISH, bytes_read=len(PUBLISH), truncated=False)
    [(name, diagnosis)] = diagnose_tail(tail, load_rules())
    assert (name, diagnosis.step, diagnosis.purpose) == ("release", "Publish to npm", "release")


def _read_one(capture: str):  # noqa: ANN202
    (_, text), *_ = split_capture(capture)
    return classify(Evidence(job=None, log=LogTail(text, len(text), False)), load_rules())


def test_a_capture_without_its_steps_end_is_read_by_the_steps_cause_line() -> None:
    """A capture keeps what the API kept of the failed step, not always its end: its findings read it."""
    capture = _job(
        "lint",
        "golangci-lint",
        [
            "##[group]Run golangci/golangci-lint-action@v6",
            "with:",
            "##[endgroup]",
            "Running [/home/runner/golangci-lint-1.62.2-linux-amd64/golangci-lint run] in "
            "[/home/runner/work/a/a] ...",
            "  Error: internal/dial.go:38:15: SA1019: grpc.DialContext is deprecated: use NewClient instead. "
            "(staticcheck)",
            "  Error: issues found",
            "Ran golangci-lint in 41273ms",
        ],
    )
    diagnosis = _read_one(capture)
    assert diagnosis.rule != "runner.log-cut-off"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_capture_that_stops_in_a_step_with_no_cause_line_lost_its_runner() -> None:
    capture = _job(
        "build",
        "Run cargo build --release",
        [
            "##[group]Run cargo build --release",
            "cargo build --release",
            "##[endgroup]",
            "   Compiling serde v1.0.217",
        ],
    )
    diagnosis = _read_one(capture)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "runner.log-cut-off",
        Owner.PLATFORM,
        Action.RERUN,
    )
