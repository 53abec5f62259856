"""Configuration of the tools that judge the code: test runners, linters, type checkers and coverage.

Changing it turns a red check green without fixing anything (``addopts = --deselect …``, ``[tool.ruff.lint]
ignore``, ``"test": "exit 0"``, ``fail_under`` lowered, ``testPathIgnorePatterns``, a conftest hook that drops
tests), so a fix may not touch it. Files that hold nothing else are refused whole; files that hold other
things
too (``pyproject.toml``, ``setup.cfg``, ``package.json``, ``Cargo.toml``, ``vite.config.*``) are refused when
a tool's section or key differs between the two sides, read in full through a :data:`Reader` when one is given
(the section of a changed line is often outside the diff's context), else from what the hunks show.

Every function returns ``(path, reason)`` pairs, so that a repository's ``guard: allow`` can let a path
through
on purpose. Pure; never raises on any text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence

from healer.change.diff import FileChange
from healer.change.guard.paths import normalise, quote

Reader = Callable[[str, bool], "str | None"]

_WHAT = "how tests, linters, type checkers or coverage run"
_WHY = (
    "the healer does not change "
    + _WHAT
    + "; a person must, or the repository allows the path (`guard: allow`)."
)

# Files that configure nothing but such tools (matched on the file name, case-insensitively).
_TOOL_FILE = re.compile(
    r"^(?:pytest\.ini|tox\.ini|noxfile\.py|\.coveragerc|\.flake8|\.?pylintrc|\.?mypy\.ini|\.?ruff\.toml"
    r"|pyrightconfig\.json|\.pre-commit-config\.ya?ml|\.?codecov\.ya?ml|\.bandit|\.pydocstyle|\.isort\.cfg"
    r"|\.yamllint(?:\.ya?ml)?|\.markdownlint.*|\.golangci\.(?:ya?ml|toml|json)|\.?clippy\.toml|\.?rustfmt\.toml"
    r"|\.eslintrc(?:\.\w+)?|eslint\.config\.\w+|\.eslintignore|\.prettierrc(?:\.\w+)?|prettier\.config\.\w+"
    r"|\.prettierignore|biome\.jsonc?|\.stylelintrc(?:\.\w+)?|stylelint\.config\.\w+|jest\.config\.\w+"
    r"|vitest\.(?:config|workspace)\.\w+|\.mocharc(?:\.\w+)?|karma\.conf\.\w+|\.nycrc(?:\.\w+)?|\.c8rc(?:\.\w+)?"
    r"|ava\.config\.\w+|playwright\.config\.\w+|cypress\.config\.\w+|tsconfig(?:\.[\w-]+)*\.json"
    r"|\.swiftlint\.ya?ml|detekt.*\.ya?ml|checkstyle.*\.xml|phpunit\.xml(?:\.dist)?|phpstan\.neon(?:\.dist)?"
    r"|psalm\.xml|\.php-cs-fixer(?:\.dist)?\.php|\.rubocop.*\.ya?ml|\.rspec|\.shellcheckrc|\.hadolint\.ya?ml"
    r"|\.clang-tidy|\.codespellrc|_?\.?typos\.toml|cspell\.json|\.jshintrc|\.lintr|\.scalafix\.conf"
    r"|\.scalafmt\.conf|\.editorconfig-checker\.json)$",
    re.IGNORECASE,
)

# pyproject.toml `[tool.<name>…]` tables, setup.cfg / Cargo.toml sections, package.json keys.
_PYPROJECT_TOOLS = (
    "pytest|coverage|ruff|mypy|pyright|basedpyright|pylint|flake8|black|isort|tox|nox|hatch\\.envs|poe|pdm\\.scripts"
    "|taskipy|codespell|bandit|pydocstyle|pycodestyle|ty|pyre|yapf|autopep8|interrogate|vulture|deptry|pytype"
    "|docformatter|typos|pyproject-flake8|flakeheaven|flakehell|nitpick|sqlfluff"
)
_PYPROJECT = re.compile(rf"^tool\.(?:{_PYPROJECT_TOOLS})(?:\.|$)")
_SETUP_CFG = re.compile(
    r"^(?:tool:pytest|pytest|coverage:.*|flake8|mypy|mypy-.*|pycodestyle|pep8|pydocstyle|isort|pylint.*|tox:.*"
    r"|testenv.*|codespell|bandit|yapf)$"
)
_CARGO = re.compile(r"^(?:workspace\.)?lints(?:\.|$)|^profile\.test(?:\.|$)")
_PACKAGE_KEYS = (
    "scripts", "jest", "mocha", "eslintConfig", "eslintIgnore", "prettier", "stylelint", "nyc", "c8", "ava",
    "vitest", "jshintConfig", "xo", "standard", "tap", "lint-staged", "simple-git-hooks", "husky",
)  # fmt: skip
# words on a changed line that name a tool setting, for a line whose section the diff does not show
_SETTING_WORDS = re.compile(
    r"addopts|deselect|testpaths|python_files|norecursedirs|fail_under|fail-under|omit|ignore|select|exclude"
    r"|disable|strict|per-file|extend|\"test|\"lint|testMatch|testPathIgnorePatterns|coverageThreshold|scripts"
    r"|^\s*\[",
    re.IGNORECASE,
)
_VITE_TEST = re.compile(r"\btest\s*:|\bcoverage\b|\bexclude\b|\binclude\b|\bthresholds?\b|passWithNoTests")
_BUILD_FILE = re.compile(r"^(?:pom\.xml|build\.gradle(?:\.kts)?|build\.sbt)$", re.IGNORECASE)
_BUILD_SKIP = re.compile(
    r"skipTests|maven\.test\.skip|testFailureIgnore|ignoreFailures|<exclude>|\bexclude\b|failOn\w*|minimum\w*"
    r"|\bfilter\s*\{|skipITs|<skip>"
)

# conftest.py: what changes which tests pytest collects or how it reports them
_CONFTEST_HOOK = re.compile(
    r"\bdef\s+pytest_\w+|\bcollect_ignore(?:_glob)?\b|\bpytest_plugins\b|\.option\.|\baddopts\b|addinivalue_line"
    r"|\bdeselect|\.add_marker\s*\(|\bitems\s*\[\s*:\s*\]|\bitems\.(?:remove|clear|pop)\b|\bpytest\.exit\b"
    r"|\bos\._exit\b|\bsys\.exit\b"
)
_MAX_SCAN = 400


def _base(path: str) -> str:
    return normalise(path).rsplit("/", 1)[-1]


def tool_config_changes(files: Sequence[FileChange], read: Reader | None) -> Iterator[tuple[str, str]]:
    """``(path, reason)`` for every change to the configuration of a test runner, linter, type checker or
    coverage tool."""
    for change in files:
        for path in change.paths:
            base = _base(path)
            if _TOOL_FILE.match(base):
                yield path, f"It changes {quote(path)}, which configures {_WHAT}: {_WHY}"
                break
        else:
            reason = _shared_file(change, read)
            if reason:
                yield change.path, reason


def _shared_file(change: FileChange, read: Reader | None) -> str:
    path, base = change.path, _base(change.path)
    lower = base.lower()
    if lower == "conftest.py":
        hit = _changed_line(change, _CONFTEST_HOOK)
        return (
            f"It changes how pytest collects or reports tests in {quote(path)} ({quote(hit)}): {_WHY}"
            if hit
            else ""
        )
    if lower == "pyproject.toml":
        return _sections(change, read, _toml_keys, _PYPROJECT, "tables")
    if lower in ("setup.cfg", "setup.ini"):
        return _sections(change, read, _ini_sections, _SETUP_CFG, "sections")
    if lower == "cargo.toml":
        return _sections(change, read, _toml_keys, _CARGO, "tables")
    if lower == "package.json":
        return _package_json(change, read)
    if re.match(r"^vite\.config\.\w+$", lower):
        hit = _changed_line(change, _VITE_TEST)
        return f"It changes the test settings in {quote(path)} ({quote(hit)}): {_WHY}" if hit else ""
    if _BUILD_FILE.match(base):
        hit = _changed_line(change, _BUILD_SKIP)
        return (
            f"It changes which tests or checks the build runs in {quote(path)} ({quote(hit)}): {_WHY}"
            if hit
            else ""
        )
    return ""


def _changed_line(change: FileChange, pattern: re.Pattern[str]) -> str:
    """The first added or removed line that matches ``pattern`` (stripped), or empty."""
    for hunk in change.hunks:
        for line in hunk:
            if line.kind != " " and pattern.search(line.text[:_MAX_SCAN]):
                return line.text.strip()
    return ""


# -- sectioned files -----------------------------------------------------------------------------------------

_TOML_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")
_TOML_KEY = re.compile(
    r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*="""
)
_INI_HEADER = re.compile(r"^\s*\[([^\]]+)\]")


