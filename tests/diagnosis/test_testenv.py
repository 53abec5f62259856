"""What a test job's runner gives its tests (`healer/diagnosis/rules/testenv.yml`, the reports read in
`healer/diagnosis/testcauses.py` and pytest's summary in `rules/python.yml`): each entry, written from a
tool's own words, has one case here with the rule that must read it and the decision that follows, and the
traps: the code's own failure that merely mentions the same words."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, diagnose_log, job_log

from healer.model import Action, Owner


def run_log(command: str, output: str, exit_code: int = 1) -> str:
    return job_log(command, output, exit_code=exit_code)


def diagnose(command: str, output: str, job: str = "test"):  # noqa: ANN201
    return diagnose_log(run_log(command, output), job=job)


def pytest_summary(*failures: str) -> str:
    return "=== short test summary info ===\n" + "\n".join(failures) + "\n=== 2 failed, 5 passed in 1.0s ==="


SUREFIRE_CRASH = (
    "[ERROR] Failed to execute goal "
    "org.apache.maven.plugins:maven-surefire-plugin:3.2.2:test (default-test)\n"
    "[ERROR] The forked VM terminated without properly saying goodbye. VM crash or System.exit called?\n"
    "[ERROR] Command was /bin/sh -c cd /w && java -jar target/surefire/surefirebooter.jar\n"
    "[ERROR] Process Exit Code: {code}\n[ERROR] Crashed tests:\n[ERROR] com.example.BigTest"
)

CASES = [
    # browsers and their drivers
    (
        "pytest tests/e2e",
        pytest_summary(
            "ERROR tests/e2e/test_a.py::test_a - "
            "selenium.common.exceptions.SessionNotCreatedException: Message: "
            "session not created: This version of ChromeDriver only supports Chrome version 114",
            "E   Current browser version is 120.0.6099.109 with binary path /usr/bin/google-chrome",
        ),
        "browser.driver-mismatch",
        REPO,
        "chromedriver",
    ),
    (
        "npx wdio run wdio.conf.js",
        "ERROR webdriver: session not created: This version of Microsoft Edge WebDriver "
        "only supports Microsoft "
        "Edge version 118\nCurrent browser version is 120.0.2210.61",
        "browser.driver-mismatch",
        REPO,
        "edgedriver",
    ),
    (
        "pytest tests/browser",
        pytest_summary(
            "ERROR tests/browser/test_a.py::test_a - "
            "selenium.common.exceptions.SessionNotCreatedException: Message: "
            "Expected browser binary location, but unable to find binary in default location, no "
            "'moz:firefoxOptions.binary' capability provided"
        ),
        "browser.driver-mismatch",
        REPO,
        "geckodriver",
    ),
    (
        "npx playwright test",
        "  1) [chromium] › tests/a.spec.ts:3:5 › title\n\n    Error: browserType.launch: "
        "Executable doesn't exist at "
        "/home/runner/.cache/ms-playwright/chromium-1091/chrome-linux/chrome\n    ║ "
        "Looks like Playwright Test or "
        "Playwright was just installed or updated. ║\n\n  1 failed",
        "browser.playwright-not-installed",
        REPO,
        "playwright",
    ),
    (
        "npx cypress run",
        "Your system is missing the dependency: Xvfb\n\nInstall Xvfb and run Cypress again.\n\n"
        "Error: spawn Xvfb ENOENT",
        "browser.cypress-not-installed",
        REPO,
        "cypress-xvfb",
    ),
    (
        "npx cypress run",
        "The cypress npm package is installed, but the Cypress binary is missing.\n\nWe expected "
        "the binary to be installed here: /home/runner/.cache/Cypress/13.6.0/Cypress/Cypress",
        "browser.cypress-not-installed",
        REPO,
        "cypress-binary",
    ),
    # the test process the kernel killed
    ("mvn -B test", SUREFIRE_CRASH.format(code=137), "test.process-killed", PLATFORM, "surefire-137"),
    (
        "./gradlew test",
        "> Task :app:test FAILED\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
        "Execution failed for task ':app:test'.\n> Process 'Gradle Test Executor 1' "
        "finished with non-zero exit "
        "value 137",
        "test.process-killed",
        PLATFORM,
        "gradle-executor-137",
    ),
    (
        "cargo test",
        "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: "
        "`/w/target/debug/deps/app-1a2b` (signal: 9, SIGKILL: kill)",
        "test.process-killed",
        PLATFORM,
        "cargo-sigkill",
    ),
    (
        "go test ./...",
        "fatal error: runtime: out of memory\n\nruntime stack:\nruntime.throw({0x8a1b2c, 0x16})\n"
        "FAIL\texample.com/app/big\t12.345s",
        "test.process-killed",
        PLATFORM,
        "go-runtime-oom",
    ),
    # every failing test stopped on the network, per framework (testcauses)
    (
        "npx mocha",
        "  0 passing (10ms)\n  1 failing\n\n  1) client\n       fetches:\n     Error: getaddrinfo "
        "ENOTFOUND api.example.com\n      at GetAddrInfoReqWrap.onlookup (node:dns:107:26)",
        "js.mocha-failed",
        PLATFORM,
        "mocha-dns",
    ),
    (
        "npx vitest run",
        " FAIL  test/api.test.ts > api > fetches\nTypeError: fetch failed\n ❯ test/api.test.ts:5:3\n"
        "Caused by: Error: getaddrinfo ENOTFOUND api.example.com\n\n Test Files  1 failed (1)",
        "js.vitest-failed",
        PLATFORM,
        "vitest-caused-by",
    ),
    (
        "./gradlew test",
        "> Task :app:test\n\nClientTest > fetches() FAILED\n    java.net.UnknownHostException: "
        "api.example.com\n\n10 tests completed, 1 failed\n\n> Task :app:test FAILED",
        "jvm.gradle-test-failed",
        PLATFORM,
        "gradle-unknown-host",
    ),
    (
        "cargo test",
        "---- tests::fetches stdout ----\nthread 'tests::fetches' panicked at src/lib.rs:20:9:\n"
        "called `Result::unwrap()` on an `Err` value: dns error: failed to lookup "
        "address information: Temporary "
        "failure in name resolution\n\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured",
        "rust.test-failed",
        PLATFORM,
        "cargo-dns",
    ),
    # every failing test stopped on a refused credential (testcauses)
    (
        "go test ./integration/...",
        "--- FAIL: TestUpload (0.00s)\n    upload_test.go:14: S3_SECRET_ACCESS_KEY is "
        "empty\nFAIL\nFAIL\texample.com/app/integration\t0.010s",
        "go.test-failed",
        REPO,
        "go-access-key-empty",
    ),
    (
        "bundle exec rspec",
        "Failures:\n\n  1) User saves\n     Failure/Error: ActiveRecord::Base.connection\n"
        "     ActiveRecord::ConnectionNotEstablished:\n       connection to server at "
        '"127.0.0.1", port 5432 failed: '
        'FATAL:  password authentication failed for user "postgres"\n\n1 example, 1 failure',
        "ruby.rspec-failed",
        REPO,
        "rspec-pg-password",
    ),
    (
        "vendor/bin/phpunit",
        "There was 1 error:\n\n1) Tests\\Feature\\UserTest::test_create\n"
        "Illuminate\\Database\\QueryException: SQLSTATE[HY000] [1045] Access denied for "
        "user 'root'@'localhost' "
        "(using password: NO)\n\nERRORS!\nTests: 1, Assertions: 0, Errors: 1.",
        "php.phpunit-failed",
        REPO,
        "phpunit-mysql-1045",
    ),
    # pytest's summary (rules/python.yml)
    (
        "pytest",
        pytest_summary(
            "FAILED tests/test_s.py::test_charge - requests.exceptions.HTTPError: 502 Server "
            "Error: Bad Gateway for url: https://api.sandbox.example.com/v1/charges"
        ),
        "python.pytest-network-only",
        PLATFORM,
        "pytest-http-502",
    ),
    (
        "pytest",
        pytest_summary(
            "ERROR tests/test_s.py::test_index - elasticsearch.exceptions.ConnectionError: "
            "ConnectionError(<urllib3.connection.HTTPConnection>: Failed to establish a new "
            "connection: [Errno 111] "
            "Connection refused)"
        ),
        "python.pytest-network-only",
        PLATFORM,
        "pytest-elasticsearch",
    ),
    (
        "pytest",
        pytest_summary(
            "FAILED tests/test_feed.py::test_poll - requests.exceptions.ConnectionError: "
            "HTTPSConnectionPool(host='feeds.example.org', port=443): Max retries exceeded with url: /v1 "
            "(Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] "
            "Connection refused'))"
        ),
        "python.pytest-network-only",
        PLATFORM,
        "pytest-remote-host-refused",
    ),
    (
        "pytest",
        pytest_summary(
            "FAILED tests/test_r.py::test_latest - github.GithubException."
            'RateLimitExceededException: 403 {"message": "API rate limit exceeded for 52.176.10.1."}'
        ),
        "python.pytest-network-only",
        PLATFORM,
        "pytest-github-rate-limit",
    ),
    (
        "pytest",
        pytest_summary(
            "ERROR tests/test_models.py::test_roundtrip[tiny-bert] - huggingface_hub.errors.HfHubHTTPError: "
            "429 Client Error: Too Many Requests for url: https://huggingface.co/api/models/acme/tiny-bert"
        ),
        "python.pytest-network-only",
        PLATFORM,
        "pytest-hugging-face-hub-429",
    ),
    (
        "pytest",
        pytest_summary(
            "ERROR tests/test_db.py::test_insert - psycopg2.OperationalError: connection to "
            'server at "localhost" (127.0.0.1), port 5432 failed: FATAL:  role "root" does not exist'
        ),
        "python.pytest-credentials-only",
        REPO,
        "pytest-pg-role",
    ),
    (
        "pytest",
        pytest_summary(
            'ERROR tests/test_db.py::test_insert - MySQLdb.OperationalError: (1045, "Access '
            "denied for user 'root'@'localhost' (using password: NO)\")"
        ),
        "python.pytest-credentials-only",
        REPO,
        "pytest-mysql-1045",
    ),
    (
        "pytest",
        "SKIPPED [3] tests/test_api.py:12: EXAMPLE_API_KEY not set\n"
        + pytest_summary("ERROR tests/test_api.py::test_roundtrip - KeyError: 'EXAMPLE_API_KEY'"),
        "python.pytest-credentials-only",
        REPO,
        "pytest-keyerror-secret",
    ),
]


@pytest.mark.parametrize(
    ("command", "output", "rule", "want"), [pytest.param(*c[:4], id=c[4]) for c in CASES]
)
def test_each_entry_reads_its_tools_words(command: str, output: str, rule: str, want: tuple) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param("mvn -B test", SUREFIRE_CRASH.format(code=1), id="surefire-system-exit"),
        pytest.param(
            "go test ./...",
            "--- FAIL: TestDiskFull (0.00s)\n    writer_test.go:30: got err nil, want "
            '"no space left on device"\nFAIL\nFAIL\texample.com/app/writer\t0.012s',
            id="go-quotes-enospc",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_auth.py::test_expired_token_raises - requests.exceptions.HTTPError: 401 "
                "Client Error: UNAUTHORIZED for url: http://localhost:38123/token"
            ),
            id="pytest-401-from-the-tests-own-server",
        ),
        pytest.param(
            "pytest",
            "    def test_write_reports_enospc(store):\n"
            '>       assert str(exc.value) == "snapshot store is full: No space left on device"\n'
            "E       AssertionError: assert 'cannot write snapshot: [Errno 28] No space left on device' == "
            "'snapshot store is full: No space left on device'\n"
            "FAILED tests/test_snapshots.py::test_write_reports_enospc - AssertionError: assert 'cannot "
            "write snapshot: [Errno 28] No space left on device' == 'snapsh...\n"
            "==== 1 failed, 387 passed in 21.36s ====",
            id="pytest-asserts-on-enospc",
        ),
        pytest.param(
            "cargo test --no-fail-fast",
            "---- tests::adds stdout ----\nthread 'tests::adds' panicked at "
            "src/lib.rs:10:9:\nassertion `left == right` failed\n\ntest result: FAILED. 2 passed; 1 failed; "
            "0 ignored\n\nerror: test failed\nCaused by:\n  process didn't exit successfully: `/w/app-2c` "
            "(signal: 9, SIGKILL: kill)",
            id="cargo-assertion-beside-a-kill",
        ),
        pytest.param(
            "npx mocha",
            "  1 failing\n\n  1) client\n       reports refusal:\n     AssertionError: "
            "expected 'ETIMEDOUT' to equal 'ECONNREFUSED'",
            id="mocha-asserts-on-an-error-code",
        ),
        pytest.param(
            "./gradlew test",
            "> Task :app:test\n\nRepoTest > finds() FAILED\n    java.lang."
            'NullPointerException: Cannot invoke "javax.sql.DataSource.getConnection()"\n\n1 test '
            "completed, 1 failed",
            id="gradle-npe-in-a-repository",
        ),
        pytest.param(
            "pytest",
            pytest_summary("FAILED tests/test_p.py::test_parse - KeyError: 'name'"),
            id="pytest-keyerror-of-the-code",
        ),
        # a refused connection on the job's own machine: nothing listened where the tests dialled (the
        # application the pull request moved to another port), not the network
        pytest.param(
            "pytest tests/integration",
            pytest_summary(
                "FAILED tests/integration/test_orders.py::test_create - httpx.ConnectError: [Errno 111] "
                "Connection refused",
                "FAILED tests/integration/test_orders.py::test_list - httpx.ConnectError: [Errno 111] "
                "Connection refused",
            ),
            id="pytest-local-app-refused",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_api.py::test_health - requests.exceptions.ConnectionError: "
                "HTTPConnectionPool(host='localhost', port=8000): Max retries exceeded with url: /health "
                "(Caused by NewConnectionError('Failed to establish a new connection: [Errno 111] "
                "Connection refused'))"
            ),
            id="pytest-loopback-refused",
        ),
        # a server answered, on the machine or under a name only the job's network or the test knows: the
        # test's fake (pytest-httpserver) or the in-process TestClient's `testserver`, not the network
        pytest.param(
            "pytest -q tests/test_client.py",
            pytest_summary(
                "FAILED tests/test_client.py::test_retry_on_503 - requests.exceptions.HTTPError: 503 Server "
                "Error: SERVICE UNAVAILABLE for url: http://localhost:41221/v1/items"
            ),
            id="pytest-503-from-the-machine",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_sync.py::test_retries_busy_upstream - requests.exceptions.HTTPError: 503 "
                "Server Error: Service Unavailable for url: http://testserver/api/sync"
            ),
            id="pytest-503-from-the-testserver",
        ),
        # a host under a top-level domain no public resolver answers: the test's stub meant it (RFC 2606)
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_client_retry.py::test_retries_on_503 - requests.exceptions.HTTPError: 503 "
                "Server Error: Service Unavailable for url: http://upstream.test/items"
            ),
            id="pytest-503-from-a-reserved-domain",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_feed.py::test_gives_up - requests.exceptions.ConnectionError: "
                "HTTPConnectionPool(host='feeds.example', port=80): Max retries exceeded with url: /rss"
            ),
            id="pytest-connection-error-at-a-reserved-domain",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_client.py::test_gives_up - requests.exceptions.ConnectionError: "
                "Connection refused"
            ),
            id="pytest-mocked-refusal",
        ),
        pytest.param(
            "pytest",
            pytest_summary(
                "FAILED tests/test_r.py::test_gives_up - Failed: DID NOT RAISE <class 'TimeoutError'>"
            ),
            id="pytest-asserts-a-timeout",
        ),
        pytest.param(
            "npx jest",
            " FAIL  src/a.test.ts\n  ● a › adds\n\n    expect(received).toBe(expected)\n\n"
            "    Expected: 3\n    Received: 4\n\nTests:       1 failed, 9 passed, 10 total\nJest did not "
            "exit one second after the test run has completed.",
            id="jest-did-not-exit-beside-assertion",
        ),
    ],
)
def test_the_codes_own_failures_stay_the_codes(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)


def test_a_full_disk_a_test_met_is_still_the_runners() -> None:
    # the same words as an exception, not inside an assertion: the disk was full
    output = (
        "    def test_write(store):\n>       store.write(b'x' * 10)\n"
        "E       OSError: [Errno 28] No space left on device\n"
        "FAILED tests/test_snapshots.py::test_write - OSError: [Errno 28] No space left on device\n"
        "==== 1 failed, 387 passed in 21.36s ===="
    )
    diagnosis = diagnose("pytest", output)
    assert (diagnosis.rule, diagnosis.owner) == ("runner.disk-full", Owner.PLATFORM)


def test_windows_full_disk_under_a_compiler_error_is_the_runners() -> None:
    # Windows' ERROR_DISK_FULL as the C# compiler quotes it: MSBuild's CS0016 is not the code's error
    output = (
        "CSC : error CS0016: Could not write to output file 'D:\\a\\app\\obj\\Release\\App.dll' -- "
        "'There is not enough space on the disk. : 'D:\\a\\app\\obj\\Release\\App.dll''\n"
        "Build FAILED.\n    0 Warning(s)\n    1 Error(s)"
    )
    diagnosis = diagnose("dotnet build -c Release", output, job="build")
    assert (diagnosis.rule, diagnosis.owner) == ("runner.disk-full", Owner.PLATFORM)
