"""Tests that failed only on the world around them: the network, or a credential the job did not have.

A test framework's report names each failing test and, under it, what stopped it: an assertion, or an
exception. When *every* failing test stopped on the network (a host that did not resolve, a connection that
timed out or was reset, a server that answered 5xx or 429) the tests could not reach what they test against,
and a re-run is what helps: the platform's. When every one stopped on a refused or missing credential (HTTP
401/403, an SDK's authentication error, a secret's variable said to be empty) the job lacked its secrets
(GitHub passes none to a fork's pull request): the repository's. One failure of any other kind, or a report
the reader cannot split, leaves the diagnosis as it was: the code's.

A refused connection is left out on purpose: a service the job starts (a database on ``localhost``) that
refuses may be the workflow's or the pull request's, and nothing in the log says which. So is any network
error with a loopback address (``127.0.0.1``, ``localhost``, ``[::1]``): that traffic never left the machine,
and the server that timed out or hung up is one the job or the test itself started. So is one naming a host
under a top-level domain no public resolver answers (RFC 2606's ``.test``, ``.example``, ``.invalid``,
``.localhost``; RFC 6762's ``.local``): no network resolves it, the test meant it to be stubbed or served
by the job. So is a name of one label that did not resolve (``getaddrinfo EAI_AGAIN postgres``): only the
job's own network names such a host (a service container's alias). An HTTP refusal from a loopback address
(``GET http://127.0.0.1:41377/user: 401 Unauthorized``) is the answer of a server the test started, not the
job's missing secret; a database the job runs there refusing the tests' login still is the job's.

Each framework's report, as its documentation shows it:

- Jest: ``● Suite › test`` then the error's first line; Vitest: `` FAIL  file > Suite > test`` then it.
- go test: ``--- FAIL: TestX`` then the test's own ``file_test.go:NN: message`` lines (testify's ``Error
  Trace:`` line, then its ``Error:`` and the error under it).
- Maven Surefire: ``… <<< ERROR!`` (or ``FAILURE!``) then the exception's line.
- RSpec: ``Failure/Error: code`` then the exception's class and message.
- PHPUnit: ``1) Class::test`` then the exception's line.
- ``dotnet test``: ``Error Message:`` then the message.
- Mocha (and Cypress, which reports through it): ``1) Suite`` then the test's title and ``:``, then the error.
- Gradle: ``Class > test() FAILED`` then the exception's line; ``cargo test``: ``---- name stdout ----`` then
  the panic's ``thread '…' panicked at file:line:`` and its message.
- pytest: each failure's section, ``____ test_name ____``, and in it the first ``E   `` line (the exception
  pytest reports), read when pytest printed no short summary (``-r``) for the rule to read.

An error's cause printed under it (Vitest's and Node's ``Caused by: …``, for ``TypeError: fetch failed``) is
read with it. A database that refused the tests' login (PostgreSQL's ``FATAL: role "…" does not exist`` and
``password authentication failed for user``, MySQL's error 1045 ``Access denied for user``) is a refused
credential: the job's service and the tests' settings disagree, which no change to the code under test mends.

A Go test's logs and its errors are written alike, so an assertion among its messages under the header is
its cause, whatever it logged first (a fake server's ``401 Bad credentials``, then ``expected ErrRevoked,
got <nil>``). An assertion among the causes keeps the tests the code's, and so does an error a test double
raised in its own words (WebMock, responses, nock), or one whose words the failing code pytest lists already
holds (a fake transport told to fail with ``ConnectionResetError(104, "Connection reset by peer")``): the
test chose that failure.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.testids import GO_FAILED, GO_STARTED
from healer.model import Action, Category, Diagnosis, Owner

# how many of a test's lines after its header are read for its cause
_AFTER = 6
# a report's header of one failing test, per rule of the framework that read it
_HEADERS: dict[str, re.Pattern[str]] = {
    "js.jest-failed": re.compile(r"^\s*● (?!Console\b).+"),
    "js.vitest-failed": re.compile(r"^\s*(?:FAIL|×)\s+\S+\.[cm]?[jt]sx? >"),
    "go.test-failed": re.compile(r"^\s*--- FAIL: \S+"),
    "jvm.surefire-failed": re.compile(r"<<< (?:FAILURE|ERROR)!\s*$"),
    "ruby.rspec-failed": re.compile(r"^\s*Failure/Error: "),
    "php.phpunit-failed": re.compile(r"^\d+\) [\w\\]+::\w+"),
    "dotnet.test-failed": re.compile(r"^\s*Error Message:\s*$"),
    "js.mocha-failed": re.compile(r"^\s*\d+\) \S"),
    "js.cypress-failed": re.compile(r"^\s*\d+\) \S"),
    "jvm.gradle-test-failed": re.compile(r"^\S.* > .+ FAILED$"),
    "rust.test-failed": re.compile(r"^---- \S+ stdout ----$"),
}
# a cause that is an assertion is the test's finding, whatever error code it names
# (Go's own convention for a test's message is "got X, want Y", or "Foo(x) = y; want z": its wiki, "Go Test
# Comments", Useful Test Failures; a message may set them out on lines of their own, "want: X", "got: Y";
# gotests' generated tests say "Foo() error = %v, wantErr %v")
_ASSERTION = re.compile(
    r"\bAssert(?:ion)?(?:Error|Failed|FailedError)?\b|\bexpected\b|\bgot\b.{0,300}\bwant\b"
    r"|(?:\)|\b\w+)(?: error)? = .{1,300}[;,] want(?:Err)?\b|\bwant: ",
    re.IGNORECASE,
)
# an error a test double raised, in the double's own words, is the test's doing, not the world's: WebMock's
# `to_raise`/`to_timeout` ("Exception from WebMock") and its refusal of a request no stub matches ("Real HTTP
# connections are disabled"), the responses library's "Connection refused by Responses", nock's "Nock: No
# match for request" and "Nock: Disallowed net connect" (each library's README)
_TEST_DOUBLE = re.compile(
    r"Exception from WebMock|Real HTTP connections are disabled|Connection refused by Responses"
    r"|Nock: (?:No match for request|Disallowed net connect)"
)
# a failing test that ran under an HTTP mocking library, as pytest prints its source and fixtures (responses'
# `@responses.activate` and RequestsMock, requests-mock's Mocker, respx's `@respx.mock`, httpretty,
# aioresponses, VCR.py's cassettes, and the `respx_mock`, `httpx_mock` and `requests_mock` fixtures: each
# library's documented API): any answer it got came from the test's double (the rule
# python.pytest-network-only vetoes on the same marks)
_HTTP_DOUBLE = re.compile(
    r"@responses\.activate\b|\bresponses\.RequestsMock\(|<responses\.RequestsMock object at "
    r"|@requests_mock\.Mocker\b|<requests_mock\.mocker\.Mocker object at |@respx\.mock\b"
    r"|@httpretty\.activate\b|@aioresponses\(|\bwith aioresponses\(|@pytest\.mark\.vcr\b|\.use_cassette\("
    # the libraries' pytest fixtures, as pytest prints a failing test's arguments (`respx_mock = <…>`)
    r"|^\s*(?:respx_mock|httpx_mock|requests_mock) = <"
)
# go test -v: a message a test wrote (`    client_test.go:88: …`; its start and its failure are testids'
# GO_STARTED and GO_FAILED)
_GO_MESSAGE = re.compile(r"^\s+[\w.-]+\.go:\d+: \S")
# the mark of a pytest cause the failing test's own source lines already name (the test staged it)
STAGED = " [staged by the test]"
# an error's cause, printed under it (Vitest, Node's error.cause)
_CAUSED_BY = re.compile(r"^\s*Caused by: ")
# lines under a header that are not its cause: blank, a code frame, a stack frame, go's own bookkeeping, the
# runner's own lines
_NOT_CAUSE = re.compile(
    r"^\s*(?:$|>?\s*\d+ \||\|\s|at |# |\^|--- |=== |FAIL\b|PASS\b|ok\s|Stack Trace:|Failure/Error:|##\["
    # testify's failure report names where first ("Error Trace:"), then the error ("Error: …")
    r"|Error Trace:)"
)
# the network failed (DNS, a timeout, a reset, a server busy or down): names from the platforms' own errors
# (Node's getaddrinfo and socket codes, Go's net package, Java's java.net exceptions, libcurl's errors 6, 7
# with a timeout, 28 and 35, Ruby's SocketError and Net::OpenTimeout, .NET's HttpRequestException)
NETWORK = re.compile(
    r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\b(?:ETIMEDOUT|ECONNRESET|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH)\b"
    r"|Name or service not known|Temporary failure in name resolution|nodename nor servname provided"
    r"|\bno such host\b|\bi/o timeout\b|TLS handshake timeout|[Cc]onnection reset by peer"
    r"|An existing connection was forcibly closed by the remote host"
    # Go's net/http client giving up on a server (its Client.Timeout: "request canceled while waiting for
    # connection (Client.Timeout exceeded while awaiting headers)"), as Docker's daemon quotes it
    r"|Client\.Timeout exceeded while awaiting headers"
    r"|[Cc]onnection timed out|[Nn]etwork is unreachable|UnknownHostException|SocketTimeoutException"
    r"|ConnectTimeoutException|Could not resolve host|cURL error (?:6|28|35)\b|Net::(?:Open|Read)Timeout"
    r"|\b(?:502 Bad Gateway|503 Service (?:Temporarily )?Unavailable|504 Gateway Time-?out)\b"
    r"|\b429 Too Many Requests\b"
    # requests' Response.raise_for_status, as libraries built on it raise it ("503 Server Error: Service
    # Unavailable for url: https://…")
    r"|\b(?:50[234] Server|429 Client) Error: .{0,100} for url: https?://"
    # GitHub's API past its rate limit ("API rate limit exceeded for 20.1.2.3", a 403 "rate limit exceeded")
    r"|\bAPI rate limit exceeded\b|\b(?:403|429) Client Error: rate limit exceeded for url: https?://"
    # Docker's daemon when a registry answers a pull with a server error (moby's "received unexpected HTTP
    # status: 500 Internal Server Error"), as a test that starts a container quotes it
    r"|received unexpected HTTP status: (?:429|5\d\d)\b"
)
# a loopback address (RFC 1122's 127.0.0.0/8, RFC 4291's ::1, and the name localhost), as a URL or an error
# names it, and a host under a top-level domain no public resolver answers (RFC 2606, RFC 6762's .local)
_LOOPBACK = r"(?<![\w.])(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])(?![\w.-])"
# and a URL whose host is a name of one label (`http://testserver/…`, the in-process TestClient's; `http://api:8080/`,
# a service container's alias): only the job's own network or the test's client knows such a name
_NEVER_OUT = re.compile(
    _LOOPBACK + r"|(?<![\w.-])(?:[a-z0-9-]+\.)+(?:test|example|invalid|localhost|local)(?![\w.-])"
    r"|\bhttps?://[a-z0-9-]+(?::\d+)?(?:/|$)",
    re.IGNORECASE,
)
# a name lookup that failed, with the name: Node's getaddrinfo, Go's resolver, curl, Java's, libpq's; a name
# of one label (`postgres`) is a service the job's own network names (a container's alias), never a public
# host
_LOOKUP = re.compile(
    r"getaddrinfo (?:ENOTFOUND|EAI_AGAIN) (?P<node>[\w.-]+)"
    r"|\blookup (?P<go>[\w.-]+)(?: on \S+)?: no such host|Could not resolve host: (?P<curl>[\w.-]+)"
    r"|UnknownHostException: (?P<java>[\w.-]+)"
    # libpq's ('could not translate host name "db" to address: Name or service not known')
    r'|could not translate host name "(?P<libpq>[\w.-]+)"'
)


def _never_out(cause: str) -> bool:
    """Whether a network error ``cause`` names an address or a name that never leaves the machine or the
    job's own network."""
    if _NEVER_OUT.search(cause):
        return True
    looked = _LOOKUP.search(cause)
    name: str = next(filter(None, looked.groups()), "") if looked else ""
    return bool(name) and "." not in name


