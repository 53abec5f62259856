"""classify(): real tool output, laid out the way the runner writes a job log, to the right category."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.diagnosis.classify import MAX_EXCERPT_BYTES, MAX_EXCERPT_LINES, classify, diagnose_text
from healer.diagnosis.rules import load_rules
from healer.model import Action, Annotation, Category, Evidence, Job, LogTail, Owner, Step
from tests.joblogs import diagnose_log
from tests.joblogs import job_log as api_log

RULES = load_rules()

SETUP = """2024-05-01T10:00:00.0000000Z Current runner version: '2.317.0'
2024-05-01T10:00:00.0100000Z Runner name: 'GitHub Actions 7'
2024-05-01T10:00:00.0200000Z ##[group]Operating System
2024-05-01T10:00:00.0300000Z Ubuntu
2024-05-01T10:00:00.0400000Z ##[endgroup]
2024-05-01T10:00:00.0500000Z Prepare workflow directory
2024-05-01T10:00:00.0600000Z ##[group]Run actions/checkout@v4
2024-05-01T10:00:00.0700000Z with:
2024-05-01T10:00:00.0800000Z   repository: octo/app
2024-05-01T10:00:00.0900000Z ##[endgroup]
2024-05-01T10:00:01.0000000Z Syncing repository: octo/app
"""


def job_log(command: str, output: str, exit_code: int | None = 1) -> str:
    """A job log in the runner's layout: setup, a checkout step, then ``command`` failing with ``output``."""
    stamp = "2024-05-01T10:00:02.0000000Z "
    lines = [f"##[group]Run {command.splitlines()[0]}"]
    lines += [f"\x1b[36;1m{part}\x1b[0m" for part in command.splitlines()]
    lines += ["shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += output.strip("\n").splitlines()
    if exit_code is not None:
        lines.append(f"##[error]Process completed with exit code {exit_code}.")
    lines += ["Post job cleanup.", "[command]/usr/bin/git version", "Cleaning up orphan processes"]
    return SETUP + "".join(f"{stamp}{line}\n" for line in lines)


def _tool_output_cases() -> list[object]:
    cases = yaml.safe_load(
        (Path(__file__).parent.parent / "fixtures" / "tool-output.yml").read_text(encoding="utf-8")
    )
    return [
        pytest.param(
            case["command"].rstrip("\n"),
            case["output"],
            Category(case["category"]),
            case["key"],
            id=case["id"],
        )
        for case in cases
    ]


CASES = _tool_output_cases()


@pytest.mark.parametrize(("command", "output", "category", "key"), CASES)
def test_tool_output_is_classified(command: str, output: str, category: Category, key: str) -> None:
    diagnosis = diagnose_text(job_log(command, output), RULES)
    assert diagnosis.category is category, diagnosis
    assert any(key in line for line in diagnosis.excerpt), diagnosis.excerpt
    assert any(key in line for line in diagnosis.decisive), diagnosis.decisive
    assert diagnosis.command == command
    assert diagnosis.exit_code == 1
    assert all("Process completed with exit code" not in line for line in diagnosis.decisive)


@pytest.mark.parametrize(
    ("command", "output", "commands"),
    [
        pytest.param(
            "ruff check .",
            "a.py:1:8: F401 [*] `os` imported but unused\nFound 1 error.",
            ("ruff check --fix {files}",),
            id="ruff",
        ),
        pytest.param(
            "ruff format --check .",
            "unformatted: File would be reformatted\n --> a.py:4:12\n  |\n\n"
            "1 file would be reformatted, 3 files already formatted",
            ("ruff format {files}",),
            id="ruff-format",
        ),
        pytest.param(
            "ruff format --check .",
            "Would reformat: a.py\n1 file would be reformatted, 3 files already formatted",
            ("ruff format {files}",),
            id="ruff-format-older",
        ),
        pytest.param(
            "make format-check",
            "Would reformat: a.py\n1 file would be reformatted",
            ("ruff format {files}",),
            id="ruff-format-under-make",
        ),
        pytest.param(
            "black --check .",
            "would reformat a.py\nOh no! 💥 💔 💥\n1 file would be reformatted.",
            ("black {files}",),
            id="black",
        ),
        pytest.param(
            "isort --check .",
            "ERROR: /w/a.py Imports are incorrectly sorted and/or formatted.",
            ("isort {files}",),
            id="isort",
        ),
        pytest.param(
            "npx prettier --check .",
            "[warn] src/a.js\n"
            "[warn] Code style issues found in the above file. Run Prettier with --write to fix.",
            ("npx --no-install prettier --write {files}",),
            id="prettier",
        ),
        pytest.param("codespell", "docs/a.md:3: teh ==> the", ("codespell -w {files}",), id="codespell"),
        pytest.param(
            "cargo fmt --check",
            "Diff in /w/src/lib.rs:1:\n-fn a(){}",
            ("rustfmt --edition {edition} {files}",),
            id="cargo-fmt",
        ),
        pytest.param("gofmt -l .", "main.go", ("gofmt -w {files}",), id="gofmt"),
        pytest.param(
            "./check.sh",
            "ERROR: go.mod/go.sum are not up-to-date. Run 'go mod tidy' and then commit the updated files.",
            ("go mod tidy",),
            id="go-mod-tidy",
        ),
        pytest.param("zig fmt --check .", "src/main.zig", ("zig fmt {files}",), id="zig-fmt"),
        pytest.param(
            "mix format --check-formatted",
            "** (Mix) mix format failed due to --check-formatted.",
            ("mix format {files}",),
            id="mix-format",
        ),
        pytest.param("stylua --check .", "Diff in src/a.lua:", ("stylua {files}",), id="stylua"),
        pytest.param(
            "buildifier -mode=check -r .", "BUILD.bazel # reformat", ("buildifier {files}",), id="buildifier"
        ),
        pytest.param(
            "sbt scalafmtCheckAll",
            "[error] (Compile / scalafmtCheck) 1 files must be formatted",
            ("sbt scalafmtAll scalafmtSbt",),
            id="scalafmt",
        ),
    ],
)
def test_safe_autofixes_are_fix_actions(command: str, output: str, commands: tuple[str, ...]) -> None:
    diagnosis = diagnose_text(job_log(command, output), RULES)
    assert diagnosis.action is Action.FIX
    assert diagnosis.fix_commands == commands


def test_a_formatter_without_a_whole_tree_command_goes_to_the_agent() -> None:
    # ormolu and fourmolu take file names only, and fix commands run without a shell
    diagnosis = diagnose_text(job_log("ormolu --mode check src/Foo.hs", "src/Foo.hs\n@@ -1,1 +1,1 @@"), RULES)
    assert (diagnosis.category, diagnosis.action, diagnosis.fix_commands) == (
        Category.FORMAT,
        Action.AGENT,
        (),
    )


def test_lint_without_a_safe_autofix_goes_to_the_agent() -> None:
    output = "B006 Do not use mutable data structures for argument defaults\n --> a.py:2:9\nFound 1 error."
    diagnosis = diagnose_text(job_log("ruff check .", output), RULES)
    assert (diagnosis.category, diagnosis.action, diagnosis.fix_commands) == (Category.LINT, Action.AGENT, ())


RUNNER_CASES = [
    pytest.param(
        "##[error]The runner has received a shutdown signal. This can happen when the runner service is "
        "stopped, or a manually started runner is canceled.",
        Category.INFRASTRUCTURE,
        id="shutdown-signal",
    ),
    pytest.param(
        "##[error]The hosted runner: GitHub Actions 12 lost communication with the server. Anything in your "
        "workflow that terminates the runner process, starves it for CPU/Memory, or blocks its network "
        "access can cause this error.",
        Category.INFRASTRUCTURE,
        id="lost-communication",
    ),
    pytest.param("##[error]The operation was canceled.", Category.CANCELLED, id="cancelled"),
    pytest.param(
        '##[error]The job was canceled because "test (3.12)" failed.', Category.CANCELLED, id="fail-fast"
    ),
    pytest.param(
        '##[error]The strategy configuration was canceled because "test.ubuntu-latest_3_11" failed',
        Category.CANCELLED,
        id="fail-fast-of-a-matrix",
    ),
    pytest.param(
        "##[error]The job running on runner GitHub Actions 2 has exceeded the maximum execution time of "
        "360 minutes.",
        Category.TIMEOUT,
        id="job-timeout",
    ),
    pytest.param(
        "##[error]The action 'Run tests' has timed out after 10 minutes.", Category.TIMEOUT, id="step-timeout"
    ),
    pytest.param(
        "##[error]The job has exceeded the maximum execution time of 1h30m0s",
        Category.TIMEOUT,
        id="job-timeout-as-duration",
    ),
]


@pytest.mark.parametrize(("runner_line", "category"), RUNNER_CASES)
def test_the_runners_own_errors(runner_line: str, category: Category) -> None:
    log = job_log("python -m pytest", f"tests/test_a.py ....\n{runner_line}", exit_code=None)
    diagnosis = diagnose_text(log, RULES)
    assert diagnosis.category is category
    assert runner_line in diagnosis.decisive
    assert diagnosis.step == "Run python -m pytest"


def test_a_timeout_beats_the_cancellation_that_follows_it() -> None:
    output = (
        "##[error]The action 'Run tests' has timed out after 10 minutes.\n"
        "##[error]The operation was canceled."
    )
    assert diagnose_text(job_log("pytest", output, exit_code=None), RULES).category is Category.TIMEOUT


def test_the_runners_own_full_disk_beats_the_cancellation_that_follows_it() -> None:
    # the runner's .NET exception writing its _diag log, then its cancellation of the job: the machine's disk
    output = (
        "#41 13.55   Downloading numpy-2.2.1-cp312-cp312-manylinux_2_17_aarch64.whl (14.1 MB)\n"
        "##[error]System.IO.IOException: No space left on device : "
        "'/home/runner/runners/2.321.0/_diag/Worker_20261112-081233-utc.log'\n"
        "   at System.IO.Strategies.BufferedFileStreamStrategy.FlushWrite()\n"
        "##[error]The operation was canceled."
    )
    diagnosis = diagnose_text(job_log("docker buildx build .", output, exit_code=None), RULES)
    assert (diagnosis.rule, diagnosis.action) == ("runner.disk-full", Action.RERUN)


def test_the_nunit_console_runners_failure_is_a_test_failure_for_the_agent() -> None:
    output = [
        "Errors, Failures and Warnings",
        "",
        "1) Failed : Lanyard.Tests.KnotTableTests.BowlineRetainsSeventyPercent",
        "  Expected: 0.70d +/- 0.01d",
        "  But was:  0.62d",
        "Test Run Summary",
        "  Overall result: Failed",
        "  Test Count: 88, Passed: 87, Failed: 1, Warnings: 0, Inconclusive: 0, Skipped: 0",
    ]
    command = "mono ./packages/NUnit.ConsoleRunner.3.12.0/tools/nunit3-console.exe ./Lanyard.Tests.dll"
    diagnosis = diagnose_text(job_log(command, "\n".join(output)), RULES)
    assert (diagnosis.rule, diagnosis.action) == ("dotnet.test-failed", Action.AGENT)


def test_doxygen_warnings_a_job_makes_fatal_are_the_codes_documentation() -> None:
    output = (
        "/home/runner/work/coilgen/coilgen/include/coilgen/coil.hpp:44: warning: argument 'turns' of command "
        "@param is not found in the argument list of coilgen::Coil::inductance(double r, int n) const"
    )
    command = "doxygen Doxyfile 2>&1 | tee doxygen.log && ! grep -q warning doxygen.log"
    diagnosis = diagnose_text(job_log(command, output), RULES)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "lint.doxygen-warnings",
        Owner.CODE,
        Action.AGENT,
    )


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # a passing test whose name says a token is missing, then the test that failed
        (
            "./gradlew test",
            "JournalBufferTest > closes shard when token is missing() PASSED\n"
            "DurationParserTest > parses seconds() FAILED\n"
            "    java.lang.IllegalArgumentException at DurationParserTest.java:31\n"
            "3 tests completed, 1 failed",
        ),
        # a compiler's warning that names a module of the code
        (
            "mix compile --warnings-as-errors",
            "    warning: Wattle.Tokens.verify!/2 is undefined or private. Did you mean:\n"
            "    └─ lib/wattle/plug/auth.ex:25:19: Wattle.Plug.Auth.call/2\n"
            "Compilation failed due to warnings while using the --warnings-as-errors option",
        ),
        # the text a widget test expected, quoted in its failure
        (
            "flutter test",
            "══╡ EXCEPTION CAUGHT BY FLUTTER TEST FRAMEWORK ╞══\n"
            "Expected: exactly one matching candidate\n"
            '  Actual: _TextWidgetFinder:<Found 0 widgets with text "Password is required": []>\n'
            "00:03 +11 -1: Some tests failed.",
        ),
    ],
)
def test_a_tests_own_words_of_a_missing_secret_are_not_the_repositorys(command: str, output: str) -> None:
    diagnosis = diagnose_text(job_log(command, output), RULES)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert diagnosis.rule != "config.missing-input"


