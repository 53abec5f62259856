"""The diff guard (and the diff parser under it): what a fix may and may not change.

Most cases are unified diffs built with :mod:`difflib` (the hunk format ``git diff`` writes); a second set
runs real ``git diff`` in a temporary repository for what only git writes (renames, binary patches, modes,
quoting).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.change.diff import parse_diff
from healer.change.guard import NO_CHANGE, UNREADABLE, GuardVerdict, judge_diff, judge_paths, matches_glob


def file_diff(path: str, old: str | None, new: str | None) -> str:
    """A git-style diff of one file; ``None`` on a side means the file does not exist there."""
    a = [] if old is None else old.splitlines(keepends=True)
    b = [] if new is None else new.splitlines(keepends=True)
    header = [f"diff --git a/{path} b/{path}\n"]
    if old is None:
        header.append("new file mode 100644\n")
    if new is None:
        header.append("deleted file mode 100644\n")
    body = difflib.unified_diff(
        a, b, "/dev/null" if old is None else f"a/{path}", "/dev/null" if new is None else f"b/{path}"
    )
    return "".join(header) + "".join(body)


def judge(*diffs: str, protected: tuple[str, ...] = (), max_lines: int = 400) -> GuardVerdict:
    return judge_diff("".join(diffs), protected_paths=protected, max_lines=max_lines)


PY_TESTS = dedent(
    """\
    import pytest


    def test_parse():
        assert parse('1') == 1


    def test_empty():
        assert parse('') is None
    """
)
PY_UNITTEST = dedent(
    """\
    import unittest


    class ParseTest(unittest.TestCase):
        def test_parse(self):
            self.assertEqual(1, 1)

        def test_empty(self):
            self.assertIsNone(None)
    """
)
JS_TESTS = dedent(
    """\
    describe('parse', () => {
      it('reads one', () => {
        expect(parse('1')).toBe(1);
      });

      test('reads none', () => {
        expect(parse('')).toBeNull();
      });
    });
    """
)
GO_TESTS = dedent(
    """\
    package parse

    import "testing"

    func TestParse(t *testing.T) {
    \tif Parse("1") != 1 {
    \t\tt.Fatal("no")
    \t}
    }

    func TestEmpty(t *testing.T) {
    }
    """
)
RUST_TESTS = dedent(
    """\
    #[cfg(test)]
    mod tests {
        #[test]
        fn parses_one() {
            assert_eq!(parse("1"), 1);
        }

        #[test]
        fn parses_none() {
            assert!(parse("").is_none());
        }
    }
    """
)
JAVA_TESTS = dedent(
    """\
    class ParseTest {
        @Test
        void parsesOne() {
            assertEquals(1, parse("1"));
        }

        @Test
        public void parsesNone() {
            assertNull(parse(""));
        }
    }
    """
)
KOTLIN_TESTS = dedent(
    """\
    class ParseTest {
        @Test
        fun `parses one`() {
            assertEquals(1, parse("1"))
        }

        @Test
        fun parsesNone() {
            assertNull(parse(""))
        }
    }
    """
)
APP = "def parse(text):\n    if not text:\n        return None\n    return int(text)\n"


def without(text: str, *fragments: str) -> str:
    for fragment in fragments:
        assert fragment in text, fragment
        text = text.replace(fragment, "", 1)
    return text


def replace(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


REFUSED = [
    pytest.param(
        file_diff(
            "tests/test_parse.py",
            PY_TESTS,
            without(PY_TESTS, "def test_empty():\n    assert parse('') is None\n"),
        ),
        "test `test_empty`",
        id="pytest-function-deleted",
    ),
    pytest.param(
        file_diff(
            "tests/test_parse.py",
            PY_UNITTEST,
            without(PY_UNITTEST, "    def test_empty(self):\n        self.assertIsNone(None)\n"),
        ),
        "test `test_empty`",
        id="unittest-method-deleted",
    ),
    pytest.param(
        file_diff(
            "src/parse.test.ts",
            JS_TESTS,
            without(JS_TESTS, "  test('reads none', () => {\n    expect(parse('')).toBeNull();\n  });\n"),
        ),
        "test `test reads none`",
        id="jest-test-deleted",
    ),
    pytest.param(
        file_diff(
            "src/parse.test.ts",
            JS_TESTS,
            without(JS_TESTS, "  it('reads one', () => {\n    expect(parse('1')).toBe(1);\n  });\n"),
        ),
        "test `it reads one`",
        id="jest-it-deleted",
    ),
    pytest.param(
        file_diff("src/parse.spec.js", JS_TESTS, "export {};\n"),
        "`describe parse`",
        id="jest-describe-emptied",
    ),
    pytest.param(
        file_diff("parse/parse_test.go", GO_TESTS, without(GO_TESTS, "func TestEmpty(t *testing.T) {\n}\n")),
        "test `TestEmpty`",
        id="go-test-deleted",
    ),
    pytest.param(
        file_diff(
            "src/lib.rs",
            RUST_TESTS,
            without(
                RUST_TESTS,
                '    #[test]\n    fn parses_none() {\n        assert!(parse("").is_none());\n    }\n',
            ),
        ),
        "test `parses_none`",
        id="cargo-test-deleted",
    ),
    pytest.param(
        file_diff(
            "src/lib.rs",
            RUST_TESTS,
            replace(RUST_TESTS, "    #[test]\n    fn parses_none", "    fn parses_none"),
        ),
        "test `parses_none`",
        id="cargo-test-attribute-removed",
    ),
    pytest.param(
        file_diff(
            "src/test/java/ParseTest.java",
            JAVA_TESTS,
            without(
                JAVA_TESTS,
                '    @Test\n    public void parsesNone() {\n        assertNull(parse(""));\n    }\n',
            ),
        ),
        "test `parsesNone`",
        id="junit-test-deleted",
    ),
    pytest.param(
        file_diff(
            "src/test/java/ParseTest.java",
            JAVA_TESTS,
            replace(JAVA_TESTS, "    @Test\n    void parsesOne", "    void parsesOne"),
        ),
        "test `parsesOne`",
        id="junit-annotation-removed",
    ),
    pytest.param(
        file_diff(
            "src/test/kotlin/ParseTest.kt",
            KOTLIN_TESTS,
            without(
                KOTLIN_TESTS,
                '    @Test\n    fun `parses one`() {\n        assertEquals(1, parse("1"))\n    }\n',
            ),
        ),
        "test `parses one`",
        id="kotlin-backtick-test-deleted",
    ),
    pytest.param(
        file_diff("tests/test_parse.py", PY_TESTS, None),
        "deletes the test file `tests/test_parse.py`",
        id="test-file-deleted",
    ),
    pytest.param(
        file_diff("tests/helpers.py", "def make():\n    return 1\n", None),
        "deletes the test file `tests/helpers.py`",
        id="test-helper-deleted",
    ),
    pytest.param(
        file_diff(".github/workflows/ci.yml", "on: push\n", "on: pull_request\n"),
        "`.github/workflows/ci.yml`",
        id="workflow-edited",
    ),
    pytest.param(
        file_diff(".github/workflows/new.yml", None, "on: push\n"),
        "never changes workflow files",
        id="workflow-added",
    ),
    pytest.param(
        file_diff(".GitHub/Workflows/ci.yml", "a\n", "b\n"),
        "never changes workflow files",
        id="workflow-other-case",
    ),
    pytest.param(
        file_diff(".github/actions/setup/action.yml", "a\n", "b\n"),
        "never changes workflow files",
        id="local-action-edited",
    ),
    pytest.param(
        file_diff("src/app.py", APP, APP.replace("return int(text)", "return int(text)  # noqa: B005")),
        "(`# noqa`)",
        id="noqa-added",
    ),
    pytest.param(
        file_diff("src/app.py", APP, APP + "x: int = 'a'  # type: ignore[assignment]\n"),
        "(`# type: ignore`)",
        id="type-ignore-added",
    ),
    pytest.param(
        file_diff("web/app.ts", "let a = 1;\n", "// eslint-disable-next-line\nlet a = 1;\n"),
        "`eslint-disable`",
        id="eslint-disable-added",
    ),
    pytest.param(
        file_diff("web/app.ts", "let a = 1;\n", "// @ts-ignore\nlet a = 1;\n"),
        "`@\u200bts-ignore`",  # the mention defused even inside the span
        id="ts-ignore-added",
    ),
    pytest.param(
        file_diff("web/app.ts", "let a = 1;\n", "// @ts-expect-error\nlet a = 1;\n"),
        "`@\u200bts-expect-error`",
        id="ts-expect-error-added",
    ),
    pytest.param(
        file_diff("src/lib.rs", "fn a() {}\n", "#[allow(dead_code)]\nfn a() {}\n"),
        "`#[allow(`",
        id="rust-allow-added",
    ),
    pytest.param(
        file_diff("scripts/lint.sh", "ruff check .\n", "ruff check . || true\n"),
        "`|| true`",
        id="or-true-in-script",
    ),
    pytest.param(
        file_diff("Makefile", "lint:\n\truff check .\n", "lint:\n\truff check . || :\n"),
        "`|| :`",
        id="or-colon-in-makefile",
    ),
    pytest.param(
        file_diff(
            ".gitlab-ci.yml", "test:\n  script: pytest\n", "test:\n  script: pytest\n  allow_failure: true\n"
        ),
        "error suppression in a CI script",
        id="allow-failure",
    ),
    pytest.param(
        file_diff(
            "ci/build.yml", "steps:\n  - run: make\n", "steps:\n  - run: make\n    continue-on-error: true\n"
        ),
        "`continue-on-error:`",
        id="continue-on-error",
    ),
    pytest.param(
        file_diff("tools/check", "make test\n", "set +e\nmake test\n"), "`set +e`", id="set-plus-e-in-tool"
    ),
    pytest.param(file_diff("docs/index.md", "a\n", "b\n"), "protected path `docs/**`", id="protected-glob"),
    pytest.param(
        file_diff("uv.lock", "a\n", "b\n"), "protected path `*.lock`", id="protected-basename-anywhere"
    ),
    pytest.param(
        file_diff("src/pkg/generated/api.py", "a\n", "b\n"),
        "protected path `src/**/generated`",
        id="protected-directory-below-doublestar",
    ),
    pytest.param(
        "diff --git a/tests/test_parse.py b/tests/test_parse.py\nindex 1111111..2222222 100644\n"
        "Binary files a/tests/test_parse.py and b/tests/test_parse.py differ\n",
        "git shows as binary",
        id="source-hidden-as-binary",
    ),
    pytest.param(
        file_diff("src/app.py", APP, APP + "".join(f"X{i} = {i}\n" for i in range(30))),
        "more than the limit of 20",
        id="too-many-lines",
    ),
]

SKIPS = [
    ("tests/test_a.py", "@pytest.mark.skip(reason='flaky')"),
    ("tests/test_a.py", "@pytest.mark.skipif(sys.platform == 'linux', reason='x')"),
    ("tests/test_a.py", "@pytest.mark.xfail"),
    ("tests/test_a.py", "    pytest.skip('later')"),
    ("tests/test_a.py", "    pytest.xfail('later')"),
    ("tests/test_a.py", "@unittest.skip('later')"),
    ("tests/test_a.py", "@unittest.skipIf(True, 'later')"),
    ("tests/test_a.py", "@unittest.expectedFailure"),
    ("tests/test_a.py", "        self.skipTest('later')"),
    ("src/a.test.ts", "it.skip('reads', () => {});"),
    ("src/a.test.ts", "test.skip('reads', () => {});"),
    ("src/a.test.ts", "describe.skip('parse', () => {});"),
    ("src/a.test.ts", "xit('reads', () => {});"),
    ("src/a.test.ts", "xdescribe('parse', () => {});"),
    ("src/a.test.ts", "it.only('reads', () => {});"),
    ("src/a.test.ts", "describe.only('parse', () => {});"),
    ("src/a.test.ts", "test.todo('reads')"),
    ("a/a_test.go", '\tt.Skip("later")'),
    ("a/a_test.go", '\tt.Skipf("later %d", 1)'),
    ("src/lib.rs", "    #[ignore]"),
    ("src/lib.rs", '    #[ignore = "slow"]'),
    ("src/test/java/ATest.java", '    @Disabled("later")'),
    ("src/test/java/ATest.java", "    @Ignore"),
    ("src/test/java/ATest.java", "    @Test(enabled = false)"),
]


@pytest.mark.parametrize(("diff", "expected"), REFUSED)
def test_refused(diff: str, expected: str) -> None:
    verdict = judge(diff, protected=("docs/**", "*.lock", "src/**/generated"), max_lines=20)
    assert not verdict.ok
    assert any(expected in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.parametrize(
    ("path", "line"), SKIPS, ids=[f"{p.rsplit('.', 1)[-1]}:{line.strip()}" for p, line in SKIPS]
)
def test_adding_a_skip_marker_is_refused(path: str, line: str) -> None:
    verdict = judge(file_diff(path, "a = 1\n", f"a = 1\n{line}\n"))
    assert not verdict.ok
    assert any("skip marker" in reason for reason in verdict.reasons), verdict.reasons


ACCEPTED = [
    pytest.param(
        file_diff("src/db.py", "def test_connection(url):\n    return ping(url)\n", ""),
        id="test-named-helper-outside-test-files",
    ),
    pytest.param(file_diff("src/app.py", APP, APP.replace("int(text)", "int(text.strip())")), id="plain-fix"),
    pytest.param(
        file_diff(
            "tests/test_parse.py",
            PY_TESTS,
            PY_TESTS.replace("assert parse('1') == 1", "assert parse(' 1') == 1"),
        ),
        id="test-body-changed",
    ),
    pytest.param(
        file_diff(
            "tests/test_parse.py",
            PY_TESTS,
            PY_TESTS.replace("def test_parse():", "def test_parse(tmp_path):"),
        ),
        id="test-signature-changed",
    ),
    pytest.param(
        file_diff("tests/test_parse.py", PY_TESTS, None)
        + file_diff("tests/unit/test_parse.py", None, PY_TESTS),
        id="test-file-moved-without-rename-detection",
    ),
    pytest.param(
        file_diff(
            "tests/test_parse.py",
            PY_TESTS,
            without(PY_TESTS, "def test_empty():\n    assert parse('') is None\n"),
        )
        + file_diff("tests/test_empty.py", None, "def test_empty():\n    assert parse('') is None\n"),
        id="test-function-moved-between-files",
    ),
    pytest.param(file_diff("tests/data/sample.json", "{}\n", None), id="test-data-file-deleted"),
    pytest.param(
        file_diff(
            "tests/test_a.py", "@pytest.mark.skip\ndef test_a():\n    pass\n", "def test_a():\n    pass\n"
        ),
        id="skip-marker-removed",
    ),
    pytest.param(
        file_diff("src/a.py", "x = 1  # noqa: E501\n", "")
        + file_diff("src/b.py", "", "x = 1  # noqa: E501\n"),
        id="suppressed-line-moved",
    ),
    pytest.param(
        file_diff("web/app.ts", "const x = y;\n", "const x = y || true;\n"), id="or-true-in-application-code"
    ),
    pytest.param(
        file_diff("guide/usage.md", "Use it.\n", "Mark with `@pytest.mark.skip` or `# noqa`.\n"),
        id="markers-in-docs",
    ),
    pytest.param(
        file_diff("src/parse.test.ts", JS_TESTS, JS_TESTS.replace("toBe(1)", "toBe(2)")),
        id="jest-body-changed",
    ),
    pytest.param(
        file_diff("src/lib.rs", RUST_TESTS, RUST_TESTS.replace('parse("1"), 1', 'parse("1"), Some(1)')),
        id="cargo-body-changed",
    ),
    pytest.param(file_diff("workflows.md", "a\n", "b\n"), id="workflows-word-elsewhere"),
    pytest.param("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", id="mode-change-only"),
    pytest.param(
        "diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..6b2a1f3\n"
        "Binary files /dev/null and b/logo.png differ\n",
        id="binary-added",
    ),
    pytest.param(
        file_diff("src/app.py", APP, APP + "".join(f"X{i} = {i}\n" for i in range(20))),
        id="exactly-the-limit",
    ),
]


@pytest.mark.parametrize("diff", ACCEPTED)
def test_accepted(diff: str) -> None:
    verdict = judge(diff, protected=("docs/**", "*.lock"), max_lines=20)
    assert verdict.ok, verdict.reasons
    assert verdict.reasons == ()
    assert verdict.files


def test_an_empty_diff_is_no_change() -> None:
    for diff in ("", "\n", "   \n\n"):
        verdict = judge(diff)
        assert (verdict.ok, verdict.reasons, verdict.empty) == (False, (NO_CHANGE,), True)
    assert NO_CHANGE.startswith("no change")


def test_counts_and_files() -> None:
    verdict = judge(
        file_diff("src/app.py", APP, APP.replace("return None", "return 0")),
        file_diff("src/new.py", None, "A = 1\nB = 2\n"),
        file_diff("src/old.py", "Z = 1\n", None),
    )
    assert verdict.ok
    assert verdict.files == ("src/app.py", "src/new.py", "src/old.py")
    assert (verdict.added, verdict.removed, verdict.changed_lines) == (3, 2, 5)


def test_every_problem_is_reported_once() -> None:
    verdict = judge(
        file_diff(".github/workflows/ci.yml", "a\n", "b\n"),
        file_diff("tests/test_parse.py", PY_TESTS, None),
        file_diff("src/app.py", APP, APP + "x = 1  # noqa\ny = 2  # noqa\n"),
    )
    assert len(verdict.reasons) == 3, verdict.reasons
    assert [r.split(" ")[1] for r in verdict.reasons] == ["changes", "deletes", "adds"]


def test_a_deleted_test_file_is_one_reason_not_one_per_test() -> None:
    verdict = judge(file_diff("tests/test_parse.py", PY_TESTS, None))
    assert verdict.reasons == (
        "It deletes the test file `tests/test_parse.py`; a fix must make tests pass, not remove them.",
    )


def test_the_reason_names_the_line_of_the_added_marker() -> None:
    verdict = judge(file_diff("tests/test_a.py", "a = 1\nb = 2\n", "a = 1\nb = 2\n@pytest.mark.skip\n"))
    assert verdict.reasons == (
        "It adds a skip marker (`pytest.mark.skip`) in `tests/test_a.py` at line 3; "
        "a fix must make the test pass, not skip it.",
    )


def test_moving_a_test_is_not_deleting_it_but_dropping_one_copy_is() -> None:
    both = "def test_same():\n    pass\n"
    # two files each hold a test named test_same; deleting one copy removes a test
    verdict = judge(
        file_diff("tests/a/test_x.py", both, ""), file_diff("tests/b/test_x.py", both, both + "\n")
    )
    assert not verdict.ok
    assert "`test_same`" in verdict.reasons[0]


def test_reasons_cannot_mention_or_inject_markup() -> None:
    hostile = "@org/team `x` <!-- -->\n[link](https://evil)"
    diff = (f'diff --git "a/.github/workflows/{hostile}.yml" "b/.github/workflows/{hostile}.yml"\n').replace(
        "\n[", "\\n[", 1
    )
    verdict = judge(diff)
    assert not verdict.ok
    (reason,) = verdict.reasons
    assert "\n" not in reason
    assert_no_markup_outside_code(reason)


def test_the_number_of_reasons_is_bounded() -> None:
    diff = "".join(file_diff(f".github/workflows/w{i}.yml", "a\n", "b\n") for i in range(40))
    verdict = judge(diff)
    assert len(verdict.reasons) == 12
    assert verdict.reasons[-1].startswith("…and 29 more")
    assert len(verdict.files) == 40


def test_submodule_and_symlinks() -> None:
    submodule = (
        "diff --git a/vendor/lib b/vendor/lib\nindex 1111111..2222222 160000\n"
        "--- a/vendor/lib\n+++ b/vendor/lib\n@@ -1 +1 @@\n"
        "-Subproject commit 1111111111111111111111111111111111111111\n"
        "+Subproject commit 2222222222222222222222222222222222222222\n"
    )

    def link(path: str, target: str) -> str:
        return (
            f"diff --git a/{path} b/{path}\nnew file mode 120000\nindex 0000000..1234567\n"
            f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{target}\n\\ No newline at end of file\n"
        )

    assert "submodule `vendor/lib`" in judge(submodule).reasons[0]
    assert "outside the repository" in judge(link("src/secrets", "/etc/passwd")).reasons[0]
    assert "outside the repository" in judge(link("src/up", "../../x")).reasons[0]
    assert "workflow or action file" in judge(link("src/ci.yml", "../.github/workflows/ci.yml")).reasons[0]
    assert judge(link("src/alias.py", "../lib/real.py")).ok


def test_a_hunk_line_that_looks_like_a_header_is_content() -> None:
    # A line "--- a/x" removed from a file shows as "---- a/x"; a line "++ b/y" added shows as "+++ b/y".
    diff = (
        "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n"
        "--- a/.github/workflows/x.yml\n+++ b/.github/workflows/x.yml\n keep\n"
    )
    verdict = judge(diff)
    assert verdict.ok, verdict.reasons
    assert verdict.files == ("notes.txt",)
    assert (verdict.added, verdict.removed) == (1, 1)


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        pytest.param("docs/a.md", "docs/**", True, id="doublestar-below"),
        pytest.param("docs/a/b/c.md", "docs/**", True, id="doublestar-deep"),
        pytest.param("docs", "docs/", True, id="trailing-slash-directory"),
        pytest.param("docs/a.md", "docs", True, id="bare-directory-covers-contents"),
        pytest.param("src/docs/a.md", "docs", True, id="bare-name-any-depth"),
        pytest.param("src/docs/a.md", "/docs", False, id="leading-slash-anchors"),
        pytest.param("docsx/a.md", "docs/**", False, id="no-prefix-bleed"),
        pytest.param("a/b/schema.sql", "**/*.sql", True, id="doublestar-slash-any-depth"),
        pytest.param("schema.sql", "**/*.sql", True, id="doublestar-slash-zero-dirs"),
        pytest.param("src/x/migrations/0001.py", "src/*/migrations/*.py", True, id="star-one-segment"),
        pytest.param(
            "src/x/y/migrations/0001.py", "src/*/migrations/*.py", False, id="star-not-across-slash"
        ),
        pytest.param("LICENSE", "LICEN[CS]E", True, id="character-class"),
        pytest.param("a.lock", "?.lock", True, id="question-mark"),
        pytest.param("./src//a.py", "src/a.py", True, id="path-normalised"),
        pytest.param("src/a.py", "", False, id="empty-pattern"),
        pytest.param("src/a[.py", "src/a[.py", True, id="unclosed-bracket-literal"),
    ],
)
def test_matches_glob(path: str, pattern: str, expected: bool) -> None:
    assert matches_glob(path, pattern) is expected


def test_judge_paths() -> None:
    assert judge_paths(["src/a.py", "README.md"], protected_paths=["docs/**"]) == ()
    reasons = judge_paths([".github/workflows/ci.yml", "docs/a.md", "docs/a.md"], protected_paths=["docs/**"])
    assert len(reasons) == 2
    assert "input `protected-paths`" in reasons[1]


# ------------------------------------------------------------------------------------------------------------
# Real `git diff` output

GIT = shutil.which("git")


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(root),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
        self.git("init", "-q")

    def git(self, *args: str) -> str:
        assert GIT
        done = subprocess.run(
            [GIT, *args], cwd=self.root, env=self.env, capture_output=True, text=True, check=True
        )
        return done.stdout

    def write(self, path: str, content: str | bytes) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)

    def commit(self) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "base")

    def diff(self, *flags: str) -> str:
        self.git("add", "-A")
        return self.git("diff", "--cached", *flags)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    if GIT is None:
        pytest.skip("git is not installed")
    return Repo(tmp_path)


def test_git_rename_of_a_test_file(repo: Repo) -> None:
    repo.write("tests/test_parse.py", PY_TESTS)
    repo.commit()
    (repo.root / "tests/unit").mkdir()
    repo.git("mv", "tests/test_parse.py", "tests/unit/test_parse.py")
    for flags in (("-M",), ("--no-renames",)):
        verdict = judge_diff(repo.diff(*flags), protected_paths=(), max_lines=400)
        assert verdict.ok, (flags, verdict.reasons)
        assert set(verdict.files) == {"tests/test_parse.py", "tests/unit/test_parse.py"}


def test_git_rename_out_of_what_the_runner_collects(repo: Repo) -> None:
    repo.write("tests/test_parse.py", PY_TESTS)
    repo.commit()
    repo.git("mv", "tests/test_parse.py", "parse_checks.py")
    verdict = judge_diff(repo.diff("-M"), protected_paths=(), max_lines=400)
    assert verdict.reasons == (
        "It moves the test file `tests/test_parse.py` to `parse_checks.py`, where its test runner does not "
        "collect it; a fix must make tests pass, not hide them.",
    )
    # without rename detection the same change is a deleted test file
    verdict = judge_diff(repo.diff("--no-renames"), protected_paths=(), max_lines=400)
    assert verdict.reasons == (
        "It deletes the test file `tests/test_parse.py`; a fix must make tests pass, not remove them.",
    )


def test_git_attributes_cannot_hide_a_deleted_test(repo: Repo) -> None:
    repo.write("tests/test_parse.py", PY_TESTS)
    repo.commit()
    repo.write(".gitattributes", "*.py -diff\n")
    repo.write("tests/test_parse.py", without(PY_TESTS, "def test_empty():\n    assert parse('') is None\n"))
    diff = repo.diff("--binary", "--no-textconv", "--no-ext-diff")
    assert "def test_empty" not in diff
    verdict = judge_diff(diff, protected_paths=(), max_lines=400)
    assert not verdict.ok
    assert "`tests/test_parse.py`, which git shows as binary" in " ".join(verdict.reasons)


def test_git_irreversible_delete_of_a_test_file(repo: Repo) -> None:
    repo.write("tests/test_parse.py", PY_TESTS)
    repo.commit()
    (repo.root / "tests/test_parse.py").unlink()
    diff = repo.diff("-D")
    assert "@@" not in diff  # git shows no content, so the guard cannot see where the tests went
    verdict = judge_diff(diff, protected_paths=(), max_lines=400)
    assert not verdict.ok
    assert "deletes the test file `tests/test_parse.py`" in verdict.reasons[0]


def test_git_binary_mode_and_quoted_paths(repo: Repo) -> None:
    repo.write("run.sh", "echo hi\n")
    repo.write("img/logo.png", b"\x89PNG\r\n\x1a\n\x00\x01")
    repo.commit()
    (repo.root / "run.sh").chmod(0o755)
    repo.write("img/logo.png", b"\x89PNG\r\n\x1a\n\x00\x02\x03")
    repo.write("src/tést file.py", "A = 1\n")
    for flags in ((), ("--binary",)):
        files = parse_diff(repo.diff(*flags))
        by_path = {f.path: f for f in files}
        assert set(by_path) == {"run.sh", "img/logo.png", "src/tést file.py"}
        assert (by_path["run.sh"].old_mode, by_path["run.sh"].new_mode) == ("100644", "100755")
        assert by_path["img/logo.png"].binary
        assert by_path["src/tést file.py"].added_lines == 1
        verdict = judge_diff(repo.diff(*flags), protected_paths=("img/**",), max_lines=400)
        assert [r for r in verdict.reasons if "protected path" in r] == [
            "It changes `img/logo.png`, which matches the protected path `img/**` (input `protected-paths`)."
        ]


def test_git_workflow_rename_out_of_the_folder_is_refused(repo: Repo) -> None:
    repo.write(".github/workflows/ci.yml", "on: push\njobs: {}\n")
    repo.commit()
    repo.git("mv", ".github/workflows/ci.yml", "ci.yml")
    verdict = judge_diff(repo.diff("-M"), protected_paths=(), max_lines=400)
    assert not verdict.ok
    assert "`.github/workflows/ci.yml`" in verdict.reasons[0]


# ------------------------------------------------------------------------------------------------------------
# Adversarial input

CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1", re.DOTALL)


def assert_no_markup_outside_code(reason: str) -> None:
    bare = CODE_SPAN.sub("", reason)
    assert "@" not in bare and "<" not in bare and "[" not in bare, reason


diff_lines = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "diff --git a/x b/x",
            "--- a/x",
            "+++ b/x",
            "--- /dev/null",
            "+++ /dev/null",
            "@@ -1 +1 @@",
            "@@ -0,0 +1,3 @@",
            "@@ -1,999999999 +1 @@",
            "new file mode 120000",
            "deleted file mode 100644",
            "old mode 160000",
            "rename from a",
            "rename to .github/workflows/x",
            "GIT binary patch",
            "Binary files a/x and b/y differ",
            "\\ No newline at end of file",
            "+#[test]",
            "-fn a() {}",
            "-def test_x():",
            "+@pytest.mark.skip",
            '"',
            'diff --git "a/\\303" "b/\\"',
            "+x || true",
        ]
    ),
    st.builds(lambda p, t: p + t, st.sampled_from(["+", "-", " "]), st.text(max_size=30)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(diff_lines, max_size=30), st.lists(st.text(max_size=12), max_size=3), st.integers(0, 50))
def test_never_raises_and_is_consistent(lines: list[str], protected: list[str], max_lines: int) -> None:
    verdict = judge_diff("\n".join(lines), protected_paths=protected, max_lines=max_lines)
    assert UNREADABLE not in verdict.reasons  # the fail-closed branch is never what answers
    assert verdict.ok == (not verdict.reasons)
    assert verdict.added >= 0 and verdict.removed >= 0
    assert len(verdict.reasons) <= 12
    for reason in verdict.reasons:
        assert "\n" not in reason
        assert_no_markup_outside_code(reason)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_never_raises_on_any_text(text: str) -> None:
    verdict = judge_diff(text, protected_paths=("**",), max_lines=1)
    assert UNREADABLE not in verdict.reasons


safe_name = st.text(
    st.characters(codec="utf-8", exclude_characters='\n\r/\\"`'), min_size=1, max_size=20
).filter(lambda s: s == s.strip() and s not in ("", ".", ".."))


@settings(max_examples=100, deadline=None)
@given(
    safe_name,
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\n\r"), max_size=60),
    st.sampled_from(SKIPS),
)
def test_an_added_skip_marker_is_refused_whatever_surrounds_it(
    name: str, trailer: str, skip: tuple[str, str]
) -> None:
    path, marker = skip
    diff = file_diff(path, f"# {name}\n", f"# {name}\n{marker}\n# {trailer}\n")
    assert not judge_diff(diff, protected_paths=(), max_lines=400).ok


@settings(max_examples=100, deadline=None)
@given(st.lists(safe_name, min_size=1, max_size=4))
def test_a_path_matches_itself_and_covers_its_contents(parts: list[str]) -> None:
    path = "/".join(parts)
    literal = re.sub(r"([*?\[])", r"[\1]", path)
    assert matches_glob(path, literal)
    assert matches_glob(path + "/inner.txt", literal)
    assert matches_glob(path, "**")