# an HTTP server's refusal (RFC 9110's 401 and 403), which a server the test started may give as its fixture
_HTTP_REFUSAL = re.compile(r"\b40[13]\b|\bUnauthori[sz]ed\b|\bForbidden\b|\bBad credentials\b")


_IS_LOOPBACK = re.compile(_LOOPBACK, re.IGNORECASE)


def _served_by_the_test(cause: str) -> bool:
    """Whether ``cause`` is an HTTP refusal from a loopback address: a server the test started answered, not a
    service the job's secret is for (a database the job runs refusing its login is still the job's
    credential, and a name under a reserved domain, ``api.example``, may stand for a real service)."""
    return bool(_HTTP_REFUSAL.search(cause)) and bool(_IS_LOOPBACK.search(cause))


# a credential was refused or missing: HTTP 401/403 (RFC 9110), the SDKs' authentication errors, a secret
# said to be empty
CREDENTIAL = re.compile(
    r"\b401\b.{0,30}\bUnauthori[sz]ed\b|\bUnauthori[sz]ed\b.{0,30}\b401\b|\b403\b.{0,30}\bForbidden\b"
    r"|\bBad credentials\b|\b(?:invalid|incorrect) API key\b|\bAPI key not valid\b|\bAuthenticationError\b"
    r"|\bInvalidClientTokenId\b|\bNoCredentialsError\b|\bUnable to locate credentials\b"
    # the AWS SDK for Java's credential chain with nothing to load (v2's SdkClientException, v1's
    # AmazonClientException): no AWS secret reached the job
    r"|\bUnable to load (?:AWS )?credentials from any (?:of the providers|provider) in the chain\b"
    # the AWS APIs' codes for a key that does not exist or a secret that does not match it (the S3 error-code
    # reference), and the AWS SDK for Go v2 with no credentials at all ("no EC2 IMDS role found")
    r"|\b(?:InvalidAccessKeyId|SignatureDoesNotMatch)\b|\bno EC2 IMDS role found\b"
    # huggingface_hub's refusal of a gated model to a request without a token that may read it, as its
    # GatedRepoError and transformers' OSError word it
    r"|\bGatedRepoError\b|\bCannot access gated repo\b|\bYou are trying to access a gated repo\b"
    r"|\b[A-Z][A-Z0-9_]*(?:SECRET|TOKEN|_KEY|APIKEY|PASSWORD|CREDENTIALS)\b.{0,40}"
    r"\b(?:is|was|are) (?:empty|not set|unset|missing)\b"
    # a database refused the login (PostgreSQL's libpq messages, MySQL's ER_ACCESS_DENIED_ERROR 1045)
    r"|\bFATAL: +(?:role \"[^\"]+\" does not exist|password authentication failed for user)"
    r"|\bAccess denied for user '[^']*'@'[^']*'",
    re.IGNORECASE,
)

