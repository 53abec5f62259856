"""The guard's refusals of changes that turn a check green without fixing anything: one case per way to
cheat.

Each case is a change given as whole files (old and new text); the diff is what :mod:`difflib` writes with
git's headers, and the guard may read the full files, as it does in a heal. Cases that only git can produce
(renames, binary patches, attributes) run real ``git diff`` in a temporary repository.
"""

from __future__ import annotations

import difflib
import os
import subprocess
from pathlib import Path
from textwrap import dedent

import pytest

from healer.change.guard import GuardVerdict, judge_diff

Files = dict[str, tuple[str | None, str | None]]


def diff_of(files: Files, context: int = 3) -> str:
    out = []
    for path, (old, new) in files.items():
        a = [] if old is None else old.splitlines(keepends=True)
        b = [] if new is None else new.splitlines(keepends=True)
        out.append(f"diff --git a/{path} b/{path}\n")
        if old is None:
            out.append("new file mode 100644\n")
        if new is None:
            out.append("deleted file mode 100644\n")
        out.extend(
            difflib.unified_diff(
                a,
                b,
                "/dev/null" if old is None else f"a/{path}",
                "/dev/null" if new is None else f"b/{path}",
                n=context,
            )
        )
    return "".join(out)


def judge(files: Files, *, allow: tuple[str, ...] = (), read: bool = True) -> GuardVerdict:
    def reader(path: str, new: bool) -> str | None:
        return files[path][1 if new else 0] if path in files else None

    return judge_diff(diff_of(files), max_lines=400, allow=allow, read=reader if read else None)


def edit(path: str, old: str, new: str) -> Files:
    return {path: (dedent(old), dedent(new))}


PYPROJECT = """\
[project]
name = "calc"
version = "1.0"
dependencies = [
    "requests>=2.31",
]

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "-q"
filterwarnings = ["error"]

[tool.coverage.report]
fail_under = 90
show_missing = true

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "B"]
ignore = []
"""

PACKAGE_JSON = """\
{
  "name": "calc",
  "version": "1.0.0",
  "scripts": {
    "build": "tsc",
    "test": "jest",
    "lint": "eslint ."
  },
  "dependencies": {
    "left-pad": "1.3.0"
  },
  "jest": {
    "testEnvironment": "node"
  }
}
"""

CALC_TESTS = """\
from calc import add


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert add(2, -3) == -1
"""

CONFTEST = """\
import pytest


@pytest.fixture
def numbers():
    return [1, 2, 3]
"""

CLASS_TESTS = """\
class TestCalc:
    def test_add(self):
        assert 1

    def test_sub(self):
        assert 1
"""

GO_TEST = """\
package calc

import "testing"

func TestAdd(t *testing.T) {
\tif Add(2, 3) != 5 {
\t\tt.Fatal("wrong")
\t}
}
"""

RUST_LIB = """\
pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
    }
}
"""

