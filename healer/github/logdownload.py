"""A job's log: the API's redirect to a short-lived signed URL, and the tail read from it.

PyGithub would follow the redirect with its own rules, so both hops are made here with ``requests``: the
redirect is not followed automatically; its target must be https (plain http only when the API itself is
plain http on a loopback address) and is fetched *without* the Authorization header.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

import requests

from healer.github.errors import GitHubError, number
from healer.github.transport import Transport, is_loopback_http
from healer.logs import TailBuffer, decode_log
from healer.model import LogTail

LOG_READ_LIMIT = 32 * 1024 * 1024  # at most this many log bytes are read from the network
LOG_KEEP_LIMIT = 256 * 1024  # and at most this many kept, whatever keep_bytes asks
LOG_CUT_PREFIX = "[ci-healer] log cut:"


def download_log_tail(client: Transport, job_id: int, keep_bytes: int = LOG_KEEP_LIMIT) -> LogTail:
    """The tail of a job's log, at most ``keep_bytes`` (capped at 256 KiB) of it.

    ``GET /actions/jobs/{id}/logs`` answers with a redirect to a short-lived signed URL. PyGithub would
    follow it with its own rules, so both hops are made here: the redirect is not followed
    automatically; its target must be https (plain http only when the API itself is plain http on a
    loopback address) and is fetched *without* the Authorization header, asking only for the tail
    (``Range: bytes=-N``). When the server sends the whole log anyway it is streamed: at most 32 MiB are
    read and the last ``keep_bytes`` kept. A cut is said in the first line of the text.
    """
    keep = max(1, min(keep_bytes, LOG_KEEP_LIMIT))
    what = f"download the log of job {job_id}"
    url = f"{client.api_url}{client.repo_path}/actions/jobs/{job_id}/logs"
    response = client.send_raw(client.api_session, url, {}, what=what, need="actions: read")
    with response:
        if response.status_code == 200:
            # Some servers (proxies in front of GitHub Enterprise Server, stand-ins) send the log itself
            # instead of a redirect: it comes from the API host, so it is read like a whole-body answer.
            return read_tail(response, keep)
        if response.status_code not in (301, 302, 303, 307, 308):
            raise GitHubError(
                f"GitHub answered {response.status_code} instead of a redirect to the log of job {job_id}"
            )
        location = response.headers.get("Location", "")
    target = urljoin(url, location)
    check_log_url(client.api_url, target, job_id)
    # The signed URL is a short-lived credential of its own: it is fetched once and never shown.
    response = client.send_raw(
        client.log_session,
        target,
        {"Range": f"bytes=-{keep}", "Accept-Encoding": "identity"},
        what=what,
        need="actions: read",
        signed=True,
    )
    with response:
        if response.status_code == 416:  # an empty log has no suffix to give
            return LogTail(text="", bytes_read=0, truncated=False)
        if response.status_code not in (200, 206):
            raise GitHubError(
                f"the signed URL of job {job_id}'s log answered {response.status_code}; the download "
                "failed, try re-running the healer",
                status=response.status_code,
            )
        return read_tail(response, keep)


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


def read_tail(response: requests.Response, keep: int) -> LogTail:
    """Stream a log answer, reading at most LOG_READ_LIMIT bytes and keeping the last ``keep``."""
    total: int | None = None
    start = 0
    if response.status_code == 206:
        # Content-Range: bytes 12345-67890/67891
        found = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", response.headers.get("Content-Range", "").strip())
        if found:
            start = int(found.group(1))
            total = int(found.group(3)) if found.group(3) != "*" else None
    else:
        length = number(response.headers.get("Content-Length"))
        total = int(length) if length is not None else None
    tail = TailBuffer(keep)
    stopped = False
    for chunk in response.iter_content(chunk_size=64 * 1024):
        tail.feed(chunk)
        if tail.total_bytes >= LOG_READ_LIMIT:
            stopped = True
            break
    read = tail.total_bytes
    window = tail.window()
    kept_from = start + read - len(window)
    if total is None and not stopped:
        total = start + read
    truncated = kept_from > 0 or stopped
    # the first kept line is probably partial: decode_log drops it (or keeps the end of a huge one)
    text = decode_log(window, truncated=truncated)
    if not truncated:
        return LogTail(text=text, bytes_read=read, truncated=False)
    kept = len(text.encode("utf-8", errors="replace"))
    of = f"{total:,}" if total is not None else "an unknown number of"
    note = f"{LOG_CUT_PREFIX} kept the last {kept:,} bytes of {of}"
    if stopped:
        note = (
            f"{LOG_CUT_PREFIX} kept {kept:,} bytes ending at byte {start + read:,} of {of}: the server sent "
            f"the whole log and reading stopped at {LOG_READ_LIMIT // 2**20} MiB, so its end is missing"
        )
    return LogTail(text=f"{note}\n{text}", bytes_read=read, truncated=True)
