"""The failure finder without rules: evidence by its shape, the first real failure, the rule-free excerpt.

The fixtures are written in the shapes real tools print (the facts of their output formats), not copied from
any corpus log.
"""

from __future__ import annotations

import pytest

from healer.diagnosis.finder import RULE_FREE_BYTES, RULE_FREE_LINES, find_evidence, rule_free_excerpt
from healer.diagnosis.shapes import read_line
from healer.model import Category


@pytest.mark.parametrize(
    ("line", "strength", "category"),
    [
        pytest.param("src/main.c:12:5: error: 'x' undeclared", 3, Category.BUILD, id="gcc"),
        pytest.param("error[E0425]: cannot find value `y` in this scope", 3, Category.BUILD, id="rustc"),
        pytest.param(
            "App.swift:9:3: error: use of unresolved identifier 'z'", 3, Category.BUILD, id="swiftc"
        ),
        pytest.param("[error] /w/src/A.scala:10:8: not found: object Foo", 3, Category.BUILD, id="sbt"),
        pytest.param("❌  /w/Source/A.swift:97:2: unknown attribute 'x'", 3, Category.BUILD, id="xcpretty"),
        pytest.param(
            "Program.cs(4,9): error CS0103: The name 'x' does not exist", 3, Category.BUILD, id="csc"
        ),
        pytest.param("CMake Error at CMakeLists.txt:4 (find_package):", 3, Category.BUILD, id="cmake"),
        pytest.param("        on line 7 of sass/x.sass", 3, Category.BUILD, id="sass"),
        pytest.param("not ok 3 - parses empty input", 3, Category.TEST, id="tap"),
        pytest.param("--- FAIL: TestParse (0.00s)", 3, Category.TEST, id="go-test"),
        pytest.param("  1) test adds numbers (MathTest)", 3, Category.TEST, id="exunit"),
        pytest.param("12 examples, 2 failures", 3, Category.TEST, id="rspec-summary"),
        pytest.param("Tests run: 9, Failures: 1, Errors: 0, Skipped: 0", 3, Category.TEST, id="surefire"),
        pytest.param(
            "t0001-init.sh ..... Dubious, test returned 1 (wstat 256, 0x100)", 3, Category.TEST, id="prove"
        ),
        pytest.param("mytest_SUITE:case failed on line 42", 3, Category.TEST, id="common-test"),
        pytest.param("    ✗ renders the header", 3, Category.TEST, id="cross-mark"),
        pytest.param("expected: 3 but was: 4", 3, Category.TEST, id="expected-actual"),
        pytest.param("lib/a.py:3:1: F401 'os' imported but unused", 3, Category.LINT, id="flake8"),
        pytest.param("README.md: 12: MD034/no-bare-urls Bare URL used", 3, Category.LINT, id="markdownlint"),
        pytest.param(
            " 13:2  ✖  Expected indentation of 2 spaces  indentation", 3, Category.LINT, id="stylelint"
        ),
        pytest.param(
            "** (Mix) mix format failed due to --check-formatted.", 3, Category.LINT, id="mix-format"
        ),
        pytest.param("Traceback (most recent call last):", 3, None, id="traceback"),
        pytest.param("thread 'main' panicked at 'boom', src/main.rs:2:5", 3, None, id="panic"),
        pytest.param('Exception in thread "main" java.lang.IllegalStateException', 3, None, id="jvm"),
        pytest.param("curl: (6) Could not resolve host: example.org", 3, Category.TRANSIENT, id="dns"),
        pytest.param("ERROR: No matching distribution found for nosuchpkg", 3, Category.DEPENDENCY, id="pip"),
        pytest.param("Package required but not available: 'zoo'", 3, Category.DEPENDENCY, id="r-package"),
        pytest.param("./ci/run.sh: line 3: swiftlint: command not found", 3, Category.CONFIG, id="not-found"),
        pytest.param(
            "docs/guide.md:218: Line longer than 80 characters.", 3, Category.LINT, id="line-length"
        ),
        pytest.param("src/app.py:4:1: trailing whitespace", 3, Category.LINT, id="trailing-whitespace"),
        pytest.param("  Package size limit has exceeded by 4.72 KB", 3, Category.TEST, id="size-limit"),
        pytest.param(
            "Error: bundle initial exceeded maximum budget. Budget 500.00 kB was not met by 1.20 MB.",
            3,
            Category.TEST,
            id="ng-budget",
        ),
        pytest.param(
            "cabal: Couldn't establish HTTP connection. Possible cause: HTTP proxy server is down.",
            3,
            Category.TRANSIENT,
            id="cabal-http",
        ),
        pytest.param(
            'docker: Error response from daemon: failed to create task: exec: "pytest": executable file'
            " not found in $PATH: unknown.",
            3,
            Category.CONFIG,
            id="docker-exec",
        ),
        pytest.param(
            'invalid argument ":latest" for "-t, --tag" flag: invalid reference format',
            3,
            Category.CONFIG,
            id="docker-tag",
        ),
        pytest.param(
            "fatal: Remote branch feature/x not found in upstream origin", 3, Category.CONFIG, id="git-branch"
        ),
        pytest.param("The build failed. Fix the build errors and run again.", 3, Category.BUILD, id="dotnet"),
        pytest.param(
            "[warn] Code style issues found in 2 files. Run Prettier with --write to fix.",
            3,
            Category.FORMAT,
            id="prettier",
        ),
        pytest.param(
            "  × Formatter would have printed the following content:", 3, Category.FORMAT, id="biome"
        ),
        pytest.param("go: updates to go.mod needed; to update it:", 3, Category.FORMAT, id="go-mod"),
        pytest.param("(fail) parser > rejects empty input [0.31ms]", 3, Category.TEST, id="bun-test"),
        pytest.param(" Test Files  1 failed | 12 passed (13)", 3, Category.TEST, id="vitest-summary"),
        pytest.param(
            "Failed!  - Failed:     1, Passed:    41, Skipped:     0, Total:    42, Duration: 3 s",
            3,
            Category.TEST,
            id="dotnet-test",
        ),
        pytest.param(
            "svelte-check found 2 errors and 0 warnings in 1 file", 3, Category.TYPECHECK, id="svelte-check"
        ),
        pytest.param("> Task :app:lintDebug FAILED", 3, Category.LINT, id="gradle-lint-task"),
        pytest.param("Lint found 3 errors, 12 warnings. First failure:", 3, Category.LINT, id="android-lint"),
        pytest.param(
            "  error • Undefined name 'count' • lib/main.dart:12:5 • undefined_identifier",
            3,
            Category.LINT,
            id="dart-analyze",
        ),
        pytest.param(
            'ERROR: failed to solve: process "/bin/sh -c npm ci" did not complete successfully: exit code: 1',
            3,
            Category.BUILD,
            id="buildkit",
        ),
        pytest.param(
            "Your requirements could not be resolved to an installable set of packages.",
            3,
            Category.DEPENDENCY,
            id="composer",
        ),
        pytest.param(
            "Keystore file '/src/app/release.jks' not found for signing config 'release'.",
            3,
            Category.CONFIG,
            id="keystore",
        ),
        pytest.param(
            "dependency failed to start: container web-db-1 is unhealthy", 3, None, id="health-check"
        ),
        pytest.param(" Tests  14 passed (14)", 0, None, id="vitest-passed"),
        pytest.param("fatal: not a git repository", 2, None, id="git-fatal"),
        pytest.param("Error: something broke", 2, None, id="error-word"),
        pytest.param("[WARN] deprecated option --foo", 0, None, id="warn"),
        pytest.param("warning: unused variable `x`", 0, None, id="warning"),
        pytest.param("0 errors, 0 failures", 0, None, id="zero-failed"),
        pytest.param("test_error_handling ... ok", 0, None, id="passing-test-named-error"),
        pytest.param("gcc -Werror -c errors.c", 0, None, id="flags-and-file-names"),
        pytest.param("+ test -f /tmp/failed", 0, None, id="shell-trace"),
        pytest.param("[12:00] t1.sh ....... skipped: no cvs", 0, None, id="skipped"),
        pytest.param("Downloading error-stack-parser-2.0.6.tgz", 0, None, id="download"),
        pytest.param("just an ordinary line of output", 0, None, id="plain"),
    ],
)
def test_a_line_is_read_by_its_shape(line: str, strength: int, category: Category | None) -> None:
    assert read_line(line) == (strength, category)