REFUSED = [
    # -- test-runner, lint, type-check and coverage configuration -------------------------------------------
    pytest.param(
        edit(
            "pytest.ini",
            "[pytest]\naddopts = -q\n",
            "[pytest]\naddopts = -q --deselect tests/test_calc.py::test_add\n",
        ),
        "configures how tests",
        id="pytest-ini-deselect",
    ),
    pytest.param(
        edit("tox.ini", "[testenv]\ncommands = pytest\n", "[testenv]\ncommands = pytest -k 'not add'\n"),
        "`tox.ini`",
        id="tox-ini",
    ),
    pytest.param(
        edit(
            "setup.cfg",
            "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n",
            "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q -k 'not add'\n",
        ),
        "`[tool:pytest]`",
        id="setup-cfg-k",
    ),
    pytest.param(
        {
            "pyproject.toml": (
                PYPROJECT,
                PYPROJECT.replace('addopts = "-q"', 'addopts = "-q --deselect tests/test_calc.py::test_add"'),
            )
        },
        "`[tool.pytest]`",
        id="pyproject-addopts-deselect",
    ),
    pytest.param(
        {"pyproject.toml": (PYPROJECT, PYPROJECT.replace("ignore = []", 'ignore = ["F401", "B"]'))},
        "`[tool.ruff]`",
        id="pyproject-ruff-lint-ignore",
    ),
    pytest.param(
        {"pyproject.toml": (PYPROJECT, PYPROJECT.replace("fail_under = 90", "fail_under = 10"))},
        "`[tool.coverage]`",
        id="pyproject-coverage-fail-under",
    ),
    pytest.param(
        {"pyproject.toml": (PYPROJECT, PYPROJECT + "\n[tool.mypy]\nignore_errors = true\n")},
        "`[tool.mypy]`",
        id="pyproject-mypy-added",
    ),
    pytest.param(
        {"pyproject.toml": (PYPROJECT, "tool.mypy.ignore_errors = true\n" + PYPROJECT)},
        "`[tool.mypy]`",
        id="pyproject-dotted-key",
    ),
    pytest.param(
        edit(".coveragerc", "[report]\nfail_under = 90\n", "[report]\nfail_under = 0\n"),
        "`.coveragerc`",
        id="coveragerc",
    ),
    pytest.param(
        edit(
            "setup.cfg",
            "[flake8]\nmax-line-length = 100\n",
            "[flake8]\nmax-line-length = 100\nextend-ignore = E501\n",
        ),
        "`[flake8]`",
        id="setup-cfg-flake8",
    ),
    pytest.param(edit(".flake8", "[flake8]\n", "[flake8]\nignore = E,F\n"), "`.flake8`", id="flake8-file"),
    pytest.param(
        edit("mypy.ini", "[mypy]\nstrict = True\n", "[mypy]\nstrict = False\n"), "`mypy.ini`", id="mypy-ini"
    ),
    pytest.param(
        edit("ruff.toml", "[lint]\nselect = ['E']\n", "[lint]\nselect = []\n"), "`ruff.toml`", id="ruff-toml"
    ),
    pytest.param(
        {
            "tests/conftest.py": (
                CONFTEST,
                CONFTEST + "\n\ndef pytest_collection_modifyitems(items):\n    items[:] = []\n",
            )
        },
        "`def pytest_collection_modifyitems(items):`",
        id="conftest-modifyitems",
    ),
    pytest.param(
        {
            "conftest.py": (
                CONFTEST,
                CONFTEST + "\n\ndef pytest_ignore_collect(collection_path):\n    return True\n",
            )
        },
        "collects or reports tests",
        id="conftest-ignore-collect",
    ),
    pytest.param(
        {"conftest.py": (CONFTEST, CONFTEST + '\ncollect_ignore = ["tests/test_calc.py"]\n')},
        "`collect_ignore",
        id="conftest-collect-ignore",
    ),
    pytest.param(
        edit(
            "jest.config.js",
            "module.exports = {};\n",
            "module.exports = { testPathIgnorePatterns: ['calc'] };\n",
        ),
        "`jest.config.js`",
        id="jest-config",
    ),
    pytest.param(
        edit("vitest.config.ts", "export default {};\n", "export default { test: { exclude: ['**'] } };\n"),
        "`vitest.config.ts`",
        id="vitest-config",
    ),
    pytest.param(
        edit(
            "vite.config.ts",
            "export default { test: {} };\n",
            "export default { test: { passWithNoTests: true } };\n",
        ),
        "test settings",
        id="vite-config-test",
    ),
    pytest.param(
        edit(".mocharc.yml", "spec: test/**/*.js\n", "spec: none/*.js\n"), "`.mocharc.yml`", id="mocharc"
    ),
    pytest.param(
        {"package.json": (PACKAGE_JSON, PACKAGE_JSON.replace('"test": "jest"', '"test": "exit 0"'))},
        '`"scripts"`',
        id="package-json-test-exit-0",
    ),
    pytest.param(
        {
            "package.json": (
                PACKAGE_JSON,
                PACKAGE_JSON.replace('"testEnvironment": "node"', '"testPathIgnorePatterns": ["calc"]'),
            )
        },
        '`"jest"`',
        id="package-json-jest-ignore",
    ),
    pytest.param(
        edit(
            ".eslintrc.json",
            '{"rules": {"no-unused-vars": "error"}}\n',
            '{"rules": {"no-unused-vars": "off"}}\n',
        ),
        "`.eslintrc.json`",
        id="eslintrc",
    ),
    pytest.param(
        edit("eslint.config.mjs", "export default [];\n", "export default [{ignores: ['src']}];\n"),
        "`eslint.config.mjs`",
        id="eslint-flat-config",
    ),
    pytest.param(
        edit(
            "tsconfig.json",
            '{"compilerOptions": {"strict": true}}\n',
            '{"compilerOptions": {"strict": false}}\n',
        ),
        "`tsconfig.json`",
        id="tsconfig-strict",
    ),
    pytest.param(
        edit(
            "Cargo.toml",
            '[package]\nname = "calc"\n\n[lints.clippy]\nall = "deny"\n',
            '[package]\nname = "calc"\n\n[lints.clippy]\nall = "allow"\n',
        ),
        "`[lints]`",
        id="cargo-lints",
    ),
    pytest.param(
        edit(".golangci.yml", "linters:\n  enable: [errcheck]\n", "linters:\n  disable-all: true\n"),
        "`.golangci.yml`",
        id="golangci",
    ),
    pytest.param(
        edit(
            "pom.xml",
            "<project></project>\n",
            "<project><properties><skipTests>true</skipTests></properties></project>\n",
        ),
        "which tests or checks the build runs",
        id="maven-skip-tests",
    ),
    # -- aliased and indirect skip markers ---------------------------------------------------------------
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                CALC_TESTS.replace(
                    "from calc import add\n", "from calc import add\nfrom pytest import mark\n"
                ).replace("def test_add", "@mark.skip\ndef test_add"),
            )
        },
        "skip marker",
        id="from-pytest-import-mark",
    ),
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                "import pytest\n\nskip = pytest.mark.skip\n"
                + CALC_TESTS.replace("def test_add", "@skip\ndef test_add"),
            )
        },
        "skip marker",
        id="skip-alias-assigned",
    ),
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                "import pytest as pt\n"
                + CALC_TESTS.replace("def test_add", "@pt.mark.xfail(strict=False)\ndef test_add"),
            )
        },
        "`pt.mark.xfail`",
        id="import-pytest-as-pt",
    ),
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                "from unittest import skipIf\n"
                + CALC_TESTS.replace("def test_add", "@skipIf(True, 'later')\ndef test_add"),
            )
        },
        "skip marker",
        id="unittest-skipif-imported",
    ),
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                "import pytest\npytestmark = pytest.mark.skipif(True, reason='x')\n" + CALC_TESTS,
            )
        },
        "skip marker",
        id="pytestmark",
    ),
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, CALC_TESTS + "\n__test__ = False\n")},
        "skip marker",
        id="dunder-test-false",
    ),
    pytest.param(
        {
            "tests/test_calc.py": (
                CALC_TESTS,
                CALC_TESTS.replace("    assert add(2, 3) == 5", "    request.applymarker('skip')"),
            )
        },
        "skip marker",
        id="applymarker",
    ),
    pytest.param(
        edit(
            "src/calc.test.ts",
            "it('adds', () => {});\n",
            "const later = it.skip;\nlater('adds', () => {});\n",
        ),
        "skip marker",
        id="jest-skip-alias",
    ),
    pytest.param(
        edit("src/calc.test.ts", "it('adds', () => {});\n", "xit('adds', () => {});\n"),
        "skip marker",
        id="jest-xit",
    ),
    pytest.param(
        edit("src/calc.spec.ts", "describe('calc', () => {});\n", "describe.skip('calc', () => {});\n"),
        "skip marker",
        id="describe-skip",
    ),
    pytest.param(
        edit(
            "test/calc.test.js",
            "it('adds', function () {});\n",
            "it('adds', function () { this.skip(); });\n",
        ),
        "skip marker",
        id="mocha-this-skip",
    ),
    pytest.param(
        {"calc/calc_test.go": (GO_TEST, GO_TEST.replace("\tif Add", '\tsuite.T().Skip("later")\n\tif Add'))},
        "skip marker",
        id="go-suite-skip",
    ),
    pytest.param(
        {"calc/calc_test.go": (GO_TEST, GO_TEST.replace("\tif Add", '\tt.Skip("later")\n\tif Add'))},
        "`.Skip(`",
        id="go-t-skip",
    ),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("    #[test]\n", "    #[test]\n    #[ignore]\n"))},
        "`#[ignore`",
        id="rust-ignore",
    ),
    pytest.param(
        {
            "src/lib.rs": (
                RUST_LIB,
                RUST_LIB.replace("    #[test]\n", "    #[test]\n    #[cfg_attr(ci, ignore)]\n"),
            )
        },
        "skip marker",
        id="rust-cfg-attr-ignore",
    ),
    # -- a test redefined in the same file ---------------------------------------------------------------
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, CALC_TESTS + "\n\ndef test_add():\n    pass\n")},
        "binds the test `test_add` again",
        id="test-redefined",
    ),
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, CALC_TESTS + "\n\ntest_add = None\n")},
        "binds the test `test_add` again",
        id="test-rebound",
    ),
    pytest.param(
        edit(
            "tests/test_calc.py",
            CLASS_TESTS,
            CLASS_TESTS + "\n    def test_add(self):\n        pass\n",
        ),
        "`TestCalc.test_add`",
        id="method-redefined",
    ),
    # -- build constraints and cfg that compile tests out ------------------------------------------------
    pytest.param(
        {"calc/calc_test.go": (GO_TEST, "//go:build ignore\n\n" + GO_TEST)},
        "build constraint",
        id="go-build-ignore",
    ),
    pytest.param(
        {"calc/calc_test.go": (GO_TEST, "// +build ignore\n\n" + GO_TEST)},
        "build constraint",
        id="go-plus-build-ignore",
    ),
    pytest.param(
        {"calc/calc_test.go": (GO_TEST, "//go:build integration\n\n" + GO_TEST)},
        "build constraint",
        id="go-build-tag",
    ),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("    #[test]\n", "    #[cfg(any())]\n    #[test]\n"))},
        "build constraint",
        id="rust-cfg-any",
    ),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("mod tests {", "#[cfg(FALSE)]\nmod tests {"))},
        "build constraint",
        id="rust-cfg-false-module",
    ),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("mod tests {", "#[cfg(not(test))]\nmod tests {"))},
        "build constraint",
        id="rust-cfg-not-test",
    ),
    pytest.param(
        {
            "src/lib.rs": (
                RUST_LIB,
                RUST_LIB.replace("    #[test]\n", '    #[cfg(feature = "never")]\n    #[test]\n'),
            )
        },
        "build constraint",
        id="rust-cfg-feature-above-test",
    ),
    pytest.param(
        {
            "src/lib.rs": (
                RUST_LIB,
                RUST_LIB.replace("mod tests {", '#[cfg(target_os = "haiku")]\nmod tests {'),
            )
        },
        "build constraint",
        id="rust-cfg-above-test-module",
    ),
    pytest.param(
        {"tests/calc.rs": ("#[test]\nfn adds() {}\n", '#![cfg(feature = "slow")]\n#[test]\nfn adds() {}\n')},
        "build constraint",
        id="rust-crate-cfg-on-integration-test",
    ),
    # -- moved where the runner does not collect it ------------------------------------------------------
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, None), "misc/calc.py": (None, CALC_TESTS)},
        "deletes the test file",
        id="moved-out-without-rename-detection",
    ),
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, None), "tests/calc_checks.py": (None, CALC_TESTS)},
        "deletes the test file",
        id="prefix-dropped-without-rename-detection",
    ),
    # -- git's own settings ------------------------------------------------------------------------------
    pytest.param(
        edit(
            ".gitmodules",
            '[submodule "lib"]\n\turl = https://github.com/octo/lib\n',
            '[submodule "lib"]\n\turl = https://example.com/lib\n',
        ),
        "submodules come from",
        id="gitmodules",
    ),
    pytest.param(
        edit(".gitattributes", "*.png binary\n", "*.png binary\npyproject.toml binary\n"),
        "how git shows",
        id="gitattributes",
    ),
    pytest.param(
        edit(
            ".lfsconfig",
            "[lfs]\n\turl = https://github.com/octo/calc.git/info/lfs\n",
            "[lfs]\n\turl = https://example.com/lfs\n",
        ),
        "Git LFS",
        id="lfsconfig",
    ),
]


