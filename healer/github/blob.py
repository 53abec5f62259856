"""GitHub's job log as a :class:`~healer.logsource.LogSource`, read in byte ranges from the blob store.

``GET /actions/jobs/{id}/logs`` answers 302 to a signed blob URL that lives about a minute. On github.com that
is Azure Blob Storage, which honours ``Range: bytes=<start>-`` and ``bytes=<start>-<end>`` but not the
suffix form ``bytes=-<n>`` (it sends the whole blob with 200; "Specifying the range header for Blob service
operations" in Azure's Storage REST documentation). So the size is learnt first, from the ``Content-Range``
of a first range (``bytes 0-65535/<size>``), and every later read names its start and end. That first range
is :data:`FIRST_READ` bytes rather than one: most job logs are smaller, and are read whole in that request.

Other servers (GitHub Enterprise Server's storage, proxies) may ignore ``Range`` and send the whole log:
that body is streamed once, bounded, and only its retained tail is served
(:class:`~healer.logsource.TailLogSource`).
An expired or refused signed URL (403, 404 or 410) is renewed by asking the API for a fresh redirect, at most
:data:`MAX_URL_RENEWALS` times per log.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import requests

from healer.github.errors import GitHubError, number
from healer.github.transport import Transport, is_loopback_http
from healer.logsource import (
    DEFAULT_READ_LIMIT,
    STREAM_LIMIT,
    TailLogSource,
    clamp,
    parse_content_range,
    unsatisfied_size,
)

FIRST_READ = 64 * 1024  # the first range: it gives the size, and a log this small is read whole
MAX_URL_RENEWALS = 2  # fresh signed URLs asked for per log after the first one expired or was refused
_CHUNK = 64 * 1024
_REDIRECTS = (301, 302, 303, 307, 308)


class BlobLogSource:
    """The log of one job: ``size`` is known after construction (None only when the server ignored ``Range``
    and did not say the length), ``read`` fetches ranges until :attr:`limit` bytes have moved.

    A server that ignores ``Range`` is streamed up to the larger of ``stream_limit`` and ``limit``, keeping
    the last ``limit`` bytes. ``bytes_read`` counts the log bytes moved over the network for this log (all
    requests, the fallback's stream included); ``renewals`` the fresh signed URLs asked for. Raises
    :class:`GitHubError` when the log cannot be had.
    """

    def __init__(
        self,
        client: Transport,
        job_id: int,
        *,
        limit: int = DEFAULT_READ_LIMIT,
        stream_limit: int = STREAM_LIMIT,
    ) -> None:
        self._client = client
        self.job_id = job_id
        self.limit = max(1, limit)
        self._stream_limit = max(stream_limit, self.limit)
        self.size: int | None = None
        self.bytes_read = 0
        self.renewals = 0
        self.fallback: TailLogSource | None = None
        self._what = f"download the log of job {job_id}"
        self._api_url = f"{client.api_url}{client.repo_path}/actions/jobs/{job_id}/logs"
        self._head = b""  # the first range, kept: reads inside it cost nothing
        self._url = self._redirect()
        if self._url is not None:
            self._first_read()

    @property
    def budget_left(self) -> int:
        """Bytes that may still move before reads return nothing."""
        return max(0, self.limit - self.bytes_read)

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)``; fewer past the end of the log, when the budget runs out, or, after a server
        ignored ``Range``, outside the retained tail. What is returned is always the *end* of the range, so
        that a reader going backwards from the end of the log stays contiguous."""
        if self.fallback is not None:
            return self.fallback.read(start, end)
        start, end = clamp(start, end, self.size)
        if start < len(self._head) and start < end:  # the first range is held: only the rest costs a request
            rest = self.read(len(self._head), end) if end > len(self._head) else b""
            if len(rest) < end - max(start, len(self._head)):
                return rest  # the rest was cut: its end is what a backward reader can join
            return self._head[start : min(end, len(self._head))] + rest
        start = max(start, end - self.budget_left)
        if start >= end:
            return b""
        response = self._ranged(start, end - 1)
        with response:
            if response.status_code == 416:
                return b""
            if response.status_code == 200:
                self._stream(response, offset=0)
                return self.fallback.read(start, end) if self.fallback is not None else b""
            given = parse_content_range(response.headers.get("Content-Range", ""))
            if given is None or given[0] != start:
                raise GitHubError(
                    f"the log of job {self.job_id} answered a range other than the one asked "
                    f"for (bytes {start}-{end - 1}); the download failed, try re-running the healer"
                )
            return self._body(response, end - start)

    # -- the requests --------------------------------------------------------------------------------------
    def _redirect(self) -> str | None:
        """The signed URL from the API; None when the API sent the log itself (then it is the fallback)."""
        client = self._client
        response = client.send_raw(
            client.api_session, self._api_url, {}, what=self._what, need="actions: read"
        )
        with response:
            if response.status_code == 200:
                # Some servers (proxies in front of GitHub Enterprise Server, stand-ins) send the log itself
                # instead of a redirect: it comes from the API host, so it is read like a whole-body answer.
                self._stream(response, offset=0)
                return None
            if response.status_code not in _REDIRECTS:
                raise GitHubError(
                    f"GitHub answered {response.status_code} instead of a redirect to the log of job "
                    f"{self.job_id}"
                )
            target = urljoin(self._api_url, response.headers.get("Location", ""))
        check_log_url(client.api_url, target, self.job_id)
        return target

    def _first_read(self) -> None:
        response = self._ranged(0, FIRST_READ - 1)
        with response:
            if response.status_code == 416:  # an empty blob has no byte 0
                self.size = unsatisfied_size(response.headers.get("Content-Range", "")) or 0
                return
            if response.status_code == 200:  # Range ignored: this is the whole log
                self._stream(response, offset=0)
                return
            given = parse_content_range(response.headers.get("Content-Range", ""))
            if given is None or given[0] != 0 or given[2] is None:
                # no size to plan ranges with: read it like a server that ignores Range
                response.close()
                self._stream_whole()
                return
            self.size = given[2]
            self._head = self._body(response, min(FIRST_READ, given[2]))

    def _ranged(self, first: int, last: int) -> requests.Response:
        """A GET of ``bytes=first-last`` (inclusive) from the signed URL, renewing an expired URL."""
        while True:
            assert self._url is not None
            try:
                return self._client.send_raw(
                    self._client.log_session,
                    self._url,
                    {"Range": f"bytes={first}-{last}", "Accept-Encoding": "identity"},
                    what=self._what,
                    need="actions: read",
                    signed=True,
                )
            except GitHubError as exc:
                if exc.status not in (403, 404, 410) or self.renewals >= MAX_URL_RENEWALS:
                    raise
            # The URL lives about a minute: a slow run (or a retried request) outlives it. Ask for a new one.
            self.renewals += 1
            self._url = self._redirect()
            if self._url is None:
                raise GitHubError(
                    f"the log of job {self.job_id} changed how it is served during the download"
                )

    def _stream_whole(self) -> None:
        assert self._url is not None
        response = self._client.send_raw(
            self._client.log_session,
            self._url,
            {"Accept-Encoding": "identity"},
            what=self._what,
            need="actions: read",
            signed=True,
        )
        with response:
            self._stream(response, offset=0)

    def _stream(self, response: requests.Response, *, offset: int) -> None:
        """Keep the retained tail of a whole-body answer (read at most the larger of 32 MiB and the limit)."""
        length = number(response.headers.get("Content-Length"))
        declared = offset + int(length) if length is not None else None
        self.fallback = TailLogSource.from_chunks(
            response.iter_content(chunk_size=_CHUNK),
            keep=self.limit,
            stream_limit=self._stream_limit,
            offset=offset,
            size=declared,
        )
        self.bytes_read += self.fallback.bytes_read
        self.size = self.fallback.size

    def _body(self, response: requests.Response, length: int) -> bytes:
        """At most ``length`` bytes of a range's body (a server may send more than asked; it is not read)."""
        data = bytearray()
        for chunk in response.iter_content(chunk_size=_CHUNK):
            data += chunk[: length - len(data)]
            if len(data) >= length:
                break
        self.bytes_read += len(data)
        return bytes(data)


def check_log_url(api_url: str, target: str, job_id: int) -> None:
    """Refuse a log URL that is not https (plain http only from a loopback API to a loopback URL)."""
    parts = urlsplit(target)
    if parts.scheme == "https" and parts.hostname:
        return
    if parts.scheme == "http" and is_loopback_http(api_url) and is_loopback_http(target):
        return
    # the host is named, the signed query string (a credential) is not
    raise GitHubError(
        f"the log of job {job_id} redirects to {parts.scheme or 'a relative'} URL on {parts.hostname!r}, "
        "not https; the healer refuses to fetch logs over an insecure connection"
    )
