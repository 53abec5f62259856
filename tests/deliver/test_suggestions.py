"""Suggested changes from real diffs: git makes the PR's diff and the fix's diff in a temporary repository,
and the suggestions must land on the PR's diff and, applied, give the fixed lines."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from healer.deliver.suggestions import (
    BINARY_FILE,
    DELETED_FILE,
    MODE_CHANGE,
    NEW_FILE,
    NO_ANCHOR,
    NO_NEWLINE,
    OFF_DIFF,
    UNSAFE_TEXT,
    LeftOut,
    SuggestedChanges,
    Suggestion,
    suggest,
)
from healer.text.markdown import neutralize_mentions

_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


class Repo:
    """A scratch repository: the base, the PR's head and the fix, each as git diffs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.root, env=_ENV, capture_output=True, check=True, text=False
        )
        return done.stdout.decode("utf-8", "surrogateescape")

    def write(self, files: Mapping[str, str | bytes | None]) -> None:
        for name, content in files.items():
            path = self.root / name
            if content is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            # bytes, so that CRLF and a missing final newline are written as given
            path.write_bytes(content if isinstance(content, bytes) else content.encode())
        self.git("add", "--all")

    def commit(self, files: Mapping[str, str | bytes | None], message: str) -> str:
        self.write(files)
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def diffs(
        self,
        base: Mapping[str, str | bytes | None],
        head: Mapping[str, str | bytes | None],
        fixed: Mapping[str, str | bytes | None],
    ) -> tuple[str, str]:
        """The PR's diff (as the lead computes it) and the fix's diff (as the heal stage writes it)."""
        base_sha = self.commit(base, "base")
        head_sha = self.commit(head, "head")
        merge_base = self.git("merge-base", base_sha, head_sha).strip()
        pr_diff = self.git("diff", "-U3", "--no-renames", merge_base, head_sha)
        self.write(fixed)
        return self.git("diff", "--cached", "--no-renames"), pr_diff


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path)


def apply(text: str, suggestions: tuple[Suggestion, ...]) -> list[str]:
    """The head file's lines with the suggestions applied as GitHub does: lines start_line..line replaced by
    the block's lines (bottom first, so earlier numbers hold)."""
    lines = text.split("\n")
    for suggestion in sorted(suggestions, key=lambda s: s.line, reverse=True):
        start = suggestion.start_line or suggestion.line
        lines[start - 1 : suggestion.line] = block(suggestion.body)
    return lines


def block(body: str) -> list[str]:
    """The lines of a suggestion's fence, checked to be one fence that nothing inside can close."""
    opener, *inner, closer = body.split("\n")
    ticks = re.fullmatch(r"(`{3,})suggestion", opener)
    assert ticks, body
    assert closer == ticks.group(1)
    # CommonMark's line endings are \n, \r\n and a lone \r; a closing fence is a line of at least as many
    # backticks (up to 3 spaces before, spaces after): no inner line may be one
    for line in inner:
        for piece in re.split(r"\r(?!$)", line):
            assert not re.fullmatch(rf" {{0,3}}`{{{len(closer)},}}[ \t\r]*", piece), body
    return inner


# -- a small project ----------------------------------------------------------------------------------------

FILLER = "".join(f"def helper_{n}(x: int) -> int:\n    return x + {n}\n\n\n" for n in range(8))
CALC = (
    '"""Arithmetic on widget counts."""\n\n\n'
    + FILLER
    + "def add(a: int, b: int) -> int:\n    return a + b\n"
)
DOUBLE = "\n\ndef double(a: int) -> int:\n    unused = 1\n    return 2 * a\n"
PR_CALC = CALC + DOUBLE
LINE = {text: n for n, text in enumerate(PR_CALC.split("\n"), 1)}  # head-file line numbers of PR_CALC
TOP_PR = CALC.replace(
    '"""Arithmetic on widget counts."""\n', '"""Arithmetic on widget counts."""\nimport os\n'
)


def suggestion(path: str, first: int, last: int, lines: list[str]) -> tuple[str, int | None, int, list[str]]:
    return (path, first if last > first else None, last, lines)