# a program refusing to start without a variable or secret the job did not set
UNSET = re.compile(
    r"(?i)\b(?:environment variable|env var|secret)s?\b.{0,80}"
    r"\b(?:not set|missing|required|undefined|empty)\b"
    r"|\b(?:missing|required|not set)\b.{0,40}\b(?:environment variable|env var|secret)s?\b"
    # or names it ("AWS_ACCESS_KEY_ID is not set", "Missing NPM_TOKEN")
    r"|(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b).{0,20}\b(?:not set|missing|required|undefined|empty|must be set)\b"
    r"|\b(?:missing|required|not set)\b.{0,20}(?-i:\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b)"
)


# pytest's short summary (``-r``): one line a failed or erroring test, its cause after " - " (a collection
# error of the whole session names no path: ``ERROR  - AttributeError: …``)
_PYTEST_SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?:\S+ )?- (?P<cause>\S.*)$")
# pytest's header of a failure's section (`____ test_a ____`, `____ TestX.test_a[1] ____`) and of the sections
# that end the failures (`==== short test summary info ====`, the totals), and its exception lines (`E   …`)
_PYTEST_SECTION = re.compile(r"^_{3,} (?!ERROR collecting\b)\S.*? _{3,}$")
_PYTEST_END = re.compile(r"^={3,} ")
_PYTEST_E = re.compile(r"^E {1,8}(?P<cause>\S.*)$")
_PYTEST_RULES = frozenset({"python.pytest-failed"})


