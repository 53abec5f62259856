"""Tests that all stopped on the network or on a credential: the platform's or the repository's, read from
each framework's own report; one failure of any other kind keeps them the code's."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.diagnosis.testcauses import failure_causes
from healer.model import Action, Category, Evidence, Job, LogTail, Owner

RULES = load_rules()
STAMP = "2026-11-03T10:02:11.0000000Z "


def diagnose(command: str, output: str):  # noqa: ANN201
    lines = [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += output.strip("\n").splitlines() + ["##[error]Process completed with exit code 1."]
    text = "".join(f"{STAMP}{line}\n" for line in lines)
    job = Job(id=1, name="test", status="completed", conclusion="failure")
    return classify(Evidence(job=job, log=LogTail(text=text, bytes_read=len(text), truncated=False)), RULES)


JEST_DNS = """
FAIL test/api.test.js
  ● weather › fetches the forecast

    getaddrinfo ENOTFOUND api.weather.io

      at GetAddrInfoReqWrap.onlookup [as oncomplete] (node:dns:107:26)

  ● weather › fetches alerts

    getaddrinfo EAI_AGAIN api.weather.io

Tests:       2 failed, 10 passed, 12 total
"""
GO_DNS = """
--- FAIL: TestFetch (0.01s)
    client_test.go:20: Get "https://api.example.com/v1": dial tcp: lookup api.example.com: no such host
--- FAIL: TestList (0.01s)
    client_test.go:35: Get "https://api.example.com/v1/items": dial tcp 93.184.216.34:443: i/o timeout
FAIL
FAIL\tgithub.com/o/r/client\t0.030s
"""
GO_TESTIFY_REGISTRY_500 = """
2025/02/17 12:04:44 Failed to pull image: Error response from daemon: received unexpected HTTP status: 500 \
Internal Server Error, will retry
--- FAIL: TestRepoIntegration (65.12s)
    repo_integration_test.go:31:
        \tError Trace:\t/home/runner/work/a/a/internal/store/repo_integration_test.go:31
        \tError:      \tReceived unexpected error:
        \t            \tgeneric container: create container: Error response from daemon: received unexpected \
HTTP status: 500 Internal Server Error
        \tTest:       \tTestRepoIntegration
FAIL
FAIL\tgithub.com/o/r/internal/store\t65.311s
"""
SUREFIRE_DNS = """
[ERROR] Tests run: 2, Failures: 0, Errors: 2, Skipped: 0, Time elapsed: 0.3 s <<< FAILURE! - in x.ClientTest
[ERROR] com.x.ClientTest.fetches  Time elapsed: 0.1 s  <<< ERROR!
java.net.UnknownHostException: api.example.com
\tat java.base/java.net.InetAddress$CachedAddresses.get(InetAddress.java:801)
[ERROR] com.x.ClientTest.lists  Time elapsed: 0.1 s  <<< ERROR!
java.net.SocketTimeoutException: Connect timed out
"""
RSPEC_DNS = """
Failures:

  1) Weather fetches the forecast
     Failure/Error: Net::HTTP.get(URI("https://api.weather.io/v1"))

     SocketError:
       Failed to open TCP connection to api.weather.io:443 (getaddrinfo: Name or service not known)
     # ./spec/weather_spec.rb:5:in `block (2 levels) in <top (required)>'

3 examples, 1 failure
"""
PHPUNIT_DNS = """
There was 1 error:

1) Tests\\ClientTest::testFetch
GuzzleHttp\\Exception\\ConnectException: cURL error 6: Could not resolve host: api.example.com

ERRORS!
Tests: 10, Assertions: 20, Errors: 1.
"""
DOTNET_DNS = """
  Failed Api.Tests.ClientTests.Fetches [120 ms]
  Error Message:
   System.Net.Http.HttpRequestException: Name or service not known (api.example.com:443)
  Stack Trace:
     at System.Net.Http.HttpConnectionPool.ConnectToTcpHostAsync