CASES = [
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {"calc.py": PR_CALC.replace("    unused = 1\n", "    _unused = 1\n")},
        [suggestion("calc.py", LINE["    unused = 1"], LINE["    unused = 1"], ["    _unused = 1"])],
        [],
        id="a lint fix on a line the PR added: one suggestion",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {"calc.py": PR_CALC.replace("    return x + 1\n", "    return x + 1  # one\n")},
        [],
        [LeftOut("calc.py", LINE["    return x + 1"], OFF_DIFF)],
        id="a fix far from the PR's hunks: left out",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {
            "calc.py": PR_CALC.replace(
                "double(a: int) -> int:\n    unused = 1\n    return 2 * a", "double(a):\n    return a + a"
            )
        },
        [
            suggestion(
                "calc.py",
                LINE["def double(a: int) -> int:"],
                LINE["    return 2 * a"],
                ["def double(a):", "    return a + a"],
            )
        ],
        [],
        id="a multi-line range",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {"calc.py": PR_CALC.replace("    unused = 1\n", "")},
        [suggestion("calc.py", LINE["    unused = 1"], LINE["    unused = 1"], [])],
        [],
        id="a deletion: an empty block",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {"calc.py": PR_CALC.replace("    unused = 1\n", "    unused = 1\n    del unused\n")},
        [
            suggestion(
                "calc.py",
                LINE["    unused = 1"],
                LINE["    unused = 1"],
                ["    unused = 1", "    del unused"],
            )
        ],
        [],
        id="an insertion: attached to the line before it",
    ),
    pytest.param(
        {"new.py": "b = 2\n"},
        {"new.py": "b = 2\n", "calc.py": "x = 1\ny = 2\n"},
        {"new.py": "b = 2\n", "calc.py": "import os\nx = 1\ny = 2\n"},
        [suggestion("calc.py", 1, 1, ["import os", "x = 1"])],
        [],
        id="an insertion at the top of a file the PR added: attached to the line after it",
    ),
    pytest.param(
        {"new.py": "b = 2\n"},
        {"new.py": "b = 2\n", "calc.py": "x = 1\ny = 2\n"},
        {"new.py": "b = 2\n", "calc.py": "import os\nx = 1\nimport sys\ny = 2\n"},
        [suggestion("calc.py", 1, 1, ["import os", "x = 1", "import sys"])],
        [],
        id="insertions before and after line 1 share one suggestion",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": TOP_PR + DOUBLE},
        {"calc.py": (TOP_PR + DOUBLE).replace("import os\n", "").replace("    unused = 1\n", "")},
        [
            suggestion("calc.py", 2, 2, []),
            suggestion("calc.py", LINE["    unused = 1"] + 1, LINE["    unused = 1"] + 1, []),
        ],
        [],
        id="two hunks of the PR, two suggestions",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {
            "calc.py": PR_CALC.replace("    return x + 5\n", "    return 5 + x\n").replace(
                "    unused = 1\n", ""
            )
        },
        [suggestion("calc.py", LINE["    unused = 1"], LINE["    unused = 1"], [])],
        [LeftOut("calc.py", LINE["    return x + 5"], OFF_DIFF)],
        id="one change on the diff, one away from it",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {
            "calc.py": PR_CALC.replace(
                "    unused = 1\n",
                '    """```\n    ````` @mona see\n    ::set-output name=x::y\n    ```suggestion\n    """\n',
            )
        },
        [
            suggestion(
                "calc.py",
                LINE["    unused = 1"],
                LINE["    unused = 1"],
                [
                    '    """```',
                    "    ````` @mona see",
                    "    ::set-output name=x::y",
                    "    ```suggestion",
                    '    """',
                ],
            )
        ],
        [],
        id="backticks, a mention and a workflow command stay inside the fence",
    ),
    pytest.param(
        {"calc.py": CALC},
        {"calc.py": PR_CALC},
        {"calc.py": PR_CALC, "extra.py": "x = 1\n", "README.md": None},
        [],
        [LeftOut("extra.py", None, NEW_FILE)],
        id="a new file: left out",
    ),
    pytest.param(
        {"calc.py": CALC, "old.py": "x = 1\n"},
        {"calc.py": PR_CALC, "old.py": "x = 2\n"},
        {"calc.py": PR_CALC, "old.py": None},
        [],
        [LeftOut("old.py", None, DELETED_FILE)],
        id="a deleted file: left out",
    ),
    pytest.param(
        {"calc.py": CALC, "logo.bin": b"\x00\x01"},
        {"calc.py": PR_CALC, "logo.bin": b"\x00\x02"},
        {"calc.py": PR_CALC, "logo.bin": b"\x00\x03"},
        [],
        [LeftOut("logo.bin", None, BINARY_FILE)],
        id="a binary file: left out",
    ),
    pytest.param(
        {"win.py": b"a = 1\r\nb = 2\r\n"},
        {"win.py": b"a = 1\r\nb = 2\r\nc  =  3\r\n"},
        {"win.py": b"a = 1\r\nb = 2\r\nc = 3\r\n"},
        [suggestion("win.py", 3, 3, ["c = 3\r"])],
        [],
        id="CRLF: the block keeps the file's line endings",
    ),
    pytest.param(
        {"win.py": b"a = 1\n"},
        {"win.py": b"a = 1\nb = 2\n"},
        {"win.py": b"a = 1\nb = '\r' + 2\n"},
        [],
        [LeftOut("win.py", 2, UNSAFE_TEXT)],
        id="a lone CR inside a line (Markdown would split it): left out",
    ),
    pytest.param(
        {"calc.py": b"x = 1\n"},
        {"calc.py": b"x = 1\ny = 2"},
        {"calc.py": b"x = 1\ny = 2\n"},
        [],
        [LeftOut("calc.py", 2, NO_NEWLINE)],
        id="adding the final newline a file lacks (W292): left out",
    ),
    pytest.param(
        {"calc.py": b"x = 1\n"},
        {"calc.py": b"x = 1\ny  =  2\nz = 3"},
        {"calc.py": b"x = 1\ny = 2\nz = 3"},
        [suggestion("calc.py", 2, 2, ["y = 2"])],
        [],
        id="a file without a final newline: changes above its last line are suggested",
    ),
    pytest.param(
        {"calc.py": b"x = 1\n"},
        {"calc.py": b"x = 1\ny  =  2"},
        {"calc.py": b"x = 1\ny = 2"},
        [],
        [LeftOut("calc.py", 2, NO_NEWLINE)],
        id="the last line of a file without a final newline: left out",
    ),
]