@pytest.mark.parametrize(("files", "expected"), REFUSED)
def test_refused_with_a_sentence(files: Files, expected: str) -> None:
    verdict = judge(files)
    assert not verdict.ok
    assert any(expected in reason for reason in verdict.reasons), verdict.reasons
    for reason in verdict.reasons:  # one sentence a maintainer reads: it ends, and names what to do or why
        assert reason.endswith((".", ")")) and len(reason) < 600, reason


ACCEPTED = [
    pytest.param(
        {"pyproject.toml": (PYPROJECT, PYPROJECT.replace("requests>=2.31", "requests>=2.32"))},
        id="pyproject-dependency",
    ),
    pytest.param(
        {"pyproject.toml": (PYPROJECT, PYPROJECT.replace('version = "1.0"', 'version = "1.1"'))},
        id="pyproject-version",
    ),
    pytest.param(
        {"package.json": (PACKAGE_JSON, PACKAGE_JSON.replace('"1.3.0"', '"1.3.1"'))},
        id="package-json-dependency",
    ),
    pytest.param(
        {"conftest.py": (CONFTEST, CONFTEST.replace("[1, 2, 3]", "[1, 2, 3, 4]"))}, id="conftest-fixture"
    ),
    pytest.param(
        edit(
            "setup.cfg",
            "[metadata]\nname = calc\n\n[flake8]\nmax-line-length = 100\n",
            "[metadata]\nname = calculator\n\n[flake8]\nmax-line-length = 100\n",
        ),
        id="setup-cfg-metadata",
    ),
    pytest.param(
        edit("Cargo.toml", '[dependencies]\nserde = "1.0.1"\n', '[dependencies]\nserde = "1.0.2"\n'),
        id="cargo-dependency",
    ),
    pytest.param(
        edit("vite.config.ts", "export default { base: '/' };\n", "export default { base: '/app/' };\n"),
        id="vite-config-build",
    ),
    pytest.param(
        edit(
            "src/reader.py",
            "def read(r):\n    return r.read()\n",
            "def read(r):\n    r.skip(2)\n    return r.read()\n",
        ),
        id="skip-method-in-application-code",
    ),
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, CALC_TESTS.replace("add(2, 3) == 5", "add(3, 2) == 5"))},
        id="test-body-changed",
    ),
    pytest.param(
        edit(
            "tests/test_calc.py",
            "class TestA:\n    def test_x(self):\n        pass\n",
            "class TestA:\n    def test_x(self):\n        pass\n\n\n"
            "class TestB:\n    def test_x(self):\n        pass\n",
        ),
        id="same-name-in-two-classes",
    ),
    pytest.param(
        {"tests/test_calc.py": (CALC_TESTS, None), "tests/unit/test_calc.py": (None, CALC_TESTS)},
        id="test-moved-to-a-subfolder",
    ),
    pytest.param({"calc/calc_test.go": (GO_TEST, GO_TEST.replace("2, 3", "3, 2"))}, id="go-test-changed"),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("pub fn add", '#[cfg(feature = "std")]\npub fn add'))},
        id="rust-cfg-on-application-code",
    ),
    pytest.param(
        {"src/lib.rs": (RUST_LIB, RUST_LIB.replace("mod tests {", "#[cfg(test)]\nmod tests {"))},
        id="rust-cfg-test-added",
    ),
]


