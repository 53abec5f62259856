"""Markers that hide a failure instead of fixing it: skips, lint suppressions, swallowed errors, tests
compiled out.

A marker counts when the diff adds more lines carrying it than it removes, across the whole diff (so a test
that already carried one may move between files). Skips are recognised however they are spelled: through an
alias (``from pytest import mark`` then ``@mark.skip``, ``import pytest as pt``, ``skip = pytest.mark.skip``),
a module-wide ``pytestmark`` or ``__test__ = False``, jest/vitest/mocha ``.skip``/``x…``, go ``.Skip()``,
Rust ``#[ignore]`` or a ``cfg`` that is never true, Go build constraints on a test file. Pure.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence

from healer.change.diff import DiffLine, FileChange
from healer.change.guard.paths import DOCS, GO, JS, JVM, PY, RUST, ext, is_script, is_test_file, quote

# Only the start of a line is searched: keeps the regexes linear whatever line lengths the agent produced.
_MAX_SCAN = 400

_SKIP, _LINT, _CI = "a skip marker", "a lint or type-check suppression", "an error suppression in a CI script"
_BUILD = "a build constraint that leaves tests out"
_ADVICE = {
    _SKIP: "a fix must make the test pass, not skip it.",
    _LINT: "fix the code instead of silencing the check.",
    _CI: "a fix must not hide a failing command.",
    _BUILD: "a fix must make the tests pass, not stop compiling them.",
}

_NEVER_TRUE = re.compile(
    r"#!?\[\s*cfg\s*\(\s*(?:any\s*\(\s*\)|not\s*\(\s*all\s*\(\s*\)\s*\)|FALSE|false|not\s*\(\s*test\s*\))"
    r"\s*\)"
)
_PY_SKIP_NAMES = r"(?:skip|skipif|xfail|skipIf|skipUnless|expectedFailure|importorskip|SkipTest)"
# Where a marker counts: a set of extensions, "<script>" for CI scripts, "<test:js>" / "<test:go>" for test
# files
# of that language, or None for every file but docs.
_JS_TEST, _GO_TEST = frozenset({"<test:js>"}), frozenset({"<test:go>"})
_MARKERS: tuple[tuple[str, str, re.Pattern[str], frozenset[str] | None], ...] = (
    # Python: any attribute or decorator of that name (pytest.mark.skip, mark.skip, pt.mark.xfail,
    # unittest.skip,
    # m.skipIf…), a skip name imported (from unittest import skip), module-wide marks and opting out of
    # collection
    (_SKIP, "a pytest/unittest skip", re.compile(rf"[\w.]*\.{_PY_SKIP_NAMES}\b|@{_PY_SKIP_NAMES}\b"), PY),
    (_SKIP, "a skip imported", re.compile(rf"^\s*from\s+[\w.]+\s+import\s+.*\b{_PY_SKIP_NAMES}\b"), PY),
    (
        _SKIP,
        "a mark added at run time",
        re.compile(r"\.(?:add_marker|applymarker)\s*\(|getattr\s*\(\s*[\w.]*mark\b"),
        PY,
    ),
    (_SKIP, "skipTest()", re.compile(r"\.skipTest\s*\(|\braise\s+\w*SkipTest\b"), PY),
    (_SKIP, "pytestmark", re.compile(r"^\s*pytestmark\s*(?::[^=]*)?=|^\s*__test__\s*=\s*False\b"), PY),
    (_SKIP, "pytest.exit()", re.compile(r"\bpytest\.exit\s*\("), PY),
    # JavaScript/TypeScript: .skip/.only/.todo/.fails/.skipIf on anything in a test file (an alias such as
    # `const it2 = it.skip` included), x- and f-prefixed helpers, mocha's this.skip()
    (
        _SKIP,
        ".skip/.only/.todo",
        re.compile(
            r"(?<![\w$])(?:it|test|describe|context|suite|bench)\.(?:skip|skipIf|runIf|only|todo|fails)\b"
        ),
        JS,
    ),
    (_SKIP, ".skip/.only/.todo", re.compile(r"\.(?:skip|skipIf|runIf|only|todo|fails)\b"), _JS_TEST),
    (
        _SKIP,
        "xit/xdescribe/fit",
        re.compile(
            r"(?<![\w.$])(?:x|f)(?:it|test|describe|context)\s*\(|[=:,{]\s*(?:x|f)(?:it|test|describe|context)\b"
        ),
        JS,
    ),
    # Go: any .Skip() (t, b, f, tb, suite.T()…) in a test file
    (_SKIP, "t.Skip()", re.compile(r"\.Skip(?:f|Now)?\s*\("), GO),
    (_SKIP, "#[ignore]", re.compile(r"#\[\s*ignore\b|#\[\s*cfg_attr\s*\(.*\bignore\b"), RUST),
    (
        _SKIP,
        "@Disabled/@Ignore",
        re.compile(
            r"@(?:Disabled\w*|Ignore|EnabledIf\w*|EnabledOn\w*)\b|@Test\s*\([^)]*enabled\s*=\s*false"
            r"|\bAssume\.assume|\bassume(?:True|False|That)\s*\("
        ),
        JVM,
    ),
    # build constraints: a Go test file built only with a tag, or Rust code under a cfg that is never true
    (_BUILD, "//go:build", re.compile(r"^\s*//\s*(?:go:build|\+build)\b"), _GO_TEST),
    (_BUILD, "#[cfg(...)] that is never true", _NEVER_TRUE, RUST),
    (_LINT, "# noqa", re.compile(r"#\s*noqa\b", re.IGNORECASE), None),
    (_LINT, "# type: ignore", re.compile(r"#\s*type:\s*ignore\b"), None),
    (
        _LINT,
        "# pyright/mypy/pylint comment",
        re.compile(
            r"#\s*(?:pyright:\s*(?:ignore|basic|strict\s*=\s*false)|mypy:\s*(?:ignore-errors|disable-error-code)"
            r"|pylint:\s*disable|ruff:\s*noqa)"
        ),
        None,
    ),
    (_LINT, "# nosec / # fmt: off", re.compile(r"#\s*(?:nosec\b|fmt:\s*(?:off|skip)\b)"), None),
    (
        _LINT,
        "eslint-disable",
        re.compile(
            r"eslint-disable|biome-ignore|prettier-ignore|jshint\s+ignore|oxlint-disable|deno-lint-ignore"
        ),
        None,
    ),
    (_LINT, "@ts-ignore", re.compile(r"@ts-(?:ignore|expect-error|nocheck)\b"), None),
    (
        _LINT,
        "#[allow(...)]",
        re.compile(r"#!?\[\s*(?:allow|expect)\s*\(|#!?\[\s*cfg_attr\s*\(.*\ballow\s*\("),
        RUST,
    ),
    (_LINT, "nolint", re.compile(r"//\s*nolint\b|\bNOLINT(?:NEXTLINE)?\b|//\s*lint:ignore\b"), None),
    (_LINT, "@SuppressWarnings", re.compile(r"@(?:SuppressWarnings|Suppress)\s*\("), JVM),
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
    kind = ext(path)
    if kind in DOCS:
        return
    script, test = is_script(path), is_test_file(path)
    for what, label, regex, where in _MARKERS:
        if where is not None and not (
            kind in where
            or ("<script>" in where and script)
            or ("<test:js>" in where and test and kind in JS)
            or ("<test:go>" in where and test and kind in GO)
        ):
            continue
        if what is _SKIP and kind in PY and not test and "pytest" not in text and "unittest" not in text:
            # outside test files a `.skip(` is as likely an application's own method; a skip there names its
            # framework (`pytest.mark.skip`, `skip = unittest.skip`)
            continue
        match = regex.search(text[:_MAX_SCAN])
        if match:
            yield (what, label), match.group(0).strip()


def added_markers(files: Sequence[FileChange]) -> list[str]:
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
        reasons.append(f"It adds {kind} ({quote(seen)}) in {quote(path)} at line {number}; {_ADVICE[kind]}")
    return reasons


_RUST_CFG = re.compile(r"^\s*#!?\[\s*cfg\s*\((?!\s*test\s*\)\s*\])")
_RUST_TEST_ITEM = re.compile(
    r"^\s*(?:#\[(?:[\w:]+::)?(?:test|rstest|test_case|quickcheck|proptest|tokio::test)\b|(?:pub\s+)?mod\s+tests?\b)"
)
_RUST_SKIPPABLE = re.compile(r"^\s*(?:$|//|#\[|/\*|\*)")


def cfg_over_tests(files: Sequence[FileChange]) -> list[str]:
    """A Rust ``#[cfg(…)]`` added right above a test or a test module (whatever it says: a feature nobody
    enables compiles the test out as surely as ``any()``), or a crate-wide ``#![cfg(…)]`` added to an
    integration test under ``tests/``."""
    reasons = []
    for change in files:
        path = change.new_path
        if not path or ext(path) not in RUST:
            continue
        for hunk in change.hunks:
            new_side = [line for line in hunk if line.kind != "-"]
            for index, line in enumerate(new_side):
                text = line.text[:_MAX_SCAN]
                if line.kind != "+" or not _RUST_CFG.match(text) or _NEVER_TRUE.search(text):
                    continue  # (a cfg that is never true is a marker of its own, reported once)
                inner = line.text.lstrip().startswith("#!")
                guarded = (inner and is_test_file(path)) or any(
                    _RUST_TEST_ITEM.match(after.text[:_MAX_SCAN])
                    for after in _next_items(new_side[index + 1 :])
                )
                if guarded:
                    reasons.append(
                        f"It adds {_BUILD} ({quote(line.text.strip())}) in {quote(path)} at line "
                        f"{line.number}; {_ADVICE[_BUILD]}"
                    )
    return reasons


def _next_items(lines: Sequence[DiffLine]) -> Iterator[DiffLine]:
    """The attribute lines and the first item line that follow, skipping blanks and comments."""
    for line in lines[:8]:
        yield line
        if not _RUST_SKIPPABLE.match(line.text[:_MAX_SCAN]):
            return
