"""Judge a diff before it is delivered: the healer's last line of defence against a "fix" that cheats.

A fix rule or the agent changed the PR-head checkout; :func:`judge_diff` reads ``git diff`` output (with or
without rename detection, with binary files, deletions and mode changes) and refuses a change that

* deletes a test file, or a test function/case (pytest, unittest, jest/vitest, go, cargo, JUnit), unless the
  same test name is added elsewhere in the diff (a move is not a deletion);
* adds a skip, focus or xfail marker, an inline lint/type suppression, or a CI error suppression
  (``|| true``, ``continue-on-error``);
* touches ``.github/workflows/`` or ``.github/actions/`` (what CI runs; ``GITHUB_TOKEN`` may not even push the
  former), a configured protected path, a submodule, or adds a symbolic link out of the repository;
* changes more lines (added + removed) than ``max-diff-lines``.

The diff is text the agent produced, so the guard is pure, never raises on any input, and renders every path
and name it quotes as a Markdown code span (no ``@mention`` or HTML from a file name reaches a PR comment).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from healer.diff import FileChange, parse_diff

__all__ = [
    "ALWAYS_PROTECTED",
    "NO_CHANGE",
    "UNREADABLE",
    "GuardVerdict",
    "judge_diff",
    "judge_paths",
    "matches_glob",
]

# What CI itself runs. A fix that edits these could turn a red check green without fixing anything; besides,
# GitHub refuses a push that touches `.github/workflows/` unless the token has the `workflows` scope.
ALWAYS_PROTECTED: tuple[str, ...] = (".github/workflows/**", ".github/actions/**")

UNREADABLE = "The change could not be read as a diff, so it was not delivered."
NO_CHANGE = "no change — the fix left every file as it was, so there is nothing to deliver."

# Bounds: a verdict is read by a person in a PR comment.
_MAX_REASONS = 12
_MAX_QUOTED = 160
# Only the start of a line is searched for test names and markers: keeps the regexes linear in the diff size
# whatever line lengths the agent produced (a marker or test declaration lies near a line's start).
_MAX_SCAN = 400


@dataclass(frozen=True)
class GuardVerdict:
    """Whether a diff may be delivered, and why not.

    ``reasons`` are sentences addressed to the PR author (Markdown, paths in code spans); ``files`` are the
    paths the diff touches (old and new path of a rename); ``added`` and ``removed`` count text lines.
    """

    ok: bool
    reasons: tuple[str, ...]
    files: tuple[str, ...]
    added: int
    removed: int

    @property
    def empty(self) -> bool:
        """True when the diff changes nothing (no file touched)."""
        return not self.files

    @property
    def changed_lines(self) -> int:
        return self.added + self.removed


# ----------------------------------------------------------------------------------------------------
# Paths


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
    return bool(_glob_regex(pattern).match(_normalise(path)))


def _normalise(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def judge_paths(paths: Iterable[str], *, protected_paths: Sequence[str] = ()) -> tuple[str, ...]:
    """Reasons (sentences) why touching any of ``paths`` is refused; empty when all may be changed."""
    reasons: list[str] = []
    for path in dict.fromkeys(paths):
        if any(matches_glob(path, p) for p in ALWAYS_PROTECTED):
            reasons.append(
                f"It changes {_code(path)}: the healer never changes workflow files or the actions CI runs; "
                "a person must make that change."
            )
            continue
        for pattern in protected_paths:
            if matches_glob(path, pattern):
                reasons.append(
                    f"It changes {_code(path)}, which matches the protected path {_code(pattern.strip())} "
                    "(input `protected-paths`)."
                )
                break
    return tuple(reasons)


# ----------------------------------------------------------------------------------------------------
# What a test looks like, per language

_PY = frozenset({"py", "pyi"})
_JS = frozenset({"js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "vue", "svelte"})
_GO = frozenset({"go"})
_RUST = frozenset({"rs"})
_JVM = frozenset({"java", "kt", "kts", "groovy", "scala"})
_DOCS = frozenset({"md", "markdown", "rst", "txt", "adoc", "rdoc", "org"})
_CODE = _PY | _JS | _GO | _RUST | _JVM | frozenset({"rb", "cs", "c", "cc", "cpp", "h", "hpp", "swift", "php"})
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

_PY_TEST = re.compile(r"^\s*(?:async\s+)?def\s+(test\w*)\s*\(")
_JS_TEST = re.compile(
    r"(?<![\w.$])(it|test|describe|context|suite|bench)(?:\.(?:each|concurrent|sequential|skip|only|todo)"
    r"(?:\s*\([^)]{0,200}\)|\s*`[^`]{0,200}`)?)*\s*\(\s*(['\"`])((?:(?!\2).){1,300})\2"
)
_GO_TEST = re.compile(r"^\s*func\s+((?:Test|Fuzz|Benchmark|Example)\w*)\s*\(")
_RUST_ATTR = re.compile(r"^\s*#\[(?:[\w:]+::)?(?:test|rstest|test_case|quickcheck|proptest)\b")
_RUST_FN = re.compile(r"^\s*(?:pub(?:\([\w\s]+\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")
_JVM_ATTR = re.compile(
    r"^\s*@(?:org\.junit\.(?:jupiter\.api\.)?)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory"
    r"|TestTemplate|Property)\b"
)
_JVM_FN = re.compile(
    r"^\s*(?:(?:public|protected|private|internal|static|final|open|override|suspend|def)\s+)*"
    r"(?:fun\s+(?:`([^`]{1,300})`|(\w+))|(?:[\w<>\[\],?]+\s+)(\w+))\s*\("
)
_ANNOTATION = re.compile(r"^\s*(?:@|#\[|$|//|/\*|\*)")


def _ext(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


def _is_test_file(path: str) -> bool:
    """A file that holds tests: named like one, or source code in a test folder."""
    parts = _normalise(path).split("/")
    if _TEST_BASENAME.match(parts[-1]):
        return True
    return _ext(path) in _CODE and any(part.lower() in _TEST_DIRS for part in parts[:-1])


def _is_script(path: str) -> bool:
    parts = _normalise(path).split("/")
    base = parts[-1].lower()
    if _ext(base) in _SCRIPT_EXT or base in _SCRIPT_NAMES or base.endswith(".mk"):
        return True
    return "." not in base and any(part.lower() in _SCRIPT_DIRS for part in parts[:-1])


def _tests_on_side(change: FileChange, side: str) -> Iterator[tuple[str, bool]]:
    """Test names on one side of a diff (``"-"`` old, ``"+"`` new), each with whether the diff changed it.

    The old side is context + removed lines, the new side context + added lines. For languages where a test is
    a function under an attribute (``#[test]``, ``@Test``), removing the attribute disables the test as surely
    as removing the function, so either counts.
    """
    path = (change.old_path if side == "-" else change.new_path) or ""
    ext = _ext(path)
    # pytest, go test and jest/vitest only collect from test files: a `test_*` helper elsewhere is no test,
    # and a test file renamed to a name they do not collect loses its tests. Attributes (#[test], @Test) count
    # anywhere.
    if ext in _PY | _GO | _JS and not _is_test_file(path):
        return
    for hunk in change.hunks:
        pending: bool | None = None  # an attribute seen; was it on a changed line?
        for line in hunk:
            if line.kind not in (side, " "):
                continue
            changed = line.kind == side
            text = line.text[:_MAX_SCAN]
            if ext in _PY:
                match = _PY_TEST.match(text)
                if match:
                    yield "python " + match.group(1), changed
            elif ext in _JS:
                for js in _JS_TEST.finditer(text):
                    yield f"js {js.group(1)} {js.group(3)}", changed
            elif ext in _GO:
                match = _GO_TEST.match(text)
                if match:
                    yield "go " + match.group(1), changed
            elif ext in _RUST or ext in _JVM:
                attr, decl = (_RUST_ATTR, _RUST_FN) if ext in _RUST else (_JVM_ATTR, _JVM_FN)
                if attr.match(text):
                    pending = bool(pending) or changed
                    continue
                if pending is None:
                    continue
                match = decl.match(text)
                if match:
                    name = next(g for g in match.groups() if g)
                    yield f"{ext} {name}", changed or pending
                    pending = None
                elif not _ANNOTATION.match(text):
                    pending = None


def _test_display(key: str) -> str:
    return key.split(" ", 1)[1] if " " in key else key


# ----------------------------------------------------------------------------------------------------
# Markers that hide a failure instead of fixing it

# (kind, label, regex, which files: extensions, "<script>" for CI scripts, None for all but docs)
_SKIP, _LINT, _CI = "a skip marker", "a lint or type-check suppression", "an error suppression in a CI script"
_MARKERS: tuple[tuple[str, str, re.Pattern[str], frozenset[str] | None], ...] = (
    (_SKIP, "@pytest.mark.skip/xfail", re.compile(r"pytest\.mark\.(?:skip|skipif|xfail)\b"), _PY),
    (_SKIP, "pytest.skip()", re.compile(r"\bpytest\.(?:skip|xfail|importorskip)\s*\("), _PY),
    (
        _SKIP,
        "unittest skip",
        re.compile(r"(?:\bunittest\.|@)(?:skip|skipIf|skipUnless|expectedFailure)\b"),
        _PY,
    ),
    (_SKIP, "skipTest()", re.compile(r"\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b"), _PY),
    (
        _SKIP,
        ".skip/.only/.todo",
        re.compile(r"(?<![\w$])(?:it|test|describe|context|suite|bench)\.(?:skip|skipIf|runIf|only|todo)\b"),
        _JS,
    ),
    (_SKIP, "xit/xdescribe/fit", re.compile(r"(?<![\w.$])(?:x|f)(?:it|test|describe|context)\s*\("), _JS),
    (_SKIP, "t.Skip()", re.compile(r"\b(?:t|b|f|tb|s\.T\(\))\.Skip(?:f|Now)?\s*\("), _GO),
    (_SKIP, "#[ignore]", re.compile(r"#\[\s*ignore\b"), _RUST),
    (
        _SKIP,
        "@Disabled/@Ignore",
        re.compile(r"@(?:Disabled\w*|Ignore)\b|@Test\s*\([^)]*enabled\s*=\s*false"),
        _JVM,
    ),
    (_LINT, "# noqa", re.compile(r"#\s*noqa\b", re.IGNORECASE), None),
    (_LINT, "# type: ignore", re.compile(r"#\s*type:\s*ignore\b"), None),
    (
        _LINT,
        "# pyright/mypy/pylint comment",
        re.compile(
            r"#\s*(?:pyright:\s*ignore|mypy:\s*(?:ignore-errors|disable-error-code)|pylint:\s*disable)"
        ),
        None,
    ),
    (_LINT, "# nosec / # fmt: off", re.compile(r"#\s*(?:nosec\b|fmt:\s*(?:off|skip)\b)"), None),
    (
        _LINT,
        "eslint-disable",
        re.compile(r"eslint-disable|biome-ignore|prettier-ignore|jshint\s+ignore"),
        None,
    ),
    (_LINT, "@ts-ignore", re.compile(r"@ts-(?:ignore|expect-error|nocheck)\b"), None),
    (_LINT, "#[allow(...)]", re.compile(r"#!?\[\s*allow\s*\("), _RUST),
    (_LINT, "nolint", re.compile(r"//\s*nolint\b|\bNOLINT(?:NEXTLINE)?\b"), None),
    (_LINT, "@SuppressWarnings", re.compile(r"@(?:SuppressWarnings|Suppress)\s*\("), _JVM),
    (_LINT, "rubocop/shellcheck disable", re.compile(r"#\s*(?:rubocop:disable|shellcheck\s+disable=)"), None),
    (_LINT, "codespell:ignore", re.compile(r"codespell:\s*ignore"), None),
    (_CI, "|| true", re.compile(r"\|\|\s*(?:true\b|:(?=\s|$|[;&)\"'])|exit\s+0\b)"), frozenset({"<script>"})),
    (_CI, "continue-on-error", re.compile(r"\bcontinue-on-error\s*:"), frozenset({"<script>"})),
    (_CI, "set +e", re.compile(r"(?:^|[;&|]\s*|\s)set\s+\+e\b"), frozenset({"<script>"})),
    (
        _CI,
        "allow_failure",
        re.compile(r"\ballow_failure\s*:\s*true\b|\bignore_errors\s*=\s*true\b", re.I),
        frozenset({"<script>"}),
    ),
)


def _markers_in(path: str, text: str) -> Iterator[tuple[tuple[str, str], str]]:
    """The markers on one line of ``path``: ((kind, label), the text that matched)."""
    ext = _ext(path)
    if ext in _DOCS:
        return
    script = _is_script(path)
    for kind, label, regex, where in _MARKERS:
        if where is not None and not (ext in where or ("<script>" in where and script)):
            continue
        match = regex.search(text[:_MAX_SCAN])
        if match:
            yield (kind, label), match.group(0).strip()


# ----------------------------------------------------------------------------------------------------
# The verdict


def _code(text: str) -> str:
    """Render untrusted text as one Markdown code span: no mention, link or HTML escapes from it."""
    text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if len(text) > _MAX_QUOTED:
        text = text[: _MAX_QUOTED - 1] + "…"
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _deleted_test_files(files: Sequence[FileChange]) -> dict[str, str]:
    """Deleted test files whose tests do not reappear elsewhere in the diff: {old path: reason}."""
    # A test file deleted while its tests (or, lacking recognisable tests, its name) reappear elsewhere was
    # moved, not deleted.
    added_names = {key for change in files for key, changed in _tests_on_side(change, "+") if changed}
    added_bases = {change.new_path.rsplit("/", 1)[-1] for change in files if change.new_path}
    refused = {}
    for change in files:
        old, new = change.old_path, change.new_path
        if old and new and old != new and _is_test_file(old) and not _is_test_file(new):
            refused[old] = (
                f"It renames the test file {_code(old)} to {_code(new)}, where the test runner no longer "
                "finds its tests; a fix must make tests pass, not hide them."
            )
            continue
        if not (change.deleted and change.old_path and _is_test_file(change.old_path)):
            continue
        names = {key for key, _ in _tests_on_side(change, "-")}
        moved = names <= added_names if names else change.old_path.rsplit("/", 1)[-1] in added_bases
        if change.content_hidden or not moved:
            refused[change.old_path] = (
                f"It deletes the test file {_code(change.old_path)}; "
                "a fix must make tests pass, not remove them."
            )
    return refused


def _deleted_tests(files: Sequence[FileChange], skip: Iterable[str]) -> list[str]:
    """Tests removed (or un-marked as tests) more often than the same name is added anywhere in the diff."""
    skip = set(skip)
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    where: dict[str, str] = {}
    for change in files:
        if change.old_path not in skip:
            for key, changed in _tests_on_side(change, "-"):
                if changed:
                    removed[key] += 1
                    where.setdefault(key, change.old_path or change.path)
        for key, changed in _tests_on_side(change, "+"):
            if changed:
                added[key] += 1
    return [
        f"It deletes or disables the test {_code(_test_display(key))} in {_code(where[key])}; "
        "a fix must make tests pass, not remove them."
        for key, count in removed.items()
        if count > added[key]
    ]


def _added_markers(files: Sequence[FileChange]) -> list[str]:
    """Markers the diff adds: more added lines carry a marker than removed lines do, across the whole diff.

    Counting across the diff (not per file) lets a test that already carried a marker move between files.
    """
    added: Counter[tuple[str, str]] = Counter()
    removed: Counter[tuple[str, str]] = Counter()
    first: dict[tuple[str, str], tuple[str, int, str]] = {}
    for change in files:
        for hunk in change.hunks:
            for line in hunk:
                if line.kind == " ":
                    continue
                for marker, seen in _markers_in(change.path, line.text):
                    if line.kind == "+":
                        added[marker] += 1
                        first.setdefault(marker, (change.path, line.number, seen))
                    else:
                        removed[marker] += 1
    reasons = []
    for marker, count in added.items():
        if count <= removed[marker]:
            continue
        kind, _ = marker
        path, number, seen = first[marker]
        advice = {
            _SKIP: "a fix must make the test pass, not skip it.",
            _LINT: "fix the code instead of silencing the check.",
            _CI: "a fix must not hide a failing command.",
        }[kind]
        reasons.append(f"It adds {kind} ({_code(seen)}) in {_code(path)} at line {number}; {advice}")
    return reasons


def _special_files(files: Sequence[FileChange]) -> list[str]:
    reasons = []
    for change in files:
        modes = {change.old_mode, change.new_mode}
        if change.binary and any(_ext(p) in _CODE or _is_test_file(p) or _is_script(p) for p in change.paths):
            # Source shown as binary (a `-diff` or `binary` attribute in .gitattributes) would hide a deleted
            # test from every check above.
            reasons.append(
                f"It changes {_code(change.path)}, which git shows as binary, so the change cannot be "
                "checked; a person must review it."
            )
        elif "160000" in modes:
            reasons.append(
                f"It moves the submodule {_code(change.path)}; the healer does not change submodules, "
                "a person must."
            )
        elif change.new_mode == "120000" and change.new_path:
            target = "".join(line.text for hunk in change.hunks for line in hunk if line.kind == "+")
            resolved = _resolve_link(change.new_path, target)
            if resolved is None:
                reasons.append(
                    f"It adds a symbolic link {_code(change.new_path)} that points outside the repository "
                    f"({_code(target)})."
                )
            elif judge_paths([resolved]):
                reasons.append(
                    f"It adds a symbolic link {_code(change.new_path)} to a workflow or action file "
                    f"({_code(target)}); the healer never changes those."
                )
    return reasons


def _resolve_link(link: str, target: str) -> str | None:
    """Where a symlink at ``link`` points, as a repository path; None when it leaves the repository."""
    if target.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", target):
        return None
    parts = _normalise(link).split("/")[:-1]
    for part in target.replace("\\", "/").split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def judge_diff(diff: str, *, protected_paths: Sequence[str] = (), max_lines: int) -> GuardVerdict:
    """Judge ``git diff`` output: may this change be delivered as a fix?

    Refuses (``ok=False``, with one sentence per problem) an empty diff, a deleted or disabled test, an added
    skip/suppression marker, a change under ``.github/workflows/`` or ``.github/actions/`` or a
    ``protected_paths`` glob, a submodule move, a symlink out of the repository, and more than ``max_lines``
    added + removed lines.
    Never raises, whatever ``diff`` holds.
    """
    try:
        return _judge(diff, protected_paths, max_lines)
    except Exception:  # fail closed: a bug in the guard must not let a change through
        return GuardVerdict(False, (UNREADABLE,), (), 0, 0)


def _judge(diff: str, protected_paths: Sequence[str], max_lines: int) -> GuardVerdict:
    files = parse_diff(diff)
    touched = tuple(dict.fromkeys(p for change in files for p in change.paths))
    added = sum(change.added_lines for change in files)
    removed = sum(change.removed_lines for change in files)
    if not files:
        return GuardVerdict(False, (NO_CHANGE,), (), 0, 0)
    reasons: list[str] = []
    reasons += judge_paths(touched, protected_paths=protected_paths)
    deleted_files = _deleted_test_files(files)
    reasons += deleted_files.values()
    reasons += _deleted_tests(files, skip=deleted_files)
    reasons += _added_markers(files)
    reasons += _special_files(files)
    if added + removed > max_lines:
        reasons.append(
            f"It changes {added + removed} lines ({added} added, {removed} removed), more than the limit of "
            f"{max_lines} (input `max-diff-lines`); a change this large needs a person."
        )
    if len(reasons) > _MAX_REASONS:
        rest = len(reasons) - (_MAX_REASONS - 1)
        reasons = reasons[: _MAX_REASONS - 1] + [f"…and {rest} more problems of the same kinds."]
    return GuardVerdict(not reasons, tuple(reasons), touched, added, removed)
