"""A job's log read from the blob store the way github.com serves it (`healer.github.blob`).

The log endpoint answers 302 to a signed Azure Blob Storage URL. :class:`AzureBlob` answers ``Range`` as Azure
documents it ("Specifying the range header for Blob service operations",
https://learn.microsoft.com/rest/api/storageservices/specifying-the-range-header-for-blob-service-operations):
``bytes=<start>-`` and ``bytes=<start>-<end>`` get 206 with ``Content-Range: bytes <start>-<end>/<size>``; the
suffix form ``bytes=-<n>`` is not among the supported forms, so the whole blob comes back with 200. A signed
URL past its expiry answers 403 ``AuthenticationFailed``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import responses
from openapi_contract import check_response, url_pattern
from test_github import API, BASE, REPO, SIGNED, TOKEN, Sleeps, error, fake, gh, sleeps

from healer.github import LOG_CUT_PREFIX, GitHub, GitHubError, logdownload
from healer.github.blob import FIRST_READ, MAX_URL_RENEWALS

__all__ = ["gh", "sleeps"]  # fixtures shared with test_github (rsps is conftest.py's)

LOG_PATH = "/actions/jobs/399444496/logs"
FAILURE = b"2024-01-01T00:00:00Z ##[error]Process completed with exit code 1.\n"


def a_log(size: int, *, ending: bytes = FAILURE) -> bytes:
    """``size`` bytes of timestamped build lines ending with ``ending``."""
    line = b"2024-01-01T00:00:00Z compiling module 00000 of the project, nothing wrong here\n"
    body = line * ((size - len(ending)) // len(line) + 1)
    return body[: size - len(ending)] + ending


class AzureBlob:
    """A blob behind a signed URL, answering as Azure Blob Storage does (see the module docstring).

    ``ranges=False`` models a server that ignores ``Range`` entirely; ``expired`` is how many requests answer
    403 as an expired signature before it serves again. ``sent`` counts body bytes, ``ranges_asked`` the
    ``Range`` headers received.
    """

    def __init__(self, data: bytes, *, ranges: bool = True, expired: int = 0) -> None:
        self.data = data
        self.ranges = ranges
        self.expired = expired
        self.sent = 0
        self.ranges_asked: list[str | None] = []
        self.authorization: list[str | None] = []

    def __call__(self, request: Any) -> tuple[int, dict[str, str], bytes]:
        header = request.headers.get("Range")
        self.ranges_asked.append(header)
        self.authorization.append(request.headers.get("Authorization"))
        if self.expired > 0:
            self.expired -= 1
            return (
                403,
                {},
                b"<Error><Code>AuthenticationFailed</Code><Message>Signed expiry time</Message></Error>",
            )
        size = len(self.data)
        found = re.fullmatch(r"bytes=(\d+)-(\d*)", header or "") if self.ranges else None
        if found is None:  # no Range, the unsupported suffix form, or Range ignored: the whole blob
            self.sent += size
            return 200, {"Content-Length": str(size)}, self.data
        start = int(found.group(1))
        end = min(int(found.group(2)), size - 1) if found.group(2) else size - 1
        if start >= size:
            return 416, {"Content-Range": f"bytes */{size}"}, b""
        body = self.data[start : end + 1]
        self.sent += len(body)
        return 206, {"Content-Range": f"bytes {start}-{end}/{size}", "Content-Length": str(len(body))}, body


def serve(rsps: responses.RequestsMock, blob: AzureBlob, *, base: str = BASE, location: str = SIGNED) -> None:
    check_response("GET", base + LOG_PATH, 302, None)
    rsps.add("GET", base + LOG_PATH, status=302, headers={"Location": location})
    rsps.add_callback("GET", location, callback=blob)


def test_the_suffix_form_is_never_sent_and_a_large_log_moves_its_first_range_and_the_window(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    data = a_log(41 * 1024 * 1024)
    blob = AzureBlob(data)
    serve(rsps, blob)
    log = gh.download_log_tail(399444496)
    size = len(data)
    assert blob.ranges_asked == [f"bytes=0-{FIRST_READ - 1}", f"bytes={size - 256 * 1024}-{size - 1}"]
    assert blob.sent == FIRST_READ + 256 * 1024 == log.bytes_read  # 320 KiB of 41 MiB
    assert log.text.endswith(FAILURE.decode()) and log.truncated
    first = log.text.split("\n", 1)[0]
    assert first.startswith(LOG_CUT_PREFIX) and f"of {size:,}" in first
    assert gh.request_count == 3
    assert blob.authorization == [None, None]  # the signed URL never sees the token
    assert rsps.calls[0].request.headers["Authorization"] == f"token {TOKEN}"


def test_a_log_smaller_than_the_first_range_costs_one_blob_request(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    blob = AzureBlob(b"line 1\nline 2\n")
    serve(rsps, blob)
    log = gh.download_log_tail(399444496)
    assert (log.text, log.truncated, log.bytes_read) == ("line 1\nline 2\n", False, 14)
    assert gh.request_count == 2


def test_an_empty_log_is_empty(rsps: responses.RequestsMock, gh: GitHub) -> None:
    serve(rsps, AzureBlob(b""))
    log = gh.download_log_tail(399444496)
    assert (log.text, log.truncated, log.bytes_read) == ("", False, 0)


def test_a_log_ending_in_one_huge_line_keeps_the_end_of_that_line(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    tail = b"y" * 4000 + b" Error: bundle too large\n##[error]Process completed with exit code 1.\n"
    serve(rsps, AzureBlob(b"x" * 1_000_000 + tail))
    log = gh.download_log_tail(399444496, keep_bytes=len(tail))
    lines = log.text.splitlines()
    assert lines[0].startswith(LOG_CUT_PREFIX)
    assert lines[1].endswith("Error: bundle too large")
    assert lines[2] == "##[error]Process completed with exit code 1."


def test_a_server_that_ignores_range_is_streamed_once_and_its_tail_kept(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    body = b"".join(b"line %07d\n" % i for i in range(100_000))  # 1.2 MB
    blob = AzureBlob(body, ranges=False)
    serve(rsps, blob)
    log = gh.download_log_tail(399444496, keep_bytes=64 * 1024)
    first, rest = log.text.split("\n", 1)
    assert first == f"{LOG_CUT_PREFIX} kept the last {len(rest.encode()):,} bytes of {len(body):,}"
    assert rest.endswith("line 0099999\n") and rest.startswith("line ")
    assert len(rest) <= 64 * 1024
    assert log.truncated and log.bytes_read == len(body) == blob.sent
    assert gh.request_count == 2  # the first range's 200 is the whole log: nothing is asked twice


def test_a_log_sent_directly_instead_of_a_redirect_is_read_for_its_tail(gh: GitHub) -> None:
    # Not GitHub's contract (it redirects), so no contract check: some proxies and stand-ins answer this way.
    body = b"".join(b"line %07d\n" % i for i in range(20_000))
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add("GET", url_pattern(BASE + LOG_PATH), body=body, status=200)
        log = gh.download_log_tail(399444496, keep_bytes=4096)
    assert log.truncated and log.text.split("\n", 1)[1].endswith("line 0019999\n")
    assert gh.request_count == 1


def test_a_whole_body_is_read_bounded(
    rsps: responses.RequestsMock, gh: GitHub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logdownload, "LOG_READ_LIMIT", 256 * 1024)
    serve(rsps, AzureBlob(b"y\n" * (1024 * 1024), ranges=False))
    log = gh.download_log_tail(399444496, keep_bytes=1024, read_limit=64 * 1024)
    assert log.bytes_read == 256 * 1024
    first = log.text.split("\n", 1)[0]
    assert "reading stopped at" in first and "its end is missing" in first and "of 2,097,152" in first


def test_an_expired_signed_url_is_renewed_through_the_api(
    rsps: responses.RequestsMock, gh: GitHub, sleeps: Sleeps
) -> None:
    # the first range succeeds, then the URL expires (it lives about a minute) before the window is read
    data = a_log(1024 * 1024)
    blob = AzureBlob(data)
    serve(rsps, blob)
    source = gh.open_log(399444496)
    blob.expired = 1
    window = source.read(len(data) - 4096, len(data))
    assert window.endswith(FAILURE) and len(window) == 4096
    assert source.renewals == 1
    api_hops = [call for call in rsps.calls if call.request.url.startswith(API)]
    assert len(api_hops) == 2 and gh.request_count == 5  # redirect, range, 403, redirect, range
    assert sleeps.calls == []


def test_a_url_that_stays_refused_ends_with_a_clear_error(rsps: responses.RequestsMock, gh: GitHub) -> None:
    serve(rsps, AzureBlob(a_log(1000), expired=100))
    with pytest.raises(GitHubError, match="signed URL of the log answered 403: it expired"):
        gh.download_log_tail(399444496)
    assert gh.request_count == 2 * (1 + MAX_URL_RENEWALS)  # each renewal: one redirect, one refused range


def test_a_read_moves_at_most_the_limit_and_keeps_the_end_of_the_range(
    rsps: responses.RequestsMock, gh: GitHub
) -> None:
    data = a_log(2 * 1024 * 1024)
    blob = AzureBlob(data)
    serve(rsps, blob)
    source = gh.open_log(399444496, limit=FIRST_READ + 100_000)
    assert source.size == len(data)
    assert source.read(0, 1000) == data[:1000]  # inside the first range: no request
    assert gh.request_count == 2
    end = len(data) - 50_000
    # the budget covers 100,000 of the 300,000 bytes asked: the end of the range comes back, so a reader going
    # backwards joins it to what it has
    assert source.read(end - 300_000, end) == data[end - 100_000 : end]
    assert source.budget_left == 0
    assert source.read(FIRST_READ - 10, len(data)) == b""  # nothing left to join: not the held first range
    assert source.read(0, FIRST_READ) == data[:FIRST_READ]  # the held first range is free
    assert blob.sent == FIRST_READ + 100_000 == source.bytes_read


def test_a_backward_read_within_the_budget_is_contiguous(rsps: responses.RequestsMock, gh: GitHub) -> None:
    data = a_log(1024 * 1024)
    serve(rsps, AzureBlob(data))
    source = gh.open_log(399444496, limit=300_000)
    got, low = b"", len(data)
    while low > 0:
        chunk = source.read(max(0, low - 64 * 1024), low)
        if not chunk:
            break
        got, low = chunk + got, low - len(chunk)
    assert got == data[low:] and len(got) == 300_000 - FIRST_READ


@pytest.mark.parametrize(
    "location",
    [
        pytest.param("http://evil.example/logs/19?sig=secret", id="http-other-host"),
        pytest.param("http://127.0.0.1:8080/logs", id="http-loopback-but-https-api"),
        pytest.param("ftp://files.example/log", id="ftp"),
    ],
)
def test_non_https_redirect_is_refused(rsps: responses.RequestsMock, gh: GitHub, location: str) -> None:
    check_response("GET", BASE + LOG_PATH, 302, None)
    rsps.add("GET", BASE + LOG_PATH, status=302, headers={"Location": location})
    with pytest.raises(GitHubError, match="not https") as caught:
        gh.download_log_tail(399444496)
    assert "sig=secret" not in str(caught.value)
    assert gh.request_count == 1  # nothing was fetched from the insecure URL


def test_plain_http_is_accepted_on_a_loopback_api(rsps: responses.RequestsMock, sleeps: Sleeps) -> None:
    api = "http://127.0.0.1:8765"
    base = f"{api}/repos/{REPO}"
    client = GitHub(TOKEN, REPO, api_url=api, sleep=sleeps)
    serve(rsps, AzureBlob(b"ok\n"), base=base, location="http://127.0.0.1:8765/_signed/logs/19")
    assert client.download_log_tail(399444496).text == "ok\n"
    rsps.calls.reset()  # the API base differs from the fixture's: check_response checked the 302 above


def test_log_endpoint_403_names_actions_read(rsps: responses.RequestsMock, gh: GitHub) -> None:
    fake(rsps, "GET", LOG_PATH, error("Resource not accessible by integration"), status=403)
    with pytest.raises(GitHubError, match="`actions: read`"):
        gh.download_log_tail(399444496)