def test_a_cancelled_job_is_ignored() -> None:
    job = Job(id=1, name="test", status="completed", conclusion="cancelled")
    diagnosis = classify(
        Evidence(job=job, log=LogTail(job_log("pytest", "F\n1 failed in 0.1s"), 10, False)), RULES
    )
    assert (diagnosis.category, diagnosis.action) == (Category.CANCELLED, Action.IGNORE)


def test_a_timed_out_job_is_a_timeout_even_without_the_runners_line() -> None:
    job = Job(id=1, name="test", status="completed", conclusion="timed_out")
    diagnosis = classify(
        Evidence(job=job, log=LogTail(job_log("pytest", "....", exit_code=None), 10, False)), RULES
    )
    assert diagnosis.category is Category.TIMEOUT


def test_a_log_that_stops_mid_step_lost_its_runner() -> None:
    compiling = ["   Compiling serde v1.0.217", "   Compiling tokio v1.43.0", "error: could not compile"]
    diagnosis = diagnose_log(api_log("cargo build --release", compiling, exit_code=None))
    assert (diagnosis.category, diagnosis.rule) == (Category.INFRASTRUCTURE, "runner.log-cut-off")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
    assert "error: could not compile" in "\n".join(diagnosis.excerpt)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(api_log("cargo build", ["   Compiling serde v1.0.217"]), id="the-step-ended"),
        pytest.param(
            api_log("cargo build", ["   Compiling serde v1.0.217"], exit_code=None, cleanup=True),
            id="the-job-ended",
        ),
        pytest.param(
            # a composite action's header the runner never closed: its exit line is still the step's end
            api_log("pre-commit run --all-files", ["##[group]Run pre-commit run", "ruff....Failed"]),
            id="an-unclosed-header",
        ),
        pytest.param("cargo build\n   Compiling serde v1.0.217\n", id="not-an-actions-log"),
    ],
)
def test_a_log_with_its_end_in_view_was_not_cut_off(text: str) -> None:
    assert diagnose_log(text).rule != "runner.log-cut-off"


