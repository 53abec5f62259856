"""A step the runner shows with a secret's variable empty is the repository's when its output refused a
credential or named no cause; a compiler's error or a failed assertion beside it stays the code's."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log, stamped

from healer.diagnosis.emptysecret import empty_secrets, environ_missing
from healer.model import Action, Owner


def diagnose(command: str, env: dict[str, str], output: list[str], job: str = "ci"):  # noqa: ANN201
    return diagnose_log(job_log(command, output, env=env, cleanup=True), job=job)


SONAR = [
    "[INFO] --- sonar:5.2.0.4988:sonar (default-cli) @ fx-rates ---",
    "[ERROR] Failed to execute goal org.sonarsource.scanner.maven:sonar-maven-plugin:5.2.0.4988:sonar "
    "(default-cli) on project fx-rates: Project not found. -> [Help 1]",
]
LIVE_401 = [
    "FAILED tests/integration/test_live.py::test_current - "
    "client.errors.AuthError: 401 Unauthorized: API key missing",
    "==================== 1 failed, 0 passed in 3.10s ====================",
]


@pytest.mark.parametrize(
    ("command", "env", "output"),
    [
        pytest.param("mvn -B sonar:sonar", {"SONAR_TOKEN": ""}, SONAR, id="summary-only"),
        pytest.param("pytest tests/integration", {"WEATHER_API_KEY": ""}, LIVE_401, id="refused-credential"),
    ],
)
def test_a_step_run_without_its_secret_is_the_repositorys(
    command: str, env: dict[str, str], output: list[str]
) -> None:
    diagnosis = diagnose(command, env, output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "empty" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    ("command", "env", "output"),
    [
        pytest.param("mvn -B sonar:sonar", {"SONAR_TOKEN": "***"}, SONAR, id="secret-set"),
        pytest.param(
            "pytest tests/integration",
            {"WEATHER_API_KEY": ""},
            [
                "FAILED tests/integration/test_live.py::test_parse - AssertionError: assert 3 == 4",
                "==================== 1 failed, 9 passed in 3.10s ====================",
            ],
            id="an-assertion-beside-it",
        ),
        pytest.param(
            "cargo build --release",
            {"CARGO_REGISTRY_TOKEN": ""},
            ["error[E0308]: mismatched types", " --> src/lib.rs:4:5", "error: could not compile `acme`"],
            id="a-compiler-error-beside-it",
        ),
    ],
)
def test_the_codes_own_report_or_a_set_secret_keeps_the_reading(
    command: str, env: dict[str, str], output: list[str]
) -> None:
    assert diagnose(command, env, output).owner is not Owner.REPOSITORY


def test_only_secret_named_entries_shown_empty_count() -> None:
    header = [
        "env:",
        "  NPM_TOKEN:",
        "  EXTRA_ARGS:",
        "  GITHUB_TOKEN: ***",
        "with:",
        "  api-key:",
        "  path: dist",
    ]
    assert empty_secrets(header) == ("NPM_TOKEN", "api-key")
    # a signing certificate and its password, as workflows name them; a certificate's path is no secret
    signing = ["env:", "  MACOS_CERT: ", "  MACOS_CERT_PWD:", "  CERTIFY_OUTPUT:", "  P12_BASE64:"]
    assert empty_secrets(signing) == ("MACOS_CERT", "MACOS_CERT_PWD", "P12_BASE64")


NO_SECRETS = ["Current runner version: '2.329.0'", "Secret source: None", "Prepare workflow directory"]


def test_a_job_given_no_secrets_whose_output_misses_one_is_the_repositorys() -> None:
    """The runner's set-up says ``Secret source: None`` (a fork's run): a secret-named variable the output
    says is not set is the missing secret."""
    output = ["Seeding the sandbox account...", "Error: PAYWIRE_SANDBOX_KEY is not set. Add it as a secret."]
    log = stamped(NO_SECRETS) + job_log("node scripts/seed-sandbox.js", output)
    diagnosis = diagnose_log(log, job="integration")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "Secret source: None" in dict(diagnosis.decided_by)["evidence"]
    # the same script where nothing says the job lacked its secrets: its own words still name the missing
    # one and no other cause, so it is still the repository's, for that reason
    same = diagnose_log(job_log("node scripts/seed-sandbox.js", output), job="integration")
    assert (same.owner, same.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "Secret source" not in dict(same.decided_by)["evidence"]


def test_a_job_given_no_secrets_whose_test_failed_on_an_assertion_is_the_codes() -> None:
    output = ["  ● math › adds", "    expect(received).toBe(expected)", "Tests:       1 failed, 40 total"]
    diagnosis = diagnose_log(stamped(NO_SECRETS) + job_log("npm test", output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_an_empty_variable_the_output_says_is_empty_is_the_missing_secret() -> None:
    # a name that does not read as a secret on its own, shown empty in the header, that the tests' own error
    # says is empty: the header and the output agree
    output = [
        "tests/integration/test_charges.py::test_create_charge ERROR",
        "E           paygate.errors.AuthError: PAYGATE_SANDBOX_KEY is empty; set it to a sandbox API key",
        "ERROR tests/integration/test_charges.py::test_create_charge - paygate.errors.AuthError: "
        "PAYGATE_SANDBOX_KEY is empty; set it to a sandbox API key",
        "========================= 40 passed, 1 error in 3.10s =========================",
    ]
    diagnosis = diagnose("pytest -v tests/", {"PAYGATE_SANDBOX_KEY": ""}, output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "PAYGATE_SANDBOX_KEY empty" in dict(diagnosis.decided_by)["evidence"]
    # shown empty, but the output says nothing of it: the tests' failure stays as read
    quiet = [output[0], "E           assert 402 == 201", output[-1]]
    assert diagnose("pytest -v tests/", {"PAYGATE_SANDBOX_KEY": ""}, quiet).owner is not Owner.REPOSITORY


def travis_browser_tests(
    *,
    removed: bool,
    said: str = "Error: SAUCE_USERNAME and SAUCE_ACCESS_KEY must be set to run the browser tests",
) -> str:
    """A Travis CI pull-request build whose browser tests need Sauce Labs' key; ``removed``: Travis said it
    removed the repository's encrypted variables before the commands."""
    lines = ["$ nvm install 18", "Now using node v18.20.4 (npm v10.7.0)"]
    if removed:
        lines += [
            "Encrypted environment variables have been removed for security reasons.",
            "See https://docs.travis-ci.com/user/pull-requests/#pull-requests-and-security-restrictions",
        ]
    lines += [
        "travis_time:start:9ebb83ff\r\x1b[0K$ npm run test:browser",
        "> karma start karma.sauce.js --single-run",
        said,
        "    at module.exports (/home/travis/build/acme/app/karma.sauce.js:6:11)",
        "travis_time:end:9ebb83ff:start=1,finish=2,duration=1\r\x1b[0K"
        '\x1b[31;1mThe command "npm run test:browser" exited with 1.\x1b[0m',
        "",
        "Done. Your build exited with 1.",
    ]
    return "\n".join(lines) + "\n"