def failure_causes(rule: str, lines: Sequence[str]) -> list[str] | None:
    """What stopped each failing test (its header's first cause line, at most a few lines under it), in the
    report of the framework ``rule`` read; None when the framework is not one this module reads, or a
    failing test shows no cause line."""
    if rule in _PYTEST_RULES:
        return _pytest_causes(lines)
    header = _HEADERS.get(rule)
    if header is None:
        return None
    causes: list[str] = []
    for at, line in enumerate(lines):
        if not header.search(line):
            continue
        under = [c for c in lines[at + 1 : at + 1 + _AFTER] if not _NOT_CAUSE.match(c)]
        if not under or header.search(under[0]):
            return None  # a test whose cause is not under it: the report cannot be split safely
        cause, more = under[0].strip(), iter(under[1:4])
        # an exception's class on a line of its own (RSpec), then its message; a Go test's `file_test.go:31:`
        # and testify's "Error: Received unexpected error:", then the error
        while cause.endswith(":") and (after := next(more, None)) is not None:
            cause += " " + after.strip()
        caused = next((c for c in under[1:] if _CAUSED_BY.match(c)), None)
        if caused is not None:
            cause += " " + caused.strip()
        # a Go test writes its logs and its errors alike (`file_test.go:77: …`): a later message of the test
        # that is an assertion is what failed it, whatever its first message logged
        if rule == "go.test-failed" and not _ASSERTION.search(cause):
            cause = next(
                (m.strip() for m in under[1:] if _GO_MESSAGE.match(m) and _ASSERTION.search(m)), cause
            )
        causes.append(cause)
    return causes or None