def test_a_cut_off_log_of_a_cancelled_job_stays_cancelled() -> None:
    job = Job(id=1, name="test", status="completed", conclusion="cancelled")
    text = api_log("pytest", "tests/test_a.py ..", exit_code=None)
    diagnosis = classify(Evidence(job=job, log=LogTail(text, len(text), False)), RULES)
    assert diagnosis.category is Category.CANCELLED


def test_startup_failure_is_infrastructure_even_without_a_log() -> None:
    job = Job(id=1, name="test", status="completed", conclusion="startup_failure")
    diagnosis = classify(Evidence(job=job, log=None), RULES)
    assert (diagnosis.category, diagnosis.action) == (Category.INFRASTRUCTURE, Action.RERUN)


def test_a_failure_in_set_up_job_is_infrastructure() -> None:
    log = SETUP.split("2024-05-01T10:00:00.0600000Z ##[group]Run")[0] + (
        "2024-05-01T10:00:00.0700000Z ##[error]Could not find any hosted runner image matching the label\n"
    )
    diagnosis = diagnose_text(log, RULES)
    assert diagnosis.category is Category.INFRASTRUCTURE
    assert diagnosis.step == "Set up job"
    assert any("hosted runner image" in line for line in diagnosis.decisive)


def test_a_job_whose_steps_never_ran_is_infrastructure() -> None:
    steps = (
        Step(1, "Set up job", "completed", "success"),
        Step(2, "Run tests", "completed", "skipped"),
        Step(3, "Complete job", "completed", "success"),
    )
    job = Job(id=1, name="test", status="completed", conclusion="failure", steps=steps)
    diagnosis = classify(Evidence(job=job, log=None), RULES)
    assert diagnosis.category is Category.INFRASTRUCTURE