Failed!  - Failed:     1, Passed:    41, Skipped:     0, Total:    42, Duration: 1 s - Api.Tests.dll (net8.0)
"""

# (a Testcontainers image that the registry did not serve is read before the tests' causes, by the rule
# network.container-image-pull: tests/diagnosis/test_release_services.py)
GRADLE_TIMEOUT = "\n".join(
    [
        "TileClientIT > fetchesTheTileIndex() FAILED",
        "    java.net.SocketTimeoutException: Connect timed out",
        "        at java.base/sun.nio.ch.NioSocketImpl.timedFinishConnect(NioSocketImpl.java:546)",
        "",
        "1 test completed, 1 failed",
    ]
)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param("npx jest", JEST_DNS, id="jest"),
        pytest.param("./gradlew integrationTest", GRADLE_TIMEOUT, id="gradle-connect-timeout"),
        pytest.param("go test ./...", GO_DNS, id="go"),
        pytest.param(
            "go test -tags integration ./...", GO_TESTIFY_REGISTRY_500, id="go-testify-registry-500"
        ),
        pytest.param("mvn -B test", SUREFIRE_DNS, id="surefire"),
        pytest.param("bundle exec rspec", RSPEC_DNS, id="rspec"),
        pytest.param("vendor/bin/phpunit", PHPUNIT_DNS, id="phpunit"),
        pytest.param("dotnet test", DOTNET_DNS, id="dotnet"),
    ],
)
def test_tests_that_all_stopped_on_the_network_are_the_platforms(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.PLATFORM,
        Category.TRANSIENT,
        Action.RERUN,
    )
    said = dict(diagnosis.decided_by)
    assert said["evidence"].startswith("every failing test (")
    assert said["row"] == "(platform, transient) → rerun"


def test_tests_that_all_stopped_on_a_credential_are_the_repositorys() -> None:
    output = """
FAIL test/stripe.test.js
  ● payments › creates a charge

    StripeAuthenticationError: Invalid API Key provided: sk_test_****

  ● payments › refunds

    Request failed with status code 401 Unauthorized

Tests:       2 failed, 10 passed, 12 total
"""
    diagnosis = diagnose("npx jest", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_credential_refused_by_the_tests_own_server_is_the_codes() -> None:
    # Go's httptest server listens on the loopback: its 401 is the test's fixture answering, no job secret
    output = "\n".join(
        [
            "--- FAIL: TestClient_TokenRefresh (0.01s)",
            "    client_test.go:93: unexpected error: GET http://127.0.0.1:41377/user: 401 Unauthorized",
            "FAIL",
            "FAIL\tacme/ghclient\t0.044s",
        ]
    )
    diagnosis = diagnose("go test ./...", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    # the same refusal from a host out there is the job's credential, and so from a name under a reserved
    # domain, which may stand for a real service
    for host in ("api.github.com", "sandbox.payments.example"):
        remote = diagnose("go test ./...", output.replace("127.0.0.1:41377", host))
        assert (remote.owner, remote.action) == (Owner.REPOSITORY, Action.ESCALATE), host


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param(
            "npx jest",
            JEST_DNS.replace("getaddrinfo EAI_AGAIN api.weather.io", "expect(received).toBe(expected)"),
            id="one-assertion-among-network-errors",
        ),
        pytest.param(
            "npx jest",
            """
FAIL test/retry.test.js
  ● retry › gives up after ETIMEDOUT

    expect(received).toBe(expected) // Object.is equality

    Expected: "ETIMEDOUT"
    Received: "ECONNRESET"

Tests:       1 failed, 10 passed, 11 total
""",
            id="an-assertion-that-names-network-errors",
        ),
        pytest.param(
            "go test ./...",
            """
--- FAIL: TestStore (0.00s)
    store_test.go:20: dial tcp 127.0.0.1:5432: connect: connection refused
FAIL
FAIL\tgithub.com/o/r/store\t0.010s
""",
            id="a-refused-connection-to-the-jobs-own-service",
        ),
        pytest.param(
            "go test ./...",
            """
--- FAIL: TestClassifyDialError (0.00s)
    --- FAIL: TestClassifyDialError/reset_by_peer (0.00s)
        retry_test.go:47: Classify(read tcp 10.0.0.9:5432: connection reset by peer) = Fatal, want Retryable
