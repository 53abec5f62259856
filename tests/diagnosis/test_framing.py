"""Logs of other CIs: where the failing command's output is (:mod:`healer.diagnosis.framing`), and each CI's
own runner messages (a time limit, a lost agent, a system failure, a cancellation), read from plain logs
copied from them, with no job name."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import diagnose_text
from healer.diagnosis.logs import clean_line, parse_log
from healer.diagnosis.rules import load_rules
from healer.model import Action, Category, Owner

RULES = load_rules()

PYTEST_FAILED = [
    "=================================== FAILURES ===================================",
    "    def test_parse_date():",
    '>       assert parse_date("2024-01-02") == date(2024, 1, 3)',
    "E       AssertionError: assert datetime.date(2024, 1, 2) == datetime.date(2024, 1, 3)",
    "tests/test_core.py:14: AssertionError",
    "FAILED tests/test_core.py::test_parse_date - AssertionError",
    "========================= 1 failed, 11 passed in 0.42s =========================",
]


def gitlab_log(script: list[str], after_script: list[str] | None = None, code: int = 1) -> str:
    """A GitLab CI job log as the runner writes it: sections, the echoed commands, the closing error."""
    lines = [
        "\x1b[0KRunning with gitlab-runner 16.5.0 (853330f9)\x1b[0;m",
        "section_start:1700000000:prepare_executor\r\x1b[0K\x1b[36;1mPreparing the docker executor\x1b[0;m",
        "section_end:1700000001:prepare_executor\r\x1b[0K",
        "section_start:1700000004:step_script\r\x1b[0K\x1b[36;1mExecuting step_script stage\x1b[0;m",
        *script,
        "section_end:1700000100:step_script\r\x1b[0K",
    ]
    if after_script is not None:
        lines += [
            "section_start:1700000100:after_script\r\x1b[0K\x1b[36;1mRunning after_script\x1b[0;m",
            "\x1b[32;1mRunning after script...\x1b[0;m",
            *after_script,
            "section_end:1700000101:after_script\r\x1b[0K",
        ]
    lines.append(f"\x1b[31;1mERROR: Job failed: exit code {code}\x1b[0;m")
    return "\n".join(lines) + "\n"


def test_gitlab_after_script_commands_are_not_the_failing_command() -> None:
    text = gitlab_log(
        ["\x1b[32;1m$ pytest\x1b[0;m", *PYTEST_FAILED],
        [
            "\x1b[32;1m$ curl -sSf -T report.xml https://uploads.example.com\x1b[0;m",
            "curl: (6) Could not resolve host: uploads.example.com",
        ],
    )
    log = parse_log(text)
    assert log.command == "pytest" and log.exit_code == 1
    diagnosis = diagnose_text(text, RULES)
    assert diagnosis.category is Category.TEST and diagnosis.owner is Owner.CODE
    assert not any("Could not resolve host" in line for line in diagnosis.excerpt)


def test_gitlab_without_after_script_keeps_the_last_command() -> None:
    text = gitlab_log(
        ["\x1b[32;1m$ pip install -e .\x1b[0;m", "ok", "\x1b[32;1m$ pytest\x1b[0;m", *PYTEST_FAILED]
    )
    assert parse_log(text).command == "pytest"


@pytest.mark.parametrize(
    "ending",
    [
        "ERROR: Job failed: exit code 101",  # the Docker executor
        "ERROR: Job failed: exit status 101",  # the Shell executor
        "ERROR: Job failed: command terminated with exit code 101",  # the Kubernetes executor
    ],
)
def test_each_gitlab_executors_ending_frames_the_last_command(ending: str) -> None:
    text = gitlab_log(
        [
            "\x1b[32;1m$ ./ci/fetch-fixtures.sh\x1b[0;m",
            "curl: (28) Connection timed out after 10001 milliseconds",
            "fixtures ready from the mirror",
            "\x1b[32;1m$ cargo clippy -- -D warnings\x1b[0;m",
            "    Checking app v0.1.0",
            "the analysis stopped early",
        ],
    ).replace("ERROR: Job failed: exit code 1", ending)
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    # the earlier command's network trouble, which it survived, does not decide
    assert diagnose_text(text, RULES).category is Category.LINT


FETCH_SURVIVED = ["curl: (28) Connection timed out after 10001 milliseconds", "fixtures from the mirror"]
UNKNOWN_LINT = ["    Checking app v0.1.0", "the analysis stopped early"]


@pytest.mark.parametrize("end", ["Exited with code exit status 101", "Exited with code 101"])
def test_a_circleci_step_that_exited_is_the_failing_step(end: str) -> None:
    text = "\n".join(
        [
            "Spin up environment",
            "Checkout code",
            "#!/bin/bash -eo pipefail",
            "./ci/fetch-fixtures.sh",
            *FETCH_SURVIVED,
            "#!/bin/bash -eo pipefail",
            "cargo clippy -- -D warnings",
            *UNKNOWN_LINT,
            "",
            end,
            "CircleCI received exit code 101",
        ]
    )
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    assert diagnose_text(text, RULES).category is Category.LINT


def test_a_buildkite_commands_last_echo_before_the_error_is_the_failing_command() -> None:
    text = "\n".join(
        [
            "~~~ Preparing working directory",
            "$ git fetch -v --prune -- origin refs/pull/1/head",
            "--- Fetch fixtures",
            "$ ./ci/fetch-fixtures.sh",
            *FETCH_SURVIVED,
            "+++ Lint",
            "$ cargo clippy -- -D warnings",
            *UNKNOWN_LINT,
            "🚨 Error: The command exited with status 101",
            "~~~ Running global pre-exit hook",
            "$ /etc/buildkite-agent/hooks/pre-exit",
        ]
    )
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    assert diagnose_text(text, RULES).category is Category.LINT


def jenkins_log(*, parallel: bool = False) -> str:
    lines = ["Started by user admin", "[Pipeline] Start of Pipeline", "[Pipeline] node", "[Pipeline] {"]
    if parallel:
        lines.append("[Pipeline] parallel")
    for stage, command, output in (
        ("Fetch", "./ci/fetch-fixtures.sh", FETCH_SURVIVED),
        ("Lint", "cargo clippy -- -D warnings", UNKNOWN_LINT),
    ):
        lines += ["[Pipeline] stage", f"[Pipeline] {{ ({stage})", "[Pipeline] sh", f"+ {command}", *output]
        lines += ["[Pipeline] }", "[Pipeline] // stage"]
    lines += [
        "[Pipeline] stage",
        "[Pipeline] { (Deploy)",
        'Stage "Deploy" skipped due to earlier failure(s)',
        "[Pipeline] }",
        "[Pipeline] stage",
        "[Pipeline] { (Declarative: Post Actions)",
        "[Pipeline] sh",
        "+ curl -sf https://chat.example.com/hook",
        "curl: (6) Could not resolve host: chat.example.com",
        "[Pipeline] }",
        "[Pipeline] End of Pipeline",
        "ERROR: script returned exit code 101",
        "Finished: FAILURE",
    ]
    return "\n".join(lines) + "\n"


def test_a_jenkins_builds_failing_shell_step_is_the_last_before_the_skipped_stages_and_post_actions() -> None:
    text = jenkins_log()
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    diagnosis = diagnose_text(text, RULES)
    assert diagnosis.category is Category.LINT
    assert not any("chat.example.com" in line for line in diagnosis.excerpt)


def test_a_jenkins_build_with_parallel_branches_is_not_framed() -> None:
    assert parse_log(jenkins_log(parallel=True)).command is None


def azure_log(*, timestamps: bool = True) -> str:
    stamp = "2024-05-01T10:00:00.1234567Z " if timestamps else ""
    lines = ["##[section]Starting: Initialize job", "Agent name: 'Azure Pipelines 3'"]
    lines.append("##[section]Finishing: Initialize job")
    for task, command, output, error in (
        ("Fetch fixtures", "./ci/fetch-fixtures.sh", FETCH_SURVIVED, None),
        ("Lint", "cargo clippy -- -D warnings", UNKNOWN_LINT, "##[error]Bash exited with code '101'."),
        ("Notify", "curl -sf https://chat.example.com/hook", ["curl: (6) Could not resolve host"], None),
    ):
        lines += [f"##[section]Starting: {task}", "Task         : Bash", "Script contents:", command]
        lines += ["========================== Starting Command Output ===========================", *output]
        lines += [error] if error else []
        lines.append(f"##[section]Finishing: {task}")
    return "\n".join(stamp + line for line in lines) + "\n"


@pytest.mark.parametrize("timestamps", [True, False])
def test_an_azure_pipelines_task_with_an_error_is_the_failing_step(timestamps: bool) -> None:
    text = azure_log(timestamps=timestamps)
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101
    diagnosis = diagnose_text(text, RULES)
    assert diagnosis.category is Category.LINT
    assert not any("Could not resolve host" in line for line in diagnosis.excerpt)


def test_an_azure_task_that_continued_on_error_is_not_the_failing_step() -> None:
    # an upload allowed to fail (continueOnError) exited 6; the job failed at the lint task after it
    exited = "fixtures from the mirror\n##[error]Bash exited with code '6'.\n"
    text = azure_log().replace("fixtures from the mirror\n", exited)
    log = parse_log(text)
    assert log.command == "cargo clippy -- -D warnings" and log.exit_code == 101


def test_an_azure_task_that_logged_an_error_without_exiting_is_read_when_none_exited() -> None:
    text = azure_log().replace("##[error]Bash exited with code '101'.", "##[error]the analysis stopped early")
    assert parse_log(text).command == "cargo clippy -- -D warnings"


def test_an_actions_log_with_run_steps_is_not_read_as_azure_pipelines() -> None:
    text = (
        "##[group]Run cargo clippy\ncargo clippy\n##[endgroup]\n##[section]Starting: Lint\nwarning: x\n"
        "##[error]Bash exited with code '7'.\n##[error]Process completed with exit code 101.\n"
    )
    log = parse_log(text)
    assert log.command == "cargo clippy" and log.exit_code == 101


@pytest.mark.parametrize(
    ("line", "clean"),
    [
        ("[2024-05-01T10:00:03.123Z] [Pipeline] sh", "[Pipeline] sh"),  # Timestamper, console text
        (
            "02:43:08  Cannot contact agent-3: java.lang.InterruptedException",
            "Cannot contact agent-3: java.lang.InterruptedException",
        ),  # Timestamper, copied from the web console
        ("[Pipeline] sh", "[Pipeline] sh"),
        ("12:00:00 one space is a tool's own time", "12:00:00 one space is a tool's own time"),
        ("[INFO] BUILD FAILURE", "[INFO] BUILD FAILURE"),
    ],
)
def test_jenkins_timestamper_prefixes_are_cut_like_the_runners(line: str, clean: str) -> None:
    assert clean_line(line) == clean


def test_a_jenkins_log_with_timestamps_is_framed() -> None:
    text = "".join(
        f"[2024-05-01T10:00:{n % 60:02d}.123Z] {line}\n" for n, line in enumerate(jenkins_log().splitlines())
    )
    assert parse_log(text).command == "cargo clippy -- -D warnings"


def test_a_gitlab_log_with_job_log_timestamps_is_framed() -> None:
    # FF_TIMESTAMPS: timestamp, stream (two hex digits, O or E, + for a continued line); no carriage return
    raw = gitlab_log(
        ["\x1b[32;1m$ pytest\x1b[0;m", *PYTEST_FAILED],
        ["\x1b[32;1m$ curl -sSf https://uploads.example.com\x1b[0;m", "curl: (6) Could not resolve host"],
    )
    text = "".join(
        f"2024-09-01T10:00:{n % 60:02d}.123456Z 0{n % 2}{'OE'[n % 2]}{'+' if n == 5 else ''} {line}\n"
        for n, line in enumerate(raw.replace("\r\x1b[0K", "\x1b[0K").splitlines())
    )
    log = parse_log(text)
    assert log.command == "pytest" and log.exit_code == 1
    assert diagnose_text(text, RULES).category is Category.TEST


# One case per documented runner message of another CI: (the log, the rule, the kind, the owner, the action).
# Each message sits after some ordinary output, at the end of a log that has no GitHub Actions markers.
TRAVIS_STALLED = (
    "No output has been received in the last 10m0s, this potentially indicates a stalled build or something "
    "wrong with the build itself."
)
RUNNER_MESSAGES = [
    # Travis CI's own fixed limits: the service stopped the job, re-run first
    pytest.param(
        TRAVIS_STALLED, "runner.travis-time-limit", Category.TIMEOUT, Action.RERUN, id="travis-no-output"
    ),
    pytest.param(
        "The job exceeded the maximum time limit for jobs, and has been terminated.",
        "runner.travis-time-limit",
        Category.TIMEOUT,
        Action.RERUN,
        id="travis-time-limit",
    ),
    pytest.param(
        "The job exceeded the maxmimum time limit for jobs, and has been terminated.",
        "runner.travis-time-limit",
        Category.TIMEOUT,
        Action.RERUN,
        id="travis-time-limit-old-spelling",
    ),
    pytest.param(
        "ERROR: Job failed: execution took longer than 1h0m0s seconds",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="gitlab-timeout",
    ),
    pytest.param(
        "Too long with no output (exceeded 10m0s): context deadline exceeded",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="circleci-no-output",
    ),
    pytest.param(
        "##[error]The job running on agent Azure Pipelines 3 ran longer than the maximum time of 60 minutes. "
        "For more information, see https://go.microsoft.com/fwlink/?linkid=2077134",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="azure-time-limit",
    ),
    pytest.param(
        "Build execution time has reached the maximum allowed time for your plan (60 minutes).",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="appveyor-time-limit",
    ),
    pytest.param(
        "Cancelling nested steps due to timeout",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="jenkins-timeout-step",
    ),
    pytest.param(
        "Build timed out (after 30 minutes). Marking the build as aborted.",
        "runner.timeout",
        Category.TIMEOUT,
        Action.ESCALATE,
        id="jenkins-build-timeout-plugin",
    ),
    pytest.param(
        "ERROR: Job failed: canceled",
        "runner.cancelled",
        Category.CANCELLED,
        Action.IGNORE,
        id="gitlab-canceled",
    ),
    pytest.param(
        "# Received cancellation signal, interrupting",
        "runner.cancelled",
        Category.CANCELLED,
        Action.IGNORE,
        id="buildkite-cancelled",
    ),
    pytest.param(
        "Aborted by admin", "runner.cancelled", Category.CANCELLED, Action.IGNORE, id="jenkins-aborted"
    ),
    pytest.param(
        "ERROR: Job failed (system failure): Error response from daemon: No such container: 1cfc32f626eb "
        "(executor_docker.go:932:1s)",
        "runner.shutdown",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="gitlab-system-failure",
    ),
    pytest.param(
        "##[error]We stopped hearing from agent Azure Pipelines 3. Verify the agent machine is running "
        "and has a healthy network connection.",
        "runner.shutdown",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="azure-agent-lost",
    ),
    pytest.param(
        "Exited with status -1 (agent lost)",
        "runner.shutdown",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="buildkite-agent-lost",
    ),
    pytest.param(
        "Cannot contact agent-3: java.lang.InterruptedException",
        "runner.agent-disconnected",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="jenkins-cannot-contact",
    ),
    pytest.param(
        "wrapper script does not seem to be touching the log file in /var/lib/jenkins/w/r@tmp/durable-1",
        "runner.agent-disconnected",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="jenkins-wrapper-heartbeat",
    ),
    pytest.param(
        "I'm sorry but there was an error with the connection to the VM.",
        "runner.shutdown",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="travis-vm-connection",
    ),
    pytest.param(
        "I'm sorry but an error occured within Travis while running your build.",
        "runner.shutdown",
        Category.INFRASTRUCTURE,
        Action.RERUN,
        id="travis-own-error",
    ),
]


@pytest.mark.parametrize(("message", "rule", "category", "action"), RUNNER_MESSAGES)
def test_another_cis_runner_message(message: str, rule: str, category: Category, action: Action) -> None:
    text = "\n".join(["+ ./run_tests.sh", "tests/test_a.py ....", "tests/test_b.py ..", message]) + "\n"
    diagnosis = diagnose_text(text, RULES)
    assert (diagnosis.rule, diagnosis.category, diagnosis.action) == (rule, category, action)


@pytest.mark.parametrize(
    "line",
    [
        # a program that aborted is not a person aborting the build
        "Aborted by signal 6",
        # a Go test's own deadline error is not CircleCI's no-output limit
        "--- FAIL: TestFetch (0.01s)\n    fetch_test.go:12: context deadline exceeded",
    ],
)
def test_look_alikes_of_runner_messages_are_not_them(line: str) -> None:
    text = "\n".join(["+ go test ./...", line, "FAIL"]) + "\n"
    diagnosis = diagnose_text(text, RULES)
    assert diagnosis.rule not in ("runner.cancelled", "runner.timeout")


def travis_log(prepare: list[tuple[str, str, list[str]]], script: list[tuple[str, list[str], int]]) -> str:
    """A Travis CI job log as travis-build writes it: each command of a preparing phase in a fold named for
    the phase (the first failing one stops the job, "failed and exited with N during ."), then each `script`
    command timed and closed by its result, then the build's end."""
    lines = ["travis_fold:start:worker_info\r\x1b[0K\x1b[33;1mWorker information\x1b[0m", "startup: 6.3s"]
    lines.append("travis_fold:end:worker_info\r\x1b[0K")
    stopped = False
    for n, (phase, command, output) in enumerate(prepare):
        lines.append(f"travis_fold:start:{phase}.1\r\x1b[0Ktravis_time:start:{n:08x}\r\x1b[0K$ {command}")
        lines += [*output, f"travis_time:end:{n:08x}:start=1,finish=2,duration=1\r\x1b[0K"]
        if output and output[-1].startswith("!"):
            lines[-2] = output[-1][1:]
            lines += [f'\x1b[31;1mThe command "{command}" failed and exited with 1 during .\x1b[0m', ""]
            lines.append("Your build has been stopped.")
            stopped = True
            break
        lines.append(f"travis_fold:end:{phase}.1\r\x1b[0K")
    for n, (command, output, code) in enumerate([] if stopped else script):
        lines += [f"travis_time:start:{n + 100:08x}\r\x1b[0K$ {command}", *output]
        lines += [f"travis_time:end:{n + 100:08x}:start=1,finish=2,duration=1\r\x1b[0K"]
        lines.append(f'\x1b[3{1 if code else 2};1mThe command "{command}" exited with {code}.\x1b[0m')
    if not stopped:
        lines += ["", "Done. Your build exited with 1."]
    return "\r\n".join(lines) + "\r\n"