def test_ansi_and_redraws_do_not_hide_evidence() -> None:
    # the log model strips ANSI and splits \r redraws into lines; the finder sees the tool's own line
    from healer.diagnosis.logs import parse_log

    log = parse_log("progress 10%\rprogress 90%\r\x1b[31mERROR: \x1b[0mbuild broke at step 3\n")
    found = find_evidence(log.lines, range(len(log.lines)))
    assert found.first is not None
    assert log.lines[found.first] == "ERROR: build broke at step 3"


def test_a_step_full_of_warnings_leads_with_its_error() -> None:
    lines = [f"[WARN] option {n} is deprecated" for n in range(300)]
    lines[150] = "Error: Cannot find module 'left-pad'"
    lines.append("Process exited with code 1")
    found = find_evidence(lines, range(len(lines)))
    assert found.first == 150
    chosen, decisive = rule_free_excerpt(lines, found, list(range(len(lines))))
    assert 150 in chosen and decisive[0] == 150
    # the error's own window and the step's end, not a budget spent on warnings
    assert len(chosen) < 30


def test_the_first_real_failure_comes_before_the_summary() -> None:
    lines = [
        "running 3 tests",
        "test a ... ok",
        "---- tests::b stdout ----",
        "thread 'tests::b' panicked at 'assertion failed: x == 2', src/lib.rs:8:9",
        "note: run with `RUST_BACKTRACE=1`",
        *[f"filler {n}" for n in range(200)],
        "test result: FAILED. 2 passed; 1 failed; 0 ignored",
    ]
    found = find_evidence(lines, range(len(lines)))
    assert found.first == 3
    chosen, decisive = rule_free_excerpt(lines, found, list(range(len(lines))))
    assert decisive[:2] == [3, len(lines) - 1]
    assert 3 in chosen and len(lines) - 1 in chosen


def test_the_rule_free_excerpt_spends_its_budget_and_keeps_to_it() -> None:
    lines = [f"src/m{n}.c:{n}:1: error: something about line {n} is wrong here" for n in range(2000)]
    found = find_evidence(lines, range(len(lines)))
    chosen, _ = rule_free_excerpt(lines, found, list(range(len(lines))))
    size = sum(len(lines[i]) + 1 for i in chosen)
    gaps = sum(1 for a, b in zip(chosen, chosen[1:], strict=False) if b != a + 1)
    assert size <= RULE_FREE_BYTES and len(chosen) + gaps <= RULE_FREE_LINES
    assert size > 4 * 1024  # more than a rule excerpt's 1.5 KiB: no rule said which lines decide


def test_weak_evidence_alone_points_at_the_end() -> None:
    lines = ["could not open the optional cache", *["ok"] * 50, "the frobnicator did not finish"]
    found = find_evidence(lines, range(len(lines)))
    assert found.first == len(lines) - 1


def test_nothing_to_find_is_none() -> None:
    lines = ["building", "done"]
    found = find_evidence(lines, range(len(lines)))
    assert found.first is None and not found.evidence