def _dotted(name: str) -> str:
    return ".".join(part.strip().strip("\"'") for part in name.split("."))


def _toml_keys(lines: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(key path, line) for each meaningful line: a table header's lines belong to the table, a key's
    continuation lines to the key."""
    table, key = "", ""
    for text in lines:
        stripped = text.strip()
        if not stripped or stripped.startswith("#"):
            continue
        header = _TOML_HEADER.match(text)
        if header:
            table, key = _dotted(header.group(1)), ""
            yield table, stripped
            continue
        assignment = _TOML_KEY.match(text)
        if assignment:
            key = _dotted(assignment.group(1))
        yield ".".join(p for p in (table, key) if p), stripped


def _ini_sections(lines: Sequence[str]) -> Iterator[tuple[str, str]]:
    section = ""
    for text in lines:
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        header = _INI_HEADER.match(text)
        if header:
            section = header.group(1).strip()
        yield section, stripped


def _guarded(pairs: Iterator[tuple[str, str]], guarded: re.Pattern[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for where, line in pairs:
        if guarded.search(where):
            out.setdefault(_section_name(where, guarded), []).append(line)
    return out


def _section_name(where: str, guarded: re.Pattern[str]) -> str:
    match = guarded.search(where)
    return where[: match.end()].rstrip(".") if match else where


def _sections(
    change: FileChange,
    read: Reader | None,
    split: Callable[[Sequence[str]], Iterator[tuple[str, str]]],
    guarded: re.Pattern[str],
    noun: str,
) -> str:
    path = change.path
    old = read(change.old_path, False) if read is not None and change.old_path else None
    new = read(change.new_path, True) if read is not None and change.new_path else None
    if (
        read is not None
        and (old is not None or change.old_path is None)
        and (new is not None or change.new_path is None)
    ):
        before = _guarded(split((old or "").split("\n")), guarded)
        after = _guarded(split((new or "").split("\n")), guarded)
        differ = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
        if not differ:
            return ""
        names = ", ".join(quote(f"[{name}]") for name in differ[:4])
        return f"It changes the {names} {noun if len(differ) > 1 else noun[:-1]} of {quote(path)}: {_WHY}"
    # Without the files, the hunks: a changed line under a guarded header in view, or one whose section is
    # out of view and that reads like a tool setting.
    for hunk in change.hunks:
        section: str | None = None  # unknown until a header is in view
        for line in hunk:
            header = _TOML_HEADER.match(line.text) or _INI_HEADER.match(line.text)
            if header:
                section = _dotted(header.group(1).strip())
            if line.kind == " ":
                continue
            if section is not None and guarded.search(section):
                return f"It changes the {quote('[' + section + ']')} settings of {quote(path)}: {_WHY}"
            if section is None and _SETTING_WORDS.search(line.text[:_MAX_SCAN]):
                return (
                    f"It changes {quote(path)} near what may be a tool's settings "
                    f"({quote(line.text.strip())}), and the section is not in view: {_WHY}"
                )
    return ""


def _package_json(change: FileChange, read: Reader | None) -> str:
    path = change.path
    sides = [
        read(p, new) if read is not None and p else None
        for p, new in ((change.old_path, False), (change.new_path, True))
    ]
    paths = (change.old_path, change.new_path)
    if read is not None and all(s is not None or p is None for s, p in zip(sides, paths, strict=True)):
        try:
            before, after = (json.loads(s) if s else {} for s in sides)
        except ValueError:
            return (
                f"It leaves {quote(path)} unreadable as JSON, so its scripts and test settings cannot be "
                "checked."
            )
        if not isinstance(before, dict) or not isinstance(after, dict):
            return f"It changes {quote(path)} into something that is not a JSON object."
        differ = [key for key in _PACKAGE_KEYS if before.get(key) != after.get(key)]
        if differ:
            keys = ", ".join(quote(f'"{k}"') for k in differ)
            return f"It changes {keys} in {quote(path)}: {_WHY}"
        return ""
    keys = re.compile(
        r'"(?:' + "|".join(map(re.escape, _PACKAGE_KEYS)) + r')"|"(?:test|lint|check|typecheck)\w*"\s*:'
    )
    hit = _changed_line(change, keys)
    return f"It changes scripts or test settings in {quote(path)} ({quote(hit)}): {_WHY}" if hit else ""
