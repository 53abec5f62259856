"""Paths: which files a diff touches, what kind of file each is, and which ones the healer never changes.

Pure; every function takes repository-relative ``/``-separated paths (a leading ``./`` or ``\\`` is
tolerated).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from healer.text.spans import code

# What CI itself runs. A fix that edits these could turn a red check green without fixing anything; besides,
# GitHub refuses a push that touches `.github/workflows/` unless the token has the `workflows` scope.
ALWAYS_PROTECTED: tuple[str, ...] = (".github/workflows/**", ".github/actions/**")

# A verdict is read by a person in a PR comment: quoted names are clipped.
MAX_QUOTED = 160


def quote(text: str) -> str:
    """Untrusted text (a path, a test name, a matched line) as one code span a PR comment cannot escape."""
    return code(text, MAX_QUOTED)


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob with ``**`` into a regex that matches a path or any directory above it."""
    anchored = pattern.startswith("/")
    pattern = pattern.strip("/")
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                out.append(_char_class(pattern[i + 1 : end]))
                i = end + 1
                continue
        else:
            out.append(re.escape(char))
        i += 1
    # A pattern without a slash matches at any depth (as in .gitignore); every pattern also covers what is
    # beneath a matching directory, so `docs` and `docs/` and `docs/**` all protect `docs/index.md`.
    prefix = "" if anchored or "/" in pattern else "(?:[^/]*/)*"
    try:
        return re.compile(f"^{prefix}{''.join(out)}(?:/.*)?$", re.IGNORECASE | re.DOTALL)
    except re.error:
        return re.compile(f"^{re.escape(pattern)}(?:/.*)?$", re.IGNORECASE | re.DOTALL)


def _char_class(body: str) -> str:
    """A glob's ``[...]`` as a regex class; every character that means more in a regex class is escaped."""
    negate = body.startswith("!")
    out: list[str] = []
    for n, char in enumerate(body[1:] if negate else body):
        special = char in "\\[]&~|^" or (char == "-" and (n == 0 or out[-1] == "-"))
        out.append("\\" + char if special else char)
    return "[" + ("^" if negate else "") + "".join(out) + "]"


def matches_glob(path: str, pattern: str) -> bool:
    """Whether ``path`` (relative, ``/``-separated) matches ``pattern``, fnmatch-style with ``**``.

    Matching ignores case (a macOS checkout treats ``.GitHub/Workflows`` as the same folder) and covers what
    lies beneath a matching directory. An empty pattern matches nothing.
    """
    pattern = pattern.strip()
    if not pattern:
        return False
    return bool(_glob_regex(pattern).match(normalise(path)))


