"""Tests in a diff: which ones it deletes, disables, shadows or moves where their runner no longer looks.

A test is recognised per language: pytest/unittest functions and methods, jest/vitest/mocha calls, go
``Test…`` functions, and Rust/JVM functions under a test attribute. Pure.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence

from healer.change.diff import FileChange
from healer.change.guard.paths import GO, JS, JVM, PY, RUST, collected, ext, in_test_tree, is_test_file, quote

# The text of a file on one side: (path, new side?) → text, or None when unknown or absent.
Reader = Callable[[str, bool], "str | None"]

# Only the start of a line is searched for test names: keeps the regexes linear in the diff size whatever line
# lengths the agent produced (a test declaration lies near a line's start).
_MAX_SCAN = 400

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


def tests_on_side(change: FileChange, side: str) -> Iterator[tuple[str, bool]]:
    """Test names on one side of a diff (``"-"`` old, ``"+"`` new), each with whether the diff changed it.

    The old side is context + removed lines, the new side context + added lines. For languages where a test is
    a function under an attribute (``#[test]``, ``@Test``), removing the attribute disables the test as surely
    as removing the function, so either counts.
    """
    path = (change.old_path if side == "-" else change.new_path) or ""
    kind = ext(path)
    # pytest, go test and jest/vitest only collect from test files: a `test_*` helper elsewhere is no test,
    # and a test file renamed to a name they do not collect loses its tests. Attributes (#[test], @Test) count
    # anywhere.
    if kind in PY | GO | JS and not is_test_file(path):
        return
    for hunk in change.hunks:
        pending: bool | None = None  # an attribute seen; was it on a changed line?
        for line in hunk:
            if line.kind not in (side, " "):
                continue
            changed = line.kind == side
            text = line.text[:_MAX_SCAN]
            if kind in PY:
                match = _PY_TEST.match(text)
                if match:
                    yield "python " + match.group(1), changed
            elif kind in JS:
                for js in _JS_TEST.finditer(text):
                    yield f"js {js.group(1)} {js.group(3)}", changed
            elif kind in GO:
                match = _GO_TEST.match(text)
                if match:
                    yield "go " + match.group(1), changed
            elif kind in RUST or kind in JVM:
                attr, decl = (_RUST_ATTR, _RUST_FN) if kind in RUST else (_JVM_ATTR, _JVM_FN)
                if attr.match(text):
                    pending = bool(pending) or changed
                    continue
                if pending is None:
                    continue
                match = decl.match(text)
                if match:
                    name = next(g for g in match.groups() if g)
                    yield f"{kind} {name}", changed or pending
                    pending = None
                elif not _ANNOTATION.match(text):
                    pending = None


def _test_display(key: str) -> str:
    return key.split(" ", 1)[1] if " " in key else key


def _lands_collected(path: str | None) -> bool:
    """Whether a test arriving at ``path`` is still run: its runner collects the file (or no runner collects
    by name) and it did not leave every test directory."""
    return bool(path) and collected(path or "") is not False


def _moved_out_of_reach(old: str, new: str) -> str:
    """Why a test file renamed from ``old`` to ``new`` is no longer run; empty when it still is."""
    if collected(old) is True and collected(new) is False:
        return "where its test runner does not collect it"
    if is_test_file(old) and not is_test_file(new):
        return "where the test runner no longer finds its tests"
    if in_test_tree(old) and not in_test_tree(new) and collected(old) is not None:
        return "out of the test directories, where the configured test paths may not reach it"
    return ""


def deleted_test_files(files: Sequence[FileChange]) -> dict[str, str]:
    """Test files deleted, or renamed where their runner no longer runs them, whose tests do not reappear in a
    file that is run: {old path: reason}."""
    # A test file deleted while its tests (or, lacking recognisable tests, its name) reappear elsewhere was
    # moved, not deleted, provided they reappear where a runner collects them.
    reachable = [change for change in files if _lands_collected(change.new_path)]
    added_names = {key for change in reachable for key, changed in tests_on_side(change, "+") if changed}
    added_bases = {change.new_path.rsplit("/", 1)[-1] for change in reachable if change.new_path}
    refused = {}
    for change in files:
        old, new = change.old_path, change.new_path
        why = _moved_out_of_reach(old, new) if old and new and old != new else ""
        if why:
            refused[old or ""] = (
                f"It moves the test file {quote(old or '')} to {quote(new or '')}, {why}; "
                "a fix must make tests pass, not hide them."
            )
            continue
        if not (change.deleted and change.old_path and is_test_file(change.old_path)):
            continue
        names = {key for key, _ in tests_on_side(change, "-")}
        moved = names <= added_names if names else change.old_path.rsplit("/", 1)[-1] in added_bases
        if change.content_hidden or not moved:
            refused[change.old_path] = (
                f"It deletes the test file {quote(change.old_path)}; "
                "a fix must make tests pass, not remove them."
            )
    return refused


def deleted_tests(files: Sequence[FileChange], skip: Iterable[str]) -> list[str]:
    """Tests removed (or un-marked as tests) more often than the same name is added, in a file that is run,
    anywhere in the diff."""
    skip = set(skip)
    removed: Counter[str] = Counter()
    added: Counter[str] = Counter()
    where: dict[str, str] = {}
    for change in files:
        if change.old_path not in skip:
            for key, changed in tests_on_side(change, "-"):
                if changed:
                    removed[key] += 1
                    where.setdefault(key, change.old_path or change.path)
        if _lands_collected(change.new_path):
            for key, changed in tests_on_side(change, "+"):
                if changed:
                    added[key] += 1
    return [
        f"It deletes or disables the test {quote(_test_display(key))} in {quote(where[key])}; "
        "a fix must make tests pass, not remove them."
        for key, count in removed.items()
        if count > added[key]
    ]


# -- a test shadowed in its own file -------------------------------------------------------------------------

_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(")
_PY_CLASS = re.compile(r"^(\s*)class\s+(\w+)")
_PY_REBIND = re.compile(r"^(\s*)(test\w*)\s*(?::[^=]*)?=(?!=)")


def _python_bindings(lines: Sequence[tuple[int, str]]) -> dict[tuple[str, str], list[int]]:
    """Where each test name is bound (a ``def`` or an assignment) directly in the module or in a class body,
    per scope: the line numbers, in file order."""
    found: dict[tuple[str, str], list[int]] = defaultdict(list)
    classes: list[list] = []  # [indent, name, body indent or None] of the enclosing classes
    for number, text in lines:
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        indent = len(text) - len(text.lstrip())
        while classes and indent <= classes[-1][0]:
            classes.pop()
        if classes and classes[-1][2] is None:
            classes[-1][2] = indent
        klass = _PY_CLASS.match(text)
        if klass:
            classes.append([indent, klass.group(2), None])
            continue
        bound = _PY_DEF.match(text) or _PY_REBIND.match(text)
        body = classes[-1][2] if classes else 0
        if bound and indent == body:
            found[(classes[-1][1] if classes else "", bound.group(2))].append(number)
    return found


def redefined_tests(files: Sequence[FileChange], read: Reader | None) -> list[str]:
    """Python tests bound twice in one scope of one file where the diff added a binding: the later one
    replaces the earlier, which then never runs (``def test_add(): pass`` below the real ``test_add``)."""
    reasons = []
    for change in files:
        path = change.new_path
        if not path or ext(path) not in PY or not is_test_file(path):
            continue
        added = {line.number for hunk in change.hunks for line in hunk if line.kind == "+"}
        if not added:
            continue
        text = read(path, True) if read is not None else None
        if text is not None:
            lines = list(enumerate(text.split("\n"), start=1))
        else:  # without the file, what the hunks show of it
            lines = [(line.number, line.text) for hunk in change.hunks for line in hunk if line.kind != "-"]
        for (scope, name), numbers in _python_bindings(lines).items():
            if len(numbers) > 1 and added.intersection(numbers):
                where = f"{scope}.{name}" if scope else name
                reasons.append(
                    f"It binds the test {quote(where)} again in {quote(path)} (lines "
                    f"{', '.join(map(str, numbers))}); the later definition replaces the earlier one, "
                    "which then never runs."
                )
    return reasons