def test_a_travis_build_without_its_encrypted_variables_whose_output_misses_one_is_the_repositorys() -> None:
    diagnosis = diagnose_log(travis_browser_tests(removed=True), job="browser")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "Travis removed its encrypted variables" in dict(diagnosis.decided_by)["evidence"]
    # with its variables, the same words still name a secret the step did not have, and no other cause
    given = diagnose_log(travis_browser_tests(removed=False), job="browser")
    assert given.owner is Owner.REPOSITORY
    assert "Travis removed" not in dict(given.decided_by)["evidence"]
    # the missing variable said first
    missing = "ERROR [launcher.sauce]: Missing SAUCE_USERNAME or SAUCE_ACCESS_KEY; cannot start a tunnel"
    diagnosis = diagnose_log(travis_browser_tests(removed=True, said=missing), job="browser")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    # and said after a few more words (karma's Sauce launcher)
    missing = (
        "ERROR [launcher.sauce]: Missing Sauce Labs credentials: set SAUCE_USERNAME and SAUCE_ACCESS_KEY"
    )
    diagnosis = diagnose_log(travis_browser_tests(removed=True, said=missing), job="browser")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    # or the names to set after a statement that the credentials are missing
    missing = "ERROR [config]: Sauce Labs credentials are missing. Set SAUCE_USERNAME and SAUCE_ACCESS_KEY."
    diagnosis = diagnose_log(travis_browser_tests(removed=True, said=missing), job="browser")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_any_variable_shown_empty_that_the_output_says_is_not_set_is_the_repositorys() -> None:
    output = [
        "TAP version 13",
        "# Subtest: integration",
        "  Error: DATABASE_URL is not set; integration tests need the staging database",
        "not ok 1 - integration",
        "# fail 1",
    ]
    diagnosis = diagnose("npx tap test/integration", {"DATABASE_URL": ""}, output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "DATABASE_URL empty" in dict(diagnosis.decided_by)["evidence"]
    # set in the header: the output's complaint is the code's own
    assert diagnose("npx tap test/integration", {"DATABASE_URL": "***"}, output).owner is not Owner.REPOSITORY


def test_a_gated_model_refused_to_a_step_without_its_token_is_the_repositorys() -> None:
    output = [
        "___ test_card_renders ___",
        "E   OSError: You are trying to access a gated repo.",
        "E   401 Client Error. (Request ID: Root=1-6751b2c4-3f2a1b0c4d5e6f7a8b9c0d1e)",
        "E   Cannot access gated repo for url https://huggingface.co/meta-llama/Llama-3.2-1B/resolve/main/x.json.",
        "FAILED tests/test_card.py::test_card - OSError: You are trying to access a gated repo.",
        "========================= 1 failed, 14 passed in 8.20s =========================",
    ]
    diagnosis = diagnose("pytest tests/integration", {"HF_TOKEN": ""}, output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


CONFTEST_WITHOUT_THE_KEY = [
    "ImportError while loading conftest '/home/runner/work/pay/pay/tests/integration/conftest.py'.",
    "tests/integration/conftest.py:9: in <module>",
    '    STRIPE_KEY = os.environ["STRIPE_API_KEY"]',
    "                 ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    "<frozen os>:714: in __getitem__",
    "    ???",
    "E   KeyError: 'STRIPE_API_KEY'",
]


def test_a_secret_the_steps_python_did_not_find_in_its_environment_is_the_repositorys() -> None:
    diagnosis = diagnose_log(job_log("pytest tests/integration", CONFTEST_WITHOUT_THE_KEY, exit_code=4))
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "STRIPE_API_KEY" in diagnosis.decided_text()
    assert environ_missing(CONFTEST_WITHOUT_THE_KEY) == ("STRIPE_API_KEY",)


def test_a_fixtures_missing_key_under_every_error_of_the_summary_is_the_missing_secret() -> None:
    output = [
        '>       key = os.environ["CORMO_S3_KEY"]',
        "tests/integration/conftest.py:9: ",
        "E   KeyError: 'CORMO_S3_KEY'",
        "=========================== short test summary info ============================",
        "ERROR tests/integration/test_upload.py::test_put_small - KeyError: 'CORMO_S3_KEY'",
        "ERROR tests/integration/test_upload.py::test_put_large - KeyError: 'CORMO_S3_KEY'",
    ]
    assert environ_missing(output) == ("CORMO_S3_KEY",)
    beside_a_failure = [*output, "FAILED tests/test_sizes.py::test_round - AssertionError: assert 3 == 4"]
    assert environ_missing(beside_a_failure) == ()


def test_a_key_error_that_is_not_the_environments_or_not_a_secrets_keeps_the_reading() -> None:
    from_a_dict = ['>       return settings["STRIPE_API_KEY"]', "E   KeyError: 'STRIPE_API_KEY'"]
    assert environ_missing(from_a_dict) == ()
    not_a_secret = ['    url = os.environ["DATABASE_URL"]', "E   KeyError: 'DATABASE_URL'"]
    assert environ_missing(not_a_secret) == ()
    # the workflow's own token is no secret withheld: every job has it, the workflow did not hand it over
    workflows_own = [line.replace("STRIPE_API_KEY", "GITHUB_TOKEN") for line in CONFTEST_WITHOUT_THE_KEY]
    assert environ_missing(workflows_own) == ()
    diagnosis = diagnose_log(job_log("pytest tests", workflows_own, exit_code=4))
    assert diagnosis.owner is not Owner.REPOSITORY


def test_a_secret_the_output_says_is_not_set_with_no_other_cause_is_the_repositorys() -> None:
    """No header or set-up says the secret was withheld, but the step's own words name it missing and nothing
    else failed: a maintainer sets it, or makes the step skip runs that cannot have it."""
    output = [
        "> karma start karma.sauce.js",
        "Error: SAUCE_USERNAME and SAUCE_ACCESS_KEY must be set to run tests on Sauce Labs",
        "npm ERR! widget@2.4.0 test:sauce: `karma start karma.sauce.js`",
        "npm ERR! Exit status 1",
    ]
    diagnosis = diagnose_log(job_log("npm run test:sauce", output), job="browser")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)
    assert "SAUCE_ACCESS_KEY must be set" in diagnosis.decided_text()


def test_a_secret_said_missing_beside_a_failed_test_keeps_the_tests_the_codes() -> None:
    output = [
        "Warning: API_TOKEN is not set; live tests are skipped",
        "FAILED tests/test_totals.py::test_sum - assert 4 == 5",
        "1 failed, 12 passed, 3 skipped in 0.41s",
    ]
    diagnosis = diagnose_log(job_log("pytest -q", output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_tool_that_only_logs_it_was_not_handed_a_token_has_not_failed_for_it() -> None:
    """license-eye logs at INFO that it was given no GITHUB_TOKEN (it only comments with one) and then fails
    on its findings: neither the informational line nor the workflow's own token is a missing secret."""
    output = [
        "INFO GITHUB_TOKEN is not set, license-eye won't comment on the pull request",
        "INFO Loading configuration from file: .licenserc.yaml",
        "ERROR the following files don't have a valid license header: ",
        "src/wharf/dock.py",
        "ERROR one or more files does not have a valid license header",
        "##[error]one or more files does not have a valid license header",
    ]
    log = job_log("apache/skywalking-eyes/header@v0.7.0", output, exit_code=None)
    assert diagnose_log(log, job="license").owner is not Owner.REPOSITORY
