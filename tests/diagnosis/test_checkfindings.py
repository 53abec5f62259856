"""A per-file checker whose findings are all in files the pull request did not change is upstream's
(healer.diagnosis.checkfindings): each checker's report format, and what keeps a finding the code's (a
reported file it changed, the checker's settings or version, import order)."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.diagnosis.bychanges import by_changes
from healer.diagnosis.checkfindings import applies, reported, untouched_findings
from healer.model import Action, Owner

WORK = "/home/runner/work/acme/acme"
FLAKE8 = [
    "./src/acme/io.py:12:5: B911 `itertools.batched()` without an explicit `strict=` parameter",
    "./src/acme/util.py:40:9: B911 `itertools.batched()` without an explicit `strict=` parameter",
]
CASES = {
    "flake8": ("flake8 src", FLAKE8, ["src/acme/io.py", "src/acme/util.py"]),
    "ruff": (
        "ruff check .",
        ["src/acme/io.py:3:8: F401 [*] `os` imported but unused", "Found 1 error."],
        ["src/acme/io.py"],
    ),
    "ruff-full": (
        "ruff check --output-format full .",
        [
            "F841 Local variable `x` is assigned to but never used",
            f"  --> {WORK}/src/acme/io.py:7:5",
            "Found 1 error.",
        ],
        [f"{WORK}/src/acme/io.py"],
    ),
    "black": (
        "black --check .",
        [
            "would reformat src/acme/io.py",
            "Oh no! 💥 💔 💥",
            "1 file would be reformatted, 9 files would be left unchanged.",
        ],
        ["src/acme/io.py"],
    ),
    "prettier": (
        "npx prettier --check .",
        [
            "Checking formatting...",
            "[warn] src/app.ts",
            "[warn] Code style issues found in the above file. Run Prettier with --write to fix.",
        ],
        ["src/app.ts"],
    ),
    "rubocop": (
        "bundle exec rubocop",
        [
            "lib/acme/io.rb:4:3: C: Style/StringLiterals: Prefer single-quoted strings.",
            "12 files inspected, 1 offense detected",
        ],
        ["lib/acme/io.rb"],
    ),
}


def diagnose(command: str, output: list[str]):  # noqa: ANN201
    return diagnose_log(job_log(command, output), job="lint")


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_checkers_findings_are_read_by_their_files(name: str) -> None:
    command, output, files = CASES[name]
    diagnosis = diagnose(command, output)
    assert applies(diagnosis), diagnosis.rule
    assert reported(diagnosis.rule, output) == files


@pytest.mark.parametrize("name", sorted(CASES))
def test_findings_only_in_files_the_pull_request_did_not_change_are_upstreams(name: str) -> None:
    command, output, _ = CASES[name]
    lines = job_log(command, output).splitlines()
    given = untouched_findings(diagnose(command, output), ["docs/usage.md", "src/acme/cli.py"], lines)
    assert (given.owner, given.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "its base branch has the same findings" in dict(given.decided_by)["changes"]


@pytest.mark.parametrize(
    "changed",
    [
        ["src/acme/io.py"],  # a reported file: the pull request's own finding
        ["docs/usage.md", ".flake8"],  # the checker's settings
        ["docs/usage.md", "requirements-dev.txt"],  # the checker's version
        ["docs/usage.md", ".github/workflows/lint.yml"],  # how it runs
        ["docs/usage.md", ".pre-commit-config.yaml"],
        [],
    ],
)
def test_a_finding_the_pull_request_could_have_caused_stays_the_codes(changed: list[str]) -> None:
    diagnosis = diagnose("flake8 src", FLAKE8)
    lines = job_log("flake8 src", FLAKE8).splitlines()
    assert untouched_findings(diagnosis, changed, lines) is diagnosis


def test_a_runners_absolute_path_is_the_changed_repository_path() -> None:
    output = [f"{WORK}/src/acme/io.py:3:8: F401 [*] `os` imported but unused", "Found 1 error."]
    diagnosis = diagnose("ruff check .", output)
    lines = job_log("ruff check .", output).splitlines()
    assert untouched_findings(diagnosis, ["src/acme/io.py"], lines) is diagnosis
    assert untouched_findings(diagnosis, ["src/acme/cli.py"], lines).owner is Owner.UPSTREAM


def test_import_order_depends_on_the_layout_and_is_never_read() -> None:
    output = ["src/acme/io.py:1:1: I001 [*] Import block is un-sorted or un-formatted", "Found 1 error."]
    diagnosis = diagnose("ruff check .", output)
    assert reported(diagnosis.rule, output) is None
    assert untouched_findings(diagnosis, ["src/acme/new_pkg/__init__.py"], output) is diagnosis


def test_a_cross_file_checker_or_a_type_checker_is_not_looked_at() -> None:
    mypy = diagnose("mypy src", ["src/acme/io.py:3: error: Incompatible return value type  [return-value]"])
    pylint = diagnose(
        "pylint src", ["src/acme/io.py:3:0: E0401: Unable to import 'acme.gone' (import-error)"]
    )
    assert not applies(mypy) and not applies(pylint)


def test_the_install_reading_comes_first_and_either_is_one_answer() -> None:
    diagnosis = diagnose("flake8 src", FLAKE8)
    lines = job_log("flake8 src", FLAKE8).splitlines()
    assert by_changes(diagnosis, ["docs/usage.md"], lines).owner is Owner.UPSTREAM
    assert by_changes(diagnosis, ["src/acme/io.py"], lines) is diagnosis


def test_a_windows_runners_path_is_compared_with_forward_slashes() -> None:
    output = ["D:\\a\\acme\\acme\\src\\acme\\io.py:3:8: F401 [*] `os` imported but unused", "Found 1 error."]
    diagnosis = diagnose("ruff check .", output)
    assert reported(diagnosis.rule, output) == ["D:/a/acme/acme/src/acme/io.py"]
    assert untouched_findings(diagnosis, ["src/acme/io.py"], output) is diagnosis