FAIL
FAIL\tgithub.com/o/r/internal/retry\t0.014s
""",
            id="go-foo-of-x-equals-y-want-z",
        ),
        pytest.param(
            "bundle exec rspec",
            """
Failures:

  1) RemoteRates falls back to cached rates when the rate service times out
     Failure/Error: response = http.request(req)

     Net::ReadTimeout:
       Net::ReadTimeout with "Exception from WebMock"
     # ./lib/remote_rates.rb:34:in `fetch'

1171 examples, 1 failure
""",
            id="webmock-raised-the-timeout",
        ),
        pytest.param(
            "npx jest",
            """
FAIL test/client.test.js
  ● client › fetches the forecast

    Nock: No match for request {"method":"GET","url":"https://api.weather.io/v1?q=x"} ETIMEDOUT

Tests:       1 failed, 10 passed, 11 total
""",
            id="nock-matched-no-request",
        ),
    ],
)
def test_any_other_failure_keeps_the_tests_the_codes(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.TEST,
        Action.AGENT,
    )


def test_the_causes_are_read_per_test_and_an_unsplittable_report_gives_none() -> None:
    lines = JEST_DNS.strip("\n").splitlines()
    assert failure_causes("js.jest-failed", lines) == [
        "getaddrinfo ENOTFOUND api.weather.io",
        "getaddrinfo EAI_AGAIN api.weather.io",
    ]
    assert failure_causes("python.pytest-failed", lines) is None  # pytest has its own rules
    # a header right under a header: which cause is whose cannot be told
    assert failure_causes("js.jest-failed", ["  ● a › b", "  ● a › c", "", "    boom"]) is None


def test_tests_that_all_stopped_on_a_key_variable_not_set_are_the_repositorys() -> None:
    """A variable named for a key that the test says is not set is a secret the job did not get (a fork's run
    gets none): any ``*_KEY``, not only an ``API_KEY``."""
    output = """
  1 failing

  1) payments
       charges the sandbox card:
     Error: PAYWHARF_SANDBOX_KEY is not set. Integration tests need a sandbox key (see CONTRIBUTING.md).
"""
    diagnosis = diagnose("npx mocha --timeout 20000 test/integration", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def pytest_report(*causes: str, cut: bool = False) -> str:
    out = ["=================================== FAILURES ==================================="]
    for n, cause in enumerate(causes):
        out += [
            f"_____________________________ test_fetch_{n} ______________________________",
            "    def test_fetch():",
            ">       feed = fetch('https://example.org/atom.xml', timeout=5)",
            f"E   {cause}",
            f"tests/test_fetch.py:{70 + n}: Error",
        ]
    if cut:  # one more failure whose section shows no exception line
        out += [
            "_____________________________ test_cut ______________________________",
            "    def test_cut():",
        ]
    out.append(
        f"===================== {len(causes) + cut} failed, 86 passed in 9.12 seconds ====================="
    )
    return "\n".join(out)


DNS = (
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='example.org', port=443): Max retries "
    "exceeded with url: /atom.xml (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection object "
    "at 0x7f3c2a1b4e10>: Failed to establish a new connection: [Errno -3] Temporary failure in name "
    "resolution'))"
)


def test_pytest_failures_without_a_summary_that_all_stopped_on_the_network_are_the_platforms() -> None:
    diagnosis = diagnose("pytest", pytest_report(DNS, DNS))
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
    assert failure_causes("python.pytest-failed", pytest_report(DNS).splitlines()) == [DNS]


def test_pytest_failures_with_one_assertion_or_a_section_without_its_exception_stay_the_codes() -> None:
    assert diagnose("pytest", pytest_report(DNS, "AssertionError: assert 3 == 4")).owner is Owner.CODE
    assert diagnose("pytest", pytest_report(DNS, cut=True)).owner is Owner.CODE
    assert failure_causes("python.pytest-failed", pytest_report(DNS, cut=True).splitlines()) is None


def test_a_go_tests_got_and_want_is_an_assertion_whatever_status_it_names() -> None:
    output = """
--- FAIL: TestHealthz (0.00s)
    --- FAIL: TestHealthz/ready_when_db_up (0.00s)
        health_test.go:41: GET /healthz: got status 503 Service Unavailable, want 200 OK
