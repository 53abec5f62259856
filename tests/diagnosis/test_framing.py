"""Logs of other CIs: where the failing command's output is (:mod:`healer.diagnosis.framing`), and each CI's
own runner messages (a time limit, a lost agent, a system failure, a cancellation), read from plain logs
copied from them, with no job name."""

from __future__ import annotations

from healer.diagnosis.classify import diagnose_text
from healer.diagnosis.logs import parse_log
from healer.diagnosis.rules import load_rules
from healer.model import Category, Owner

RULES = load_rules()

PYTEST_FAILED = [
    "=================================== FAILURES ===================================",
    "    def test_parse_date():",
    '>       assert parse_date("2024-01-02") == date(2024, 1, 3)',
    "E       AssertionError: assert datetime.date(2024, 1, 2) == datetime.date(2024, 1, 3)",
    "tests/test_core.py:14: AssertionError",
    "FAILED tests/test_core.py::test_parse_date - AssertionError",
    "========================= 1 failed, 11 passed in 0.42s =========================",
]


def gitlab_log(script: list[str], after_script: list[str] | None = None, code: int = 1) -> str:
    """A GitLab CI job log as the runner writes it: sections, the echoed commands, the closing error."""
    lines = [
        "\x1b[0KRunning with gitlab-runner 16.5.0 (853330f9)\x1b[0;m",
        "section_start:1700000000:prepare_executor\r\x1b[0K\x1b[36;1mPreparing the docker executor\x1b[0;m",
        "section_end:1700000001:prepare_executor\r\x1b[0K",
        "section_start:1700000004:step_script\r\x1b[0K\x1b[36;1mExecuting step_script stage\x1b[0;m",
        *script,
        "section_end:1700000100:step_script\r\x1b[0K",
    ]
    if after_script is not None:
        lines += [
            "section_start:1700000100:after_script\r\x1b[0K\x1b[36;1mRunning after_script\x1b[0;m",
            "\x1b[32;1mRunning after script...\x1b[0;m",
            *after_script,
            "section_end:1700000101:after_script\r\x1b[0K",
        ]
    lines.append(f"\x1b[31;1mERROR: Job failed: exit code {code}\x1b[0;m")
    return "\n".join(lines) + "\n"


def test_gitlab_after_script_commands_are_not_the_failing_command() -> None:
    text = gitlab_log(
        ["\x1b[32;1m$ pytest\x1b[0;m", *PYTEST_FAILED],
        [
            "\x1b[32;1m$ curl -sSf -T report.xml https://uploads.example.com\x1b[0;m",
            "curl: (6) Could not resolve host: uploads.example.com",
        ],
    )
    log = parse_log(text)
    assert log.command == "pytest" and log.exit_code == 1
    diagnosis = diagnose_text(text, RULES)
    assert diagnosis.category is Category.TEST and diagnosis.owner is Owner.CODE
    assert not any("Could not resolve host" in line for line in diagnosis.excerpt)


def test_gitlab_without_after_script_keeps_the_last_command() -> None:
    text = gitlab_log(
        ["\x1b[32;1m$ pip install -e .\x1b[0;m", "ok", "\x1b[32;1m$ pytest\x1b[0;m", *PYTEST_FAILED]
    )
    assert parse_log(text).command == "pytest"