def test_the_step_name_comes_from_the_job_when_known() -> None:
    steps = (Step(1, "Set up job", "completed", "success"), Step(2, "Unit tests", "completed", "failure"))
    job = Job(id=1, name="test", status="completed", conclusion="failure", steps=steps)
    log = LogTail(job_log("pytest", "FAILED tests/a.py::t - boom\n1 failed in 0.1s"), 10, False)
    diagnosis = classify(Evidence(job=job, log=log), RULES)
    assert (diagnosis.step, diagnosis.job, diagnosis.category) == ("Unit tests", "test", Category.TEST)


def test_annotations_are_evidence_when_the_log_is_missing() -> None:
    job = Job(id=1, name="types", status="completed", conclusion="failure")
    notes = (
        Annotation(".github", 0, "failure", "Process completed with exit code 2."),
        Annotation("src/a.ts", 3, "failure", "error TS2339: Property 'b' does not exist on type 'P'."),
    )
    diagnosis = classify(Evidence(job=job, log=None, annotations=notes), RULES)
    assert diagnosis.category is Category.TYPECHECK
    assert any("src/a.ts:3" in line for line in diagnosis.decisive)


def test_nothing_matched_is_unknown_with_the_end_of_the_step() -> None:
    output = "\n".join(f"step {n} of the frobnicator" for n in range(100)) + "\nfrobnicator gave up"
    diagnosis = diagnose_text(job_log("./frobnicate", output, exit_code=3), RULES)
    # nothing says whose it is, and nothing says the step checks the code: a person reads it, not the agent
    assert (diagnosis.category, diagnosis.action, diagnosis.rule) == (
        Category.UNKNOWN,
        Action.ESCALATE,
        "none",
    )
    assert diagnosis.owner is Owner.UNKNOWN
    # the same failure in a job that checks the code is the code's: the agent reads it
    tested = diagnose_text(job_log("./frobnicate", output, exit_code=3), RULES, job="unit-tests")
    assert (tested.owner, tested.action) == (Owner.CODE, Action.AGENT)
    assert "frobnicator gave up" in diagnosis.excerpt
    assert "step 99 of the frobnicator" in diagnosis.excerpt
    assert "step 0 of the frobnicator" not in diagnosis.excerpt
    assert diagnosis.exit_code == 3