FAIL
FAIL\tgithub.com/acme/quoin/internal/server\t0.038s
"""
    assert diagnose("go test ./...", output).owner is Owner.CODE


def test_a_go_tests_want_and_got_on_lines_of_their_own_are_an_assertion() -> None:
    output = """
--- FAIL: TestDialErrorIsWrapped (0.00s)
    dial_test.go:41: error mismatch:
        want: "connect upstream: dial tcp 10.0.0.1:443: i/o timeout"
        got:  "dial tcp 10.0.0.1:443: i/o timeout"
FAIL
FAIL\tgithub.com/acme/quarry/transport\t0.021s
"""
    assert diagnose("go test ./...", output).owner is Owner.CODE


def test_a_go_tests_later_assertion_outranks_the_refusal_it_logged_first() -> None:
    # the test logs its fake server's 401, then fails on what the code returned: the code's
    output = """
--- FAIL: TestRefresh_RevokedInstallation (0.01s)
    refresh_test.go:77: fake github: POST /app/installations/42/access_tokens -> 401 Bad credentials
    refresh_test.go:83: expected ErrInstallationRevoked, got <nil>
FAIL
FAIL\tgithub.com/acme/broker/internal/broker\t0.214s
"""
    assert diagnose("go test ./...", output).owner is Owner.CODE
    # with no assertion after it, the refusal is what stopped the test: the job's credential
    refused = output.replace("    refresh_test.go:83: expected ErrInstallationRevoked, got <nil>\n", "")
    assert diagnose("go test ./...", refused).owner is Owner.REPOSITORY


def test_testifys_assertion_under_its_error_trace_keeps_the_test_the_codes() -> None:
    output = """
--- FAIL: TestPull (0.02s)
    pull_test.go:18:
        \tError Trace:\t/home/runner/work/a/a/pull_test.go:18
        \tError:      \tNot equal:
        \t            \texpected: "received unexpected HTTP status: 500 Internal Server Error"
        \t            \tactual  : "ok"
FAIL
"""
    assert diagnose("go test ./...", output).owner is Owner.CODE


def test_a_network_error_the_tests_own_source_raises_is_the_tests_choice() -> None:
    # a fake transport told to fail with the reset the client then gives up on: the test staged it
    report = pytest_report(DNS).replace(
        "    def test_fetch():",
        "    def test_fetch():\n"
        '        fake.fail_with(ConnectionResetError(104, "Connection reset by peer"), times=3)',
    )
    reset = "quayside.errors.RetriesExhausted: gave up after 3 attempts: [Errno 104] Connection reset by peer"
    staged = report.replace(f"E   {DNS}", f"E   {reset}")
    assert diagnose("pytest", staged).owner is Owner.CODE
    # the same error with nothing in the test's source that names it is the network's
    assert diagnose("pytest", pytest_report(reset, reset)).owner is Owner.PLATFORM


PYTEST_CAPTURED_DISK = """
=================================== FAILURES ===================================
_______________________ test_translate_oserror[ENOSPC] _______________________

    def test_translate_oserror():
        err = OSError(28, os.strerror(28))
>       assert translate(err).code == "ENOSPC"
E       {cause}

tests/test_errors.py:22: {kind}
------------------------------ Captured log call -------------------------------
ERROR    spool.io:errors.py:31 write failed: [Errno 28] No space left on device
======================== 1 failed, 256 passed in 4.71s =========================
"""


def test_a_full_disk_in_a_tests_captured_log_does_not_outrank_its_failed_assertion() -> None:
    asserted = PYTEST_CAPTURED_DISK.format(
        cause="AssertionError: assert 'EIO' == 'ENOSPC'", kind="AssertionError"
    )
    diagnosis = diagnose("pytest", asserted)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "python.pytest-failed",
        Owner.CODE,
        Action.AGENT,
    )
    # the test stopped on the full disk itself: the machine's
    full = PYTEST_CAPTURED_DISK.format(cause="OSError: [Errno 28] No space left on device", kind="OSError")
    diagnosis = diagnose("pytest", full)
    assert (diagnosis.rule, diagnosis.owner) == ("runner.disk-full", Owner.PLATFORM)


RSPEC_TITLES = """
Manifest
  builds token when node is empty
  raises token when report is missing
  converts grams to kilograms (FAILED - 1)

