"""End to end: job names are the pull request's to choose (its workflow file), and the runner obeys any line
of the job log that starts with ``::``. A job name carrying a newline and ``::warning …`` must reach the log
folded or with workflow commands off, on every path that prints one: a job beyond ``max-jobs`` that is only
listed, a job whose log cannot be downloaded (410) and whose error names it, and the plan's own lines."""

from __future__ import annotations

import re

import pytest
from harness import LINT_PASSED, heal, lint_log

from healer.demo.sample import LINT_PR_FILES
from healer.demo.sandbox import Sandbox

OURS = re.compile(r"::(group|endgroup|add-mask|stop-commands)::|::(warning|error|notice) title=ci-healer::")


def obeyed_commands(stdout: str) -> list[str]:
    """The lines the runner would read as a workflow command that the healer did not mean as one (outside
    ``::stop-commands::<token>`` … ``::<token>::``)."""
    stopped: str | None = None
    found = []
    for raw in re.split(r"\r\n|\r|\n", stdout):
        line = raw.lstrip()
        if stopped is not None:
            if line == f"::{stopped}::":
                stopped = None
            continue
        if line.startswith("::stop-commands::"):
            stopped = line.removeprefix("::stop-commands::")
            continue
        if (line.startswith("::") or "##[" in line) and not OURS.match(line):
            found.append(line)
    return found


def unfolded(text: str) -> list[str]:
    """Lines that start with the injected payload, with commands off or not: a name must reach the log
    folded onto one line, never split so that a part of it starts a line."""
    return [
        line
        for line in re.split(r"\r\n|\r|\n|\u2028|\x85", text)
        if re.match(r"\s*(::warning title=owned|##\[)", line)
    ]


def injected(name: str) -> str:
    return f"{name}\n::warning title=owned::{name} was here\n##[warning]{name} too"


@pytest.mark.parametrize("separator", ["\n", "\r", "\r\n", "\u2028", "\x85"])
def test_a_job_name_beyond_max_jobs_is_listed_folded(box: Sandbox, separator: str) -> None:
    sha = box.commit("feature/names", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/names", sha)
    log = lint_log(box)
    hostile = injected("extra").replace("\n", separator)
    run = box.add_run(
        pull, [("lint", "failure", log), (hostile, "failure", log), ("test", "success", LINT_PASSED)]
    )

    result = heal(box, run, inputs={"max-jobs": "1"})

    assert obeyed_commands(result.stdout) == []
    assert unfolded(result.stdout) == [] and unfolded(result.summary) == []
    assert "not inspected" in result.stdout and "not inspected" in result.summary


def test_a_job_whose_log_download_fails_is_named_folded(box: Sandbox) -> None:
    sha = box.commit("feature/names", LINT_PR_FILES, "Add double()")
    pull = box.open_pull("feature/names", sha)
    hostile = injected("lint")
    run = box.add_run(pull, [(hostile, "failure", lint_log(box))])
    box.standin.fail("actions/download-job-logs-for-workflow-run", 410, times=5, message="Gone")

    result = heal(box, run)

    assert "log unavailable" in result.stdout
    assert obeyed_commands(result.stdout) == []
    assert unfolded(result.stdout) == [] and unfolded(result.summary) == []
