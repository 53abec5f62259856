"""Rules for the families of failures the rule-free readings showed, on output in their tools' formats."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import diagnose_text
from healer.diagnosis.rules import load_rules

RULES = load_rules()


def _job_log(command: str, output: str) -> str:
    lines = [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += [*output.splitlines(), "##[error]Process completed with exit code 1."]
    return "".join(f"2026-03-04T05:06:07.{n:07d}Z {line}\n" for n, line in enumerate(lines))


@pytest.mark.parametrize(
    ("command", "output", "rule", "category", "shown"),
    [
        pytest.param(
            "bun test",
            "src/sum.test.ts:\nerror: expect(received).toBe(expected)\n\nExpected: 4\nReceived: 5\n"
            "(fail) sum > adds [0.31ms]\n\n 3 pass\n 1 fail\nRan 4 tests across 1 files. [12.00ms]",
            "js.bun-test-failed",
            "test",
            "(fail) sum > adds [0.31ms]",
            id="bun-test",
        ),
        pytest.param(
            "lhci autorun",
            "Checking assertions against 1 URL(s), 2 total run(s)\n\n"
            "1 result(s) for http://localhost:8080/ :\n\n"
            "  ✘  categories.performance failure for minScore assertion\n       expected: >=0.9\n"
            "          found: 0.81\n\nAssertion failed. Exiting with status code 1.",
            "js.lighthouse-assertion",
            "test",
            "categories.performance failure for minScore assertion",
            id="lighthouse",
        ),
        pytest.param(
            "vendor/bin/pint --test",
            "  ⨯ app/Models/User.php  unary_operator_spaces\n\n"
            "  FAIL   ........................................ 31 files, 1 style issue",
            "php.pint",
            "format",
            "31 files, 1 style issue",
            id="pint",
        ),
        pytest.param(
            "./gradlew lint",
            "> Task :app:lintDebug FAILED\nLint found 2 errors, 5 warnings. First failure:\n\n"
            "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
            "Execution failed for task ':app:lintDebug'.\n> Lint found errors in the project; aborting.",
            "jvm.gradle-lint-task-failed",
            "lint",
            "Execution failed for task ':app:lintDebug'.",
            id="gradle-lint-task",
        ),
        pytest.param(
            "./gradlew connectedCheck",
            "> Task :app:connectedDebugAndroidTest FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "* What went wrong:\nExecution failed for task ':app:connectedDebugAndroidTest'.\n"
            "> com.android.builder.testing.api.DeviceException: No online devices found.",
            "jvm.gradle-test-task-failed",
            "test",
            "Execution failed for task ':app:connectedDebugAndroidTest'.",
            id="gradle-test-task",
        ),
        pytest.param(
            "./gradlew assembleRelease",
            "> Task :app:validateSigningRelease FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "* What went wrong:\nExecution failed for task ':app:validateSigningRelease'.\n"
            "> Keystore file '/home/runner/work/app/release.jks' not found for signing config 'release'.",
            "android.signing-keystore",
            "config",
            "not found for signing config 'release'",
            id="android-keystore",
        ),
    ],
)
def test_a_family_rule_names_the_failure(
    command: str, output: str, rule: str, category: str, shown: str
) -> None:
    diagnosis = diagnose_text(_job_log(command, output), RULES)
    assert (diagnosis.rule, diagnosis.category.value) == (rule, category)
    assert any(shown in line for line in diagnosis.excerpt)