Failures:

  1) Manifest converts grams to kilograms
     Failure/Error: expect(manifest.weight(:kg)).to eq(1.25)

       expected: 1.25
            got: 1250

Finished in 0.41 seconds (files took 0.2 seconds to load)
212 examples, 1 failure
"""


def test_a_passing_tests_title_that_reads_like_a_missing_secret_does_not_outrank_an_assertion() -> None:
    diagnosis = diagnose("bundle exec rspec", RSPEC_TITLES)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "ruby.rspec-failed",
        Owner.CODE,
        Action.AGENT,
    )


PYTEST_STAGED_RESET = """
=================================== FAILURES ===================================
________________ test_list_items_retries ________________

    @respx.mock
    def test_list_items_retries():
        respx.get("https://api.tide.test/v1/items").mock(
            side_effect=[httpx.ConnectError("Connection reset by peer"), httpx.Response(200, json=[])]
        )
>       assert client.list_items() == []
E   httpx.ConnectError: Connection reset by peer

.venv/lib/python3.13/site-packages/respx/models.py:412: ConnectError
=========================== short test summary info ============================
FAILED tests/test_client.py::test_list_items_retries - httpx.ConnectError: Connection reset by peer
============================== 1 failed, 88 passed in 2.10s ==============================
"""


def test_a_network_error_the_test_staged_does_not_make_a_network_only_run() -> None:
    diagnosis = diagnose("pytest", PYTEST_STAGED_RESET)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "python.pytest-failed",
        Owner.CODE,
        Action.AGENT,
    )
    # the same error in a test that mocks nothing: the network's
    start, end = PYTEST_STAGED_RESET.index("    @respx.mock"), PYTEST_STAGED_RESET.index(">       assert")
    real = PYTEST_STAGED_RESET[:start] + "    def test_list_items_retries():\n" + PYTEST_STAGED_RESET[end:]
    assert "respx" not in real.split("E   ")[0]
    assert diagnose("pytest", real).owner is Owner.PLATFORM


def test_a_timeout_against_a_loopback_server_is_not_the_networks() -> None:
    output = (
        "--- FAIL: TestHealthEndpoint (5.00s)\n"
        '    server_test.go:62: GET /healthz: Get "http://{host}/healthz": context deadline exceeded '
        "(Client.Timeout exceeded while awaiting headers)\n"
        "FAIL\nFAIL\tgithub.com/acme/beacon/internal/server\t5.041s\n"
    )
    for host in ("127.0.0.1:39211", "localhost:8080", "[::1]:8080"):
        assert diagnose("go test ./...", output.format(host=host)).owner is Owner.CODE, host
    # the same time-out against a host out on the network: the network's
    assert diagnose("go test ./...", output.format(host="api.weather.io")).owner is Owner.PLATFORM


def test_a_host_no_public_resolver_answers_is_not_the_networks_to_resolve() -> None:
    output = (
        "--- FAIL: TestResolveUpstream (0.01s)\n"
        "    resolve_test.go:29: unexpected error: lookup {host}: no such host\n"
        "FAIL\nFAIL\tgithub.com/acme/sieve/dns\t0.033s\n"
    )
    for host in ("relay.postcard.test", "upstream.svc.cluster.local", "api.invalid", "db.example"):
        assert diagnose("go test ./...", output.format(host=host)).owner is Owner.CODE, host
    # a public name that did not resolve: the network's (example.com resolves; its TLD is not reserved)
    assert diagnose("go test ./...", output.format(host="api.example.com")).owner is Owner.PLATFORM


def test_a_name_of_one_label_is_the_jobs_own_service_not_the_networks() -> None:
    output = (
        "FAIL test/db.int.test.ts\n  ● db › connects\n\n    getaddrinfo EAI_AGAIN {host}\n\n"
        "Tests:       1 failed, 40 passed, 41 total\n"
    )
    assert diagnose("npx jest", output.format(host="postgress")).owner is Owner.CODE
    assert diagnose("npx jest", output.format(host="db.internal.acme.io")).owner is Owner.PLATFORM
    # libpq's words, under every test pytest's summary lists
    pg = (
        "ERROR tests/test_orders.py::test_cancel - django.db.utils.OperationalError: connection failed: could"
        ' not translate host name "{host}" to address: Name or service not known\n'
        "1 passed, 1 error in 0.41s\n"
    )
    assert diagnose("python -m pytest -q", pg.format(host="db")).owner is Owner.CODE
    assert diagnose("python -m pytest -q", pg.format(host="db.internal.acme.io")).owner is Owner.PLATFORM


def test_requests_server_error_under_every_failing_test_is_the_networks() -> None:
    error = (
        "E   huggingface_hub.errors.HfHubHTTPError: 503 Server Error: Service Temporarily Unavailable "
        "for url: https://huggingface.co/acme/tiny/resolve/main/config.json"
    )
    output = (
        "==================================== ERRORS ====================================\n"
        "__________________ ERROR at setup of test_tokenize __________________\n"
        f"{error}\n"
        "__________________ ERROR at setup of test_render __________________\n"
        f"{error}\n"
        "=========================== short test summary info ============================\n"
        "ERROR tests/test_tok.py::test_tokenize - huggingface_hub.errors.HfHubHTTPError: 503 Server Error\n"
        "ERROR tests/test_tok.py::test_render - huggingface_hub.errors.HfHubHTTPError: 503 Server Error\n"
        "========================= 40 passed, 2 errors in 3.10s =========================\n"
    )
    assert diagnose("pytest", output).owner is Owner.PLATFORM


def test_a_server_error_from_a_host_of_one_label_is_the_tests_own_server() -> None:
    # the in-process TestClient's `testserver`, or a service's alias: the server answered on the job's network
    output = (
        "________________________ test_get_retries_on_503 ________________________\n"
        "    def test_get_retries_on_503(client):\n"
        ">       assert client.tides() == []\n"
        "E       requests.exceptions.HTTPError: 503 Server Error: Service Unavailable for url: "
        "http://{host}/api/tides\n"
        "=========================== short test summary info ============================\n"
        "========================= 1 failed, 80 passed in 2.10s =========================\n"
    )
    for host in ("testserver", "api:8080"):
        assert diagnose("pytest", output.format(host=host)).owner is Owner.CODE, host
    assert diagnose("pytest", output.format(host="tides.example.org")).owner is Owner.PLATFORM


def test_a_go_test_v_failure_whose_messages_hold_an_assertion_outranks_the_machines_words() -> None:
    output = (
        "=== RUN   TestSegmentWriterReportsDiskFull\n"
        "    writer_test.go:77: Write() error = write segment 42: no space left on device, want ErrDiskFull\n"
        "--- FAIL: TestSegmentWriterReportsDiskFull (0.00s)\n"
        "=== RUN   TestClientRetries\n"
        "    client_test.go:71: fake server: 403 API rate limit exceeded for installation\n"
        "    client_test.go:88: attempts = 1, want 3\n"
        "--- FAIL: TestClientRetries (0.00s)\n"
        "FAIL\nFAIL\tgithub.com/acme/seg\t0.044s\n"
    )
    diagnosis = diagnose("go test -v ./...", output)
    assert (diagnosis.rule, diagnosis.owner) == ("go.test-failed", Owner.CODE)


def test_an_aws_sdk_for_java_with_no_credentials_to_load_is_the_repositorys() -> None:
    output = "\n".join(
        [
            "BucketStoreIT > storesAnObject() FAILED",
            "    java.lang.IllegalStateException at BucketStoreIT.java:28",
            "        Caused by: software.amazon.awssdk.core.exception.SdkClientException: "
            "Unable to load credentials from any of the providers in the chain AwsCredentialsProviderChain()",
            "",
            "1 test completed, 1 failed",
        ]
    )
    diagnosis = diagnose("./gradlew integrationTest", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_an_aws_key_that_does_not_exist_under_every_go_test_is_the_repositorys() -> None:
    refused = (
        "https response error StatusCode: 403, RequestID: 22A2E8868E510BD9, api error InvalidAccessKeyId: "
        "The AWS Access Key Id you provided does not exist in our records."
    )
    output = "\n".join(
        [
            "--- FAIL: TestS3RoundTrip (0.48s)",
            f"    s3_test.go:41: put object: operation error S3: PutObject, {refused}",
            "--- FAIL: TestS3List (0.21s)",
            f"    s3_test.go:77: list objects: operation error S3: ListObjectsV2, {refused}",
            "FAIL",
            "FAIL\tgithub.com/acme/archive/storage/s3\t0.934s",
        ]
    )
    diagnosis = diagnose("go test ./...", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_test_that_asserts_on_an_aws_refusal_is_still_the_codes() -> None:
    output = "\n".join(
        [
            "--- FAIL: TestMapsInvalidAccessKeyIdToAuthError (0.00s)",
            "    errors_test.go:19: got ErrThrottled for InvalidAccessKeyId, want ErrAuth",
            "FAIL",
            "FAIL\tgithub.com/acme/archive/storage/s3\t0.012s",
        ]
    )
    diagnosis = diagnose("go test ./...", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_gated_model_refused_under_every_pytest_failure_is_the_repositorys() -> None:
    refused = "huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: Root=1-67a1c2f0)"
    diagnosis = diagnose("pytest tests", pytest_report(refused, refused))
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


MOCKED_401 = """
=================================== FAILURES ===================================
________________________ test_list_releases_uses_token _________________________

