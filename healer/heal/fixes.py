"""Narrow fix rules: a fix command runs on the files its failure names, never on the whole repository.

A rule's fix command may hold the word ``{files}``: it is replaced by the files the failing step's output
reported (a linter's ``path:line:col:`` findings, ruff's ``--> path:line:col``, a formatter's ``Would
reformat: path``, Prettier's ``[warn] path``, gofmt's file list, rustfmt's and StyLua's ``Diff in path:``,
``mix format``'s ``* path``, dotnet format's ``path(line,col): error``, buildifier's ``path # reformat``,
PHP-CS-Fixer's ``1) path``), so ``ruff check --fix {files}`` fixes the reported file and leaves the rest of
the repository alone. With no such file in the log, the command does not run at all: a repository-wide
formatting pass is exactly what must not happen as a side effect. ``{file}`` runs the command once per file
(for a tool that takes one path), and ``{edition}`` is the Rust edition of the crate a file belongs to
(rustfmt, unlike ``cargo fmt``, does not read it from ``Cargo.toml``): crates of different editions get one
run each.

Paths come from a job log, i.e. from whoever controls the PR: a path is used only when it names a regular
file inside the checkout (an absolute runner path is cut down to the part that exists in the checkout), it
is passed as one argv word (no shell), and a path that starts with ``-`` is written ``./-…`` so no tool reads
it as an option.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

import tomllib

from healer.heal.agent import missing_tools
from healer.model import CheckPlan, HealMode
from healer.text.markdown import code

FILES = "{files}"
FILE = "{file}"
EDITION = "{edition}"
MAX_FILES = 200
_REPORTED = (
    re.compile(r"^\s*-->\s+(\S+?):\d+(?::\d+)?\s*$"),  # ruff's full output format
    re.compile(r"^(?:Would reformat: |would reformat |ERROR: )(\S+?)(?: Imports are incorrectly sorted.*)?$"),
    re.compile(r"^\[warn\] (\S+\.\w+)$"),  # Prettier --check
    # rustfmt --check ("Diff in src/a.rs:3:", older "Diff in src/a.rs at line 3:"), StyLua, dart format
    re.compile(r"^(?:Diff in|Changed) (\S+?\.\w+)(?::\d+)*(?: at line \d+)?:?$"),
    re.compile(r"^diff (?:-u )?\S+ (\S+\.\w+)$"),  # gofmt -d: diff a.go.orig a.go
    re.compile(r"^\s*\* (\S+\.\w+)$"),  # mix format --check-formatted: "  * lib/a.ex"
    re.compile(r"^\s*\d+\) (\S+\.php)(?: \(.*\))?$"),  # PHP-CS-Fixer: "   1) src/A.php (braces)"
    re.compile(r"^\s*(\S+\.\w+)\(\d+,\d+\): (?:error|warning) [A-Z]+\d*: "),  # dotnet format
    re.compile(r"^(\S+) # reformat\b"),  # buildifier -mode=check (BUILD files have no extension)
    re.compile(r"^(\S+?\.\w+):(?:\d+(?::\d+)?:)? "),  # path[:line[:col]]: message
    re.compile(r"^(\S+\.\w+)$"),  # a bare file list (gofmt -l, stylua --check)
)
# Where to get each tool when a fix rule finds it missing: the step to add before the healer.
_INSTALL = {
    "ruff": "`pip install ruff`",
    "black": "`pip install black`",
    "isort": "`pip install isort`",
    "codespell": "`pip install codespell`",
    "npx": "`actions/setup-node` and `npm ci`",
    "prettier": "`actions/setup-node` and `npm ci`",
    "gofmt": "`actions/setup-go`",
    "go": "`actions/setup-go`",
    "cargo": "a Rust toolchain with rustfmt (`rustup component add rustfmt`)",
    "rustfmt": "a Rust toolchain with rustfmt (`rustup component add rustfmt`)",
    "buildifier": "buildifier (from bazelbuild/buildtools)",
    "vendor/bin/php-cs-fixer": "`composer install`",
    "zig": "a Zig toolchain",
    "typos": "typos (`cargo install typos-cli`, or its action)",
    "dart": "`dart-lang/setup-dart`",
    "dotnet": "`actions/setup-dotnet`",
    "mix": "`erlef/setup-beam`",
    "terraform": "`hashicorp/setup-terraform`",
}


def install_hint(command: str) -> str:
    """Which step provides a fix command's program: "add `pip install ruff` before ci-healer (a step or
    `setup-command`)"."""
    words = command.split()
    tool = words[0] if words else command
    how = _INSTALL.get(tool)
    if how is None:
        return f"install `{tool}` before ci-healer (in a step, or in `setup-command`)"
    return f"add {how} before ci-healer (as a step, or in `setup-command`)"


def reported_files(lines: Iterable[str], root: Path) -> tuple[str, ...]:
    """The files inside ``root`` that ``lines`` (a failing step's output) report, in order, at most
    :data:`MAX_FILES`."""
    found: list[str] = []
    for line in lines:
        for pattern in _REPORTED:
            match = pattern.match(line.rstrip())
            if match:
                path = _inside(match.group(1), root)
                if path and path not in found:
                    found.append(path)
                break
        if len(found) >= MAX_FILES:
            break
    return tuple(found)