def test_the_exit_code_line_is_decisive_only_when_nothing_better_exists() -> None:
    diagnosis = diagnose_text(job_log("./run.sh", "starting", exit_code=127), RULES)
    assert diagnosis.category is Category.CONFIG
    assert diagnosis.decisive == ("##[error]Process completed with exit code 127.",)


def test_the_excerpt_stays_small_when_every_line_matches() -> None:
    output = "\n".join(f"tests/test_{n}.py::test_{n} FAILED" + " x" * 300 for n in range(2000))
    diagnosis = diagnose_text(job_log("pytest", output), RULES)
    assert diagnosis.category is Category.TEST
    assert len(diagnosis.excerpt) <= MAX_EXCERPT_LINES
    assert len("\n".join(diagnosis.excerpt).encode()) <= MAX_EXCERPT_BYTES
    assert set(diagnosis.decisive) <= set(diagnosis.excerpt)


def test_a_log_without_runner_markers_still_works() -> None:
    diagnosis = diagnose_text("collected 2 items\nFAILED tests/a.py::t - boom\n1 failed in 0.1s\n", RULES)
    assert (diagnosis.category, diagnosis.step, diagnosis.exit_code) == (Category.TEST, None, None)


def test_a_repository_rule_comes_first() -> None:
    rules = load_rules(
        [{"id": "acme.flaky", "category": "transient", "confidence": 0.3, "match": "test_flaky_upload"}]
    )
    log = job_log("pytest", "FAILED tests/a.py::test_flaky_upload - OSError\n1 failed in 1s")
    diagnosis = diagnose_text(log, rules)
    assert (diagnosis.rule, diagnosis.category, diagnosis.action) == (
        "acme.flaky",
        Category.TRANSIENT,
        Action.RERUN,
    )


