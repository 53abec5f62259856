"""A pull request that changes only prose: its code checks' failures are its base branch's, read from the
changed files the job printed itself; prose a check reads keeps the failure the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log

from healer.diagnosis.docsonly import listed_changes, only_prose_changed, prose

SCRIPT = "git diff --name-only origin/main...HEAD\npytest -q"
PYTEST = [
    "....F.....",
    "=================================== FAILURES ===================================",
    "___ test_export_rows ___",
    "E   assert 3 == 2",
    "=========================== short test summary info ============================",
    "FAILED tests/test_export.py::test_export_rows - assert 3 == 2",
    "========================= 1 failed, 9 passed in 0.41s ==========================",
]


@pytest.mark.parametrize(
    ("path", "is_prose"),
    [
        ("README.md", True),
        ("docs/guide/install.rst", True),
        ("CHANGELOG.adoc", True),
        ("LICENSE", True),
        ("LICENSE.txt", True),
        (".github/CODEOWNERS", True),
        ("src/app.py", False),
        ("requirements.txt", False),
        ("CMakeLists.txt", False),
        ("docs/conf.py", False),
        ("docs/page.mdx", False),  # MDX compiles to JSX
        ("tests/snapshots/home.png", False),  # a screenshot test compares against it
    ],
)
def test_prose_is_what_no_code_check_compiles_or_runs(path: str, is_prose: bool) -> None:
    assert prose(path) is is_prose


def test_a_test_failure_after_the_jobs_own_listing_of_prose_only_is_upstreams() -> None:
    diagnosis = diagnose_log(job_log(SCRIPT, ["docs/usage.md", "README.md", *PYTEST]), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "changes only prose (README.md, usage.md)" in dict(diagnosis.decided_by)["changes"]


@pytest.mark.parametrize(
    ("script", "listed"),
    [
        (SCRIPT, ["docs/usage.md", "src/export.py"]),  # a source file among them
        (
            "git diff --name-only origin/main...HEAD | grep -v '^src/'\npytest -q",
            ["docs/usage.md"],
        ),  # filtered
        ("git diff --name-only origin/main...HEAD -- docs\npytest -q", ["docs/usage.md"]),  # a pathspec
        ("pytest -q", []),  # no listing
        # the working tree against the index: what the job's own generation changed, not the pull request
        ("python gen_docs.py\ngit diff --name-only\npytest -q", ["docs/usage.md"]),
        ("python gen_docs.py && git diff --name-only --exit-code\npytest -q", ["docs/usage.md"]),
    ],
    ids=["source-changed", "piped", "pathspec", "no-listing", "working-tree", "exit-code"],
)
def test_a_listing_that_names_code_or_may_leave_it_out_keeps_the_failure_the_codes(
    script: str, listed: list[str]
) -> None:
    diagnosis = diagnose_log(job_log(script, [*listed, *PYTEST]), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_prose_the_failing_step_reads_keeps_the_failure_the_codes() -> None:
    # a doctest of the README the pull request changed
    doctest = [
        "README.md F",
        "=================================== FAILURES ===================================",
        "___ [doctest] README.md ___",
        "Expected: 4  Got: 5",
        "FAILED README.md::README.md",
        "========================= 1 failed in 0.11s ==========================",
    ]
    diagnosis = diagnose_log(job_log(SCRIPT, ["README.md", *doctest]), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_the_listing_is_read_after_the_steps_header_and_up_to_its_first_other_line() -> None:
    lines = [
        "##[group]Run git fetch origin main --depth=1",
        "git fetch origin main --depth=1",
        "git diff --name-only FETCH_HEAD...HEAD && go test ./...",
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
        "From https://github.com/acme/app",
        " * branch            main       -> FETCH_HEAD",
        "README.md",
        "docs/configuration.md",
        "ok  \tgithub.com/acme/app/internal/auth\t0.081s",
        "--- FAIL: TestRouteTableReload (0.02s)",
    ]
    assert listed_changes(lines) == ["README.md", "docs/configuration.md"]


def test_a_list_of_changed_files_decides_by_itself() -> None:
    diagnosis = diagnose_log(job_log("pytest -q", PYTEST), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE
    said = only_prose_changed(diagnosis, ["README.md", "docs/index.rst"], PYTEST)
    assert (said.owner, said.action) == UPSTREAM
    assert only_prose_changed(diagnosis, ["README.md", "src/export.py"], PYTEST) is diagnosis
    assert only_prose_changed(diagnosis, [], PYTEST) is diagnosis