def normalise(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def judge_paths(paths: Iterable[str], *, protected_paths: Sequence[str] = ()) -> tuple[str, ...]:
    """Reasons (sentences) why touching any of ``paths`` is refused; empty when all may be changed."""
    reasons: list[str] = []
    for path in dict.fromkeys(paths):
        if any(matches_glob(path, p) for p in ALWAYS_PROTECTED):
            reasons.append(
                f"It changes {quote(path)}: the healer never changes workflow files or the actions CI runs; "
                "a person must make that change."
            )
            continue
        for pattern in protected_paths:
            if matches_glob(path, pattern):
                reasons.append(
                    f"It changes {quote(path)}, which matches the protected path {quote(pattern.strip())} "
                    "(input `protected-paths`)."
                )
                break
    return tuple(reasons)


PY = frozenset({"py", "pyi"})
JS = frozenset({"js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte"})
GO = frozenset({"go"})
RUST = frozenset({"rs"})
JVM = frozenset({"java", "kt", "kts", "groovy", "scala"})
DOCS = frozenset({"md", "markdown", "rst", "txt", "adoc", "rdoc", "org"})
CODE = PY | JS | GO | RUST | JVM | frozenset({"rb", "cs", "c", "cc", "cpp", "h", "hpp", "swift", "php"})
_SCRIPT_EXT = frozenset(
    {"sh", "bash", "zsh", "ksh", "ps1", "yml", "yaml", "toml", "ini", "cfg", "json", "mk"}
)
_SCRIPT_NAMES = frozenset(
    {
        "makefile",
        "gnumakefile",
        "justfile",
        "dockerfile",
        "containerfile",
        "jenkinsfile",
        "taskfile",
        "procfile",
    }
)
_SCRIPT_DIRS = frozenset(
    {"ci", ".ci", "scripts", "script", "bin", "tools", ".circleci", ".buildkite", ".gitlab"}
)

_TEST_BASENAME = re.compile(
    r"^(?:test_.*\.pyi?|.*_test\.pyi?|conftest\.py|.*_test\.go|.*\.(?:test|spec)\.[cm]?[jt]sx?"
    r"|.*(?:Test|Tests|IT|Spec)\.(?:java|kt|groovy|scala)|.*_spec\.rb|.*_test\.rb)$"
)
_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs", "testing", "it"})


def ext(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


def is_test_file(path: str) -> bool:
    """A file that holds tests: named like one, or source code in a test folder."""
    parts = normalise(path).split("/")
    if _TEST_BASENAME.match(parts[-1]):
        return True
    return ext(path) in CODE and any(part.lower() in _TEST_DIRS for part in parts[:-1])


def is_script(path: str) -> bool:
    parts = normalise(path).split("/")
    base = parts[-1].lower()
    if ext(base) in _SCRIPT_EXT or base in _SCRIPT_NAMES or base.endswith(".mk"):
        return True
    return "." not in base and any(part.lower() in _SCRIPT_DIRS for part in parts[:-1])


# Where each runner looks for tests by default. A test file moved or renamed out of this is a test lost.
_PY_COLLECTED = re.compile(r"^(?:test_.*|.*_test)\.py$")
_JS_COLLECTED = re.compile(r"^.*\.(?:test|spec)\.[cm]?[jt]sx?$")
_JVM_COLLECTED = re.compile(r"^(?:Test.*|.*(?:Test|Tests|TestCase|IT|Spec))\.(?:java|kt|groovy|scala)$")
# a `_<os>` or `_<arch>` before `_test.go` builds the file only there (go help buildconstraint)
_GO_ONLY_ON = re.compile(
    r"_(?:aix|android|darwin|dragonfly|freebsd|hurd|illumos|ios|js|nacl|netbsd|openbsd|plan9|solaris|wasip1"
    r"|windows|zos|386|arm|arm64|loong64|mips\w*|ppc64\w*|riscv64|s390x|wasm)_test\.go$"
)
# directories runners skip by default: pytest's norecursedirs, go's `testdata`, `_x` and `.x`, jest's
# node_modules
_NOT_SEARCHED = re.compile(
    r"^(?:\..+|_.*|node_modules|build|dist|venv|\.venv|env|testdata|vendor|site-packages|__pycache__|.*\.egg.*)$"
)


def collected(path: str) -> bool | None:
    """Whether the ecosystem's test runner finds tests in ``path`` by default (None: no runner this module
    knows collects by file name, e.g. Rust, whose tests live in any source file)."""
    parts = normalise(path).split("/")
    base, dirs = parts[-1], parts[:-1]
    kind = ext(base)
    if any(_NOT_SEARCHED.match(d) for d in dirs) and kind in PY | JS | GO | JVM:
        return False
    if kind == "py":
        return bool(_PY_COLLECTED.match(base))
    if kind == "go":
        return base.endswith("_test.go") and not _GO_ONLY_ON.search(base)
    if kind in JS:
        return bool(_JS_COLLECTED.match(base)) or "__tests__" in dirs
    if kind in JVM:
        return "test" in dirs and bool(_JVM_COLLECTED.match(base))
    return None


def in_test_tree(path: str) -> bool:
    """Whether ``path`` lies in a test directory (``tests/``, ``__tests__/``, ``src/test/``…)."""
    return any(part.lower() in _TEST_DIRS for part in normalise(path).split("/")[:-1])


def allowed(path: str, allow: Sequence[str]) -> str | None:
    """The ``guard: allow`` pattern that lets ``path`` be changed on purpose, if any."""
    return next((p for p in allow if matches_glob(path, p)), None)