def _go_verbose_causes(lines: Sequence[str]) -> list[str] | None:
    """``go test -v``'s causes: it writes a test's messages as they come, between its ``=== RUN   TestX`` and
    its ``--- FAIL: TestX (…)`` (the ``testing`` package's documentation), so each failing test's cause is its
    messages there (``file_test.go:88: attempts = 1, want 3``), at most a few, together; None when a failing
    test wrote none. Its logs (``t.Log``) and errors look alike there, so these show an assertion
    (:func:`judged_by_the_tests`) but never that the world stopped the test."""
    causes: list[str] = []
    started: dict[str, int] = {}
    for at, line in enumerate(lines):
        if found := GO_STARTED.match(line.strip()):
            started.setdefault(found.group("name"), at)
        elif found := GO_FAILED.match(line):
            begin = started.get(found.group("name"))
            said = (
                [m.strip() for m in lines[begin + 1 : at] if _GO_MESSAGE.match(m)]
                if begin is not None
                else []
            )
            if not said:
                return None
            causes.append(" ".join(said[:_AFTER]))
    return causes or None


def _pytest_causes(lines: Sequence[str]) -> list[str] | None:
    """The first ``E`` line of each failure's section in pytest's report; None when a section has none. A
    cause whose network or credential words the section's source lines already hold (pytest lists the code
    of the failing frames: ``fake.fail_with(ConnectionResetError(104, "Connection reset by peer"))``), or
    whose test ran under an HTTP mocking library (``@responses.activate``), was staged by the test and is
    marked :data:`STAGED`."""
    causes: list[str] = []
    section = False
    source: list[str] = []
    for raw in lines:
        line = raw.strip()
        if _PYTEST_SECTION.match(line):
            if section:
                return None  # the previous failure showed no exception line
            section, source = True, []
        elif section and (match := _PYTEST_E.match(line)):
            cause = match.group("cause")
            said = [p for p in (NETWORK, CREDENTIAL) if p.search(cause)]
            staged = any(p.search(s) for p in said for s in source) or (
                bool(said) and any(_HTTP_DOUBLE.search(s) for s in source)
            )
            causes.append(cause + STAGED if staged else cause)
            section = False
        elif section and _PYTEST_END.match(line):
            return None
        elif section:
            source.append(line)
    return None if section else causes or None


def pytest_summary_causes(lines: Sequence[str]) -> list[str]:
    """The cause of each line of pytest's short summary (``FAILED tests/x.py::t - cause``), in order."""
    return [
        found.group("cause") for raw in lines if (found := _PYTEST_SUMMARY.match(clean_line(raw).strip()))
    ]


def judged_by_the_tests(rule: str, step_lines: Sequence[str]) -> bool:
    """Whether the report of the framework ``rule`` read names a cause under each failing test and every one
    is the test's own finding: an assertion, an error a test double raised in its own words, or one the test
    staged (:data:`STAGED`). The tests ran and found the code wrong, whatever words of a full disk, a busy
    server or a missing secret their captured output, the code's own log lines or passing tests' titles
    show."""
    verbose = rule == "go.test-failed" and any("=== RUN" in line for line in step_lines)
    causes = _go_verbose_causes(step_lines) if verbose else failure_causes(rule, step_lines)
    # a refused credential whose words the test's source holds may still be the job's missing secret (the
    # source names the key it reads): not counted as the test's own here
    return bool(causes) and all(_their_own(c, credentials=False) for c in causes or ())


def _their_own(cause: str, *, credentials: bool = True) -> bool:
    if _ASSERTION.search(cause) or _TEST_DOUBLE.search(cause):
        return True
    return cause.endswith(STAGED) and (credentials or not CREDENTIAL.search(cause))


def failed_on_the_world(diagnosis: Diagnosis, step_lines: Iterable[str]) -> Diagnosis:
    """A test failure whose every failing test stopped on the network is the platform's (re-run); on a
    refused or missing credential, the repository's (escalate). Anything else stays as it is."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category is not Category.TEST:
        return diagnosis
    if diagnosis.rule not in _HEADERS and diagnosis.rule not in _PYTEST_RULES:
        return diagnosis
    causes = failure_causes(diagnosis.rule, list(step_lines))
    if not causes or any(_their_own(c) for c in causes):
        return diagnosis
    if all(NETWORK.search(c) and not CREDENTIAL.search(c) and not _never_out(c) for c in causes):
        owner, kind, action, said = Owner.PLATFORM, Category.TRANSIENT, Action.RERUN, "the network"
    elif all(CREDENTIAL.search(c) and not _served_by_the_test(c) for c in causes):
        owner, kind, action, said = Owner.REPOSITORY, Category.CONFIG, Action.ESCALATE, "a credential"
    else:
        return diagnosis
    shown = causes[0][:160]
    said = f"every failing test ({len(causes)}) stopped on {said}, first: {shown}"
    return reread(diagnosis, owner, kind, action, said)