@pytest.mark.parametrize("files", ACCEPTED)
def test_accepted(files: Files) -> None:
    verdict = judge(files)
    assert verdict.ok, verdict.reasons


def test_without_the_files_a_setting_out_of_view_is_still_refused() -> None:
    """With only the diff (no reader), a changed line whose section the hunk does not show is refused when it
    reads like a tool setting, and passes when it does not."""
    changed = PYPROJECT.replace('filterwarnings = ["error"]', 'filterwarnings = ["ignore"]')
    verdict = judge_diff(diff_of({"pyproject.toml": (PYPROJECT, changed)}, context=0), max_lines=400)
    assert not verdict.ok and "section is not in view" in verdict.reasons[0]
    bumped = PYPROJECT.replace("requests>=2.31", "requests>=2.32")
    assert judge_diff(diff_of({"pyproject.toml": (PYPROJECT, bumped)}, context=0), max_lines=400).ok


def test_a_redefinition_far_from_the_original_is_found_with_the_file() -> None:
    filler = "".join(f"\n\ndef test_n{i}():\n    assert True\n" for i in range(20))
    old = CALC_TESTS + filler
    new = old + "\n\ndef test_add():\n    pass\n"
    assert not judge({"tests/test_calc.py": (old, new)}).ok
    assert judge({"tests/test_calc.py": (old, new)}, read=False).ok  # the hunks alone cannot see it


