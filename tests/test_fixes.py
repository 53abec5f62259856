"""Narrow fix rules: the files a failure names, expanded into a fix command's argv; nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest

from healer.fixes import expand, install_hint, plan_fixes, reported_files
from healer.model import Action, Category, CheckPlan, Diagnosis, HealMode, Verdict


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name in ("src/a.py", "src/b.py", "docs/c.md", "-rf.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    (tmp_path / "link.py").symlink_to("/etc/hostname")
    return tmp_path


@pytest.mark.parametrize(
    ("lines", "files"),
    [
        pytest.param(["src/a.py:1:8: F401 [*] `os` imported but unused"], ("src/a.py",), id="ruff-concise"),
        pytest.param(["F401 [*] `os` imported", "  --> src/a.py:1:8", "   |"], ("src/a.py",), id="ruff-full"),
        pytest.param(
            ["Would reformat: src/b.py", "1 file would be reformatted"], ("src/b.py",), id="ruff-fmt"
        ),
        pytest.param(
            ["unformatted: File would be reformatted", " --> src/b.py:4:12"], ("src/b.py",), id="ruff-0.9"
        ),
        pytest.param(["would reformat /home/runner/work/w/w/src/a.py"], ("src/a.py",), id="black-absolute"),
        pytest.param(
            ["ERROR: /w/w/src/b.py Imports are incorrectly sorted and/or formatted."], ("src/b.py",)
        ),
        pytest.param(["docs/c.md:3: teh ==> the"], ("docs/c.md",), id="codespell"),
        pytest.param(["[warn] src/a.py", "[warn] Code style issues found"], ("src/a.py",), id="prettier"),
        pytest.param(["diff src/a.py.orig src/a.py", "--- src/a.py.orig"], ("src/a.py",), id="gofmt-d"),
        pytest.param(["src/b.py: File is not `gofmt`-ed"], ("src/b.py",), id="golangci-gofmt"),
        pytest.param(
            ["Diff in /w/w/src/a.py:1:", "Diff in src/b.py:"], ("src/a.py", "src/b.py"), id="diff-in"
        ),
        pytest.param(["Changed src/a.py", "Formatted 2 files (1 changed)"], ("src/a.py",), id="dart"),
        pytest.param(["src/a.py:1:1: E1", "src/a.py:2:1: E2", "src/b.py:1:1: E3"], ("src/a.py", "src/b.py")),
        pytest.param(["../etc/passwd:1:1: F401 x", "/etc/passwd:1:1: E1 x"], (), id="outside"),
        pytest.param(["link.py:1:1: F401 x"], (), id="symlink-out"),
        pytest.param(["src/missing.py:1:1: F401 x", "ruff check ."], (), id="not-a-file"),
        pytest.param(["-rf.py:1:1: F401 x"], ("-rf.py",), id="dash"),
    ],
)
def test_reported_files_are_files_inside_the_checkout(
    tree: Path, lines: list[str], files: tuple[str, ...]
) -> None:
    assert reported_files(lines, tree) == files


def test_expand_replaces_the_files_word_and_never_lets_a_path_pass_for_an_option() -> None:
    assert expand("ruff check --fix {files}", ["src/a.py", "-rf.py"]) == [
        "ruff", "check", "--fix", "src/a.py", "./-rf.py"
    ]  # fmt: skip
    assert expand("ruff format {files}", []) is None
    assert expand("go mod tidy", []) == ["go", "mod", "tidy"]


def _plan(commands: tuple[str, ...], excerpt: tuple[str, ...]) -> CheckPlan:
    diagnosis = Diagnosis(
        Category.LINT, 0.9, "python.ruff-fixable", Action.FIX, excerpt, fix_commands=commands
    )
    return CheckPlan("lint", Verdict.HEAL, diagnosis, attempt=1, max_attempts=3, mode=HealMode.FIX)


def test_plan_fixes_runs_a_rule_only_with_its_tool_and_its_files(tree: Path) -> None:
    bin_dir = tree / "bin"
    bin_dir.mkdir()
    (bin_dir / "ruff").write_text("#!/bin/sh\n")
    (bin_dir / "ruff").chmod(0o755)
    ok = _plan(("ruff check --fix {files}",), ("src/a.py:1:8: F401 x",))
    fixes, agents, problems = plan_fixes([ok], str(bin_dir), tree)
    assert [(p.check, argvs) for p, argvs in fixes] == [("lint", [["ruff", "check", "--fix", "src/a.py"]])]
    assert not agents and not problems

    no_files = _plan(("ruff check --fix {files}",), ("Found 1 error.",))
    fixes, agents, problems = plan_fixes([no_files], str(bin_dir), tree)
    assert not fixes and agents == [no_files] and "names no file" in problems[0]

    missing = _plan(("black {files}",), ("would reformat src/a.py",))
    fixes, agents, problems = plan_fixes([missing], str(bin_dir), tree)
    assert not fixes and agents == [missing]
    assert problems == [
        "the fix rule of `lint` needs `black`, which is not on PATH: "
        "add `pip install black` before ci-healer (as a step, or in `setup-command`)"
    ]


def test_install_hint_names_a_step_for_an_unknown_tool_too() -> None:
    assert (
        install_hint("zz fmt {files}") == "install `zz` before ci-healer (in a step, or in `setup-command`)"
    )
