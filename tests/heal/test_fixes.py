"""Narrow fix rules: the files a failure names, expanded into a fix command's argv; nothing else."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from healer.diagnosis.rules import shipped_rules
from healer.heal.fixes import expand, expand_all, install_hint, plan_fixes, reported_files, rust_edition
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


# Each formatter's fix rule on its check's output (as the tool prints it), in a checkout holding the reported
# files: the argv the rule runs. rustfmt's lines are its real output (rustfmt 1.9, `cargo fmt --check`).
FORMATTERS = {
    "rust.rustfmt": (
        ["Diff in /home/runner/work/w/w/src/lib.rs:1:", "-pub fn add(a: u8,b: u8) -> u8 {",
         "+pub fn add(a: u8, b: u8) -> u8 {", " }", "Diff in src/fmt.rs at line 3:"],
        [["rustfmt", "--edition", "2021", "src/lib.rs", "src/fmt.rs"]],
    ),
    "format.terraform-fmt": (
        ["main.tf", "modules/net/vpc.tf"], [["terraform", "fmt", "main.tf", "modules/net/vpc.tf"]]
    ),
    "elixir.mix-format": (
        ["** (Mix) mix format failed due to --check-formatted.", "The following files are not formatted:", "",
         "  * lib/app.ex", "  * test/app_test.exs"],
        [["mix", "format", "lib/app.ex", "test/app_test.exs"]],
    ),
    "dotnet.format": (
        ["/home/runner/work/w/w/src/App/Program.cs(3,5): error WHITESPACE: Fix whitespace formatting. "
         "Replace 2 characters with '\\n\\s\\s'. [/home/runner/work/w/w/src/App/App.csproj]",
         "  src/App/Util.cs(1,1): error IMPORTS: Fix imports ordering. [src/App/App.csproj]"],
        [["dotnet", "format", "--include", "src/App/Program.cs", "src/App/Util.cs"]],
    ),
    "bazel.buildifier": (
        ["BUILD.bazel # reformat", "pkg/BUILD # reformat listsort"],
        [["buildifier", "BUILD.bazel", "pkg/BUILD"]],
    ),
    "php.cs-fixer": (
        ["Loaded config default from \"/w/.php-cs-fixer.dist.php\".", "   1) src/Foo.php",
         "   2) src/Bar.php (braces, indentation_type)", "Found 2 of 10 files that can be fixed"],
        [["vendor/bin/php-cs-fixer", "fix", "src/Foo.php"],
         ["vendor/bin/php-cs-fixer", "fix", "src/Bar.php"]],
    ),
    "zig.fmt": (["src/main.zig"], [["zig", "fmt", "src/main.zig"]]),
    "lint.typos": (
        ["error: `teh` should be `the`", "  --> ./docs/c.md:3:1"], [["typos", "--write-changes", "docs/c.md"]]
    ),
}  # fmt: skip


@pytest.mark.parametrize("rule_id", sorted(FORMATTERS))
def test_a_formatter_fix_rule_runs_only_on_the_files_its_check_printed(tmp_path: Path, rule_id: str) -> None:
    excerpt, argvs = FORMATTERS[rule_id]
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "w"\nedition = "2021"\n')
    for argv in argvs:
        for name in argv[1:]:
            if "/" in name or "." in name:
                (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
                (tmp_path / name).write_text("x\n")
    (tmp_path / "unreported.rs").write_text("x\n")
    (rule,) = [rule for rule in shipped_rules() if rule.id == rule_id]
    files = reported_files(excerpt, tmp_path)
    assert [argv for command in rule.fix for argv in expand_all(command, files, tmp_path) or []] == argvs


def test_the_rust_edition_is_the_crates_own_or_its_workspaces(tmp_path: Path) -> None:
    workspace = '[workspace]\nmembers = ["a", "b", "c"]\n[workspace.package]\nedition = "2024"\n'
    (tmp_path / "Cargo.toml").write_text(workspace)
    for crate, package in (("a", 'edition = "2018"'), ("b", "edition.workspace = true"), ("c", "")):
        (tmp_path / crate / "src").mkdir(parents=True)
        (tmp_path / crate / "Cargo.toml").write_text(f'[package]\nname = "{crate}"\n{package}\n')
        (tmp_path / crate / "src/lib.rs").write_text("\n")
    assert [rust_edition(tmp_path, f"{c}/src/lib.rs") for c in "abc"] == ["2018", "2024", "2015"]
    assert expand_all("rustfmt --edition {edition} {files}", ["a/src/lib.rs", "b/src/lib.rs"], tmp_path) == [
        ["rustfmt", "--edition", "2018", "a/src/lib.rs"], ["rustfmt", "--edition", "2024", "b/src/lib.rs"]
    ]  # fmt: skip
    assert expand_all("vendor/bin/php-cs-fixer fix {file}", [], tmp_path) is None


@pytest.mark.skipif(shutil.which("rustfmt") is None, reason="needs rustfmt")
def test_rustfmt_fix_formats_the_reported_file_and_leaves_the_rest_alone(tmp_path: Path) -> None:
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "w"\nedition = "2021"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src/lib.rs").write_text("pub async fn add(a: u8,b: u8) -> u8 {\n    a+b\n}\n")
    (tmp_path / "src/other.rs").write_text("pub fn other( ) {}\n")  # unformatted, not a module: not checked
    excerpt = ["Diff in /home/runner/work/w/w/src/lib.rs:1:", "-pub async fn add(a: u8,b: u8) -> u8 {"]
    (rule,) = [rule for rule in shipped_rules() if rule.id == "rust.rustfmt"]
    (argv,) = expand_all(rule.fix[0], reported_files(excerpt, tmp_path), tmp_path) or []
    subprocess.run(argv, cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "src/lib.rs").read_text() == "pub async fn add(a: u8, b: u8) -> u8 {\n    a + b\n}\n"
    assert (tmp_path / "src/other.rs").read_text() == "pub fn other( ) {}\n"