# -- allowed on purpose --------------------------------------------------------------------------------


def test_an_allowed_path_passes_and_is_named() -> None:
    files = {"pyproject.toml": (PYPROJECT, PYPROJECT.replace("ignore = []", 'ignore = ["E501"]'))}
    verdict = judge(files, allow=("pyproject.toml",))
    assert verdict.ok, verdict.reasons
    assert verdict.allowed == ("pyproject.toml",)
    assert judge(files, allow=("setup.cfg",)).allowed == ()


def test_allowing_a_path_never_lets_a_deleted_or_skipped_test_through() -> None:
    files = {
        "tests/test_calc.py": (
            CALC_TESTS,
            "import pytest\n" + CALC_TESTS.replace("def test_add", "@pytest.mark.skip\ndef test_add"),
        )
    }
    verdict = judge(files, allow=("tests/**",))
    assert not verdict.ok and "skip marker" in verdict.reasons[0]
    verdict = judge({"tests/test_calc.py": (CALC_TESTS, None)}, allow=("tests/**",))
    assert not verdict.ok


# -- what only git writes: renames, binary patches, attributes ---------------------------------------------


class Git:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str) -> str:
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        done = subprocess.run(["git", *args], cwd=self.path, env=env, capture_output=True, check=True)
        return done.stdout.decode("utf-8", "surrogateescape")

    def write(self, path: str, data: str | bytes) -> None:
        target = self.path / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.encode() if isinstance(data, str) else data)

    def commit(self) -> None:
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x")

    def staged(self) -> str:
        """What a heal judges: the staged change, as the checkout writes it."""
        self.git("add", "-A")
        return self.git("diff", "--cached", "--no-color", "--no-ext-diff", "--no-textconv", "--binary", "-M")