mocked_api = <responses.RequestsMock object at 0x7f11c0a4d6d0>

    @responses.activate
    def test_list_releases_uses_token(mocked_api):
        gh = GitHubClient(token="ghp_testtoken")
>       releases = gh.list_releases("octo/widgets")

tests/test_github.py:58:
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _
src/relnotes/github.py:41: in list_releases
    resp.raise_for_status()
_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _

self = <Response [401]>

>       raise HTTPError(http_error_msg, response=self)
E       {cause}

.venv/lib/python3.12/site-packages/requests/models.py:1026: HTTPError
=========================== short test summary info ============================
FAILED tests/test_github.py::test_list_releases_uses_token - {cause}
========================= 1 failed, 150 passed in 41.93s =========================
""".replace(
    "{cause}",
    "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.github.com/o",
)


@pytest.mark.parametrize(
    ("mark", "fixture"),
    [
        pytest.param(
            "@responses.activate",
            "mocked_api = <responses.RequestsMock object at 0x7f11c0a4d6d0>",
            id="responses",
        ),
        pytest.param("@respx.mock", "mocked_api = None", id="respx"),
        pytest.param(
            "", "requests_mock = <requests_mock.mocker.Mocker object at 0x7f11c0a4d6d0>", id="requests-mock"
        ),
        pytest.param("", "httpx_mock = <pytest_httpx.HTTPXMock>", id="pytest-httpx-fixture"),
        pytest.param("@pytest.mark.vcr", "mocked_api = None", id="vcr"),
    ],
)
def test_a_refusal_or_network_error_under_an_http_mocking_library_is_the_tests_own(
    mark: str, fixture: str
) -> None:
    report = MOCKED_401.replace("@responses.activate", mark).replace(
        "mocked_api = <responses.RequestsMock object at 0x7f11c0a4d6d0>", fixture
    )
    assert (diagnose("pytest", report).owner, diagnose("pytest", report).action) == (Owner.CODE, Action.AGENT)
    # a connection error the mock raised: the test's, not the network's
    reset = report.replace(
        "HTTPError: 401 Client Error: Unauthorized for url: https://api.github.com/o",
        "ConnectionError: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
    )
    assert diagnose("pytest", reset).owner is Owner.CODE
    # the same report without a mocking library: the job's credential, and the network
    bare = report.replace(mark, "").replace(fixture, "mocked_api = None")
    assert diagnose("pytest", bare).owner is Owner.REPOSITORY
    unmocked_reset = reset.replace(mark, "").replace(fixture, "mocked_api = None")
    assert diagnose("pytest", unmocked_reset).owner is Owner.PLATFORM
