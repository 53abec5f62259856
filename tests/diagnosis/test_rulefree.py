"""A failure no rule explains, read end to end: the frame of any CI, the finder, the derived category; and
hostile input (huge lines, binary, ``\\r`` floods, ANSI) that must neither crash nor take long."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from healer.diagnosis.classify import classify, diagnose_jobs, diagnose_text
from healer.diagnosis.logs import parse_log
from healer.diagnosis.rules import load_rules
from healer.model import Category, Evidence, Job, LogTail

RULES = load_rules()

TRAVIS = (
    "travis_fold:start:install\r\x1b[0K$ bundle install\nBundle complete!\ntravis_fold:end:install\r\x1b[0K"
    "travis_time:start:1\r\x1b[0K$ ./ci/check-widgets.sh\n"
    "checking widgets\n"
    "widget 7: frobnication state is wrong\n"
    "2 problems found\n"
    'travis_time:end:1:start=1,finish=2\r\x1b[0K\x1b[31;1mThe command "./ci/check-widgets.sh" exited with 3.'
    "\x1b[0m\n"
    "travis_time:start:2\r\x1b[0K$ ./ci/after.sh\nerror: an unrelated later failure\n"
    'The command "./ci/after.sh" exited with 1.\n\nDone. Your build exited with 1.\n'
)

GITLAB = (
    "\x1b[0Ksection_start:1700000000:prepare_script\r\x1b[0KPreparing environment\n"
    "section_end:1700000001:prepare_script\r\x1b[0K\n"
    "section_start:1700000002:step_script\r\x1b[0KExecuting step_script\n"
    "$ pip install -e .\nSuccessfully installed app\n"
    "$ cargo clippy -- -D warnings\n"
    "    Checking app v0.1.0\n"
    "the analysis stopped early\n"
    "section_end:1700000009:step_script\r\x1b[0K\n"
    "ERROR: Job failed: exit code 101\n"
)


def test_a_travis_logs_failing_command_is_its_failing_step() -> None:
    log = parse_log(TRAVIS)
    assert log.command == "./ci/check-widgets.sh" and log.exit_code == 3
    diagnosis = diagnose_text(TRAVIS, RULES)
    assert "widget 7: frobnication state is wrong" in diagnosis.excerpt
    # what failed after the first failed command does not decide
    assert not any("unrelated later failure" in line for line in diagnosis.excerpt)


def test_a_gitlab_jobs_last_command_is_its_failing_step() -> None:
    log = parse_log(GITLAB)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    diagnosis = diagnose_text(GITLAB, RULES)
    assert diagnosis.category is Category.LINT
    assert diagnosis.rule == "derived.tool"
    assert "cargo clippy" in diagnosis.description
    assert "the analysis stopped early" in diagnosis.excerpt


def _stamped(job: str, step: str, lines: list[str]) -> str:
    return "".join(f"{job}\t{step}\t2026-01-02T03:04:05.0000000Z {line}\n" for line in lines)


def test_a_full_run_capture_leads_with_the_job_that_failed() -> None:
    passed = _stamped(
        "docs",
        "Build",
        ["##[group]Run mkdocs build", "mkdocs build", "##[endgroup]", "INFO built", "Post job cleanup."],
    )
    failed = _stamped(
        "lint",
        "Check",
        [
            "##[group]Run npx biome ci .",
            "npx biome ci .",
            "##[endgroup]",
            "src/a.ts:3:7 lint/style/useConst FIXABLE",
            "##[error]Process completed with exit code 1.",
            "Post job cleanup.",
            "[command]/usr/bin/git version",
        ],
    )
    jobs = diagnose_jobs(passed + failed, RULES)
    name, diagnosis = jobs[0]
    assert name == "lint"
    assert diagnosis.category is Category.LINT
    assert not any("Post job cleanup" in line for line in diagnosis.excerpt)


def test_a_rule_of_unknown_category_takes_the_derived_one() -> None:
    log = "".join(
        f"2026-01-02T03:04:05.{n:07d}Z {line}\n"
        for n, line in enumerate(
            [
                "##[group]Run python -m pytest -q",
                "python -m pytest -q",
                "##[endgroup]",
                "Traceback (most recent call last):",
                '  File "x.py", line 1, in <module>',
                "KeyError: 'k'",
                "##[error]Process completed with exit code 1.",
            ]
        )
    )
    job = Job(id=1, name="ci", status="completed", conclusion="failure")
    tail = LogTail(text=log, bytes_read=len(log), truncated=False)
    diagnosis = classify(Evidence(job=job, log=tail), RULES)
    assert diagnosis.category is Category.TEST
    assert "KeyError: 'k'" in diagnosis.excerpt


_HOSTILE = st.one_of(
    st.text(max_size=3000),
    st.binary(max_size=3000).map(lambda b: b.decode("latin-1")),
    st.lists(
        st.sampled_from(["\r", "\x1b[2K", "\x1b[31m", "error", "FAIL", "\n", "x" * 500, "$ make", '"'])
    ).map("".join),
)


@settings(max_examples=60, deadline=None)
@given(_HOSTILE)
def test_hostile_text_never_crashes_the_rule_free_reading(text: str) -> None:
    diagnosis = diagnose_text(text, RULES)
    assert len("\n".join(diagnosis.excerpt).encode("utf-8", "replace")) <= 8 * 1024 + 200


def test_huge_lines_and_redraw_floods_stay_cheap() -> None:
    huge = "error: " + "x" * 2_000_000 + "\n"
    flood = "\r".join(f"progress {n}%" for n in range(200_000)) + "\nerror: done badly\n"
    ansi = "".join(f"\x1b[3{n % 8}m[WARN] w{n}\x1b[0m\n" for n in range(50_000))
    for text, shown in ((huge, "error: xxx"), (flood, "error: done badly"), (ansi, "Error: the real one")):
        started = time.perf_counter()
        diagnosis = diagnose_text(text + ("Error: the real one\n" if text is ansi else ""), RULES)
        assert time.perf_counter() - started < 5
        assert any(line.startswith(shown) for line in diagnosis.excerpt)
