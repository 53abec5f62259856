"""A failure no rule explains reads the pull request's script files, bounded, and only when they can help."""

from __future__ import annotations

import json

import pytest

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.diagnosis.scripts import MAX_FILES_READ
from healer.github import GitHubError
from healer.model import Category, Evidence, Job, LogTail
from healer.run.scripts import ScriptFiles, with_scripts

RULES = load_rules(())


def _log(command: str, *output: str) -> str:
    stamp = "2024-01-01T00:00:00.0000000Z "
    lines = [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]", *output]
    lines.append("##[error]Process completed with exit code 1.")
    return "".join(stamp + line + "\n" for line in lines)


def _evidence(command: str, *output: str) -> Evidence:
    job = Job(id=1, name="check", status="completed", conclusion="failure")
    return Evidence(job=job, log=LogTail(text=_log(command, *output), bytes_read=100, truncated=False))


class FakeGitHub:
    """The one call these stages make, ``get_file``, over a dict; records what was asked."""

    def __init__(self, files: dict[str, str], fail: int | None = None) -> None:
        self.files = files
        self.fail = fail
        self.asked: list[tuple[str, str]] = []

    def get_file(self, path: str, ref: str) -> str | None:
        self.asked.append((path, ref))
        if self.fail:
            raise GitHubError("refused", status=self.fail)
        return self.files.get(path)


LINT_OUTPUT = (
    "> widgets@1.0.0 check",
    "> ./scripts/check-all",
    "src/app.js",
    "  3:7  something is off",
    "1 problem",
)


def test_a_script_runner_s_file_gives_the_category_no_rule_gave():
    evidence = _evidence("npm run check", *LINT_OUTPUT)
    before = classify(evidence, RULES)
    assert before.category is Category.UNKNOWN
    gh = FakeGitHub({"package.json": json.dumps({"scripts": {"check": "eslint --max-warnings 0 src"}})})
    after = with_scripts(evidence, RULES, before, ScriptFiles(gh, "abc123"))
    assert after.category is Category.LINT
    assert gh.asked == [("package.json", "abc123")]


def test_a_known_tool_reads_no_file():
    evidence = _evidence("python -m pytest -q", "FAILED tests/test_a.py::test_b - assert 1 == 2", "1 failed")
    diagnosis = classify(evidence, RULES)
    gh = FakeGitHub({})
    assert with_scripts(evidence, RULES, diagnosis, ScriptFiles(gh, "abc123")) == diagnosis
    assert gh.asked == []


def test_a_missing_file_costs_one_request_per_name_and_changes_nothing():
    evidence = _evidence("just widgets", *LINT_OUTPUT)
    diagnosis = classify(evidence, RULES)
    gh = FakeGitHub({})
    files = ScriptFiles(gh, "abc123")
    assert with_scripts(evidence, RULES, diagnosis, files) == diagnosis
    assert [name for name, _ in gh.asked] == ["justfile", "Justfile", ".justfile"]
    # a second failing job of the same run asks again for nothing
    with_scripts(evidence, RULES, diagnosis, files)
    assert len(gh.asked) == 3 <= MAX_FILES_READ


@pytest.mark.parametrize("status", [403, 500])
def test_a_refused_read_keeps_the_diagnosis_and_says_why_once(status):
    evidence = _evidence("npm run check", *LINT_OUTPUT)
    diagnosis = classify(evidence, RULES)
    gh = FakeGitHub({}, fail=status)
    files = ScriptFiles(gh, "abc123")
    assert with_scripts(evidence, RULES, diagnosis, files) == diagnosis
    assert with_scripts(evidence, RULES, diagnosis, files) == diagnosis
    assert len(gh.asked) == 1 and "package.json" in files.problem and str(status) in files.problem


def test_reads_stop_at_the_bound_whatever_the_commands():
    gh = FakeGitHub({})
    files = ScriptFiles(gh, "abc123")
    for command in ("just a", "npm run b", "just c", "npm run d"):
        evidence = _evidence(command, *LINT_OUTPUT)
        with_scripts(evidence, RULES, classify(evidence, RULES), files)
    assert len(gh.asked) == MAX_FILES_READ