def test_a_job_condition_uses_the_check_name() -> None:
    rules = load_rules([{"id": "acme.e2e", "category": "transient", "job": "^e2e", "match": "FAILED"}])
    log = job_log("pytest", "FAILED tests/a.py::t - boom")
    assert diagnose_text(log, rules, job="e2e (chrome)").rule == "acme.e2e"
    assert diagnose_text(log, rules, job="unit").rule == "python.pytest-failed"


@settings(max_examples=150, deadline=None)
@given(
    st.text(max_size=3000), st.sampled_from([None, "cancelled", "timed_out", "failure", "startup_failure"])
)
def test_classify_never_raises(text: str, conclusion: str | None) -> None:
    job = Job(id=1, name="j", status="completed", conclusion=conclusion)
    diagnosis = classify(Evidence(job=job, log=LogTail(text, len(text), False)), RULES)
    assert len(diagnosis.excerpt) <= MAX_EXCERPT_LINES
    assert 0.0 <= diagnosis.confidence <= 1.0


def test_a_log_saved_by_gh_run_view_is_read_like_the_runners_own() -> None:
    """``gh run view --log`` puts the job's and the step's names, tab-separated, before each timestamp."""
    raw = job_log("./gradlew build", "> Task :app:test FAILED\n3 tests completed, 1 failed")
    saved = "".join(f"build\tRun ./gradlew build\t{line}\n" for line in raw.splitlines())
    diagnosis = diagnose_text(saved, RULES)
    assert diagnosis.category is Category.TEST
    assert diagnosis.command == "./gradlew build"
    assert diagnosis.exit_code == 1
    assert not any("\t" in line for line in diagnosis.excerpt)


@pytest.mark.parametrize(
    ("verdict", "category"),
    [
        pytest.param("", Category.INFRASTRUCTURE, id="hook-error-alone"),
        pytest.param(
            "##[error]Step script exited with code 1. This is a script/workflow error, not an "
            "infrastructure issue.\n",
            Category.UNKNOWN,
            id="hook-says-the-script-failed",
        ),
    ],
)
def test_a_container_hooks_error_is_a_cause_only_alone(verdict: str, category: Category) -> None:
    hook = "##[error]Executing the custom container implementation failed. Please contact your administrator."
    diagnosis = diagnose_text(job_log("./tools/frobnicate", f"frobnicator gave up\n{verdict}{hook}"), RULES)
    assert diagnosis.category is category
    assert diagnosis.rule != "runner.container-failed"


def test_failing_tests_are_read_from_the_failing_step_only() -> None:
    # An earlier step that carried on after its own failures (continue-on-error) printed other test names;
    # only the step that failed the job decides which tests failed.
    log = "\n".join(
        [
            "2024-01-01T00:00:00.0000000Z ##[group]Run pytest tests/flaky_suite",
            "2024-01-01T00:00:00.0000000Z pytest tests/flaky_suite",
            "2024-01-01T00:00:00.0000000Z ##[endgroup]",
            "2024-01-01T00:00:01.0000000Z FAILED tests/flaky_suite/test_net.py::test_download - OSError",
            "2024-01-01T00:00:01.0000000Z 1 failed in 0.10s",
            "2024-01-01T00:00:02.0000000Z ##[group]Run pytest tests/unit",
            "2024-01-01T00:00:02.0000000Z pytest tests/unit",
            "2024-01-01T00:00:02.0000000Z ##[endgroup]",
            "2024-01-01T00:00:03.0000000Z FAILED tests/unit/test_calc.py::test_add - assert 3 == 4",
            "2024-01-01T00:00:03.0000000Z 1 failed in 0.10s",
            "2024-01-01T00:00:03.0000000Z ##[error]Process completed with exit code 1.",
        ]
    )
    diagnosis = diagnose_text(log, RULES)
    assert diagnosis.test_ids == ("tests/unit/test_calc.py::test_add",)
