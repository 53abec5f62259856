"""A per-file checker whose findings are all in files the pull request did not change (pure).

A formatter judges each file by itself, and so do flake8 (with its plugins: each reads one file's syntax
tree), ruff's lint rules and RuboCop's cops. When every file such a checker reports is one the pull request
did not change, and the pull request changed neither the checker's version (a manifest, a workflow) nor its
settings, the same checker finds the same on the base branch: a new release of the checker (an unpinned
flake8-bugbear with a new check, a formatter's new style) or the base branch itself broke it. That is
upstream's, escalated, not the pull request's to fix or the agent's.

Left out, because a change in one file can make another's finding: import sorting (isort, ruff's ``I``
rules: which imports are first-party depends on the project's layout), linters that resolve across files
(pylint, ESLint's import rules, golangci-lint's ``unused``, clippy and rustc's ``dead_code``) and type
checkers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from healer.diagnosis.installinputs import HEALED, read_by_install
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned, shown
from healer.model import Action, Category, Diagnosis, Owner

# the rules of per-file checkers, and how each reports a file (its output formats)
_FLAKE8 = re.compile(r"^\.?/?(?P<path>\S+\.pyi?):\d+:\d+: [A-Z]{1,3}\d{2,4} ")
_RUFF = (
    re.compile(r"^(?P<path>\S+\.pyi?):\d+:\d+: [A-Z]{1,4}\d{3,4} "),  # --output-format concise
    re.compile(r"^\s*--> (?P<path>\S+\.pyi?):\d+:\d+$"),  # full
)
FINDINGS: dict[str, tuple[re.Pattern[str], ...]] = {
    "python.flake8": (_FLAKE8,),
    "python.ruff-unfixable": _RUFF,
    "python.ruff-fixable": _RUFF,
    "python.ruff-summary": _RUFF,
    "python.ruff-format": (re.compile(r"^Would reformat: (?P<path>\S+)$"), *_RUFF[1:]),
    "python.black": (re.compile(r"^would reformat (?P<path>\S+)$"),),
    "js.prettier": (re.compile(r"^\[warn\] (?P<path>(?!Code style)\S+\.\w{1,12})$"),),
    "go.gofmt": (re.compile(r"^(?P<path>\S+\.go): File is not `gofmt`-ed"),),
    "go.gofmt-listing": (re.compile(r"^(?P<path>\S+\.go)$"), re.compile(r"^diff -u \S+ (?P<path>\S+\.go)$")),
    "rust.rustfmt": (re.compile(r"^Diff in (?P<path>\S+\.rs)(?::\d+)*(?: at line \d+)?:$"),),
    "ruby.rubocop": (re.compile(r"^(?P<path>\S+\.rb):\d+:\d+: [CWEFR]: "),),
}
# ruff's and flake8's import-sorting codes (isort's), whose verdict depends on the project's layout
_IMPORT_ORDER = re.compile(r"^(?:\S+:\d+:\d+: )?I\d{3,4} ")
# the checkers' settings, where the pull request may have changed what they check (beside the manifests,
# lock files and workflows of healer.diagnosis.installinputs)
SETTINGS = re.compile(
    r"(?:^|/)(?:\.flake8|ruff\.toml|\.ruff\.toml|\.pre-commit-config\.ya?ml|\.editorconfig|\.prettierrc[^/]*"
    r"|prettier\.config\.[cm]?js|\.prettierignore|\.rubocop[^/]*\.ya?ml|\.?rustfmt\.toml|\.isort\.cfg)$"
)
_KINDS = frozenset({Category.LINT, Category.FORMAT})
MAX_READ = 500  # findings read at most (a checker's report of a whole repository)


def applies(diagnosis: Diagnosis) -> bool:
    """Whether the changed files could tell whose ``diagnosis`` is: a per-file checker's finding read as the
    code's and headed for a fix rule or the agent."""
    return (
        diagnosis.rule in FINDINGS
        and diagnosis.category in _KINDS
        and diagnosis.owner is Owner.CODE
        and diagnosis.action in HEALED
    )


def reported(rule: str, lines: Sequence[str]) -> list[str] | None:
    """The files ``rule``'s checker reports in ``lines``, in order; None when it reports an import order or
    none at all (nothing to compare)."""
    patterns = FINDINGS.get(rule, ())
    found: list[str] = []
    for raw in lines:
        line = clean_line(raw).strip()
        if _IMPORT_ORDER.match(line):
            return None
        for pattern in patterns:
            match = pattern.match(line)
            if match:
                path = match.group("path").replace("\\", "/").removeprefix("./")  # a Windows runner's path
                if path not in found:
                    found.append(path)
                break
        if len(found) >= MAX_READ:
            break
    return found or None


def _same_file(finding: str, changed: str) -> bool:
    """Whether a reported path (relative, or a runner's absolute path) is the changed repository path."""
    changed = changed.lstrip("/")
    return finding == changed or finding.endswith("/" + changed) or changed.endswith("/" + finding)


def untouched_findings(diagnosis: Diagnosis, changed: Sequence[str], lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream and escalated when it :func:`applies`, the pull request changed files
    (``changed``, every one) but none the checker reports nor its version or settings; else unchanged."""
    if not applies(diagnosis) or not changed:
        return diagnosis
    if any(read_by_install(path) or SETTINGS.search(path) for path in changed):
        return diagnosis
    files = reported(diagnosis.rule, lines)
    if not files or any(_same_file(f, c) for f in files for c in changed):
        return diagnosis
    names = shown([PurePosixPath(f).name for f in files])
    said = (
        f"every file the checker reports ({names}) is one the pull request did not change, and it changed "
        "neither the checker's version nor its settings: its base branch has the same findings"
    )
    return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE, stage="changes")