@pytest.mark.parametrize(("base", "head", "fixed", "expected", "left_out"), CASES)
def test_suggestions_from_real_diffs(
    repo: Repo,
    base: Mapping[str, str | bytes | None],
    head: Mapping[str, str | bytes | None],
    fixed: Mapping[str, str | bytes | None],
    expected: list[tuple[str, int | None, int, list[str]]],
    left_out: list[LeftOut],
) -> None:
    fix_diff, pr_diff = repo.diffs(base, head, fixed)
    found = suggest(fix_diff, pr_diff)
    assert [(s.path, s.start_line, s.line, block(s.body)) for s in found.suggestions] == expected
    assert list(found.left_out) == left_out
    # applied to the head's file, the suggestions give the fixed file wherever nothing was left out
    for path in {s.path for s in found.suggestions}:
        if not any(item.path == path for item in left_out):
            head_text = _text(head[path])
            assert apply(head_text, found.suggestions) == _text(fixed[path]).split("\n")
    for s in found.suggestions:
        # nothing outside a fence: the body is the fence alone, and GitHub's mention rules leave it as it is
        assert neutralize_mentions(s.body) == s.body


def _text(content: str | bytes | None) -> str:
    assert content is not None
    return content.decode() if isinstance(content, bytes) else content


def test_a_mode_change_is_left_out_and_the_content_still_suggested(repo: Repo) -> None:
    head, fixed = {"run.sh": "echo a\necho  b\n"}, {"run.sh": "echo a\necho b\n"}
    _, pr_diff = repo.diffs({"run.sh": "echo a\n"}, head, fixed)
    repo.git("update-index", "--chmod=+x", "run.sh")
    fix_diff = repo.git("diff", "--cached", "--no-renames")
    assert "new mode 100755" in fix_diff
    found = suggest(fix_diff, pr_diff)
    assert found.left_out == (LeftOut("run.sh", None, MODE_CHANGE),)
    assert [(s.line, block(s.body)) for s in found.suggestions] == [(2, ["echo b"])]


def test_a_symlink_is_left_out() -> None:
    fix_diff = (
        "diff --git a/link b/link\nindex 1111111..2222222 120000\n--- a/link\n+++ b/link\n"
        "@@ -1 +1 @@\n-target\n\\ No newline at end of file\n+elsewhere\n\\ No newline at end of file\n"
    )
    pr_diff = fix_diff.replace("elsewhere", "target").replace("-target", "-before")
    assert suggest(fix_diff, pr_diff).left_out == (LeftOut("link", None, "a symbolic link or submodule"),)


def test_an_insertion_without_its_neighbour_in_a_zero_context_diff_is_left_out() -> None:
    fix_diff = "diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -3,0 +4 @@\n+new\n"
    pr_diff = "diff --git a/f b/f\nindex 0..1 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,9 @@\n" + "+x\n" * 9
    pr_diff = pr_diff.replace("@@ -1,2 +1,9 @@\n", "@@ -0,0 +1,9 @@\n")
    assert suggest(fix_diff, pr_diff) == SuggestedChanges((), (LeftOut("f", 3, NO_ANCHOR),))