@pytest.fixture
def repo(tmp_path: Path) -> Git:
    return Git(tmp_path)


@pytest.mark.parametrize(
    ("old", "new", "why"),
    [
        pytest.param("tests/test_calc.py", "misc/calc.py", "does not collect it", id="git-mv-out-of-tests"),
        pytest.param("tests/test_calc.py", "tests/calc.py", "does not collect it", id="test-prefix-dropped"),
        pytest.param(
            "tests/test_calc.py", "misc/test_calc.py", "out of the test directories", id="out-of-tests"
        ),
        pytest.param(
            "calc/calc_test.go", "calc/calc_checks.go", "does not collect it", id="go-suffix-dropped"
        ),
        pytest.param(
            "calc/calc_test.go", "calc/calc_windows_test.go", "does not collect it", id="go-os-suffix"
        ),
        pytest.param(
            "calc/calc_test.go", "calc/testdata/calc_test.go", "does not collect it", id="go-testdata"
        ),
        pytest.param("src/calc.test.ts", "src/calc.ts", "does not collect it", id="jest-suffix-dropped"),
    ],
)
def test_a_test_file_moved_where_its_runner_does_not_collect_it(
    repo: Git, old: str, new: str, why: str
) -> None:
    content = (
        GO_TEST if old.endswith(".go") else CALC_TESTS if old.endswith(".py") else "it('adds', () => {});\n"
    )
    repo.write(old, content)
    repo.commit()
    (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
    repo.git("mv", old, new)
    verdict = judge_diff(repo.staged(), max_lines=400)
    assert not verdict.ok
    assert any(why in reason and f"`{old}`" in reason for reason in verdict.reasons), verdict.reasons


def test_a_twenty_mebibyte_binary_is_measured_in_bytes(repo: Git) -> None:
    repo.write("README.md", "calc\n")
    repo.commit()
    repo.write("assets/model.bin", os.urandom(20 * 1024 * 1024))
    verdict = judge_diff(repo.staged(), max_lines=400)
    assert not verdict.ok
    assert verdict.changed_lines == 0  # no text lines: the size is what counts
    assert any("20.0 MiB of binary content" in reason for reason in verdict.reasons), verdict.reasons
    assert judge_diff(repo.staged(), max_lines=400, allow=("assets/**",)).ok


def test_a_growing_binary_is_measured_from_its_delta(repo: Git) -> None:
    blob = os.urandom(3 * 1024 * 1024)
    repo.write("assets/data.bin", blob[: 1024 * 1024 - 10])
    repo.commit()
    repo.write("assets/data.bin", blob[: 1024 * 1024 - 10] + blob[-2 * 1024 * 1024 :])
    verdict = judge_diff(repo.staged(), max_lines=400)
    assert any("3.0 MiB of binary content" in reason for reason in verdict.reasons), verdict.reasons


def test_a_small_binary_passes(repo: Git) -> None:
    repo.write("README.md", "calc\n")
    repo.commit()
    repo.write("docs/logo.png", b"\x89PNG\r\n\x1a\n" + os.urandom(2048))
    assert judge_diff(repo.staged(), max_lines=400).ok


def test_a_text_file_hidden_as_binary_is_seen_through_a_delta_patch(repo: Git) -> None:
    """A large text file with a small change gets a `delta` patch, which holds no content: the guard reads the
    staged file, as a heal does."""
    settings = "".join(f"option_{i} = {i}\n" for i in range(2000))
    repo.write(".gitattributes", "settings.conf binary\n")
    repo.write("settings.conf", settings)
    repo.commit()
    repo.write("settings.conf", settings.replace("option_7 = 7", "option_7 = 8"))
    diff = repo.staged()
    assert "\ndelta " in diff

    def read(path: str, new: bool) -> str | None:
        return repo.git("show", f"{':' if new else 'HEAD:'}{path}")

    verdict = judge_diff(diff, max_lines=400, read=read)
    assert any("shows as binary although it is text" in reason for reason in verdict.reasons), verdict.reasons
    assert judge_diff(diff, max_lines=400).ok  # without the file, a delta cannot tell (a heal always reads)


@pytest.mark.parametrize("attribute", ["-diff", "binary"])
def test_an_attribute_that_hides_a_text_change_hides_nothing(repo: Git, attribute: str) -> None:
    """A `.gitattributes` already on the PR head marks a config file binary: its change is still refused."""
    repo.write(".gitattributes", f"settings.ini {attribute}\n")
    repo.write("settings.ini", "[tool]\nstrict = true\n")
    repo.commit()
    repo.write("settings.ini", "[tool]\nstrict = false\n")
    verdict = judge_diff(repo.staged(), max_lines=400)
    assert not verdict.ok
    assert any("shows as binary although it is text" in reason for reason in verdict.reasons), verdict.reasons