def _inside(text: str, root: Path) -> str:
    """``text`` as a path relative to ``root`` when it names a regular file there, else ""."""
    if "\0" in text or not text:
        return ""
    parts = [p for p in PurePosixPath(text.removeprefix("./")).parts if p not in ("/", ".")]
    if ".." in parts:
        return ""
    # an absolute runner path (/home/runner/work/repo/repo/src/x.py): the shortest tail that exists here
    starts = range(len(parts)) if text.startswith("/") else range(1)
    base = root.resolve()
    for start in reversed(starts) if text.startswith("/") else starts:
        relative = "/".join(parts[start:])
        if not relative:
            continue
        candidate = (root / relative).resolve()
        if candidate.is_file() and candidate.is_relative_to(base) and not (root / relative).is_symlink():
            return relative
    return ""


def needs_files(command: str) -> bool:
    return bool({FILES, FILE} & set(shlex.split(command)))


def expand(command: str, files: Sequence[str]) -> list[str] | None:
    """``command`` as argv with ``{files}`` replaced by ``files``; None when it needs files and has none."""
    words = shlex.split(command)
    if FILES not in words:
        return words
    if not files:
        return None
    named = [f"./{f}" if f.startswith("-") else f for f in files]
    argv: list[str] = []
    for word in words:
        argv.extend(named if word == FILES else [word])
    return argv


def expand_all(command: str, files: Sequence[str], root: Path) -> list[list[str]] | None:
    """``command`` as the argv lists to run: one for ``{files}`` (one per file for ``{file}``, one per
    Rust edition for ``{edition}``); None when it needs files and has none."""
    words = shlex.split(command)
    if FILE in words:
        if not files:
            return None
        argvs = [expand(command.replace(FILE, FILES), [name]) for name in files]
        return [argv for argv in argvs if argv is not None]
    if EDITION not in words:
        argv = expand(command, files)
        return None if argv is None else [argv]
    groups: dict[str, list[str]] = {}
    for name in files:
        groups.setdefault(rust_edition(root, name), []).append(name)
    argvs = []
    for edition, names in groups.items():
        argv = expand(command, names)
        if argv is None:
            return None
        argvs.append([edition if word == EDITION else word for word in argv])
    return argvs or None


def rust_edition(root: Path, name: str) -> str:
    """The edition of the crate holding ``name`` (its nearest ``Cargo.toml`` with a ``[package]``, the
    workspace's when it says ``edition.workspace = true``); cargo's default, 2015, when none says."""
    inherit = False
    folder = (root / name).parent
    while folder == root or folder.is_relative_to(root):
        manifest = _manifest(folder / "Cargo.toml")
        package, workspace = manifest.get("package"), manifest.get("workspace")
        if isinstance(package, dict) and not inherit:
            edition = package.get("edition")
            if isinstance(edition, str):
                return edition
            inherit = isinstance(edition, dict) and edition.get("workspace") is True
            if not inherit:
                return "2015"
        if isinstance(workspace, dict) and inherit:
            shared = workspace.get("package")
            edition = shared.get("edition") if isinstance(shared, dict) else None
            return edition if isinstance(edition, str) else "2015"
        if folder == root:
            break
        folder = folder.parent
    return "2015"


def _manifest(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def plan_fixes(
    checks: Sequence[CheckPlan], path: str | None, root: Path
) -> tuple[list[tuple[CheckPlan, list[list[str]]]], list[CheckPlan], list[str]]:
    """(checks fix rules can fix, with their argv; checks for the agent; why a fix rule could not run).

    A fix rule runs only when its tools are on ``path`` (after set-up) and, for a command holding
    ``{files}``, when the log names files for it (:mod:`healer.heal.fixes`); otherwise its check goes to the
    agent."""
    fixes: list[tuple[CheckPlan, list[list[str]]]] = []
    agents: list[CheckPlan] = []
    problems: list[str] = []
    for plan in checks:
        diagnosis = plan.diagnosis
        commands = diagnosis.fix_commands if diagnosis else ()
        if diagnosis is None or plan.mode is not HealMode.FIX or not commands:
            agents.append(plan)
            continue
        missing = missing_tools(commands, path)
        if missing:
            tool = missing[0].split()[0]
            problems.append(
                f"the fix rule of {code(plan.check)} needs `{tool}`, which is not on PATH: "
                f"{install_hint(missing[0])}"
            )
            agents.append(plan)
            continue
        files = reported_files((*diagnosis.decisive, *diagnosis.excerpt), root)
        expanded = [expand_all(command, files, root) for command in commands]
        if any(argvs is None for argvs in expanded):
            problems.append(f"the log of {code(plan.check)} names no file in this checkout for its fix rule")
            agents.append(plan)
            continue
        fixes.append((plan, [argv for argvs in expanded if argvs is not None for argv in argvs]))
    return fixes, agents, problems