def test_travis_a_command_of_a_preparing_phase_says_its_phase() -> None:
    text = travis_log(
        [
            ("before_install", "sudo apt-get update", ["Hit:1 http://archive.ubuntu.com xenial InRelease"]),
            (
                "install",
                "bash .travis/prepare.sh",
                ["Preparing", "!error: unable to prepare the environment"],
            ),
        ],
        [("pytest", ["1 passed"], 0)],
    )
    log = parse_log(text)
    assert (log.command, log.exit_code, log.phase) == ("bash .travis/prepare.sh", 1, "install")
    diagnosis = diagnose_text(text, RULES)
    # Travis marks it errored, not failed: the environment was not prepared, not the code checked
    assert diagnosis.action is Action.ESCALATE and diagnosis.owner is not Owner.CODE
    # "Your build has been stopped." ends every errored job: it is not a cancellation
    assert diagnosis.category is not Category.CANCELLED


def test_travis_a_script_command_has_no_preparing_phase_and_stays_the_codes() -> None:
    text = travis_log(
        [("install", "pip install -r requirements.txt", ["Successfully installed six-1.12.0"])],
        [("flake8 .", [], 0), ("pytest", PYTEST_FAILED, 1), ("python setup.py sdist", ["running sdist"], 0)],
    )
    log = parse_log(text)
    assert (log.command, log.exit_code, log.phase) == ("pytest", 1, None)
    diagnosis = diagnose_text(text, RULES)
    assert (diagnosis.category, diagnosis.owner) == (Category.TEST, Owner.CODE)


def test_travis_a_compiler_error_in_a_preparing_phase_is_still_the_codes() -> None:
    text = travis_log(
        [
            (
                "before_script",
                "bash build_deps.sh && ./configure && make",
                [
                    "src/parse.c:42:5: error: 'tm' undeclared (first use in this function)",
                    "!make: *** [src/parse.o] Error 1",
                ],
            )
        ],
        [],
    )
    assert parse_log(text).phase == "before_script"
    diagnosis = diagnose_text(text, RULES)
    assert (diagnosis.category, diagnosis.owner) == (Category.BUILD, Owner.CODE)