def test_a_range_across_two_hunks_of_the_pr_is_left_out(repo: Repo) -> None:
    base = "".join(f"line {n}\n" for n in range(1, 21))
    head = base.replace("line 3\n", "line three\n").replace("line 12\n", "line twelve\n")
    # lines 3..12 are replaced at once: 3 is in the first hunk of the PR, 12 in the second
    fixed = (
        "".join(f"line {n}\n" for n in range(1, 3))
        + "joined\n"
        + "".join(f"line {n}\n" for n in range(13, 21))
    )
    fix_diff, pr_diff = repo.diffs({"f": base}, {"f": head}, {"f": fixed})
    assert pr_diff.count("@@ -") == 2
    assert suggest(fix_diff, pr_diff) == SuggestedChanges((), (LeftOut("f", 3, OFF_DIFF),))


def test_a_fix_in_a_file_the_pr_does_not_touch_is_left_out(repo: Repo) -> None:
    fix_diff, pr_diff = repo.diffs({"a": "1\n", "b": "1\n"}, {"a": "2\n"}, {"b": "3\n"})
    assert suggest(fix_diff, pr_diff).left_out == (LeftOut("b", 1, OFF_DIFF),)


def test_nothing_to_suggest_from_empty_diffs() -> None:
    assert suggest("", "") == SuggestedChanges()


# -- properties ---------------------------------------------------------------------------------------------

# short lines of letters, digits, spaces and a little punctuation: enough to tell lines apart, and to repeat
_LINES = st.text(alphabet="abcxyz 0123()=:#", min_size=0, max_size=8)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """One repository for every example of a property (each example commits what it needs on top)."""
    return Repo(tmp_path_factory.mktemp("scratch"))


@st.composite
def edited(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A file's lines, and the same lines edited a few times (replaced, inserted, removed)."""
    before = draw(st.lists(_LINES, min_size=1, max_size=14))
    return before, _edit(draw(st.data()), before)


def _join(lines: list[str]) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(change=edited())
def test_applied_to_a_file_the_pr_added_the_suggestions_give_the_fixed_file(
    scratch: Repo, change: tuple[list[str], list[str]]
) -> None:
    head, fixed = change
    fix_diff = _staged(scratch, head, fixed)
    # the PR added the file: every line of the head is on the RIGHT side of one hunk
    pr_diff = (
        "diff --git a/f.txt b/f.txt\nnew file mode 100644\n--- /dev/null\n+++ b/f.txt\n"
        f"@@ -0,0 +1,{len(head)} @@\n" + "".join(f"+{line}\n" for line in head)
    )
    found = suggest(fix_diff, pr_diff)
    assert found.left_out == ()
    assert apply(_join(head).decode(), found.suggestions) == _join(fixed).decode().split("\n")


def _staged(repo: Repo, head: list[str], fixed: list[str]) -> str:
    """The fix's diff: ``head`` committed, ``fixed`` staged."""
    repo.commit({"f.txt": _join(head)}, "head")
    repo.write({"f.txt": _join(fixed)})
    return repo.git("diff", "--cached", "--no-renames")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pr=edited(), fix=st.data())
def test_every_suggestion_sits_in_one_hunk_of_the_prs_diff_and_gives_the_fixed_lines(
    scratch: Repo, pr: tuple[list[str], list[str]], fix: st.DataObject
) -> None:
    base, head = pr
    scratch.commit({"f.txt": _join(base)}, "base")
    scratch.write({"f.txt": _join(head)})
    pr_diff = scratch.git("diff", "--cached", "-U3", "--no-renames", "HEAD")
    fixed = _edit(fix, head)
    fix_diff = _staged(scratch, head, fixed)
    found = suggest(fix_diff, pr_diff)
    hunks = [
        (int(m.group(1)), int(m.group(1)) + int(m.group(2) or 1) - 1)
        for m in re.finditer(r"^@@ -\S+ \+(\d+)(?:,(\d+))? @@", pr_diff, re.M)
        if m.group(2) != "0"
    ]
    for s in found.suggestions:
        start = s.start_line or s.line
        assert s.start_line is None or s.start_line < s.line  # GitHub: "start line must precede the end line"
        assert any(a <= start and s.line <= b for a, b in hunks), (s, hunks)
    # each change is suggested or left out (an insertion at the top and one after line 1 share a suggestion)
    runs = len(re.findall(r"(?:^[-+].*\n)+", fix_diff.split("@@", 1)[-1], re.M)) if fix_diff else 0
    assert runs - 1 <= len(found.suggestions) + len(found.left_out) <= runs
    if not found.left_out:
        assert apply(_join(head).decode(), found.suggestions) == _join(fixed).decode().split("\n")


def _edit(data: st.DataObject, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(data.draw(st.integers(0, 4))):
        at = data.draw(st.integers(0, len(out)))
        new = data.draw(st.lists(_LINES, min_size=0, max_size=3))
        out[max(0, at - 1) : at + data.draw(st.integers(0, 1))] = new
    return out
